#pragma once
// Starting, continuing and stopping jobs as `pitwall` processes, for any front end: the spec a job records
// (enough to start the same work again), its log file beside the database, a detached start that the new process
// adopts (`pitwall <command> --detach`, `pitwall jobs resume`), the command line that continues a cancelled or
// failed job, and a stop (graceful or at once). The running side of a job is core/jobrun/jobsession.h.

#include "core/store/jobstore.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

// `words` without "--detach" (what a detached job runs, and what its spec records).
std::vector<std::string> withoutDetach(const std::vector<std::string>& words);

// The spec of a job started as `pitwall WORDS...`: {"kind", "argv" (without --detach), "cwd", "db" (absolute)}.
Json jobSpec(const std::string& kind, const std::vector<std::string>& words, const std::string& dbPath);

// Where detached jobs' logs go: <db>.jobs beside an SQLite file; for a PostgreSQL database, a folder named after
// it under userStateFolder()/jobs on the machine that runs the job (`jobs log` reads it there).
std::string jobLogFolder(const std::string& dbPath);
// A new log file for the detached job `jobId`: job-ID.log in jobLogFolder(), created empty (the
// folder too) so that the name is this job's. A file left there by an earlier job with that id (a database deleted
// or replaced since) is never appended to: the new job gets job-ID.2.log (.3, ...) instead.
std::string newJobLogFile(const std::string& dbPath, std::int64_t jobId);

// The queued job that a detached start asked this process to run ($PITWALL_ADOPT_JOB), nullopt when none. Reads
// the variable once and removes it, so that the commands this process starts do not adopt the job too.
std::optional<std::int64_t> takeAdoptedJob();

// Starts this program (executablePath()) with `words` in a new session, as the queued job `jobId` of the store at
// `db`, with stdin from /dev/null and its output appended to `logFile` (the job's). Returns once it started; a
// start that fails records the job as failed and rethrows.
void startDetachedJob(const std::string& db, std::int64_t jobId, const std::vector<std::string>& words,
                      const std::string& logFile);

// The studies a job links to, in the order they were linked.
std::vector<std::string> jobStudies(const JobRecord& job);

// The command line that continues a job: a training run from its checkpoints (its own argv with --resume and
// --db), a search from its study (hpo --resume STUDY with its --trials, --partition, --backend and --heartbeat-*
// options). InputError for a search that created no study and for the kinds that cannot resume (naming how to start
// them again).
std::vector<std::string> resumeCommandLine(const JobRecord& job);

// `jobs resume`: claims the cancelled or failed job `j` of `store` (JobStore::requeue: of resumes racing, one wins)
// with the resume command line (the spec keeps the old one as "resumed_from") and starts it detached in the folder
// it was started from, its output appended to the job's log. Returns that command line. InputError for a job in
// another state ("job N is already resuming (...)" when another resume took it), or of a kind that cannot resume.
std::vector<std::string> resumeJobDetached(JobStore& store, const JobRecord& j, const std::string& defaultDb);

enum class StopMode { Graceful, Now };
enum class StopOutcome {
    Stopping,       // asked (state Stopping; on this host also one SIGINT): the current step or trial ends first
    StoppedNow,     // killed at once (with its process group when it leads one) and recorded cancelled, exit 137
    AskedElsewhere, // Now, but the job runs on another host: only the store's Stopping reaches it
    NotItsProcess,  // its pid is gone or is another process now (start time differs): nothing signalled, and the
                    // job recorded as failed (process vanished)
    NotVerified     // no start time was recorded with its pid (an older Pitwall's job): nothing signalled, only the
                    // store's Stopping reaches it
};

// Stops a job that has not ended (the caller checks isFinal). Graceful: state Stopping, which the job's heartbeat
// turns into its cancel within a few seconds on any machine, and a SIGINT on this host to make it immediate.
// Now: SIGKILL on this host, waiting up to kStopNowWaitSeconds for the process to go. A signal goes only to the
// job's own process: its pid with the start time recorded with it (jobProcess), never to a process that reused it.
constexpr double kStopNowWaitSeconds = 10.0;
StopOutcome stopJob(JobStore& store, const JobRecord& job, StopMode mode);

// Waits until the job reaches a final state (reaping vanished jobs meanwhile) and returns it.
JobState waitForJobEnd(JobStore& store, std::int64_t id);

} // namespace pitwall
