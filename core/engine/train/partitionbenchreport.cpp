#include "core/engine/train/partitionbenchreport.h"

#include "core/config/configargs.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/printf.h"
#include "core/util/strings.h"

#include <filesystem>

namespace pitwall::engine {

namespace {

namespace fs = std::filesystem;

std::string defaultConfig()
{
    const fs::path exe = executablePath().parent_path();
    for (const fs::path& candidate : {fs::path(kPartitionBenchDefaultConfig), exe / "../.." / kPartitionBenchDefaultConfig,
                                      exe / "../share/pitwall" / kPartitionBenchDefaultConfig})
        if (fs::exists(candidate))
            return fs::absolute(candidate).lexically_normal().string();
    throw InputError(std::string("no config given and ") + kPartitionBenchDefaultConfig + " not found; give --config CFG");
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

// The cells the check would train: every batch size of every available mode.
std::size_t cellCount(const PartitionBenchSpec& spec, const PartitionBenchCheck& check)
{
    std::size_t cells = 0;
    for (const PartitionModeCheck& m : check.modes)
        cells += m.why.empty() ? spec.batchSizes.size() : 0;
    return cells;
}

} // namespace

PartitionBenchSpec partitionBenchSpec(const cmdline::Args& args)
{
    PartitionBenchSpec spec;
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

Json partitionCheckJson(const PartitionBenchSpec& spec, const PartitionBenchCheck& check)
{
    Json modes = Json::array();
    for (const PartitionModeCheck& m : check.modes) {
        Json devices = Json::array();
        for (const LogicalDevice& d : m.devices)
            devices.push_back(d.id);
        modes.push_back({{"mode", m.mode}, {"available", m.why.empty()}, {"devices", devices}, {"why", m.why}});
    }
    return Json{{"ok", true},
                {"backend", check.backend},
                {"modes", modes},
                {"batch_sizes", spec.batchSizes},
                {"epochs", spec.epochs},
                {"cells", cellCount(spec, check)},
                {"out", spec.outputDir},
                {"plot", spec.plotPath}};
}

std::string partitionCheckText(const PartitionBenchSpec& spec, const PartitionBenchCheck& check)
{
    std::string text;
    for (const PartitionModeCheck& m : check.modes)
        if (m.why.empty())
            text += stringPrintf("ok: %s: %zu logical device(s), one trainer each\n", m.mode.c_str(), m.devices.size());
        else
            text += stringPrintf("%s: unavailable: %s (left out)\n", m.mode.c_str(), m.why.c_str());
    std::vector<std::string> sizes;
    for (long long b : spec.batchSizes)
        sizes.push_back(std::to_string(b));
    return text + stringPrintf("ok: would train %zu cell(s) (batch sizes %s, %lld epoch(s) each) on %s; runs in %s, "
                               "plot %s\n",
                               cellCount(spec, check), join(sizes, ",").c_str(), spec.epochs, check.backend.c_str(),
                               spec.outputDir.c_str(), spec.plotPath.c_str());
}

Json partitionResultJson(const PartitionBenchSpec& spec, const PartitionBenchResult& result)
{
    Json j{{"backend", result.backend},
           {"epochs", spec.epochs},
           {"plot", spec.plotPath},
           {"rows", Json::array()},
           {"unavailable", Json::array()}};
    for (const PartitionCell& c : result.cells)
        j["rows"].push_back({{"mode", c.mode},
                             {"batch_size", c.batchSize},
                             {"compute_fps", c.computeFps},
                             {"full_fps", c.fullFps},
                             {"devices", partitionDevicesJson(c)}});
    for (const auto& [mode, why] : result.unavailable)
        j["unavailable"].push_back({{"mode", mode}, {"why", why}});
    return j;
}

std::string partitionResultText(const PartitionBenchSpec& spec, const PartitionBenchResult& result)
{
    std::string text = "\nNode throughput (" + result.backend + ", " + std::to_string(spec.epochs) +
                       " epoch(s) per run, one trainer per logical device; summed samples/s; -1 = a run failed or "
                       "ran out of memory)\n\n" +
                       partitionTable(result, spec.batchSizes).toMarkdown();
    for (const auto& [mode, why] : result.unavailable)
        text += "\n" + mode + ": unavailable: " + why;
    return text + (result.unavailable.empty() ? "" : "\n") + "\nplot: " + spec.plotPath +
           "\nruns and logs: " + spec.outputDir + "\n";
}

std::vector<cmdline::OptionSpec> partitionBenchOptionSpecs()
{
    return {{"config", "CFG",
             "config file (repeatable; default " + std::string(engine::kPartitionBenchDefaultConfig) + ")", true},
            {"modes", "LIST", "partition modes (default SPX,DPX,QPX,CPX)"},
            {"batch-sizes", "LIST", "batch sizes per trainer (default 8,16,32)"},
            {"epochs", "E", "epochs per run (default 2)"},
            {"backend", "NAME", "auto, cpu, cuda or hip (default: the config's device.backend)"},
            {"out", "DIR", "runs, logs and the plot (default <experiment.output_dir>/bench_partitions)"},
            {"plot", "FILE", "where to write the PNG (default <out>/partitions.png)"}};
}

} // namespace pitwall::engine
