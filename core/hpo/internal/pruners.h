#pragma once
// The pruner implementations behind makePruner(). Internal to core/hpo.

#include "core/hpo/pruner.h"

namespace pitwall::hpo_internal {

// The largest step with an intermediate value (Optuna's FrozenTrial.last_step).
std::optional<std::int64_t> lastStep(const TrialRecord& trial);

std::unique_ptr<Pruner> makeSuccessiveHalvingPruner(const PrunerSettings& settings);
std::unique_ptr<Pruner> makeHyperbandPruner(const PrunerSettings& settings);

} // namespace pitwall::hpo_internal
