#pragma once
// Rules every backend applies to Optuna's tables in the same way: how values are encoded (Optuna's value types),
// which trials count as finished, what a parameter may change across a study, and what a trial needs to be added or
// completed. The backends differ in SQL only.

#include "core/store/besttrial.h"
#include "core/store/records.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pitwall::store_internal {

// Optuna's TrialValueType / TrialIntermediateValueType: the value column is NULL unless FINITE.
std::pair<std::optional<double>, const char*> storedValue(double value);
// Optuna's stored_repr_to_value: the value from its column and its type name.
double valueOfType(std::optional<double> value, std::string_view type);

bool isFinished(TrialState state);

// A stored attribute's JSON; text that is not JSON (written by some other tool) is kept as a string.
Json decodeStoredJson(const std::string& text);

// Adds `count` trials in the state named `stateName` (Optuna's names) to the summary's counts.
void addStateCount(StudySummary& summary, std::string_view stateName, int count);

// Offers a COMPLETE trial's first value to its study's best trial (core/store/besttrial.h's rule), unless its stored
// constraints (Optuna's JSON text; nullopt without any) make it infeasible.
void offerBestTrial(BestTracker& best, int number, double value, const std::optional<std::string>& constraintsJson);

// One best-trial tracker per summary, by its study's first direction (minimize for a study without any).
std::vector<BestTracker> bestTrackersFor(const std::vector<StudySummary>& summaries);

// Sets each summary's best trial from its tracker and, for a study with several objectives, the size of its Pareto
// front (`paretoFrontSize`, which the backend computes from its rows).
void finishSummaries(std::vector<StudySummary>& summaries, const std::vector<BestTracker>& best,
                     const std::function<int(const StudyRecord&)>& paretoFrontSize);

// Like Optuna: a parameter keeps its kind, log scale and choices across the trials of a study. InputError
// "WHERE: parameter 'NAME' was recorded with OLD in this study; it cannot change to NEW" otherwise.
void requireSameParameterKind(const std::string& where, const std::string& name, const std::string& recordedJson,
                              const Distribution& distribution);

// The values a trial completes with: one per objective, none NaN. InputError naming `where` and the trial otherwise.
void checkCompleteValues(const std::string& where, int trialNumber, std::size_t objectives,
                         const std::vector<double>& values);

// Checks a batch for Store::addTrials before anything is written: value counts, NaN, categorical indexes, and
// distributions that agree within the batch; `requireRecordedKind(name, distribution)` checks each parameter's first
// distribution against what the study recorded. InputError naming `where` and the trial otherwise.
void checkTrialsToAdd(const std::string& where, std::size_t objectives, std::span<const TrialRecord> trials,
                      const std::function<void(const std::string&, const Distribution&)>& requireRecordedKind);

} // namespace pitwall::store_internal
