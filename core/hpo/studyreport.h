#pragma once
// What `pitwall study list`, `study best`, `study create`, `study ask` and `study tell` report, as JSON and as text,
// for the CLI and the window alike.

#include "core/hpo/study.h"
#include "core/store/records.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pitwall {

// One object per study: name, directions, trials, complete, pruned, failed, running, best_value, best_trial, and for
// a single-objective study its sampler and pruner kinds.
nlohmann::json studyListJson(const std::vector<StudySummary>& studies);
// The same as a table with a header line, one study a line ("-" where there is no best value, sampler or pruner).
std::string studyListText(const std::vector<StudySummary>& studies);

// {"number": N, "value": V, "params": {...}} of a complete trial (V as jsonNumber writes it).
nlohmann::json bestTrialJson(const TrialRecord& best);
// "best trial N of 'STUDY': value V" and one "  name: value" line per parameter.
std::string bestTrialText(const std::string& studyName, const TrialRecord& best);

// "created study 'NAME' (minimize|maximize, sampler {...}, pruner {...}) in LOCATION" (the settings' JSON).
std::string studyCreatedText(const std::string& studyName, const StudyOptions& options, const std::string& location);

// {"number", "params", "fixed", "overrides"} of a trial that `study ask` started.
nlohmann::json askedTrialJson(const AskedTrial& asked);

// "trial N: STATE" with " (value V)" when it has a value: a trial that `study tell` ended.
std::string toldTrialText(const TrialRecord& trial);

} // namespace pitwall
