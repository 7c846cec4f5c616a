#pragma once
// Job records in the results database: one row per piece of work (training run, search, benchmark,
// evaluation), whichever front end started it. A job row holds what is needed to start the same work again
// (its spec), its state, progress and heartbeat, and links to the studies and runs it produced.
//
// JobStore opens its own connection to the store's file (it applies pending migrations like any ReadWrite
// open). Threads: one JobStore per thread. Every method is one short transaction.

#include "core/store/records.h"
#include "core/store/store.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

namespace store_internal {
class JobBackend;
}

enum class JobState { Queued, Running, Stopping, Finished, Failed, Cancelled };

const char* jobStateName(JobState state);
std::optional<JobState> parseJobState(const std::string& text);
// Finished, Failed and Cancelled: the job's process is gone and the record does not change any more.
bool isFinal(JobState state);

// The kinds of job, by the names users see (`jobs list`, `--json`).
const std::vector<std::string>& jobKinds();

struct JobLink {
    std::string kind; // "study" or "run"
    std::string ref;  // study name, or run id as text
};

struct JobRecord {
    std::int64_t id = 0;
    std::string kind;
    Json spec;              // {"argv": [...], "cwd": "...", "db": "..."} and kind-specific fields
    JobState state = JobState::Queued;
    std::string host;
    std::int64_t pid = 0;
    // The start time of `pid` when it was recorded (processStartTicks); nullopt when unknown (no process yet, or
    // recorded by a Pitwall before schema 4). A stop signals the pid only while its start time is still this one.
    std::optional<std::int64_t> processStart;
    double createTime = 0;  // Unix seconds
    std::optional<double> startTime, endTime, heartbeatTime;
    double progress = 0;    // 0..1 of the whole job (a resumed job goes on from where it was)
    // Seconds it ran before its latest resume (kept in its spec_json under kSecondsBeforeKey, which `spec` leaves
    // out): a resumed job's elapsed time goes on from there.
    double secondsBefore = 0;
    std::string progressMessage;
    std::optional<double> etaSeconds;
    std::optional<int> exitCode;
    std::string error;
    std::string logFile;    // empty for a job in the foreground (its output went to the terminal)
    std::vector<JobLink> links;
};

inline constexpr const char* kSecondsBeforeKey = "run_seconds_before";
// Seconds the job has run over all its resumptions, to its end or to `now`; 0 before it started.
double jobElapsedSeconds(const JobRecord& job, double now);
// The record as `pitwall jobs list|show --json` prints it (elapsed_seconds up to `now`).
Json jobToJson(const JobRecord& job, double now);

// Heartbeats older than this mark a running job whose process cannot be checked (another host) as vanished.
constexpr double kJobHeartbeatGraceSeconds = 30.0;
constexpr double kJobHeartbeatIntervalSeconds = 2.0;

// The start time of process `pid` on this host: field 22 of /proc/PID/stat (clock ticks after boot). With the pid
// it names one process: a pid reused by another process has another start time. nullopt when there is no such
// process (or no /proc).
std::optional<std::int64_t> processStartTicks(std::int64_t pid);

// Where a job's recorded process is, seen from this host.
enum class JobProcess {
    Here,      // on this host, alive, and its start time is the recorded one: signals reach the job
    Gone,      // on this host, and no process has the pid (or there is no pid)
    Other,     // on this host, but the pid is another process's now (or no start time was recorded to tell)
    Elsewhere, // recorded by another host: only the store reaches it
};
JobProcess jobProcess(const JobRecord& job);

// Why a Running/Stopping/Queued job counts as vanished at `now` ("process vanished (pid 12 is gone)"), nullopt
// while it does not: on this host when its process is gone or is another process, anywhere when its heartbeat
// (or, for a queued job, its creation or requeue) is older than kJobHeartbeatGraceSeconds.
std::optional<std::string> jobVanishedReason(const JobRecord& job, double now);

class JobStore {
public:
    // `location` as openStore() takes it: an SQLite file or a PostgreSQL database. ReadOnly never creates or changes
    // the file, reads a file in a folder or on a mount it cannot write, and reads a file without the jobs tables (an
    // Optuna file) as one without jobs.
    explicit JobStore(const std::string& location, OpenMode mode = OpenMode::ReadWrite);
    ~JobStore();
    JobStore(const JobStore&) = delete;
    JobStore& operator=(const JobStore&) = delete;

    const std::string& path() const { return m_path; }

    // A new job of this host in `state` (Queued or Running; Running also sets the start time and pid, with the
    // pid's start time). Its id was never given before in this file, even to a job since removed.
    std::int64_t create(const std::string& kind, const Json& spec, JobState state, std::int64_t pid,
                        const std::string& logFile);
    void setLogFile(std::int64_t id, const std::string& logFile);
    // The job's process took over the queued job: Running (Stopping stays Stopping: a stop asked meanwhile), this
    // pid (with its start time) and host, start time now, end and error cleared. RuntimeError when the job is
    // not waiting for a process (another process took it, or it ended): only one process runs a job.
    void start(std::int64_t id, std::int64_t pid);
    // Heartbeat now, and the latest progress (fraction clamped to 0..1). Returns the job's state, so that a
    // process learns that someone asked it to stop (Stopping).
    JobState heartbeat(std::int64_t id, double fraction, const std::string& message, std::optional<double> etaSeconds);
    // Asks a running or queued job to stop: state Stopping. Returns false when it had already ended.
    bool requestStop(std::int64_t id);
    // Ends the job (a final state) unless it already ended.
    void finish(std::int64_t id, JobState state, std::optional<int> exitCode, const std::string& error);
    // Claims a cancelled or failed job for a resume, in one statement: back to Queued with a new spec and its log
    // file, no process, heartbeat now (so the process about to start has the grace period to take it over).
    // InputError when the job is not cancelled or failed, "job N is already resuming (...)" when another resume
    // claimed it first: of resumes racing, exactly one gets the job.
    void requeue(std::int64_t id, const Json& spec, const std::string& logFile);
    void link(std::int64_t id, const std::string& kind, const std::string& ref);
    // Adds or replaces one field of the job's spec that the work learns as it starts (e.g. "devices": the
    // logical devices a search runs its workers on).
    void setSpecField(std::int64_t id, const std::string& key, const Json& value);
    // Removes a job that never did anything (bad input: the command refused it).
    void remove(std::int64_t id);

    std::optional<JobRecord> job(std::int64_t id);
    // Newest first; all jobs, or only those not in a final state.
    std::vector<JobRecord> jobs(bool includeEnded);

    // Running/Stopping/Queued jobs that have vanished (jobVanishedReason) become Failed with that reason.
    // Returns how many changed. ReadOnly stores change nothing and return 0.
    int reapVanished(double now);

private:
    std::string m_path; // the SQLite file, or the PostgreSQL location without its password
    OpenMode m_mode;
    std::unique_ptr<store_internal::JobBackend> m_backend;
};

// The job this process works for: $PITWALL_JOB_ID (inherited by worker processes), nullopt when unset.
std::optional<std::int64_t> currentJobId();
// Studies and runs created by a process with $PITWALL_JOB_ID set are linked to that job by the store itself.

} // namespace pitwall
