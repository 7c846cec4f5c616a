#pragma once
// Pruners decide from intermediate values whether a running trial should stop early, with Optuna 3.1's
// semantics (optuna/pruners/): median, asynchronous successive halving (SHA) and hyperband.
//
// Like the samplers they keep no state in memory: what Optuna keeps in the pruner object is read from and
// written to the store (SHA's per-trial "completed_rung_<k>" system attributes, Optuna's own keys; the
// resources estimated under "auto", as study system attributes). decide() is const and thread-safe.

#include "core/store/records.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

enum class PrunerKind { None, Median, SuccessiveHalving, Hyperband };
std::string_view prunerKindName(PrunerKind kind); // "none", "median", "sha", "hyperband"
std::optional<PrunerKind> parsePrunerKind(std::string_view name);

struct PrunerSettings {
    PrunerKind kind = PrunerKind::Median;
    // median: no pruning before this many trials completed / before this step; checks every interval. With several
    // objectives: a trial is pruned when more than half of the completed trials that reported a vector at its step
    // dominate its vector there (core/store/pareto.h's dominance).
    int startupTrials = 5;
    std::int64_t warmupSteps = 0;
    std::int64_t intervalSteps = 1;
    int minTrials = 1; // fewest completed trials with a value at the step to compare with
    // sha and hyperband; steps are the resource (e.g. epochs)
    std::optional<std::int64_t> minResource; // sha: none = "auto" (last step of completed trials / 100)
    std::optional<std::int64_t> maxResource; // hyperband: none = "auto" (last step of completed trials + 1)
    int reductionFactor = 4;                 // sha 4, hyperband 3
    int minEarlyStoppingRate = 0;            // sha only
    int bootstrapCount = 0;
    // sha and hyperband: whether the judged trial's value counts twice among its rung's competitors, as Optuna 3.1
    // decided (its storage cache put the value it had just recorded at the rung into the trial list it compared
    // against as well), or once, as the newest Optuna (5.1) decides. Stored as "halving_version" ("3.1" | "5");
    // settings stored without it were Optuna 3.1's and read so. New studies: the newest Optuna's.
    bool countJudgedTwice = false;

    // Optuna's defaults for each kind (hyperband: min_resource 1, reduction_factor 3).
    static PrunerSettings defaults(PrunerKind kind);
    Json toJson() const;
    // Missing fields take defaults(kind); InputError for an unknown name or a value out of range.
    static PrunerSettings fromJson(const Json& json);
};

struct PruneDecision {
    bool prune = false;
    Json trialSystemAttrs = Json::object(); // to store on the judged trial
    Json studySystemAttrs = Json::object(); // to store on the study (resources fixed under "auto")
};

class Pruner {
public:
    virtual ~Pruner() = default;
    // Judges `trial` (running, with intermediate values up to its last step) against all trials of the
    // study (any state, in number order; `trial` is among them). The caller stores the decision's attributes.
    virtual PruneDecision decide(const StudyRecord& study, const std::vector<TrialRecord>& trials,
                                 const TrialRecord& trial) const = 0;
    bool shouldPrune(const StudyRecord& study, const std::vector<TrialRecord>& trials, const TrialRecord& trial) const
    {
        return decide(study, trials, trial).prune;
    }
};

std::unique_ptr<Pruner> makePruner(const PrunerSettings& settings);

// Hyperband's bracket of trial `number` (Optuna: crc32("<study>_<number>") over the bracket budgets), or
// std::nullopt while max_resource is unknown ("auto" before the first pruning check fixed it). With
// hyperband, TPE learns only from the trials of the new trial's bracket.
std::optional<int> hyperbandBracket(const PrunerSettings& settings, const StudyRecord& study, int number);

// Study system attributes where the resources estimated under "auto" are kept.
inline constexpr const char* kShaMinResourceAttr = "pitwall:sha_min_resource";
inline constexpr const char* kHyperbandMaxResourceAttr = "pitwall:hyperband_max_resource";

} // namespace pitwall
