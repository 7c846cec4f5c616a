#pragma once
// Named points of a search space: "this combination of values is LEAD's 'Logits + nearest'". A labels file maps a
// name to values of some of the space's parameters (in the space's names); a trial carries the name when its
// parameters have every one of those values (the others, such as a tuned learning rate, are free). `pitwall hpo
// --labels FILE` keeps them with the study (user attribute "labels"); the Study view's Pareto front and `pitwall
// study best` name the trials that match.
//
//   Baseline: {upsample_perspective_logits: false, upsample_mode: bilinear, training.optimization.batch_size: 8}
//   Logits + nearest: {upsample_perspective_logits: true, upsample_mode: nearest, training.optimization.batch_size: 8}
//
// Pure: any thread.

#include "core/hpo/searchspace.h"
#include "core/store/records.h"

#include <string>
#include <vector>

namespace pitwall {

struct TrialLabel {
    std::string name;
    Json params = Json::object(); // space name -> value, as a trial parameter's value() gives it
};

inline constexpr const char* kLabelsAttr = "labels";

// Reads a labels file against `space`: InputError with file:line for a name the space lacks (with "did you mean"),
// a value the parameter cannot take (not one of its choices, out of its range), an empty or duplicate label.
std::vector<TrialLabel> parseTrialLabels(const std::string& yamlText, const std::string& sourceName,
                                         const SearchSpace& space);

// As kept with a study: [{"name", "params"}], and back (malformed entries are skipped: the attribute may come from
// any writer).
Json trialLabelsJson(const std::vector<TrialLabel>& labels);
std::vector<TrialLabel> trialLabelsFromJson(const Json& json);

// The names of the labels `trial` matches, in the labels' order.
std::vector<std::string> labelsOf(const TrialRecord& trial, const std::vector<TrialLabel>& labels);

} // namespace pitwall
