// JobStore's SQL on an SQLite results file: the pitwall_jobs and pitwall_job_links tables (migration 3), process
// start times and the job id counter (migration 4).

#include "core/store/internal/jobbackend.h"
#include "core/store/internal/joblinks.h"
#include "core/store/internal/migrations.h"
#include "core/store/internal/sqlite.h"
#include "core/store/sqlitestore.h"
#include "core/util/process.h"

#include <algorithm>

namespace pitwall::store_internal {

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

JobRecord readJob(const Statement& row)
{
    JobRecord job;
    job.id = row.int64(0);
    job.kind = row.text(1);
    readJobSpec(job, row.text(2));
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
    } catch (const BusyError&) {
        throw;
    } catch (const SqliteError& e) {
        throw SqliteError(e.code(), db.path() + ": " + what + " failed: " + e.reason(), e.reason());
    }
}

class SqliteJobs : public JobBackend {
    template <typename Body> auto writing(const std::string& what, Body&& body)
    {
        return saying(*m_db, what, [&] { return m_db->write(std::forward<Body>(body)); });
    }
    template <typename Body> auto reading(const std::string& what, Body&& body)
    {
        return saying(*m_db, what, [&] { return m_db->read(std::forward<Body>(body)); });
    }

public:
    SqliteJobs(const std::string& path, OpenMode mode)
    {
        // Opening through SqliteStore validates the file and applies pending migrations (the jobs tables among
        // them).
        { SqliteStore check(path, mode); }
        if (mode == OpenMode::ReadOnly)
            m_db = openReadableConnection(path);
        else
            m_db = std::make_unique<Connection>(path, ConnectionMode::ReadWriteCreate);
        m_schema = pitwallSchemaVersion(*m_db);
    }

