#pragma once
// The loop of one worker process: ask the study for a trial, run it, tell the result; again until the study
// has its target (StudyCounts::counted() against the "pitwall:hpo" target), the worker ran its own limit of
// trials, or it is cancelled. What "run" means is a TrialRunner: the built-in trainer (in the CLI, which
// links the engine) or an external command (CommandRunner).
//
// Around every trial the loop:
// - records the worker on the trial (system attr pitwall:worker: id, pid, host, device, log) and heartbeats
//   it from a background thread (HeartbeatThread);
// - passes the runner a report() that stores an intermediate value (step = epoch or the command's step) and
//   asks the study's pruner;
// - tells the outcome: COMPLETE with the value (with several objectives or constraints: those the search's settings
//   pick from what the trial recorded, core/pool/objectives.h), PRUNED, or FAIL with fail_reason (interrupted when
//   cancelled); a study with several objectives takes intermediate vectors through reportValues() (report() with
//   one value stores nothing there);
// - leaves a trial it asked after the target was reached (two workers asking at once) unrun: FAIL
//   "not run: ...", interrupted, so it does not count;
// - with LeftoverProcesses::Stop (the default, for `pitwall worker`): makes this process the subreaper of its
//   descendants (PR_SET_CHILD_SUBREAPER) and, when the trial has ended (finished, failed, pruned, cancelled),
//   stops every process the trial left behind, also those that left the command's process group (setsid, a
//   double fork): SIGTERM, SIGKILL after 2 s. The trial's log names them.
//
// Threads: everything runs on the calling thread except the heartbeat writes. The runner is called on the
// calling thread and must call report() on it too.

#include "core/hpo/study.h"
#include "core/util/cancel.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace pitwall {

struct TrialContext {
    const AskedTrial* asked = nullptr;
    std::string studyName;
    std::string trialDir; // <logDir>/trial_<number>, created before run()
    std::string logFile;  // <trialDir>/trial.log: what a runner writes about the trial (stderr, non-JSON output)
    const CancelToken* cancel = nullptr; // the worker's: set by its signal handler
    // Stores the value at `step` (>= 0; a step reported twice keeps the first value, as Optuna) and returns
    // the pruner's verdict: true means stop the trial now and return TrialState::Pruned.
    std::function<bool(std::int64_t step, double value)> report;
    // The same with one value per objective (a study with several: its pruner judges the vector).
    std::function<bool(std::int64_t step, const std::vector<double>& values)> reportValues;
    // Records how many epochs the trial has trained so far (trial user attr "epochs_done"), for progress
    // displays when not every epoch reports a value.
    std::function<void(std::int64_t epochs)> epochsDone;
};

struct TrialOutcome {
    TrialState state = TrialState::Fail; // Complete, Pruned or Fail
    std::optional<double> value;         // Complete: the objective (one objective)
    std::vector<double> objectives;      // Complete: a command's {"objectives": [...]} list, when it printed one
    std::map<std::string, double> metrics; // every number the trial recorded, by key (core/pool/objectives.h)
    std::string failReason;              // Fail: why, for people (exit status, stderr tail, ...)
    bool interrupted = false;            // Fail: cancelled, not the trial's fault
    Json userAttrs = Json::object();     // extra metrics etc., stored as trial user attributes
};

class TrialRunner {
public:
    virtual ~TrialRunner() = default;
    // Runs one trial. Exceptions are caught by the loop and fail the trial with their message.
    virtual TrialOutcome run(TrialContext& context) = 0;
};

enum class LeftoverProcesses {
    Stop,  // the worker process: whatever a trial started is stopped when the trial ends
    Leave, // a loop inside a process that has other children of its own
};

struct WorkerLoopOptions {
    std::string storeLocation;
    std::string studyName;
    const SearchSpace* space = nullptr;
    std::optional<int> trialsLeft; // at most this many trials from this worker
    std::string workerId;          // given by the pool; identifies the worker in pitwall:worker
    std::string device;            // logical device id
    std::string workerLog;         // the worker's own log file, if known
    std::string logDir;            // trial folders go here
    double heartbeatIntervalSeconds = 5.0;
    // Before each trial, fail other workers' RUNNING trials whose heartbeat is older than this (failStaleTrials in
    // core/pool/trialstate.h), so that a worker killed mid-trial (a Slurm task cancelled, a node lost) does not hold
    // a place against the target forever; nullopt: leave that to the pool that started this worker.
    std::optional<double> staleGraceSeconds;
    LeftoverProcesses leftovers = LeftoverProcesses::Stop;
    const CancelToken* cancel = nullptr;
    std::function<void(const std::string&)> message; // one line per trial start and end, for the worker's log
};

struct WorkerLoopResult {
    int trialsRun = 0;
    int complete = 0, pruned = 0, failed = 0;
    bool cancelled = false;
    std::string stopReason; // "the study has its 8 trials", "ran --trials-left 2", "cancelled"
};

// Throws InputError when the study is missing or there is no limit at all (no target and no trialsLeft).
WorkerLoopResult runWorkerLoop(const WorkerLoopOptions& options, TrialRunner& runner);

} // namespace pitwall
