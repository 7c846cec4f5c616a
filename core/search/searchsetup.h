#pragma once
// Everything a search derives from its HpoSettings before any trial runs, shared by `pitwall hpo` (which
// checks it all before creating anything) and `pitwall worker` (which runs the trials):
// - the base config (files + overrides + the --epochs mapping), when configs are given;
// - the search space, resolved against the config schema (bare names in the model plugin's sections), or,
//   for an external command without a config, with every name standing for itself (freeSpaceSchema);
// - the command's words, with every {placeholder} checked.
// Errors: InputError with every problem (bad config, bad space, unknown placeholder, ...).

#include "core/config/config.h"
#include "core/hpo/searchspace.h"
#include "core/pool/hposettings.h"

#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct SearchSetup {
    HpoSettings settings;
    Schema schema;
    std::vector<std::string> baseOverrides; // data.hpo_split=true (built-in), settings.overrides, the --epochs mapping
    std::optional<ResolvedConfig> base;     // when settings.configs is not empty
    std::vector<std::string> modelSections; // where bare space names resolve
    std::optional<SearchSpace> space;
    std::vector<std::string> commandWords; // empty for the built-in trainer

    bool builtin() const { return settings.command.empty(); }
    // The trial's config: the base files and overrides, then the trial's overrides (space values).
    ResolvedConfig trialConfig(const std::vector<std::string>& trialOverrides) const;
};

// The stage keys whose epochs `--epochs E` sets: every stage with epochs > 0 in `config`, so a one-stage
// config stays one stage, and `<experiment.model>.epochs` when the model has that key. Returns "key=E" overrides.
std::vector<std::string> epochOverrides(const ResolvedConfig& config, int epochs);

// `schema` is the config schema with plugin keys (ignored for a command without configs).
SearchSetup prepareSearch(const HpoSettings& settings, const Schema& schema);

// The number of grid points of the space; nullopt when a searched parameter is continuous.
std::optional<long long> gridPoints(const SearchSpace& space);

// The validation metric an objective names: "val/loss" and "loss" both mean "loss".
std::string objectiveMetric(const std::string& objective);

// Built-in trainer: throws InputError when `objective` names no validation metric that the model records
// (core's metrics plus those its plugin's schema file declares), listing the known objectives; `source` says
// where the objective came from ("--objective", "hpo.objective"). Nothing is checked when the model's plugin
// declares no metrics (they are only known after training).
void checkObjective(const SearchSetup& setup, const std::string& objective, const std::string& source);

// For the built-in trainer: `key` (an objective of several, or a constraint's key) must be a number a trial of it
// records: a validation metric (val/NAME, or NAME alone), full_fps or compute_fps (the last stage's), or
// full_fps/STAGE, compute_fps/STAGE, stage_seconds/STAGE. InputError naming `option` otherwise, with a "did you
// mean". Nothing is checked for a command, whose final line may hold any key, or when the model declares no metrics.
void checkRecordedKey(const SearchSetup& setup, const std::string& key, const std::string& option);

} // namespace pitwall
