// pitwall train CONFIG... [overrides]
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/config/configargs.h"
#include "core/engine/train/experiment.h"
#include "core/engine/train/experimentreport.h"
#include "core/engine/train/slurmtraining.h"
#include "core/engine/train/trainranks.h"
#include "core/jobs/trainjob.h"
#include "core/util/cancel.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

int trainCommand(const Args& args)
{
    const TrainJob job = TrainJob::fromArgs(args);
    const ResolvedConfig config = resolveConfigArgs(args, true);
    engine::ExperimentOptions options;
    options.storeLocation = args.database();
    if (job.seed)
        options.seeds = {*job.seed};
    options.resume = job.resume;
    ProgressLine line;
    const bool json = args.flag("json");
    options.reporter = line.reporter();
    options.cancel = &processCancelToken();
    installInterruptHandlers(InterruptPolicy::Command);

    // Started by srun as one of several tasks: one rank of one run (only rank 0 prints the result).
    const auto slurm = slurmTrainingTask();
    if (slurm)
        narrowVisibleDevicesToTask(*slurm);
    const engine::ExperimentResult result =
        slurm ? engine::runSlurmExperiment(config, options, *slurm) : engine::runExperiment(config, options);
    line.finish();
    if (slurm && slurm->rank != 0)
        return !result.seeds.empty() && result.seeds.back().train.cancelled ? kExitCancelled : kExitOk;
    if (json) {
        std::cout << engine::experimentResultJson(result).dump(2) << "\n";
    } else {
        std::fputs(engine::experimentResultText(result, options.storeLocation).c_str(), stdout);
    }
    const bool cancelled = !result.seeds.empty() && result.seeds.back().train.cancelled;
    if (cancelled) {
        std::fprintf(stderr, "cancelled: finished epochs are kept; continue with --resume\n");
        return kExitCancelled;
    }
    return kExitOk;
}

// `train --check` (and the check a `train --detach` runs first): the options and the whole configuration (files,
// includes, overrides, the schema) are what a run would read; a problem is an InputError (exit 2) before any job,
// data or results file exists.
int trainCheck(const Args& args)
{
    return checkReport(args, TrainJob::fields(), [&] {
        const TrainJob job = TrainJob::fromArgs(args);
        const ResolvedConfig config = resolveConfigArgs(args, true);
        const std::string name = config.getString("experiment.name");
        std::string text = "train: the config is valid; it would train experiment '" + name + "'";
        if (job.seed)
            text += " with seed " + std::to_string(*job.seed);
        text += job.resume ? ", continuing its unfinished trials from their checkpoints" : "";
        text += ", results in " + args.database() + "\n";
        const nlohmann::json json = {{"ok", true}, {"problems", nlohmann::json::array()}, {"experiment", name}};
        return printReport(args, json, text);
    });
}

} // namespace

void addTrainCommands(Cli& cli)
{
    cli.add({.path = "train",
             .options = withOptions({dbOption(), jsonOption()}, TrainJob::optionSpecs()),
             .run = trainCommand,
             .check = trainCheck});
    cli.add({"train-rank", "one rank of a data-parallel run (started by pitwall itself)",
             "CONFIG --rank R --world-size N --rendezvous FILE --seed S --data-dir DIR --checkpoint-dir DIR --threads "
             "T --result FILE",
             "", withOptions({dbOption()}, engine::trainRankOptionSpecs()), engine::trainRankCommand, true});
}

} // namespace pitwall::cli
