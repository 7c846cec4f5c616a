// pitwall train CONFIG... [overrides]
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/config/configargs.h"
#include "core/engine/train/experiment.h"
#include "core/engine/train/experimentreport.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
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
        return 130;
    }
    return kExitOk;
}

// One rank of a data-parallel run, started by trainDataParallel (not by users).
int trainRankCommand(const Args& args)
{
    const auto integer = [&](const char* name) {
        const auto text = args.value(name);
        const auto value = text ? parseInteger(*text) : std::nullopt;
        if (!value)
            throw InputError(std::string("train-rank: --") + name + " is required and must be an integer");
        return *value;
    };
    if (args.positionals.size() != 1)
        throw InputError("train-rank: give the resolved config file");
    const ResolvedConfig config =
        resolveConfigText(schemaWithWarnings(), readTextFile(args.positionals[0]), args.positionals[0]);
    engine::TrainRequest request;
    request.config = &config;
    request.storeLocation = args.database();
    request.rank = static_cast<int>(integer("rank"));
    request.worldSize = static_cast<int>(integer("world-size"));
    request.rendezvous = args.value("rendezvous", "");
    request.seed = integer("seed");
    request.dataDir = args.value("data-dir", "");
    request.checkpointDir = args.value("checkpoint-dir", "");
    request.device.id = args.value("device", "");
    request.device.threads = static_cast<int>(integer("threads"));
    if (args.value("trial-id"))
        request.trialId = integer("trial-id");
    request.resume = args.flag("resume");
    request.cancel = processCancelToken().flag();
    installInterruptHandlers(InterruptPolicy::Command);
    const engine::TrainResult result = engine::train(request);
    std::ofstream out(args.value("result", ""));
    out << engine::trainResultToJson(result).dump();
    return out ? kExitOk : kExitFailure;
}

} // namespace

void addTrainCommands(Cli& cli)
{
    cli.add({"train", "train a model: both stages, one trial per seed, live metrics in the results store",
             "CONFIG... [dotted.key=value...] [--seed S] [--resume] [--db FILE] [--json]",
             "Resolves the configuration like 'pitwall config show' (nothing is written when it is invalid),\n"
             "prepares the data (data.root, or the built-in synthetic world generated on first use and cached\n"
             "under experiment.output_dir), then trains the pretrain and post-train stages for every seed in\n"
             "experiment.seeds. The results store gets a study named experiment.name with one trial per seed,\n"
             "and each run's metrics (loss, loss/<head>, lr, compute_fps, full_fps, data_wait_ms, cpu_percent,\n"
             "peak_memory_bytes, stage_seconds/<stage>, val/<metric>).\n"
             "Ctrl-C stops after the current step; finished epochs are kept and --resume continues them.\n"
             "Speed options are config keys ('pitwall config schema' documents each): on a CUDA build\n"
             "training.optimization.use_torch_compile=true captures forward and backward into a CUDA graph\n"
             "after 3 eager steps, precision=bf16|fp16 autocasts (fp16 with loss scaling: loss_scale,\n"
             "fp16_skipped_steps), training.distribution.logical_devices=N trains data-parallel over N devices.",
             {dbOption(), jsonOption(),
              {"seed", "S", "train only this seed (instead of experiment.seeds)"},
              {"resume", "", "continue the study's unfinished trials of the same seeds from their checkpoints"}},
             trainCommand});
    cli.add({"train-rank", "one rank of a data-parallel run (started by pitwall itself)",
             "CONFIG --rank R --world-size N --rendezvous FILE --seed S --data-dir DIR --checkpoint-dir DIR --threads T --result FILE",
             "",
             {dbOption(), {"rank", "R", ""}, {"world-size", "N", ""}, {"rendezvous", "FILE", ""}, {"seed", "S", ""},
              {"data-dir", "DIR", ""}, {"checkpoint-dir", "DIR", ""}, {"device", "ID", ""}, {"threads", "T", ""},
              {"result", "FILE", ""}, {"trial-id", "ID", ""}, {"resume", "", ""}},
             trainRankCommand, true});
}

} // namespace pitwall::cli
