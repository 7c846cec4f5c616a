#pragma once
// The settings of a search run by `pitwall hpo`, kept with the study (system attribute "pitwall:hpo") so that
// workers find the target and `pitwall hpo --resume STUDY` continues with the same configs, space, command and
// objective. Paths are stored absolute.

#include "core/store/store.h"

#include <optional>
#include <string>
#include <vector>

namespace pitwall {

// kHpoSettingsAttr ("pitwall:hpo") is declared in core/store/records.h: objectiveNames reads the objectives there.

struct HpoSettings {
    int targetTrials = 0;               // trials that count against the target (see StudyCounts::counted)
    std::string spacePath;              // the search space YAML
    std::vector<std::string> configs;   // config files, in order (may be empty with a command)
    std::vector<std::string> overrides; // "dotted.key=value" after the files
    std::string command;                // external command template; empty: the built-in trainer
    std::optional<int> epochs;          // --epochs: every enabled stage trains this many epochs
    std::string objective;              // built-in: a validation metric ("val/loss"); a command: "objective"
    // Several objectives (the study's directions, in order): the metric each one reads from what a trial records
    // (core/pool/objectives.h); "" for a command's i-th value of {"objectives": [...]}. Empty: one, `objective`.
    std::vector<std::string> objectives;
    std::vector<std::string> constraints; // "KEY<=X" / "KEY>=X" on what a trial records, stored as Optuna's
    std::string backend = "cpu";        // device backend the pool used
    std::string partition = "SPX";      // partition mode
    std::string model;                  // owner whose keys bare space names mean ("" = experiment.model)
    std::string logDir;                 // worker and trial logs
    // A command trial stopped (pruned, cancelled) has this long after SIGTERM before SIGKILL; the pool waits
    // as long (plus a margin) for a stopping worker. A second SIGINT/SIGTERM stops everything at once.
    double termGraceSeconds = 10.0;
    // `pitwall hpo --trial-timeout`: a trial running longer fails ("exceeded --trial-timeout N s") and its
    // processes are stopped by the pool (workerpool.h); nullopt: no limit. > 0.
    std::optional<double> trialTimeoutSeconds;

    Json toJson() const;
    // Missing fields take the defaults; InputError for a malformed value.
    static HpoSettings fromJson(const Json& json);
};

// The settings stored with a study, if it has any.
std::optional<HpoSettings> readHpoSettings(const StudyRecord& study);
void writeHpoSettings(Store& store, std::int64_t studyId, const HpoSettings& settings);

// The target of a study right now (0 when it has no settings): workers re-read it before every trial, so
// raising it with `pitwall hpo --resume NAME --trials N` reaches running workers.
int studyTarget(Store& store, const std::string& studyName);

} // namespace pitwall
