#pragma once
// What the scheduler reads from and writes to a study's trials: the counts a progress display shows and a
// target is checked against, failing a trial with its reason, and finding trials whose worker vanished.
//
// Conventions (trial system attributes, JSON values, readable by Optuna as ordinary system attrs):
//   fail_reason          text: why a FAIL trial failed ("command ended with exit status 137 ...")
//   pitwall:interrupted  true when the failure was not the trial's fault (cancelled, worker vanished, not run
//                        because the study was already full). Such trials do not count against the target,
//                        so a resumed search runs replacements for them.
//   pitwall:worker       {"id", "pid", "host", "device", "log"} of the worker process that runs the trial.
//
// Threads: functions taking a Store use it on the calling thread (see Store).

#include "core/store/store.h"
#include "core/util/process.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pitwall {

inline constexpr const char* kFailReasonAttr = "fail_reason";
inline constexpr const char* kWorkerAttr = "pitwall:worker";
inline constexpr const char* kEpochsDoneAttr = "epochs_done"; // trial user attr: epochs trained so far

// How many trials of a study are in each state, and the best so far (core/store/besttrial.h).
struct StudyCounts {
    int running = 0;
    int waiting = 0;
    int complete = 0;
    int pruned = 0;
    int failed = 0;      // every FAIL trial, interrupted ones included
    int interrupted = 0; // FAIL trials marked pitwall:interrupted
    int untracked = 0;   // RUNNING trials with neither a heartbeat nor a worker (e.g. Optuna without heartbeats)
    std::int64_t epochsDone = 0; // over all trials: epochs_done, or the intermediate values reported if more
    std::int64_t runningEpochs = 0; // the part of epochsDone trained by RUNNING trials
    std::optional<double> bestValue; // one objective only
    std::optional<int> bestTrial;
    std::optional<int> frontSize; // several objectives: the trials on the Pareto front (core/store/pareto.h)

    // Trials that count against a target: every trial except interrupted failures (as Optuna's n_trials,
    // a trial that crashed counts; one that was cancelled or lost its worker does not).
    int counted() const { return running + waiting + complete + pruned + failed - interrupted; }
    int finished() const { return complete + pruned + failed - interrupted; }
};

StudyCounts countTrials(const std::vector<TrialRecord>& trials, StudyDirection direction);
// With several directions there is no single best: frontSize instead of bestValue and bestTrial.
StudyCounts countTrials(const std::vector<TrialRecord>& trials, const std::vector<StudyDirection>& directions);
// The finished trials by state as every display words them (the search's progress, its final line, jobs show, the
// window): "complete 5 · pruned 1 · failed 0 · interrupted 2", where failed are the trials' own failures and
// interrupted the trials that were stopped or lost (not counted, re-run on resume).
std::string countsText(const StudyCounts& counts);
bool isInterrupted(const TrialRecord& trial);

enum class FailKind {
    TrialFault,  // the trial failed (crash, bad output, exit status): it counts against the target
    Interrupted, // cancelled or lost: it does not count, a replacement may run
};

// Ends a RUNNING trial as FAIL with `reason` (system attr fail_reason, and pitwall:interrupted for
// FailKind::Interrupted), ends the trial's runs that are still running as failed, and records the reason as
// an error event on its latest run (a run of kind "worker" is recorded when the trial has none).
// Returns false, changing nothing, when the trial is no longer RUNNING (someone finished it meanwhile).
bool failTrial(Store& store, const TrialRecord& trial, const std::string& reason, FailKind kind,
               std::optional<int> exitCode = std::nullopt);


// True when the trial's worker (pitwall:worker) is a live process on this host. False when it runs on
// another host, has ended, or is unknown. A reused process id reads as alive (the trial is then left alone).
bool workerAliveHere(const TrialRecord& trial);

struct StaleTrial {
    int number = 0;
    double silentSeconds = 0.0; // since the last heartbeat (or the start, when it never beat)
    std::string reason;
};

// Fails RUNNING trials whose last heartbeat (or start, for a trial with a worker but no heartbeat yet) is
// older than `graceSeconds` and whose worker is not alive on this host, with the reason
// "worker vanished: no heartbeat for N s (worker ...)", as interrupted. Trials with neither heartbeat nor
// worker are left alone (nothing says who runs them). Returns the trials it failed.
std::vector<StaleTrial> failStaleTrials(Store& store, std::int64_t studyId, double graceSeconds);

// "exit status 137" plus what it usually means: 137 / SIGKILL = the out-of-memory killer or kill -9, ...
std::string describeExit(bool exited, int code);

} // namespace pitwall
