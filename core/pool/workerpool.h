#pragma once
// The worker pool: one `pitwall worker` process per logical device, bound to it (CPU set, environment,
// thread count), each looping ask -> run -> tell on one study (trialloop.h) until the study has its target.
//
// Isolation: a worker that crashes, is killed or exits non-zero (an out-of-memory kill shows as signal 9 or
// exit status 137) fails the trial it was running with the reason (exit status or signal and the tail of the
// worker's log, as the trial's fail_reason and an error event), and the pool starts a replacement on that
// device while the study still needs trials. A device whose worker fails `maxStartFailures` times in a row
// without running a trial is given up (with the log tail); exit status 2 (bad input) stops the pool.
//
// Heartbeats: workers heartbeat their running trial; the pool fails RUNNING trials of this study whose
// heartbeat is older than the grace period and whose worker is gone ("worker vanished: ..."), e.g. trials of
// a pool that was killed, which a resumed search then replaces (they do not count against the target).
//
// Watchdog (its own workers' trials only): a trial whose worker still exists but has not heartbeaten for the
// grace period (the worker or the trial's command is stopped: a worker does not beat while a process of its
// trial is stopped, internal/heartbeat.h) fails with "no progress for N s (stopped?): ..." naming the stopped
// process; a trial running longer than the study's time limit (HpoSettings::trialTimeoutSeconds, `pitwall hpo
// --trial-timeout`) fails with "exceeded --trial-timeout N s". Both count against the target (a command that
// hangs every time must not be replaced forever). The trial's worker then gets SIGTERM (and its whole tree
// SIGCONT, so that stopped processes act on it): it stops its command and the command's leftovers and exits;
// after `stopTimeoutSeconds` the worker's tree is killed (SIGKILL, descendants that left the command's process
// group included), and a replacement starts while the study needs trials. A pool that was itself stopped or
// asleep (a gap between polls) restarts the no-progress clock, so Ctrl-Z and fg fail nothing.
//
// Stopping: requestStop() sends SIGTERM; workers end their trial as FAIL "cancelled" (interrupted: it does
// not count, `pitwall hpo --resume` runs a replacement) and exit; after `stopTimeoutSeconds` the pool kills
// each worker's process tree (SIGKILL) and fails what is left as cancelled. With ParentExit::StopWorkers, workers also
// stop this way when the pool's process dies (the worker asks the kernel for SIGTERM when its parent dies:
// PR_SET_PDEATHSIG, which fires when the *thread* that started the worker ends, so start the pool on a long-lived
// thread).
//
// Progress comes from the store (so it includes trials of other pools on the same study): PoolStatus after
// every poll, and PoolEvents for workers starting and ending, trials starting and finishing, stale trials,
// and a host-bound warning when every core the workers use stays busy above 95 % for 10 s (/proc/stat).
//
// Threads: all methods on one thread; events and statuses are delivered on it.

#include "core/devices/devices.h"
#include "core/pool/cpuload.h"
#include "core/pool/poolevents.h"
#include "core/pool/trialchanges.h"
#include "core/pool/trialstate.h"
#include "core/util/cancel.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

enum class ParentExit {
    StopWorkers,  // workers cancel their trials and exit when the pool's process dies (the CLI)
    LeaveRunning, // workers carry on (a window that closes leaves work running)
};

struct WorkerPoolOptions {
    std::string storeLocation;
    std::string studyName;
    // argv of one worker without the per-device part; the pool appends --device ID --threads T
    // --worker-id ID [--stop-with-parent]. argv[0] is a path (e.g. executablePath()).
    std::vector<std::string> workerCommand;
    std::vector<LogicalDevice> devices;  // one worker each
    std::string logDir;                  // worker logs: <logDir>/worker_<device>.<n>.log (n: first unused)
    double heartbeatGraceSeconds = 60.0; // see failStaleTrials, and the watchdog above
    double pollIntervalSeconds = 0.25;   // run(): between polls
    double staleCheckSeconds = 2.0;      // between stale-trial checks
    double stopTimeoutSeconds = 30.0;    // SIGTERM -> SIGKILL
    double hostBoundBusyFraction = 0.95;
    double hostBoundSeconds = 10.0;
    int maxStartFailures = 3;
    ParentExit parentExit = ParentExit::StopWorkers;
};

class WorkerPool {
public:
    explicit WorkerPool(WorkerPoolOptions options);
    // Stops workers still running as requestStop() does, waiting up to stopTimeoutSeconds (not with
    // ParentExit::LeaveRunning: they carry on).
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Starts one worker per device. Throws InputError when the study or its target is missing.
    void start();
    // One round without blocking: reaps ended workers (failing their trials), fails stale trials, starts
    // replacements, samples the CPU, and reports what changed.
    PoolStatus poll(const std::function<void(const PoolEvent&)>& onEvent = {});
    // Asks every worker to stop (SIGTERM); no replacements start after this.
    void requestStop();
    bool finished() const { return m_finished; }

    // start(), then poll every pollIntervalSeconds until finished; `cancel` (may be null) turns into
    // requestStop(). Returns the last status.
    PoolStatus run(const CancelToken* cancel, const std::function<void(const PoolEvent&)>& onEvent = {},
                   const std::function<void(const PoolStatus&)>& onStatus = {});

private:
    struct Slot;
    void startWorker(Slot& slot, const std::function<void(const PoolEvent&)>& onEvent);
    void reap(Slot& slot, const std::vector<TrialRecord>& trials, const std::function<void(const PoolEvent&)>& onEvent);
    void sampleCpu(const std::function<void(const PoolEvent&)>& onEvent);
    void watchTrials(const std::vector<TrialRecord>& trials, const std::function<void(const PoolEvent&)>& onEvent);
    std::string hungReason(const Slot& slot, const TrialRecord& trial, double now, double skew) const;
    void stopHungWorker(Slot& slot, const std::string& why);

    WorkerPoolOptions m_options;
    std::unique_ptr<Store> m_store;
    std::int64_t m_studyId = 0;
    std::vector<StudyDirection> m_directions{StudyDirection::Minimize};
    std::vector<std::unique_ptr<Slot>> m_slots;
    TrialChanges m_changes;
    bool m_started = false, m_stopping = false, m_finished = false;
    double m_stopSentAt = 0, m_lastStaleCheck = 0, m_lastCpuSample = 0, m_busySince = -1;
    bool m_warnedHostBound = false;
    std::string m_error;
    std::vector<int> m_cores;
    CpuTimes m_cpuBefore;
    std::optional<double> m_cpuBusy;
    std::optional<double> m_trialTimeout;   // the study's, read at start()
    double m_lastPoll = 0, m_watchFrom = 0; // no-progress is measured from m_watchFrom at the earliest
    std::string m_poolId;
};

} // namespace pitwall
