// pitwall bench variants | partitions | loader: the speed benchmarks.
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/loaderbenchreport.h"
#include "core/engine/train/partitionbenchreport.h"
#include "core/engine/train/variantsbenchreport.h"
#include "core/jobs/benchjobs.h"
#include "core/util/cancel.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

int benchVariantsCheck(const Args& args)
{
    return checkReport(args, VariantsBenchJob::fields(), [&] {
        const engine::VariantsBenchSpec spec = engine::variantsBenchSpec(args);
        const std::vector<engine::VariantCheck> checks = engine::checkVariantsBench(spec);
        return printReport(args, engine::variantsCheckJson(spec, checks), engine::variantsCheckText(spec, checks));
    });
}

int benchVariants(const Args& args)
{
    const engine::VariantsBenchSpec spec = engine::variantsBenchSpec(args);
    ProgressLine line;
    const engine::VariantsBenchResult out = engine::runVariantsBench(spec, processCancelToken(), line.reporter());
    return printReport(args, engine::variantsResultJson(spec.file, out),
                       engine::variantsResultText(spec, out, args.flag("markdown")));
}

// `bench loader --check`: the options and the dataset as the benchmark would see them; no batch is loaded.
int benchLoaderCheck(const Args& args)
{
    return checkReport(args, LoaderBenchJob::fields(), [&] {
        const engine::data::LoaderBenchOptions options = engine::loaderBenchOptions(args);
        const engine::data::LoaderBenchCheck check = engine::data::checkLoaderBench(options);
        return printReport(args, engine::loaderBenchCheckJson(options, check),
                           engine::loaderBenchCheckText(options, check));
    });
}

int benchLoader(const Args& args)
{
    const engine::data::LoaderBenchOptions options = engine::loaderBenchOptions(args);
    const engine::data::LoaderBenchResult r = engine::data::runLoaderBench(
        options, [&](const std::string& text) { std::fprintf(stderr, "%s\n", text.c_str()); });
    return printReport(args, engine::loaderBenchResultJson(r, options.loader),
                       engine::loaderBenchResultText(r, options.loader));
}

// `bench partitions --check`: what would be measured, and where; nothing is trained or written.
int benchPartitionsCheck(const Args& args)
{
    return checkReport(args, PartitionBenchJob::fields(), [&] {
        const engine::PartitionBenchSpec spec = engine::partitionBenchSpec(args);
        const engine::PartitionBenchCheck check = engine::checkPartitionBench(spec);
        return printReport(args, engine::partitionCheckJson(spec, check), engine::partitionCheckText(spec, check));
    });
}

int benchPartitions(const Args& args)
{
    const engine::PartitionBenchSpec spec = engine::partitionBenchSpec(args);
    ProgressLine line;
    installInterruptHandlers(InterruptPolicy::Command);
    const engine::PartitionBenchResult result = engine::runPartitionBench(spec, processCancelToken(), line.reporter());
    if (result.cancelled) {
        std::fprintf(stderr, "cancelled\n");
        return kExitCancelled;
    }
    return printReport(args, engine::partitionResultJson(spec, result), engine::partitionResultText(spec, result));
}

} // namespace

void addBenchCommands(Cli& cli)
{
    cli.add({.path = "bench variants",
             .options = withOptions({dbOption(), jsonOption()}, VariantsBenchJob::optionSpecs()),
             .run = benchVariants,
             .check = benchVariantsCheck});
    cli.add({.path = "bench partitions",
             .options = withOptions({dbOption(), jsonOption()}, PartitionBenchJob::optionSpecs()),
             .run = benchPartitions,
             .check = benchPartitionsCheck});
    cli.add({.path = "bench loader",
             .options = withOptions(LoaderBenchJob::optionSpecs(), {jsonOption()}),
             .run = benchLoader,
             .check = benchLoaderCheck});
}

} // namespace pitwall::cli
