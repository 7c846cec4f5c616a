#pragma once
// The running side of a job: the process doing the work records itself in the store's jobs table, keeps a
// heartbeat with its latest progress, learns from the store that someone asked it to stop (`pitwall jobs stop`
// from any machine, the window's Stop), and records how it ended. Front ends (the CLI's job commands) open a
// JobSession around the work; the work itself reports progress through reportJobProgress() and checks
// processCancelToken().

#include "core/store/jobstore.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace pitwall {

class JobSession {
public:
    // Adopts the queued job `adoptId` (a detached start) or creates a new running job of `kind` with `spec`.
    // Sets $PITWALL_JOB_ID for this process and its children (so the studies and runs they create are linked)
    // and starts the heartbeat thread.
    JobSession(const std::string& storeLocation, const std::string& kind, const Json& spec,
               std::optional<std::int64_t> adoptId, const std::string& logFile);
    // Stops the heartbeat; a session destroyed without finish() records the job as failed.
    ~JobSession();
    JobSession(const JobSession&) = delete;
    JobSession& operator=(const JobSession&) = delete;

    std::int64_t id() const { return m_id; }
    // Records the end from the command's exit status: 0 finished, kExitCancelled (130) or a requested cancel:
    // cancelled, anything else failed with `error`.
    void finish(int exitCode, const std::string& error);
    // Bad input: the job never started; its record is removed.
    void discard();

private:
    void beat();

    std::string m_location;
    // Open for the session's life, so that the results file this process holds stays the one it started in:
    // finish() writes into no file put in its place (core/store/storefile.h). Used by the creating thread only.
    std::optional<JobStore> m_store;
    std::int64_t m_id = 0;
    bool m_done = false;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread;
};

// Runs `work` as a job of its own, of `kind`, inside the job this process works for (currentJobId()): the hpo
// job's final comparison is the hpo-final job. The child is recorded as running with the parent's spec (its
// command line starts the whole work again) plus `fields` and "parent_job"; the parent links to it ("job", id).
// While `work` runs, $PITWALL_JOB_ID names the child, so the studies and runs it creates link to the child; the
// parent's id, and its progress reporting, come back afterwards. `work` returns an exit status that ends the
// child as JobSession::finish does; an exception fails the child and is rethrown. Without a current job, runs
// `work` alone. Same thread as the parent's JobSession; a stop of either job cancels the process's work.
int runChildJob(const std::string& storeLocation, const std::string& kind, const Json& fields,
                const std::function<int()>& work);

// Progress of the current job, if this process has one (a no-op otherwise). Cheap: the heartbeat thread
// writes the latest value every kJobHeartbeatIntervalSeconds. The ETA is estimated from the fraction's rate
// while `message`'s phase (the text before the first digit) stays the same.
void reportJobProgress(double fraction, const std::string& message);

// Records in the current job's spec (field "devices") the logical devices its work runs on, e.g.
// "cpu:0.1 (cores 1, 1 thread)", so that front ends can show where a job runs. A no-op without a job.
void reportJobDevices(const std::string& storeLocation, const std::vector<std::string>& devices);
// Records one field of the current job's spec that its work learns as it starts (e.g. "slurm_job": the Slurm job
// of a search's workers). A no-op without a job.
void reportJobField(const std::string& storeLocation, const std::string& key, const Json& value);

} // namespace pitwall
