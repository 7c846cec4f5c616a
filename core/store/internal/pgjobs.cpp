// JobStore's SQL on a PostgreSQL results database: the pitwall_jobs, pitwall_job_links and pitwall_job_ids tables
// that internal/pgschema.cpp creates with Pitwall's others. One connection per JobStore; every call one transaction.

#include "core/store/internal/jobbackend.h"
#include "core/store/internal/joblinks.h"
#include "core/store/internal/pgschema.h"
#include "core/store/internal/pq.h"
#include "core/store/pglocation.h"
#include "core/store/pgstore.h"
#include "core/util/error.h"
#include "core/util/process.h"

#include <algorithm>

namespace pitwall::store_internal {

namespace {

constexpr const char* kColumns = "job_id, kind, spec_json, state, host, pid, create_time, start_time, end_time, "
                                 "heartbeat_time, progress, progress_message, eta_seconds, exit_code, error, "
                                 "log_file, process_start";
// Links in the order they were made: the study first, then runs by id.
constexpr const char* kLinkOrder = "CASE kind WHEN 'study' THEN 0 ELSE 1 END, length(ref), ref";

JobRecord readJob(const PqResult& r, int row)
{
    JobRecord job;
    job.id = r.int64(row, 0);
    job.kind = r.text(row, 1);
    readJobSpec(job, r.text(row, 2));
    job.state = parseJobState(r.text(row, 3)).value_or(JobState::Failed);
    job.host = r.text(row, 4);
    job.pid = r.int64(row, 5);
    job.createTime = r.real(row, 6);
    job.startTime = r.optionalReal(row, 7);
    job.endTime = r.optionalReal(row, 8);
    job.heartbeatTime = r.optionalReal(row, 9);
    job.progress = r.real(row, 10);
    job.progressMessage = r.text(row, 11);
    job.etaSeconds = r.optionalReal(row, 12);
    if (auto code = r.optionalInt64(row, 13))
        job.exitCode = static_cast<int>(*code);
    job.error = r.text(row, 14);
    job.logFile = r.text(row, 15);
    job.processStart = r.optionalInt64(row, 16);
    return job;
}

class PgJobs : public JobBackend {
public:
    PgJobs(const std::string& location, OpenMode mode)
    {
        { PgStore check(location, mode); } // validates the database; ReadWrite creates Pitwall's tables
        m_db = sharedPqConnection(postgresConninfo(location), redactedLocation(location));
        m_tables = m_db->transaction([&] { return pgPitwallSchemaVersion(*m_db); }) > 0;
    }

    std::int64_t create(const std::string& kind, const Json& spec, JobState state, std::int64_t pid,
                        std::optional<std::int64_t> processStart, double now, const std::string& logFile) override
    {
        const std::string what = "recording a new " + kind + " job";
        return m_db->transaction([&] {
            // The next id after every id given so far, also those of removed jobs; the row lock orders creators.
            m_db->exec("INSERT INTO pitwall_job_ids (slot, last_job_id) VALUES (1, 0) ON CONFLICT (slot) DO NOTHING",
                       {}, what);
            const std::int64_t id =
                m_db->exec("UPDATE pitwall_job_ids SET last_job_id = GREATEST(last_job_id, (SELECT "
                           "COALESCE(MAX(job_id), 0) FROM pitwall_jobs)) + 1 WHERE slot = 1 RETURNING last_job_id",
                           {}, what)
                    .int64(0, 0);
            const bool running = state == JobState::Running;
            const std::optional<double> started = running ? std::optional<double>(now) : std::nullopt;
            m_db->exec("INSERT INTO pitwall_jobs (job_id, kind, spec_json, state, host, pid, process_start, "
                       "create_time, start_time, heartbeat_time, progress, progress_message, error, log_file) "
                       "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, '', '', $11)",
                       {id, kind, spec.dump(), jobStateName(state), hostName(), pid, processStart, now, started,
                        started, logFile},
                       what);
            return id;
        });
    }

    void setLogFile(std::int64_t id, const std::string& logFile) override
    {
        m_db->transaction([&] {
            m_db->exec("UPDATE pitwall_jobs SET log_file = $1 WHERE job_id = $2", {logFile, id},
                       "recording job " + std::to_string(id) + "'s log file");
        });
    }

