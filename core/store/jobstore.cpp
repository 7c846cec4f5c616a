// JobStore: the pitwall_jobs and pitwall_job_links tables (migration 3).

#include "core/store/jobstore.h"

#include "core/store/internal/joblinks.h"
#include "core/store/internal/sqlite.h"
#include "core/store/sqlitestore.h"
#include "core/util/error.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <unistd.h>

namespace pitwall {

using store_internal::Connection;
using store_internal::ConnectionMode;
using store_internal::Statement;

namespace {

constexpr const char* kJobColumns = "job_id, kind, spec_json, state, host, pid, create_time, start_time, end_time, "
                                    "heartbeat_time, progress, progress_message, eta_seconds, exit_code, error, log_file";

JobRecord readJob(const Statement& row)
{
    JobRecord job;
    job.id = row.int64(0);
    job.kind = row.text(1);
    try {
        job.spec = Json::parse(row.text(2));
    } catch (const Json::exception&) {
        job.spec = row.text(2);
    }
    job.state = parseJobState(row.text(3)).value_or(JobState::Failed);
    job.host = row.text(4);
    job.pid = row.int64(5);
    job.createTime = row.real(6);
    job.startTime = row.optionalReal(7);
    job.endTime = row.optionalReal(8);
    job.heartbeatTime = row.optionalReal(9);
    job.progress = row.real(10);
    job.progressMessage = row.text(11);
    job.etaSeconds = row.optionalReal(12);
    if (auto code = row.optionalInt64(13))
        job.exitCode = static_cast<int>(*code);
    job.error = row.text(14);
    job.logFile = row.text(15);
    return job;
}

} // namespace

const char* jobStateName(JobState state)
{
    switch (state) {
    case JobState::Queued: return "queued";
    case JobState::Running: return "running";
    case JobState::Stopping: return "stopping";
    case JobState::Finished: return "finished";
    case JobState::Failed: return "failed";
    case JobState::Cancelled: return "cancelled";
    }
    return "failed";
}

std::optional<JobState> parseJobState(const std::string& text)
{
    for (JobState s : {JobState::Queued, JobState::Running, JobState::Stopping, JobState::Finished, JobState::Failed,
                       JobState::Cancelled})
        if (text == jobStateName(s))
            return s;
    return std::nullopt;
}

double jobElapsedSeconds(const JobRecord& j, double now)
{
    return j.startTime ? j.endTime.value_or(now) - *j.startTime : 0.0;
}

Json jobToJson(const JobRecord& j, double now)
{
    const auto optional = [](const auto& v) { return v ? Json(*v) : Json(nullptr); };
    Json links = Json::array();
    for (const JobLink& l : j.links)
        links.push_back({{"kind", l.kind}, {"ref", l.ref}});
    return {{"id", j.id},
            {"kind", j.kind},
            {"state", jobStateName(j.state)},
            {"spec", j.spec},
            {"host", j.host},
            {"pid", j.pid},
            {"create_time", j.createTime},
            {"start_time", optional(j.startTime)},
            {"end_time", optional(j.endTime)},
            {"heartbeat_time", optional(j.heartbeatTime)},
            {"elapsed_seconds", jobElapsedSeconds(j, now)},
            {"progress", j.progress},
            {"message", j.progressMessage},
            {"eta_seconds", optional(j.etaSeconds)},
            {"exit_code", optional(j.exitCode)},
            {"error", j.error},
            {"log_file", j.logFile},
            {"links", links}};
}

bool isFinal(JobState state)
{
    return state == JobState::Finished || state == JobState::Failed || state == JobState::Cancelled;
}

const std::vector<std::string>& jobKinds()
{
    static const std::vector<std::string> kinds{"train",           "hpo",          "hpo-final",    "bench-variants",
                                                "bench-partitions", "bench-loader", "eval-driving", "eval-detection"};
    return kinds;
}

JobStore::JobStore(const std::string& location, OpenMode mode) : m_path(sqliteFilePath(location)), m_mode(mode)
{
    // Opening through SqliteStore validates the file and applies pending migrations (the jobs tables among them).
    { SqliteStore check(m_path, mode); }
    m_db = std::make_unique<Connection>(m_path, mode == OpenMode::ReadOnly ? ConnectionMode::ReadOnly
                                                                           : ConnectionMode::ReadWriteCreate);
}

JobStore::~JobStore() = default;

std::int64_t JobStore::create(const std::string& kind, const Json& spec, JobState state, std::int64_t pid,
                              const std::string& logFile)
{
    const double now = nowSeconds();
    return m_db->write([&] {
        auto insert = m_db->cached("INSERT INTO pitwall_jobs (kind, spec_json, state, host, pid, create_time, "
                                   "start_time, heartbeat_time, progress, progress_message, error, log_file) "
                                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, '', '', ?)");
        const bool running = state == JobState::Running;
        insert.bind(1, kind).bind(2, spec.dump()).bind(3, jobStateName(state)).bind(4, hostName()).bind(5, pid).bind(6, now);
        insert.bind(7, running ? std::optional<double>(now) : std::nullopt)
            .bind(8, running ? std::optional<double>(now) : std::nullopt)
            .bind(9, logFile);
        insert.run();
        return m_db->lastInsertId();
    });
}

void JobStore::setLogFile(std::int64_t id, const std::string& logFile)
{
    m_db->write([&] { m_db->cached("UPDATE pitwall_jobs SET log_file = ? WHERE job_id = ?").bind(1, logFile).bind(2, id).run(); });
}

void JobStore::setSpecField(std::int64_t id, const std::string& key, const Json& value)
{
    m_db->write([&] {
        auto select = m_db->cached("SELECT spec_json FROM pitwall_jobs WHERE job_id = ?");
        select.bind(1, id);
        if (!select.step())
            return;
        Json spec = Json::parse(select.text(0), nullptr, false);
        if (!spec.is_object())
            spec = Json::object();
        spec[key] = value;
        m_db->cached("UPDATE pitwall_jobs SET spec_json = ? WHERE job_id = ?").bind(1, spec.dump()).bind(2, id).run();
    });
}

void JobStore::start(std::int64_t id, std::int64_t pid)
{
    const double now = nowSeconds();
    m_db->write([&] {
        auto update = m_db->cached("UPDATE pitwall_jobs SET state = 'running', pid = ?, host = ?, start_time = ?, "
                                   "heartbeat_time = ?, end_time = NULL, exit_code = NULL, error = '' WHERE job_id = ?");
        update.bind(1, pid).bind(2, hostName()).bind(3, now).bind(4, now).bind(5, id).run();
    });
}

JobState JobStore::heartbeat(std::int64_t id, double fraction, const std::string& message, std::optional<double> eta)
{
    const double now = nowSeconds();
    return m_db->write([&] {
        auto update = m_db->cached("UPDATE pitwall_jobs SET heartbeat_time = ?, progress = ?, progress_message = ?, "
                                   "eta_seconds = ? WHERE job_id = ? AND state IN ('running', 'stopping')");
        update.bind(1, now).bind(2, std::clamp(fraction, 0.0, 1.0)).bind(3, message).bind(4, eta).bind(5, id).run();
        auto state = m_db->cached("SELECT state FROM pitwall_jobs WHERE job_id = ?");
        state.bind(1, id);
        return state.step() ? parseJobState(state.text(0)).value_or(JobState::Failed) : JobState::Failed;
    });
}

bool JobStore::requestStop(std::int64_t id)
{
    return m_db->write([&] {
        auto update = m_db->cached(
            "UPDATE pitwall_jobs SET state = 'stopping' WHERE job_id = ? AND state IN ('queued', 'running', 'stopping')");
        update.bind(1, id).run();
        return m_db->changes() > 0;
    });
}

void JobStore::finish(std::int64_t id, JobState state, std::optional<int> exitCode, const std::string& error)
{
    if (!isFinal(state))
        throw RuntimeError(std::string("JobStore::finish needs a final state, not ") + jobStateName(state));
    const double now = nowSeconds();
    m_db->write([&] {
        auto update = m_db->cached("UPDATE pitwall_jobs SET state = ?, end_time = ?, heartbeat_time = ?, exit_code = ?, "
                                   "error = ?, eta_seconds = NULL, progress = CASE WHEN ? THEN 1 ELSE progress END "
                                   "WHERE job_id = ? AND state IN ('queued', 'running', 'stopping')");
        update.bind(1, jobStateName(state)).bind(2, now).bind(3, now).bind(4, exitCode).bind(5, error);
        update.bind(6, state == JobState::Finished ? 1 : 0).bind(7, id).run();
    });
}

void JobStore::requeue(std::int64_t id, const Json& spec)
{
    m_db->write([&] {
        auto update = m_db->cached("UPDATE pitwall_jobs SET state = 'queued', spec_json = ?, end_time = NULL, "
                                   "exit_code = NULL, error = '', progress = 0, progress_message = '', eta_seconds = NULL "
                                   "WHERE job_id = ? AND state IN ('failed', 'cancelled')");
        update.bind(1, spec.dump()).bind(2, id).run();
        if (m_db->changes() == 0)
            throw InputError("job " + std::to_string(id) + " is not cancelled or failed, so it cannot be resumed");
    });
}

void JobStore::link(std::int64_t id, const std::string& kind, const std::string& ref)
{
    m_db->write([&] {
        auto insert = m_db->cached("INSERT OR IGNORE INTO pitwall_job_links (job_id, kind, ref) VALUES (?, ?, ?)");
        insert.bind(1, id).bind(2, kind).bind(3, ref).run();
    });
}

void JobStore::remove(std::int64_t id)
{
    m_db->write([&] {
        m_db->cached("DELETE FROM pitwall_job_links WHERE job_id = ?").bind(1, id).run();
        m_db->cached("DELETE FROM pitwall_jobs WHERE job_id = ?").bind(1, id).run();
    });
}

std::optional<JobRecord> JobStore::job(std::int64_t id)
{
    return m_db->read([&]() -> std::optional<JobRecord> {
        auto select = m_db->cached(std::string("SELECT ") + kJobColumns + " FROM pitwall_jobs WHERE job_id = ?");
        select.bind(1, id);
        if (!select.step())
            return std::nullopt;
        JobRecord job = readJob(select);
        auto links = m_db->cached("SELECT kind, ref FROM pitwall_job_links WHERE job_id = ? ORDER BY rowid");
        links.bind(1, id);
        while (links.step())
            job.links.push_back({links.text(0), links.text(1)});
        return job;
    });
}

std::vector<JobRecord> JobStore::jobs(bool includeEnded)
{
    return m_db->read([&] {
        std::vector<JobRecord> out;
        auto select = m_db->cached(std::string("SELECT ") + kJobColumns + " FROM pitwall_jobs" +
                                   (includeEnded ? "" : " WHERE state IN ('queued', 'running', 'stopping')") +
                                   " ORDER BY job_id DESC");
        while (select.step())
            out.push_back(readJob(select));
        auto links = m_db->cached("SELECT job_id, kind, ref FROM pitwall_job_links ORDER BY rowid");
        while (links.step()) {
            const std::int64_t id = links.int64(0);
            auto it = std::find_if(out.begin(), out.end(), [&](const JobRecord& j) { return j.id == id; });
            if (it != out.end())
                it->links.push_back({links.text(1), links.text(2)});
        }
        return out;
    });
}

int JobStore::reapVanished(double now)
{
    if (m_mode == OpenMode::ReadOnly)
        return 0;
    const std::string here = hostName();
    int changed = 0;
    for (const JobRecord& j : jobs(false)) {
        // A queued job has no process yet (its starter is about to exec it): give it the same grace.
        const double last = j.heartbeatTime.value_or(j.createTime);
        const bool stale = now - last > kJobHeartbeatGraceSeconds;
        const bool deadHere = j.host == here && j.state != JobState::Queued && !processAlive(j.pid);
        if (!stale && !deadHere)
            continue;
        m_db->write([&] {
            auto update = m_db->cached("UPDATE pitwall_jobs SET state = 'failed', end_time = ?, error = ? "
                                       "WHERE job_id = ? AND state IN ('queued', 'running', 'stopping')");
            update.bind(1, now)
                .bind(2, std::string("process vanished") +
                             (deadHere ? " (pid " + std::to_string(j.pid) + " is gone)"
                                       : " (no heartbeat for " + std::to_string(static_cast<int>(now - last)) + " s)"))
                .bind(3, j.id)
                .run();
            changed += m_db->changes();
        });
    }
    return changed;
}

std::optional<std::int64_t> currentJobId()
{
    const char* text = std::getenv("PITWALL_JOB_ID");
    if (!text || !*text)
        return std::nullopt;
    const auto id = parseInteger(text);
    return id && *id > 0 ? id : std::nullopt;
}

namespace store_internal {
void linkCurrentJob(Connection& db, int schemaVersion, const std::string& kind, const std::string& ref)
{
    constexpr int kJobsSchemaVersion = 3;
    const auto id = currentJobId();
    if (!id || schemaVersion < kJobsSchemaVersion)
        return;
    auto insert = db.cached("INSERT OR IGNORE INTO pitwall_job_links (job_id, kind, ref) "
                            "SELECT job_id, ?, ? FROM pitwall_jobs WHERE job_id = ?");
    insert.bind(1, kind).bind(2, ref).bind(3, *id).run();
}
} // namespace store_internal

} // namespace pitwall
