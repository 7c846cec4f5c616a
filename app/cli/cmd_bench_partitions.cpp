// pitwall bench partitions: node throughput with one trainer per logical device, for each partition mode and
// batch size (AutoSpeed's run_partition_exp.sh + compare_throughput_experiments.py).
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/train/partitionbenchreport.h"
#include "core/util/cancel.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

// `bench partitions --check`: what would be measured, and where; nothing is trained or written.
int benchPartitionsCheck(const Args& args)
{
    const engine::PartitionBenchSpec spec = engine::partitionBenchSpec(args);
    const engine::PartitionBenchCheck check = engine::checkPartitionBench(spec);
    if (args.flag("json"))
        std::cout << engine::partitionCheckJson(spec, check).dump(2) << "\n";
    else
        std::fputs(engine::partitionCheckText(spec, check).c_str(), stdout);
    return kExitOk;
}

int benchPartitions(const Args& args)
{
    const engine::PartitionBenchSpec spec = engine::partitionBenchSpec(args);
    ProgressLine line;
    installInterruptHandlers(InterruptPolicy::Command);
    const engine::PartitionBenchResult result = engine::runPartitionBench(spec, processCancelToken(), line.reporter());
    if (result.cancelled) {
        std::fprintf(stderr, "cancelled\n");
        return 130;
    }
    if (args.flag("json"))
        std::cout << engine::partitionResultJson(spec, result).dump(2) << "\n";
    else
        std::cout << engine::partitionResultText(spec, result);
    return kExitOk;
}

} // namespace

void addBenchPartitionsCommands(Cli& cli)
{
    Command partitions{
        "bench partitions",
        "node throughput with one trainer per logical device, per partition mode and batch size",
        "[--config CFG...] [dotted.key=value...] [--modes SPX,DPX,QPX,CPX] [--batch-sizes 8,16,32] [--epochs E]\n"
        "       [--backend NAME] [--out DIR] [--plot FILE] [--db FILE] [--json]",
        "For every available partition mode and batch size, trains the config's first stage for E epochs in one\n"
        "process per logical device at once (each bound to its cores and environment, each with that batch\n"
        "size, as AutoSpeed's run_partition_exp.sh), then sums the runs' compute FPS (samples / step time after\n"
        "the batch arrived, warm-up steps excluded) and full FPS (samples / epoch wall time) for the node. A\n"
        "failed or out-of-memory run makes its cell -1; unavailable modes are listed with why. Prints a Markdown\n"
        "table, writes a PNG (FPS against batch size, log2 axis, one line per mode) and stores one benchmark\n"
        "record per cell (suite 'partitions'). Default config: " +
            std::string(engine::kPartitionBenchDefaultConfig) + ".",
        {dbOption(),
         jsonOption(),
         {"config", "CFG", "config file (repeatable; default " + std::string(engine::kPartitionBenchDefaultConfig) + ")", true},
         {"modes", "LIST", "partition modes (default SPX,DPX,QPX,CPX)"},
         {"batch-sizes", "LIST", "batch sizes per trainer (default 8,16,32)"},
         {"epochs", "E", "epochs per run (default 2)"},
         {"backend", "NAME", "auto, cpu, cuda or hip (default: the config's device.backend)"},
         {"out", "DIR", "runs, logs and the plot (default <experiment.output_dir>/bench_partitions)"},
         {"plot", "FILE", "where to write the PNG (default <out>/partitions.png)"}},
        benchPartitions};
    partitions.check = benchPartitionsCheck;
    cli.add(std::move(partitions));
}

} // namespace pitwall::cli