    std::int64_t create(const std::string& kind, const Json& spec, JobState state, std::int64_t pid,
                        std::optional<std::int64_t> processStart, double now, const std::string& logFile) override
    {
        return writing("recording a new " + kind + " job", [&] {
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

    void setLogFile(std::int64_t id, const std::string& logFile) override
    {
        writing("recording job " + std::to_string(id) + "'s log file", [&] {
            m_db->cached("UPDATE pitwall_jobs SET log_file = ? WHERE job_id = ?").bind(1, logFile).bind(2, id).run();
        });
    }

    void setSpecField(std::int64_t id, const std::string& key, const Json& value) override
    {
        writing("recording job " + std::to_string(id) + "'s " + key, [&] {
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

    bool start(std::int64_t id, std::int64_t pid, std::optional<std::int64_t> processStart, double now) override
    {
        return writing("recording that this process runs job " + std::to_string(id), [&] {
            // Only a job waiting for its process (queued, or stopped while queued: it stays stopping) is taken over.
            auto update = m_db->cached("UPDATE pitwall_jobs SET state = CASE state WHEN 'stopping' THEN 'stopping' "
                                       "ELSE 'running' END, pid = ?, process_start = ?, host = ?, start_time = ?, "
                                       "heartbeat_time = ?, end_time = NULL, exit_code = NULL, error = '' "
                                       "WHERE job_id = ? AND pid = 0 AND state IN ('queued', 'stopping')");
            update.bind(1, pid).bind(2, processStart).bind(3, hostName()).bind(4, now).bind(5, now).bind(6, id).run();
            return m_db->changes() > 0;
        });
    }

    std::optional<std::string> stateOf(std::int64_t id) override
    {
        return reading("reading job " + std::to_string(id) + "'s state", [&]() -> std::optional<std::string> {
            auto state = m_db->cached("SELECT state FROM pitwall_jobs WHERE job_id = ?");
            state.bind(1, id);
            return state.step() ? std::optional<std::string>(state.text(0)) : std::nullopt;
        });
    }

    std::optional<std::string> heartbeat(std::int64_t id, double now, double fraction, const std::string& message,
                                         std::optional<double> eta) override
    {
        return writing("recording job " + std::to_string(id) + "'s heartbeat", [&]() -> std::optional<std::string> {
            auto update = m_db->cached("UPDATE pitwall_jobs SET heartbeat_time = ?, progress = ?, progress_message = "
                                       "?, eta_seconds = ? WHERE job_id = ? AND state IN ('running', 'stopping')");
            update.bind(1, now).bind(2, fraction).bind(3, message).bind(4, eta).bind(5, id).run();
            auto state = m_db->cached("SELECT state FROM pitwall_jobs WHERE job_id = ?");
            state.bind(1, id);
            return state.step() ? std::optional<std::string>(state.text(0)) : std::nullopt;
        });
    }

    bool requestStop(std::int64_t id) override
    {
        return writing("asking job " + std::to_string(id) + " to stop", [&] {
            auto update = m_db->cached("UPDATE pitwall_jobs SET state = 'stopping' WHERE job_id = ? AND state IN "
                                       "('queued', 'running', 'stopping')");
            update.bind(1, id).run();
            return m_db->changes() > 0;
        });
    }

    void finish(std::int64_t id, JobState state, double now, std::optional<int> exitCode,
                const std::string& error) override
    {
        writing("recording how job " + std::to_string(id) + " ended", [&] {
            auto update = m_db->cached(
                "UPDATE pitwall_jobs SET state = ?, end_time = ?, heartbeat_time = ?, exit_code = ?, error = ?, "
                "eta_seconds = NULL, progress = CASE WHEN ? THEN 1 ELSE progress END "
                "WHERE job_id = ? AND state IN ('queued', 'running', 'stopping')");
            update.bind(1, jobStateName(state)).bind(2, now).bind(3, now).bind(4, exitCode).bind(5, error);
            update.bind(6, state == JobState::Finished ? 1 : 0).bind(7, id).run();
        });
    }

    bool requeue(std::int64_t id, const Json& spec, double now, const std::string& logFile) override
    {
        return writing("claiming job " + std::to_string(id) + " for its resume", [&] {
            auto update = m_db->cached(
                "UPDATE pitwall_jobs SET state = 'queued', spec_json = json_set(?, '$.run_seconds_before', "
                "COALESCE(CASE WHEN json_valid(spec_json) THEN json_extract(spec_json, '$.run_seconds_before') END, "
                "0) + COALESCE(end_time - start_time, 0)), "
                "pid = 0, process_start = NULL, heartbeat_time = ?, log_file = ?, start_time = NULL, end_time = NULL, "
                "exit_code = NULL, error = '', progress_message = '', eta_seconds = NULL "
                "WHERE job_id = ? AND state IN ('failed', 'cancelled')");
            update.bind(1, spec.dump()).bind(2, now).bind(3, logFile).bind(4, id).run();
            return m_db->changes() > 0;
        });
    }

    void link(std::int64_t id, const std::string& kind, const std::string& ref) override
    {
        writing("linking job " + std::to_string(id) + " to its " + kind, [&] {
            auto insert = m_db->cached("INSERT OR IGNORE INTO pitwall_job_links (job_id, kind, ref) VALUES (?, ?, ?)");
            insert.bind(1, id).bind(2, kind).bind(3, ref).run();
        });
    }

    void remove(std::int64_t id) override
    {
        writing("removing the refused job " + std::to_string(id), [&] {
            m_db->cached("DELETE FROM pitwall_job_links WHERE job_id = ?").bind(1, id).run();
            m_db->cached("DELETE FROM pitwall_jobs WHERE job_id = ?").bind(1, id).run();
        });
    }

    std::optional<JobRecord> job(std::int64_t id) override
    {
        if (m_schema < kJobsSchema)
            return std::nullopt; // a read-only view of a file without the jobs tables
        return reading("reading job " + std::to_string(id), [&]() -> std::optional<JobRecord> {
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

    std::vector<JobRecord> jobs(bool includeEnded) override
    {
        if (m_schema < kJobsSchema)
            return {};
        return reading(std::string("reading the jobs"), [&] {
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

    int markVanished(const JobRecord& j, double now, const std::string& reason) override
    {
        return writing("recording job " + std::to_string(j.id) + " as vanished", [&] {
            // Unless its process took it over since it was read (a requeued job that started meanwhile).
            auto update = m_db->cached("UPDATE pitwall_jobs SET state = 'failed', end_time = ?, error = ? "
                                       "WHERE job_id = ? AND state = ? AND pid = ? AND "
                                       "COALESCE(heartbeat_time, create_time) = ?");
            update.bind(1, now).bind(2, reason).bind(3, j.id).bind(4, jobStateName(j.state)).bind(5, j.pid);
            update.bind(6, j.heartbeatTime.value_or(j.createTime)).run();
            return m_db->changes();
        });
    }

private:
    std::unique_ptr<Connection> m_db;
    int m_schema = 0; // the file's Pitwall schema: a read-only store of an older file reads what it has
};

} // namespace

std::unique_ptr<JobBackend> sqliteJobBackend(const std::string& path, OpenMode mode)
{
    return std::make_unique<SqliteJobs>(path, mode);
}

void linkCurrentJob(Connection& db, int schemaVersion, const std::string& kind, const std::string& ref)
{
    const auto id = currentJobId();
    if (!id || schemaVersion < kJobsSchema)
        return;
    auto insert = db.cached("INSERT OR IGNORE INTO pitwall_job_links (job_id, kind, ref) "
                            "SELECT job_id, ?, ? FROM pitwall_jobs WHERE job_id = ?");
    insert.bind(1, kind).bind(2, ref).bind(3, *id).run();
}

} // namespace pitwall::store_internal
