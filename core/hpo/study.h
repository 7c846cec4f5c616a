#pragma once
// The ask/tell protocol of a study in the results store, compatible with Optuna 3.1 over the same file:
// ask() creates a RUNNING trial numbered atomically by the store together with its parameters (with Optuna's
// distributions) in one transaction, so an ask that fails leaves no trial behind; report() adds intermediate values, shouldPrune() asks the study's pruner, tell() finishes
// the trial. Any number of processes may ask and tell at once; the sampler and pruner read what they need
// from the store each time (nothing is kept in memory between calls).
//
// The sampler and pruner settings are study system attributes ("pitwall:sampler", "pitwall:pruner"); a study
// without them (e.g. created by Optuna) uses Optuna's defaults: TPE (NSGA-II with several objectives, with the
// population size Optuna's NSGA-II left in the study, else 50) and the median pruner.
//
// A study may have several objectives (Optuna's layout: one study_directions row and one trial_values row per
// objective): tell() and report() then take one value per objective and bestTrials() is the Pareto front
// (core/store/pareto.h). Such a study prunes with the median pruner read for vectors (a trial dominated at its step
// by more than half of the completed trials, core/hpo/pruner.h) or not at all; sha and hyperband judge one.
//
// Threads: a Study uses its Store, so one thread at a time. Errors: InputError for bad input (unknown trial,
// finished trial, a wrong number of values, a space the sampler cannot handle), RuntimeError from the store.

#include "core/hpo/pruner.h"
#include "core/hpo/sampler.h"
#include "core/hpo/searchspace.h"
#include "core/store/store.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

inline constexpr const char* kSamplerAttr = "pitwall:sampler";
inline constexpr const char* kPrunerAttr = "pitwall:pruner";

struct StudyOptions {
    StudyDirection direction = StudyDirection::Minimize; // the first (or only) objective's
    std::vector<StudyDirection> directions;              // every objective's when there are several; else empty
    SamplerSettings sampler;
    PrunerSettings pruner;

    // Every objective's direction: `directions`, or {direction} when it is empty.
    std::vector<StudyDirection> objectives() const { return directions.empty() ? std::vector{direction} : directions; }
};

// A trial handed out by ask().
struct AskedTrial {
    TrialRecord trial;                  // as created (RUNNING), with its parameters
    Json params = Json::object();       // {name: external value} of the sampled parameters
    Json fixed = Json::object();        // {name: value} of the space's fixed values
    std::vector<std::string> overrides; // "config.key=value" for every parameter, sampled and fixed
};

class Study {
public:
    // Creates the study and stores its settings. InputError when the name is taken, or TPE is asked to handle
    // several objectives.
    static Study create(Store& store, const std::string& name, const StudyOptions& options);
    // Opens an existing study; InputError naming the known studies when it is absent.
    static Study load(Store& store, const std::string& name);

    const StudyRecord& record() const { return m_record; }
    const StudyOptions& options() const { return m_options; }

    // Creates a RUNNING trial with parameters sampled for `space`. If sampling fails, the new trial is
    // marked FAIL and the error rethrown.
    AskedTrial ask(const SearchSpace& space);
    // Same, for parameters given directly (tests, benchmarks).
    AskedTrial ask(const std::vector<ParamRequest>& requests);
    // Asks only while `admit` accepts the study's trials as they are when the new trial is numbered: no trial
    // is created otherwise (nullopt). Since a trial is created only under the number it was sampled for, a
    // trial started by another process meanwhile makes the ask look again, so workers that share a target
    // never start more trials than it allows.
    using AdmitTrials = std::function<bool(const std::vector<TrialRecord>&)>;
    std::optional<AskedTrial> askIf(const SearchSpace& space, const AdmitTrials& admit);

    // Reports an intermediate value at `step` (>= 0). Like Optuna, a step reported before is ignored:
    // returns false then. InputError when the trial is not RUNNING or the study has several objectives.
    bool report(int trialNumber, std::int64_t step, double value);
    // The same with one value per objective (a study with several: the first goes to Optuna's table, the others to
    // Pitwall's; InputError for another count).
    bool report(int trialNumber, std::int64_t step, const std::vector<double>& values);
    // The pruner's verdict for a RUNNING trial at its last reported step, or at `step` (which must have a
    // reported value; later values are then left out). Stores what the pruner records (SHA rungs).
    bool shouldPrune(int trialNumber, std::optional<std::int64_t> step = std::nullopt);
    // Finishes a RUNNING trial. Complete needs a value; a NaN value fails the trial as Optuna does.
    // Returns the state the trial ended in.
    TrialState tell(int trialNumber, TrialState state, std::optional<double> value = std::nullopt);
    // The same with one value per objective (InputError for another count; pruned and fail take none). Non-empty
    // `constraints` are stored as Optuna stores them (the trial attribute "constraints": feasible when all <= 0).
    TrialState tell(int trialNumber, TrialState state, const std::vector<double>& values,
                    const std::vector<double>& constraints = {});

    // The best trial under the study's direction (core/store/besttrial.h: COMPLETE only, NaN skipped, ±inf rank,
    // the lowest number of equals), if any.
    std::optional<TrialRecord> bestTrial();
    // The Pareto front (core/store/pareto.h: COMPLETE and feasible trials no other dominates), in number order; for
    // one objective, the trials sharing the best value.
    std::vector<TrialRecord> bestTrials();
    std::size_t objectiveCount() const { return m_record.directions.size(); }
    TrialRecord requireTrial(int trialNumber);

private:
    std::optional<AskedTrial> askRequests(const std::vector<ParamRequest>& requests, const AdmitTrials& admit);
    Study(Store& store, StudyRecord record, StudyOptions options);
    StudyDirection direction() const { return m_options.direction; }
    std::string directionsText() const; // "minimize, maximize"

    // The study's trials for a sampler, read incrementally: the leading trials that are finished never change (as
    // Optuna's cached storage assumes), so each call reads only from the first one that was not finished last time.
    const std::vector<TrialRecord>& currentTrials();

    Store* m_store;
    StudyRecord m_record;
    StudyOptions m_options;
    std::vector<TrialRecord> m_trials; // currentTrials(): trials 0..m_finishedPrefix-1 are finished
    std::size_t m_finishedPrefix = 0;
};

// The options stored with a study (defaults for what is missing: TPE without seed, median pruner).
StudyOptions studyOptions(const StudyRecord& study);

} // namespace pitwall
