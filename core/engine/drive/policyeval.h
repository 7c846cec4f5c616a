#pragma once
// `pitwall eval driving` as a function: one or more policies (built-in, or training runs' models) each driven
// over the same routes, every run's result recorded with it (runeval.h), and the mean ± sample std across runs.
// Plain C++ (no torch in this header).

#include "core/engine/drive/runeval.h"
#include "core/report/table.h"
#include "core/util/cancel.h"
#include "core/util/progress.h"

#include <optional>
#include <string>
#include <vector>

namespace pitwall::drive {

// One policy to drive: "expert", "idle", or a run's model (runId set, text its id).
struct PolicySource {
    std::string text;
    std::optional<std::int64_t> runId;
};

struct PolicyEvalSpec {
    std::vector<PolicySource> policies;
    DrivingEvalOptions options;       // routes, seed, route seconds (checked by validateEvalOptions)
    ModelPolicyOptions model;         // for run policies
    std::string replayDir;            // empty: no replays; with several policies, one folder run_<text> each
    std::string storeLocation;        // where runs are read and their evaluations recorded
};

struct PolicyEvalResult {
    std::vector<DrivingReport> reports; // one per policy, in order
    bool cancelled = false;             // then the unfinished policy is neither reported nor recorded
    // Across runs (training seeds): mean ± sample std of each run's global figures.
    MeanStd drivingScore, routeCompletion, infractionPenalty;
    // The route-level standard error of the driving score: the mean of the runs' standard errors over their
    // (shared) routes, meanDrivingScoreStandardError (scoring.h); with one run, that run's.
    double drivingScoreStandardError = 0;
};

// Drives every policy. Messages: "run ID: model 'M' from CHECKPOINT" per run, one line per finished route;
// progress per simulated second of a route. InputError for a bad run or bad options.
// What evaluatePolicies checks before it drives, without driving or writing: the options, and that every run
// exists, has a checkpoint and its model loads and plans. Returns one line per policy ("run 12: model
// 'transfuser' from CKPT"); InputError for the first problem.
std::vector<std::string> checkPolicies(const PolicyEvalSpec& spec);

PolicyEvalResult evaluatePolicies(const PolicyEvalSpec& spec, CancelToken& cancel, const ProgressReporter& reporter);

} // namespace pitwall::drive
