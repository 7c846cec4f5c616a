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
class Connection;
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
    double createTime = 0;  // Unix seconds
    std::optional<double> startTime, endTime, heartbeatTime;
    double progress = 0;    // 0..1 of the current phase
    std::string progressMessage;
    std::optional<double> etaSeconds;
    std::optional<int> exitCode;
    std::string error;
    std::string logFile;    // empty for a job in the foreground (its output went to the terminal)
    std::vector<JobLink> links;
};

// Seconds the job has run, to its end or to `now`; 0 before it started.
double jobElapsedSeconds(const JobRecord& job, double now);
// The record as `pitwall jobs list|show --json` prints it (elapsed_seconds up to `now`).
Json jobToJson(const JobRecord& job, double now);

// Heartbeats older than this mark a running job whose process cannot be checked (another host) as vanished.
constexpr double kJobHeartbeatGraceSeconds = 30.0;
constexpr double kJobHeartbeatIntervalSeconds = 2.0;

class JobStore {
public:
    // `location` as openStore() takes it. ReadOnly never creates or changes the file.
    explicit JobStore(const std::string& location, OpenMode mode = OpenMode::ReadWrite);
    ~JobStore();
    JobStore(const JobStore&) = delete;
    JobStore& operator=(const JobStore&) = delete;

    const std::string& path() const { return m_path; }

    // A new job of this host in `state` (Queued or Running; Running also sets the start time and pid).
    std::int64_t create(const std::string& kind, const Json& spec, JobState state, std::int64_t pid,
                        const std::string& logFile);
    void setLogFile(std::int64_t id, const std::string& logFile);
    // The job's process took it over: Running, this pid and host, start time now, end and error cleared.
    void start(std::int64_t id, std::int64_t pid);
    // Heartbeat now, and the latest progress (fraction clamped to 0..1). Returns the job's state, so that a
    // process learns that someone asked it to stop (Stopping).
    JobState heartbeat(std::int64_t id, double fraction, const std::string& message, std::optional<double> etaSeconds);
    // Asks a running or queued job to stop: state Stopping. Returns false when it had already ended.
    bool requestStop(std::int64_t id);
    // Ends the job (a final state) unless it already ended.
    void finish(std::int64_t id, JobState state, std::optional<int> exitCode, const std::string& error);
    // Back to Queued for a resume (from Cancelled or Failed), with a new spec.
    void requeue(std::int64_t id, const Json& spec);
    void link(std::int64_t id, const std::string& kind, const std::string& ref);
    // Adds or replaces one field of the job's spec that the work learns as it starts (e.g. "devices": the
    // logical devices a search runs its workers on).
    void setSpecField(std::int64_t id, const std::string& key, const Json& value);
    // Removes a job that never did anything (bad input: the command refused it).
    void remove(std::int64_t id);

    std::optional<JobRecord> job(std::int64_t id);
    // Newest first; all jobs, or only those not in a final state.
    std::vector<JobRecord> jobs(bool includeEnded);

    // Running/Stopping/Queued jobs whose process is gone become Failed ("process vanished"): on this host when
    // the pid is no longer alive, anywhere when the heartbeat is older than kJobHeartbeatGraceSeconds.
    // Returns how many changed. ReadOnly stores change nothing and return 0.
    int reapVanished(double now);

private:
    std::string m_path;
    OpenMode m_mode;
    std::unique_ptr<store_internal::Connection> m_db;
};

// The job this process works for: $PITWALL_JOB_ID (inherited by worker processes), nullopt when unset.
std::optional<std::int64_t> currentJobId();
// Studies and runs created by a process with $PITWALL_JOB_ID set are linked to that job by the store itself.

} // namespace pitwall