    void setSpecField(std::int64_t id, const std::string& key, const Json& value) override
    {
        const std::string what = "recording job " + std::to_string(id) + "'s " + key;
        m_db->transaction([&] {
            const auto row = m_db->exec("SELECT spec_json FROM pitwall_jobs WHERE job_id = $1 FOR UPDATE", {id}, what);
            if (row.rows() == 0)
                return;
            Json spec = Json::parse(row.text(0, 0), nullptr, false);
            if (!spec.is_object())
                spec = Json::object();
            spec[key] = value;
            m_db->exec("UPDATE pitwall_jobs SET spec_json = $1 WHERE job_id = $2", {spec.dump(), id}, what);
        });
    }

    bool start(std::int64_t id, std::int64_t pid, std::optional<std::int64_t> processStart, double now) override
    {
        return m_db->transaction([&] {
            // Only a job waiting for its process (queued, or stopped while queued: it stays stopping) is taken over.
            return m_db
                       ->exec("UPDATE pitwall_jobs SET state = CASE state WHEN 'stopping' THEN 'stopping' ELSE "
                              "'running' END, pid = $1, process_start = $2, host = $3, start_time = $4, "
                              "heartbeat_time = $4, end_time = NULL, exit_code = NULL, error = '' "
                              "WHERE job_id = $5 AND pid = 0 AND state IN ('queued', 'stopping')",
                              {pid, processStart, hostName(), now, id},
                              "recording that this process runs job " + std::to_string(id))
                       .affected() > 0;
        });
    }

    std::optional<std::string> stateOf(std::int64_t id) override
    {
        return m_db->transaction([&] { return state(id); });
    }

    std::optional<std::string> heartbeat(std::int64_t id, double now, double fraction, const std::string& message,
                                         std::optional<double> eta) override
    {
        return m_db->transaction([&] {
            m_db->exec("UPDATE pitwall_jobs SET heartbeat_time = $1, progress = $2, progress_message = $3, "
                       "eta_seconds = $4 WHERE job_id = $5 AND state IN ('running', 'stopping')",
                       {now, fraction, message, eta, id}, "recording job " + std::to_string(id) + "'s heartbeat");
            return state(id);
        });
    }

    bool requestStop(std::int64_t id) override
    {
        return m_db->transaction([&] {
            return m_db
                       ->exec("UPDATE pitwall_jobs SET state = 'stopping' WHERE job_id = $1 AND state IN ('queued', "
                              "'running', 'stopping')",
                              {id}, "asking job " + std::to_string(id) + " to stop")
                       .affected() > 0;
        });
    }

    void finish(std::int64_t id, JobState state, double now, std::optional<int> exitCode,
                const std::string& error) override
    {
        m_db->transaction([&] {
            m_db->exec("UPDATE pitwall_jobs SET state = $1, end_time = $2, heartbeat_time = $2, exit_code = $3, "
                       "error = $4, eta_seconds = NULL, progress = CASE WHEN $5::boolean THEN 1 ELSE progress END "
                       "WHERE job_id = $6 AND state IN ('queued', 'running', 'stopping')",
                       {jobStateName(state), now, exitCode, error, state == JobState::Finished ? "true" : "false", id},
                       "recording how job " + std::to_string(id) + " ended");
        });
    }

    bool requeue(std::int64_t id, const Json& spec, double now, const std::string& logFile) override
    {
        const std::string what = "claiming job " + std::to_string(id) + " for its resume";
        return m_db->transaction([&] {
            // The row lock makes the claim one: of resumes racing, the others find it queued.
            const auto row = m_db->exec("SELECT state, spec_json, COALESCE(end_time - start_time, 0) FROM "
                                        "pitwall_jobs WHERE job_id = $1 FOR UPDATE",
                                        {id}, what);
            if (row.rows() == 0 || (row.text(0, 0) != "failed" && row.text(0, 0) != "cancelled"))
                return false;
            JobRecord old;
            readJobSpec(old, row.text(0, 1));
            Json next = spec;
            next[kSecondsBeforeKey] = old.secondsBefore + row.real(0, 2);
            m_db->exec("UPDATE pitwall_jobs SET state = 'queued', spec_json = $1, pid = 0, process_start = NULL, "
                       "heartbeat_time = $2, log_file = $3, start_time = NULL, end_time = NULL, exit_code = NULL, "
                       "error = '', progress_message = '', eta_seconds = NULL WHERE job_id = $4",
                       {next.dump(), now, logFile, id}, what);
            return true;
        });
    }

