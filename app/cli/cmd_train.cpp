// pitwall train CONFIG... [overrides]
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/config/configargs.h"
#include "core/engine/train/experiment.h"
#include "core/engine/train/experimentreport.h"
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

    const engine::ExperimentResult result = engine::runExperiment(config, options);
    line.finish();
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

} // namespace

void addTrainCommands(Cli& cli)
{
    cli.add({.path = "train",
             .options = withOptions({dbOption(), jsonOption()}, TrainJob::optionSpecs()),
             .run = trainCommand});
    cli.add({"train-rank", "one rank of a data-parallel run (started by pitwall itself)",
             "CONFIG --rank R --world-size N --rendezvous FILE --seed S --data-dir DIR --checkpoint-dir DIR --threads "
             "T --result FILE",
             "", withOptions({dbOption()}, engine::trainRankOptionSpecs()), engine::trainRankCommand, true});
}

} // namespace pitwall::cli
