#pragma once
// What `pitwall hpo` and `pitwall worker` make of their options: the search to run, and a worker's settings.

#include "core/sched/hposettings.h"
#include "core/sched/search.h"
#include "core/util/cmdline.h"

namespace pitwall {

// A new search (configs and overrides, --space, --trials, --epochs, --command, --objective, --model, --term-grace,
// --study, --direction, the sampler and pruner options, --log-dir) or --resume STUDY (only --trials, --partition,
// --backend and --heartbeat-* may change), then --final-epochs, --best-params, --partition, --backend,
// --heartbeat-grace, --heartbeat-interval and --db (made absolute). The schema is loaded with its warnings on
// stderr. prepareData is left empty for the caller. InputError naming the option for a bad or missing value.
SearchSpec searchSpecFromArgs(const cmdline::Args& args);

// A worker's settings: `stored` (the study's) with the command line's on top: configs and overrides (made
// absolute) or --command replace the stored ones together; --space, --epochs, --objective, --model, --log-dir.
// The target is at least 1 (the worker loop reads the live target from the study).
HpoSettings workerSettingsFromArgs(const cmdline::Args& args, HpoSettings stored);

} // namespace pitwall
