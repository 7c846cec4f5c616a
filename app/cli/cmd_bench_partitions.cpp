// pitwall bench partitions: node throughput with one trainer per logical device, for each partition mode and
// batch size (AutoSpeed's run_partition_exp.sh + compare_throughput_experiments.py).
#include "app/cli/cli.h"
#include "app/cli/configargs.h"
#include "app/cli/progress.h"

#include "core/engine/train/partitionbench.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace pitwall::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultConfig = "configs/transfuser/smoke.yaml";

// configs/transfuser/smoke.yaml in the working directory, the source tree of a build, or the install tree.
std::string defaultConfig()
{
    const fs::path exe = executablePath().parent_path();
    for (const fs::path& candidate :
         {fs::path(kDefaultConfig), exe / "../.." / kDefaultConfig, exe / "../share/pitwall" / kDefaultConfig})
        if (fs::exists(candidate))
            return fs::absolute(candidate).lexically_normal().string();
    throw InputError(std::string("no config given and ") + kDefaultConfig + " not found; give --config CFG");
}

std::vector<long long> parseSizes(const std::string& text)
{
    std::vector<long long> sizes;
    for (const std::string& part : split(text, ',')) {
        const auto size = parseInteger(trim(part));
        if (!size || *size < 1)
            throw InputError("--batch-sizes '" + text + "': '" + part + "' is not a batch size >= 1");
        sizes.push_back(*size);
    }
    return sizes;
}

engine::PartitionBenchSpec benchSpec(const Args& args)
{
    engine::PartitionBenchSpec spec;
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    for (const std::string& file : args.values("config"))
        files.push_back(file);
    if (files.empty())
        files.push_back(defaultConfig());
    for (const std::string& name : split(args.value("modes", "SPX,DPX,QPX,CPX"), ',')) {
        const auto mode = parsePartitionMode(trim(name));
        if (!mode)
            throw InputError("--modes: '" + name + "' is not one of SPX, DPX, QPX, CPX");
        spec.modes.push_back(partitionModeName(*mode));
    }
    spec.batchSizes = parseSizes(args.value("batch-sizes", "8,16,32"));
    const auto epochs = parseInteger(args.value("epochs", "2"));
    if (!epochs || *epochs < 1)
        throw InputError("--epochs '" + args.value("epochs", "") + "' is not an integer >= 1");
    spec.epochs = *epochs;
    overrides.push_back("training.stages.pretrain.epochs=" + std::to_string(*epochs));
    overrides.push_back("training.stages.posttrain.epochs=0");
    const Schema schema = schemaWithWarnings();
    // Every batch size resolves before anything runs.
    for (long long b : spec.batchSizes) {
        std::vector<std::string> all = overrides;
        all.push_back("training.optimization.batch_size=" + std::to_string(b));
        spec.configs.push_back(resolveConfig(schema, files, all));
    }
    spec.backend = args.value("backend", spec.configs.front().getString("device.backend"));
    spec.storeLocation = fs::absolute(args.database()).string();
    const fs::path out = fs::absolute(args.value(
        "out", (fs::path(spec.configs.front().getString("experiment.output_dir")) / "bench_partitions").string()));
    spec.outputDir = out.string();
    spec.plotPath = fs::absolute(args.value("plot", (out / "partitions.png").string())).string();
    spec.configFiles = files;
    spec.overrides = overrides;
    return spec;
}

void printJson(const engine::PartitionBenchSpec& spec, const engine::PartitionBenchResult& result)
{
    Json j{{"backend", result.backend},
           {"epochs", spec.epochs},
           {"plot", spec.plotPath},
           {"rows", Json::array()},
           {"unavailable", Json::array()}};
    for (const engine::PartitionCell& c : result.cells)
        j["rows"].push_back({{"mode", c.mode},
                             {"batch_size", c.batchSize},
                             {"compute_fps", c.computeFps},
                             {"full_fps", c.fullFps},
                             {"devices", engine::partitionDevicesJson(c)}});
    for (const auto& [mode, why] : result.unavailable)
        j["unavailable"].push_back({{"mode", mode}, {"why", why}});
    std::cout << j.dump(2) << "\n";
}

// `bench partitions --check`: what would be measured, and where; nothing is trained or written.
int benchPartitionsCheck(const Args& args)
{
    const engine::PartitionBenchSpec spec = benchSpec(args);
    const engine::PartitionBenchCheck check = engine::checkPartitionBench(spec);
    std::size_t cells = 0;
    std::vector<std::string> sizes;
    for (long long b : spec.batchSizes)
        sizes.push_back(std::to_string(b));
    Json modes = Json::array();
    for (const engine::PartitionModeCheck& m : check.modes) {
        Json devices = Json::array();
        for (const LogicalDevice& d : m.devices)
            devices.push_back(d.id);
        modes.push_back({{"mode", m.mode}, {"available", m.why.empty()}, {"devices", devices}, {"why", m.why}});
        cells += m.why.empty() ? spec.batchSizes.size() : 0;
    }
    if (args.flag("json")) {
        std::cout << Json{{"ok", true},
                          {"backend", check.backend},
                          {"modes", modes},
                          {"batch_sizes", spec.batchSizes},
                          {"epochs", spec.epochs},
                          {"cells", cells},
                          {"out", spec.outputDir},
                          {"plot", spec.plotPath}}
                         .dump(2)
                  << "\n";
        return kExitOk;
    }
    for (const engine::PartitionModeCheck& m : check.modes)
        if (m.why.empty())
            std::printf("ok: %s: %zu logical device(s), one trainer each\n", m.mode.c_str(), m.devices.size());
        else
            std::printf("%s: unavailable: %s (left out)\n", m.mode.c_str(), m.why.c_str());
    std::printf("ok: would train %zu cell(s) (batch sizes %s, %lld epoch(s) each) on %s; runs in %s, plot %s\n", cells,
                join(sizes, ",").c_str(), spec.epochs, check.backend.c_str(), spec.outputDir.c_str(),
                spec.plotPath.c_str());
    return kExitOk;
}

int benchPartitions(const Args& args)
{
    const engine::PartitionBenchSpec spec = benchSpec(args);
    ProgressLine line;
    installInterruptHandlers(InterruptPolicy::Command);
    const engine::PartitionBenchResult result = engine::runPartitionBench(spec, processCancelToken(), line.reporter());
    if (result.cancelled) {
        std::fprintf(stderr, "cancelled\n");
        return 130;
    }
    if (args.flag("json")) {
        printJson(spec, result);
        return kExitOk;
    }
    std::cout << "\nNode throughput (" << result.backend << ", " << spec.epochs
              << " epoch(s) per run, one trainer per logical device; summed samples/s; -1 = a run failed or ran out of "
                 "memory)\n\n"
              << engine::partitionTable(result, spec.batchSizes).toMarkdown();
    for (const auto& [mode, why] : result.unavailable)
        std::cout << "\n" << mode << ": unavailable: " << why;
    std::cout << (result.unavailable.empty() ? "" : "\n") << "\nplot: " << spec.plotPath
              << "\nruns and logs: " << spec.outputDir << "\n";
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
            std::string(kDefaultConfig) + ".",
        {dbOption(),
         jsonOption(),
         {"config", "CFG", "config file (repeatable; default " + std::string(kDefaultConfig) + ")", true},
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
