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

// The log file of a detached job, <db>.jobs/job-ID.log beside the database file; creates the folder.
std::string jobLogFile(const std::string& dbPath, std::int64_t jobId);

// The queued job that a detached start asked this process to run ($PITWALL_ADOPT_JOB), nullopt when none. Reads
// the variable once and removes it, so that the commands this process starts do not adopt the job too.
std::optional<std::int64_t> takeAdoptedJob();

// Starts this program (executablePath()) with `words` in a new session, as the queued job `jobId` of the store at
// `db`, with stdin from /dev/null and its output appended to the job's log file. Returns once it started; a
// start that fails records the job as failed and rethrows.
void startDetachedJob(const std::string& db, std::int64_t jobId, const std::vector<std::string>& words);

// The studies a job links to, in the order they were linked.
std::vector<std::string> jobStudies(const JobRecord& job);

// The command line that continues a job: a training run from its checkpoints (its own argv with --resume and
// --db), a search from its study (hpo --resume STUDY with its --trials, --partition and --backend). InputError
// for a search that created no study and for the kinds that cannot resume (naming how to start them again).
std::vector<std::string> resumeCommandLine(const JobRecord& job);

// `jobs resume`: requeues the cancelled or failed job `j` of `store` with the resume command line (the spec keeps the old
// one as "resumed_from") and starts it detached in the folder it was started from. Returns that command line.
// InputError for a job in another state or of a kind that cannot resume.
std::vector<std::string> resumeJobDetached(JobStore& store, const JobRecord& j, const std::string& defaultDb);

enum class StopMode { Graceful, Now };
enum class StopOutcome {
    Stopping,      // asked (state Stopping; on this host also one SIGINT): the current step or trial ends first
    StoppedNow,    // killed at once (with its process group when it leads one) and recorded cancelled, exit 137
    AskedElsewhere // Now, but the job runs on another host: only the store's Stopping reaches it
};

// Stops a job that has not ended (the caller checks isFinal). Graceful: state Stopping, which the job's heartbeat
// turns into its cancel within a few seconds on any machine, and a SIGINT on this host to make it immediate.
// Now: SIGKILL on this host, waiting up to kStopNowWaitSeconds for the process to go.
constexpr double kStopNowWaitSeconds = 10.0;
StopOutcome stopJob(JobStore& store, const JobRecord& job, StopMode mode);

// Waits until the job reaches a final state (reaping vanished jobs meanwhile) and returns it.
JobState waitForJobEnd(JobStore& store, std::int64_t id);

} // namespace pitwall
