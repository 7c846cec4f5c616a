#pragma once
// What a `pitwall worker` runs for each trial of a search: the built-in trainer on the search's config with the
// trial's values as overrides, or the search's external command (core/pool/commandrunner.h). Plain values only:
// no torch in this header.

#include "core/devices/devices.h"
#include "core/pool/trialloop.h"
#include "core/search/searchsetup.h"

#include <memory>
#include <string>

namespace pitwall::engine {

// The runner for `setup` (which must outlive it): built-in trials train on `device` with the first of
// experiment.seeds, report the objective metric after every epoch that has it (for pruning) and store stage
// times and FPS as trial user attributes; command trials run setup.commandWords with {device}, {threads} and
// {epochs} from `device` and setup.settings.
std::unique_ptr<TrialRunner> makeTrialRunner(const SearchSetup& setup, const std::string& storeLocation,
                                             const LogicalDevice& device);

} // namespace pitwall::engine
