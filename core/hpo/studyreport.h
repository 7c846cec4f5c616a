#pragma once
// What `pitwall study list`, `study best`, `study create`, `study ask` and `study tell` report, as JSON and as text,
// for the CLI and the window alike.

#include "core/hpo/study.h"
#include "core/hpo/triallabels.h"
#include "core/store/records.h"
#include "core/store/store.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pitwall {

// One object per study: name, directions, trials, complete, pruned, failed, running, best_value, best_trial (the first
// objective's), sampler, for a single-objective study its pruner kind, and for a multi-objective one pareto_front
// (how many trials are on it).
nlohmann::json studyListJson(const std::vector<StudySummary>& studies);
// The same as a table with a header line, one study a line ("-" where there is no best value, sampler or pruner).
std::string studyListText(const std::vector<StudySummary>& studies);

// {"number": N, "value": V, "params": {...}} of a complete trial (V as jsonNumber writes it).
nlohmann::json bestTrialJson(const TrialRecord& best);
// "best trial N of 'STUDY': value V" and one "  name: value" line per parameter.
std::string bestTrialText(const std::string& studyName, const TrialRecord& best);

// The hypervolume of a multi-objective study's front from a reference point, and its history over the trials.
struct HypervolumeReport {
    std::vector<double> reference;
    double hypervolume = 0.0;
    std::vector<std::pair<int, double>> history; // (trial number, hypervolume after it), core/hpo/hypervolume.h
};
// `referenceText` is "R1,R2,..." (one number per objective); InputError naming --reference otherwise.
HypervolumeReport hypervolumeReport(Store& store, const StudyRecord& study, const std::string& referenceText);

// {"best_trials": [{"number": N, "values": [...], "params": {...}}, ...]}: a multi-objective study's Pareto front, as
// Optuna's Study.best_trials; with a hypervolume report also "reference", "hypervolume" and "hypervolume_history"
// ([[trial number, hypervolume], ...]); with the study's labels (triallabels.h) each trial's "labels" it matches.
nlohmann::json bestTrialsJson(const std::vector<TrialRecord>& front,
                              const std::optional<HypervolumeReport>& volume = std::nullopt,
                              const std::vector<TrialLabel>& labels = {});
// "Pareto front of 'STUDY' (minimize, maximize): N trials" and a line per trial: "trial N [LABEL]: values ...", its
// parameters; then the hypervolume line when there is a report.
std::string bestTrialsText(const StudyRecord& study, const std::vector<TrialRecord>& front,
                           const std::optional<HypervolumeReport>& volume = std::nullopt,
                           const std::vector<TrialLabel>& labels = {});

// "created study 'NAME' (minimize|maximize[, ...], sampler {...}, pruner {...}) in LOCATION" (the settings' JSON).
std::string studyCreatedText(const std::string& studyName, const StudyOptions& options, const std::string& location);

// {"number", "params", "fixed", "overrides"} of a trial that `study ask` started.
nlohmann::json askedTrialJson(const AskedTrial& asked);

// "trial N: STATE" with " (value V)" (" (values V1, V2)") when it has values: a trial that `study tell` ended.
std::string toldTrialText(const TrialRecord& trial);

} // namespace pitwall
