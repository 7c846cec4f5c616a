#pragma once
// What a search's workers report while they run, whoever started them (the worker pool on this machine,
// workerpool.h, or Slurm, slurmlauncher.h): events for people, and the study's status after every poll.

#include "core/pool/trialstate.h"

#include <optional>
#include <string>

namespace pitwall {

enum class PoolEventKind {
    WorkerStarted,
    WorkerExited,  // cleanly: the study has its trials, or the worker's limit
    WorkerCrashed, // non-zero exit or signal; its trial (if any) failed with the reason
    WorkerGaveUp,  // a device whose worker keeps failing before running a trial
    TrialStarted,
    TrialFinished, // COMPLETE, PRUNED or FAIL (message says which, with the value or reason)
    StaleTrial,    // a trial failed because its worker vanished
    HungTrial,     // the watchdog failed a trial (--trial-timeout, or no progress) and is stopping its worker
    HostBound,     // warning: the CPU is saturated
    Error,         // the pool stops (bad input in a worker)
    JobState,      // the Slurm job of the workers changed state (PENDING, RUNNING, COMPLETED, ...)
};

struct PoolEvent {
    PoolEventKind kind = PoolEventKind::WorkerStarted;
    std::string device;       // logical device id, when about a worker
    std::optional<int> trial; // trial number, when about a trial
    std::string message;      // one line for people (a fail reason may add lines)
};

struct PoolStatus {
    StudyCounts counts;
    int target = 0;
    int pending = 0; // trials still to start: target - counted, at least 0
    int workersAlive = 0;
    int mostWorkers = 0; // the most workers alive at one poll (the Slurm launcher: its job's tasks)
    std::optional<double> cpuBusyFraction; // over the workers' cores, last sample
    bool stopping = false;
    bool finished = false;
    std::string error; // set when the pool stopped because of an Error event or gave up on every device
};

} // namespace pitwall
