#pragma once
// How what a trial records becomes the values and constraints its study is told, for `pitwall hpo` with several
// objectives (`--objective KEY --direction D` in pairs) and with `--constraint "KEY<=X"`. The one home of these
// rules, for the built-in trainer and for commands alike.
//
// - A trial records numbers under keys (TrialOutcome::metrics): the built-in trainer its validation metrics
//   ("val/loss", "val/waypoint_l1"), the throughput of each stage and of the last ("full_fps", "compute_fps",
//   "full_fps/<stage>"), "map50", ...; a command the numeric fields of its final line ({"objective": V, "fps": F}),
//   and its {"objectives": [V, ...]} list.
// - With several objectives, objective i is the metric named by HpoSettings::objectives[i], or, for an empty name,
//   the i-th number of a command's "objectives" list (which then must have one per objective). A bare built-in
//   name also finds its "val/" metric ("loss" is "val/loss").
// - A constraint "KEY<=X" is stored as value(KEY) - X, "KEY>=X" as X - value(KEY): feasible when <= 0, as Optuna's
//   constraints_func values.
// - A metric the trial did not record, a NaN or a wrong count is a problem: the trial fails with it, naming the key
//   and the keys it has.

#include "core/pool/hposettings.h"
#include "core/pool/trialloop.h"

#include <string>
#include <vector>

namespace pitwall {

// What the closed-loop driving evaluation of a built-in trial records (core/engine/drive/runeval.h): a search whose
// objectives or constraints name one drives every trial that completes on the config's hpo.driving.* routes.
inline constexpr const char* kDrivingMetrics[] = {"driving_score", "driving_score_stderr", "route_completion",
                                                  "infraction_penalty", "infractions_per_km"};
bool isDrivingMetric(const std::string& key);
// Whether `settings`' objective (or objectives) or constraints name a driving metric.
bool needsDrivingEvaluation(const HpoSettings& settings);

struct ConstraintSpec {
    std::string key;
    bool atMost = true; // "<=" (else ">=")
    double bound = 0.0;
};

// "KEY<=X" or "KEY>=X" (spaces allowed around the operator); InputError naming --constraint otherwise.
ConstraintSpec parseConstraint(const std::string& text);

// Checks the objective names and constraints of a new search: InputError (naming the option) for a malformed
// constraint, or objective names that do not pair with `directions` (several objectives need one direction each).
void checkObjectiveSpecs(const std::vector<std::string>& objectives, std::size_t directions,
                         const std::vector<std::string>& constraints, bool command);

struct TrialValues {
    std::vector<double> values;      // one per objective
    std::vector<double> constraints; // one per constraint (empty without constraints)
    std::string problem;             // non-empty: the trial cannot be told (it fails with this)
};

// The values and constraints of a trial that completed, for a study with `objectiveCount` objectives. With one
// objective and no "objectives" names, the value is the runner's own (TrialOutcome::value).
TrialValues trialValues(const HpoSettings& settings, std::size_t objectiveCount, const TrialOutcome& outcome);

} // namespace pitwall