    void link(std::int64_t id, const std::string& kind, const std::string& ref) override
    {
        m_db->transaction([&] {
            m_db->exec("INSERT INTO pitwall_job_links (job_id, kind, ref) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                       {id, kind, ref}, "linking job " + std::to_string(id) + " to its " + kind);
        });
    }

    void remove(std::int64_t id) override
    {
        const std::string what = "removing the refused job " + std::to_string(id);
        m_db->transaction([&] {
            m_db->exec("DELETE FROM pitwall_job_links WHERE job_id = $1", {id}, what);
            m_db->exec("DELETE FROM pitwall_jobs WHERE job_id = $1", {id}, what);
        });
    }

    std::optional<JobRecord> job(std::int64_t id) override
    {
        if (!m_tables)
            return std::nullopt; // a read-only view of an Optuna database
        return m_db->transaction([&]() -> std::optional<JobRecord> {
            const std::string what = "reading job " + std::to_string(id);
            const auto r = m_db->exec(std::string("SELECT ") + kColumns + " FROM pitwall_jobs WHERE job_id = $1", {id},
                                      what);
            if (r.rows() == 0)
                return std::nullopt;
            JobRecord job = readJob(r, 0);
            const auto links = m_db->exec(std::string("SELECT kind, ref FROM pitwall_job_links WHERE job_id = $1 "
                                                      "ORDER BY ") +
                                              kLinkOrder,
                                          {id}, what);
            for (int row = 0; row < links.rows(); ++row)
                job.links.push_back({links.text(row, 0), links.text(row, 1)});
            return job;
        });
    }

    std::vector<JobRecord> jobs(bool includeEnded) override
    {
        if (!m_tables)
            return {};
        return m_db->transaction([&] {
            std::vector<JobRecord> out;
            const auto r = m_db->exec(std::string("SELECT ") + kColumns + " FROM pitwall_jobs" +
                                          (includeEnded ? "" : " WHERE state IN ('queued', 'running', 'stopping')") +
                                          " ORDER BY job_id DESC",
                                      {}, "reading the jobs");
            for (int row = 0; row < r.rows(); ++row)
                out.push_back(readJob(r, row));
            const auto links = m_db->exec(std::string("SELECT job_id, kind, ref FROM pitwall_job_links ORDER BY "
                                                      "job_id, ") +
                                              kLinkOrder,
                                          {}, "reading the jobs");
            for (int row = 0; row < links.rows(); ++row) {
                const std::int64_t id = links.int64(row, 0);
                auto it = std::find_if(out.begin(), out.end(), [&](const JobRecord& j) { return j.id == id; });
                if (it != out.end())
                    it->links.push_back({links.text(row, 1), links.text(row, 2)});
            }
            return out;
        });
    }

    int markVanished(const JobRecord& j, double now, const std::string& reason) override
    {
        return m_db->transaction([&] {
            // Unless its process took it over since it was read (a requeued job that started meanwhile).
            return static_cast<int>(
                m_db->exec("UPDATE pitwall_jobs SET state = 'failed', end_time = $1, error = $2 WHERE job_id = $3 "
                           "AND state = $4 AND pid = $5 AND COALESCE(heartbeat_time, create_time) = $6",
                           {now, reason, j.id, jobStateName(j.state), j.pid, j.heartbeatTime.value_or(j.createTime)},
                           "recording job " + std::to_string(j.id) + " as vanished")
                    .affected());
        });
    }

private:
    std::optional<std::string> state(std::int64_t id)
    {
        const auto r = m_db->exec("SELECT state FROM pitwall_jobs WHERE job_id = $1", {id},
                                  "reading job " + std::to_string(id) + "'s state");
        return r.rows() ? std::optional<std::string>(r.text(0, 0)) : std::nullopt;
    }

    std::shared_ptr<PqConnection> m_db; // this process's one connection to the database
    bool m_tables = false;
};

} // namespace

std::unique_ptr<JobBackend> pgJobBackend(const std::string& location, OpenMode mode)
{
    try {
        return std::make_unique<PgJobs>(location, mode);
    } catch (const PqError& error) {
        throw InputError(error.what()); // a wrong host, user, password or database: the user can act on it
    }
}

void linkCurrentJob(PqConnection& db, const std::string& kind, const std::string& ref)
{
    const auto id = currentJobId();
    if (!id)
        return;
    db.exec("INSERT INTO pitwall_job_links (job_id, kind, ref) SELECT job_id, $1, $2 FROM pitwall_jobs WHERE "
            "job_id = $3 ON CONFLICT DO NOTHING",
            {kind, ref, *id}, "linking the " + kind + " to job " + std::to_string(*id));
}

} // namespace pitwall::store_internal
