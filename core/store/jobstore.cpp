// JobStore: the pitwall_jobs and pitwall_job_links tables (migration 3), process start times and the job id
// counter (migration 4).

#include "core/store/jobstore.h"

#include "core/store/internal/joblinks.h"
#include "core/store/internal/migrations.h"
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
#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>

namespace pitwall {

using store_internal::Connection;
using store_internal::ConnectionMode;
using store_internal::Statement;

namespace {

constexpr int kJobsSchema = 3;         // pitwall_jobs and pitwall_job_links
constexpr int kProcessStartSchema = 4; // pitwall_jobs.process_start and pitwall_job_ids

constexpr const char* kJobColumns = "job_id, kind, spec_json, state, host, pid, create_time, start_time, end_time, "
                                    "heartbeat_time, progress, progress_message, eta_seconds, exit_code, error, log_file";

// The columns readJob reads, for a file at `schema` (an older file has no process_start: NULL in its place).
std::string jobColumns(int schema)
{
    return std::string(kJobColumns) + (schema >= kProcessStartSchema ? ", process_start" : ", NULL");
}

std::optional<std::int64_t> startTicksOf(std::int64_t pid)
{
    return pid > 0 ? processStartTicks(pid) : std::nullopt;
}

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
    if (job.spec.is_object() && job.spec.contains(kSecondsBeforeKey)) {
        if (job.spec[kSecondsBeforeKey].is_number())
            job.secondsBefore = std::max(0.0, job.spec[kSecondsBeforeKey].get<double>());
        job.spec.erase(kSecondsBeforeKey);
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
    job.processStart = row.optionalInt64(16);
    return job;
}

// Runs `transaction` (one of `db`) and, when SQLite fails, says what Pitwall was doing with which file:
// "PATH: recording a new job failed: the results database cannot be written here: ...".
template <typename Transaction> auto saying(Connection& db, const std::string& what, Transaction&& transaction)
{
    try {
        return transaction();
    } catch (const store_internal::BusyError&) {
        throw;
    } catch (const store_internal::SqliteError& e) {
        throw store_internal::SqliteError(e.code(), db.path() + ": " + what + " failed: " + e.reason(), e.reason());
    }
}

template <typename Body> auto writing(Connection& db, const std::string& what, Body&& body)
{
    return saying(db, what, [&] { return db.write(std::forward<Body>(body)); });
}

template <typename Body> auto reading(Connection& db, const std::string& what, Body&& body)
{
    return saying(db, what, [&] { return db.read(std::forward<Body>(body)); });
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
    return j.secondsBefore + (j.startTime ? j.endTime.value_or(now) - *j.startTime : 0.0);
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
            {"process_start", optional(j.processStart)},
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

std::optional<std::int64_t> processStartTicks(std::int64_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // "PID (COMMAND) STATE ...": the command may hold spaces and parentheses, so fields count from the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    std::string field;
    for (int number = 3; number <= 22; ++number)
        if (!(fields >> field))
            return std::nullopt;
    const auto ticks = parseInteger(field);
    return ticks ? std::optional<std::int64_t>(*ticks) : std::nullopt;
}

JobProcess jobProcess(const JobRecord& j)
{
    if (j.host != hostName())
        return JobProcess::Elsewhere;
    if (!processAlive(j.pid))
        return JobProcess::Gone;
    const auto start = processStartTicks(j.pid);
    return j.processStart && start == j.processStart ? JobProcess::Here : JobProcess::Other;
}

std::optional<std::string> jobVanishedReason(const JobRecord& j, double now)
{
    if (isFinal(j.state))
        return std::nullopt;
    const std::string pid = std::to_string(j.pid);
    // A queued job has no process yet (its starter is about to exec it): only the grace period applies.
    if (j.state != JobState::Queued) {
        const JobProcess process = jobProcess(j);
        if (process == JobProcess::Gone)
            return "process vanished (pid " + pid + " is gone)";
        // Without a recorded start time (an older Pitwall's job) a live pid is taken for the job's.
        if (process == JobProcess::Other && j.processStart)
            return "process vanished (pid " + pid + " is now another process)";
    }
    const double last = j.heartbeatTime.value_or(j.createTime);
    if (now - last > kJobHeartbeatGraceSeconds)
        return "process vanished (no heartbeat for " + std::to_string(static_cast<int>(now - last)) + " s)";
    return std::nullopt;
}

JobStore::JobStore(const std::string& location, OpenMode mode) : m_path(sqliteFilePath(location)), m_mode(mode)
{
    // Opening through SqliteStore validates the file and applies pending migrations (the jobs tables among them).
    { SqliteStore check(m_path, mode); }
    if (mode == OpenMode::ReadOnly)
        m_db = store_internal::openReadableConnection(m_path);
    else
        m_db = std::make_unique<Connection>(m_path, ConnectionMode::ReadWriteCreate);
    m_schema = store_internal::pitwallSchemaVersion(*m_db);
}

JobStore::~JobStore() = default;

std::int64_t JobStore::create(const std::string& kind, const Json& spec, JobState state, std::int64_t pid,
                              const std::string& logFile)
{
    const double now = nowSeconds();
    const auto processStart = startTicksOf(pid);
    return writing(*m_db, "recording a new " + kind + " job", [&] {
        // The next id after every id given so far, also those of removed jobs (never max(job_id) + 1 alone).
        m_db->cached("INSERT OR IGNORE INTO pitwall_job_ids (slot, last_job_id) VALUES (1, 0)").run();
        m_db->cached("UPDATE pitwall_job_ids SET last_job_id = "
                     "MAX(last_job_id, (SELECT COALESCE(MAX(job_id), 0) FROM pitwall_jobs)) + 1 WHERE slot = 1")
            .run();
        std::int64_t id = 0;
        {
            auto next = m_db->cached("SELECT last_job_id FROM pitwall_job_ids WHERE slot = 1");
            next.step();
            id = next.int64(0);
        }
        auto insert =
            m_db->cached("INSERT INTO pitwall_jobs (job_id, kind, spec_json, state, host, pid, process_start, "
                         "create_time, start_time, heartbeat_time, progress, progress_message, error, "
                         "log_file) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '', '', ?)");
        const bool running = state == JobState::Running;
        insert.bind(1, id).bind(2, kind).bind(3, spec.dump()).bind(4, jobStateName(state)).bind(5, hostName());
        insert.bind(6, pid).bind(7, processStart).bind(8, now);
        insert.bind(9, running ? std::optional<double>(now) : std::nullopt)
            .bind(10, running ? std::optional<double>(now) : std::nullopt)
            .bind(11, logFile);
        insert.run();
        return id;
    });
}

void JobStore::setLogFile(std::int64_t id, const std::string& logFile)
{
    writing(*m_db, "recording job " + std::to_string(id) + "'s log file", [&] {
        m_db->cached("UPDATE pitwall_jobs SET log_file = ? WHERE job_id = ?").bind(1, logFile).bind(2, id).run();
    });
}

void JobStore::setSpecField(std::int64_t id, const std::string& key, const Json& value)
{
    writing(*m_db, "recording job " + std::to_string(id) + "'s " + key, [&] {
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
    const auto processStart = startTicksOf(pid);
    writing(*m_db, "recording that this process runs job " + std::to_string(id), [&] {
        // Only a job waiting for its process (queued, or stopped while queued: it stays stopping) is taken over.
        auto update = m_db->cached(
            "UPDATE pitwall_jobs SET state = CASE state WHEN 'stopping' THEN 'stopping' ELSE 'running' END, pid = ?, "
            "process_start = ?, host = ?, start_time = ?, heartbeat_time = ?, end_time = NULL, exit_code = NULL, "
            "error = '' WHERE job_id = ? AND pid = 0 AND state IN ('queued', 'stopping')");
        update.bind(1, pid).bind(2, processStart).bind(3, hostName()).bind(4, now).bind(5, now).bind(6, id).run();
        if (m_db->changes() > 0)
            return;
        auto state = m_db->cached("SELECT state FROM pitwall_jobs WHERE job_id = ?");
        state.bind(1, id);
        throw RuntimeError("job " + std::to_string(id) + " of " + m_path + " is not waiting for a process to run it (" +
                           (state.step() ? state.text(0) : std::string("no such job")) +
                           "): another process took it over or it ended, so this one does not run it");
    });
}

JobState JobStore::heartbeat(std::int64_t id, double fraction, const std::string& message, std::optional<double> eta)
{
    const double now = nowSeconds();
    return writing(*m_db, "recording job " + std::to_string(id) + "'s heartbeat", [&] {
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
    return writing(*m_db, "asking job " + std::to_string(id) + " to stop", [&] {
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
    writing(*m_db, "recording how job " + std::to_string(id) + " ended", [&] {
        auto update = m_db->cached("UPDATE pitwall_jobs SET state = ?, end_time = ?, heartbeat_time = ?, exit_code = ?, "
                                   "error = ?, eta_seconds = NULL, progress = CASE WHEN ? THEN 1 ELSE progress END "
                                   "WHERE job_id = ? AND state IN ('queued', 'running', 'stopping')");
        update.bind(1, jobStateName(state)).bind(2, now).bind(3, now).bind(4, exitCode).bind(5, error);
        update.bind(6, state == JobState::Finished ? 1 : 0).bind(7, id).run();
    });
}

void JobStore::requeue(std::int64_t id, const Json& spec, const std::string& logFile)
{
    const double now = nowSeconds();
    writing(*m_db, "claiming job " + std::to_string(id) + " for its resume", [&] {
        // The claim: one statement that only a cancelled or failed job matches. The heartbeat is now, not the old
        // run's, so that no reaper takes the queued job for vanished before its process starts (which let a
        // second `jobs resume` claim it again).
        // The time it ran so far goes into the new spec (kSecondsBeforeKey), so that its elapsed time goes on; its
        // progress stays where it was (the resumed process goes on from there).
        auto update = m_db->cached(
            "UPDATE pitwall_jobs SET state = 'queued', spec_json = json_set(?, '$.run_seconds_before', "
            "COALESCE(CASE WHEN json_valid(spec_json) THEN json_extract(spec_json, '$.run_seconds_before') END, 0) + "
            "COALESCE(end_time - start_time, 0)), "
            "pid = 0, process_start = NULL, heartbeat_time = ?, log_file = ?, start_time = NULL, end_time = NULL, "
            "exit_code = NULL, "
            "error = '', progress_message = '', eta_seconds = NULL WHERE job_id = ? AND state IN ('failed', 'cancelled')");
        update.bind(1, spec.dump()).bind(2, now).bind(3, logFile).bind(4, id).run();
        if (m_db->changes() > 0)
            return;
        auto select = m_db->cached("SELECT state FROM pitwall_jobs WHERE job_id = ?");
        select.bind(1, id);
        if (!select.step())
            throw InputError("no job " + std::to_string(id) + " in " + m_path);
        const JobState state = parseJobState(select.text(0)).value_or(JobState::Failed);
        if (!isFinal(state))
            throw InputError("job " + std::to_string(id) + " is already resuming (another `pitwall jobs resume` " +
                             "took it first; it is " + jobStateName(state) + " now)");
        throw InputError("job " + std::to_string(id) + " is " + jobStateName(state) +
                         ", so it cannot be resumed (only a cancelled or failed job resumes)");
    });
}

void JobStore::link(std::int64_t id, const std::string& kind, const std::string& ref)
{
    writing(*m_db, "linking job " + std::to_string(id) + " to its " + kind, [&] {
        auto insert = m_db->cached("INSERT OR IGNORE INTO pitwall_job_links (job_id, kind, ref) VALUES (?, ?, ?)");
        insert.bind(1, id).bind(2, kind).bind(3, ref).run();
    });
}

void JobStore::remove(std::int64_t id)
{
    writing(*m_db, "removing the refused job " + std::to_string(id), [&] {
        m_db->cached("DELETE FROM pitwall_job_links WHERE job_id = ?").bind(1, id).run();
        m_db->cached("DELETE FROM pitwall_jobs WHERE job_id = ?").bind(1, id).run();
    });
}

std::optional<JobRecord> JobStore::job(std::int64_t id)
{
    if (m_schema < kJobsSchema)
        return std::nullopt; // a read-only view of a file without the jobs tables
    return reading(*m_db, "reading job " + std::to_string(id), [&]() -> std::optional<JobRecord> {
        auto select = m_db->cached("SELECT " + jobColumns(m_schema) + " FROM pitwall_jobs WHERE job_id = ?");
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
    if (m_schema < kJobsSchema)
        return {};
    return reading(*m_db, std::string("reading the jobs"), [&] {
        std::vector<JobRecord> out;
        auto select = m_db->cached("SELECT " + jobColumns(m_schema) + " FROM pitwall_jobs" +
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
    int changed = 0;
    for (const JobRecord& j : jobs(false)) {
        const auto reason = jobVanishedReason(j, now);
        if (!reason)
            continue;
        writing(*m_db, "recording job " + std::to_string(j.id) + " as vanished", [&] {
            // Unless its process took it over since it was read (a requeued job that started meanwhile).
            auto update = m_db->cached("UPDATE pitwall_jobs SET state = 'failed', end_time = ?, error = ? "
                                       "WHERE job_id = ? AND state = ? AND pid = ? AND "
                                       "COALESCE(heartbeat_time, create_time) = ?");
            update.bind(1, now).bind(2, *reason).bind(3, j.id).bind(4, jobStateName(j.state)).bind(5, j.pid);
            update.bind(6, j.heartbeatTime.value_or(j.createTime)).run();
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
    const auto id = currentJobId();
    if (!id || schemaVersion < kJobsSchema)
        return;
    auto insert = db.cached("INSERT OR IGNORE INTO pitwall_job_links (job_id, kind, ref) "
                            "SELECT job_id, ?, ? FROM pitwall_jobs WHERE job_id = ?");
    insert.bind(1, kind).bind(2, ref).bind(3, *id).run();
}
} // namespace store_internal

} // namespace pitwall
