// pitwall train CONFIG... [overrides]
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/config/configargs.h"
#include "core/engine/train/experiment.h"
#include "core/engine/train/experimentreport.h"
#include "core/engine/train/trainranks.h"
#include "core/util/cancel.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

int trainCommand(const Args& args)
{
    const ResolvedConfig config = resolveConfigArgs(args, true);
    engine::ExperimentOptions options;
    options.storeLocation = args.database();
    if (auto seed = args.integer("seed", 0))
        options.seeds = {*seed};
    options.resume = args.flag("resume");
    ProgressLine line;
    const bool json = args.flag("json");
    options.message = [&](const std::string& text) { line.message(text); };
    options.dataProgress = line.reporter().counter("synthesising frames");
    options.progress = [&](std::int64_t seed, const engine::TrainProgress& p) {
        const engine::TrainProgressText text = engine::trainProgressText(seed, p);
        if (p.epochDone)
            line.message(text.text);
        else
            line.update(text.label, static_cast<double>(p.step), static_cast<double>(p.stepsPerEpoch), text.detail);
    };
    options.cancel = processCancelToken().flag();
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
    cli.add(
        {.path = "train",
         .options = {dbOption(),
                     jsonOption(),
                     {"seed", "S", "train only this seed (instead of experiment.seeds)"},
                     {"resume", "", "continue the study's unfinished trials of the same seeds from their checkpoints"}},
         .run = trainCommand});
    cli.add({"train-rank", "one rank of a data-parallel run (started by pitwall itself)",
             "CONFIG --rank R --world-size N --rendezvous FILE --seed S --data-dir DIR --checkpoint-dir DIR --threads "
             "T --result FILE",
             "", withOptions({dbOption()}, engine::trainRankOptionSpecs()), engine::trainRankCommand, true});
}

} // namespace pitwall::cli
