#pragma once
// What `pitwall hpo` and `pitwall worker` make of their options: the search to run, and a worker's settings.

#include "core/devices/devices.h"
#include "core/jobs/hpojob.h"
#include "core/pool/hposettings.h"
#include "core/pool/trialloop.h"
#include "core/search/search.h"
#include "core/util/cmdline.h"

namespace pitwall {

// A new search (configs and overrides, --space, --trials, --epochs, --command, --objective, --model, --term-grace,
// --trial-timeout, --study, --direction, the sampler and pruner options, --log-dir) or --resume STUDY (only --trials,
// --partition, --backend and --heartbeat-* may change), then --final-epochs, --best-params, --partition, --backend,
// --heartbeat-grace (at least twice --heartbeat-interval), --heartbeat-interval and --db (made absolute). The schema is
// loaded with its warnings on stderr. prepareData is left empty for the caller. InputError naming the option for a bad
// or missing value.
SearchSpec searchSpecFromArgs(const cmdline::Args& args);
// The same from the typed spec (searchSpecFromArgs is searchSpecFromJob(HpoJob::fromArgs(args))): configs and
// --space made absolute, --space and --trials required for a new search, --objective refused with --command.
SearchSpec searchSpecFromJob(const HpoJob& job);

// A worker's settings: `stored` (the study's) with the command line's on top: configs and overrides (made
// absolute) or --command replace the stored ones together; --space, --epochs, --objective, --model, --log-dir.
// The target is at least 1 (the worker loop reads the live target from the study).
HpoSettings workerSettingsFromArgs(const cmdline::Args& args, HpoSettings stored);

// `pitwall worker`: the study (--study, required) and its settings, those stored with it (by pitwall hpo) with
// workerSettingsFromArgs on top.
HpoSettings workerStudySettings(const cmdline::Args& args);

// `pitwall worker`'s logical device and loop: --device (default cpu:0.0) on this process's cores with --threads
// intra-op threads (default one per core), and the loop over --study with --trials-left, --worker-id (default
// host:pid), --worker-log, --heartbeat-interval (default 5 s) and the settings' log folder (default hpo-logs).
// The caller sets loop.space, loop.cancel and loop.message.
struct WorkerRun {
    LogicalDevice device;
    WorkerLoopOptions loop;
};
WorkerRun workerRunFromArgs(const cmdline::Args& args, const HpoSettings& settings);

// The options the functions above read, declared for the commands' help and parsers: `pitwall hpo`'s
// (HpoJob::optionSpecs, with studyOptionSpecs for a new search's sampler and pruner) and `pitwall worker`'s; --db
// and --json are the command line's own.
std::vector<cmdline::OptionSpec> searchOptionSpecs();
std::vector<cmdline::OptionSpec> workerOptionSpecs();

} // namespace pitwall
