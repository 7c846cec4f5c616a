#include "core/engine/train/partitionbenchreport.h"

#include "core/config/configargs.h"
#include "core/config/workload.h"
#include "core/devices/partitionchoice.h"
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

// The cells the check would train: every batch size of every available mode.
std::size_t cellCount(const PartitionBenchSpec& spec, const PartitionBenchCheck& check)
{
    std::size_t cells = 0;
    for (const PartitionModeCheck& m : check.modes)
        cells += m.why.empty() ? spec.batchSizes.size() : 0;
    return cells;
}

} // namespace

PartitionBenchSpec partitionBenchSpecFromJob(const PartitionBenchJob& job)
{
    PartitionBenchSpec spec;
    std::vector<std::string> files = job.configs, overrides = job.overrides;
    if (files.empty())
        files.push_back(defaultConfig());
    spec.modes = job.modes.value_or(std::vector<std::string>{"SPX", "DPX", "QPX", "CPX"});
    spec.epochs = job.epochs.value_or(job.recommend ? 1 : 2);
    const Schema schema = schemaWithWarnings();
    if (job.batchSizes)
        spec.batchSizes = *job.batchSizes;
    else if (job.recommend) // the batch size the config trains with
        spec.batchSizes = {resolveConfig(schema, files, overrides).getInt("training.optimization.batch_size")};
    else
        spec.batchSizes = {8, 16, 32};
    overrides.push_back("training.stages.pretrain.epochs=" + std::to_string(spec.epochs));
    overrides.push_back("training.stages.posttrain.epochs=0");
    // The configs and overrides first: what fails only with a batch size is that batch size's problem.
    const ResolvedConfig base = resolveConfig(schema, files, overrides);
    // Every batch size resolves before anything runs.
    for (long long b : spec.batchSizes) {
        std::vector<std::string> all = overrides;
        all.push_back("training.optimization.batch_size=" + std::to_string(b));
        try {
            spec.configs.push_back(resolveConfig(schema, files, all));
        } catch (const InputError& e) {
            std::vector<Diagnostic> problems = e.diagnostics();
            for (Diagnostic& d : problems)
                d.option = "--batch-sizes";
            throw InputError(problems);
        }
    }
    spec.backend = job.backend.value_or(base.getString("device.backend"));
    spec.storeLocation = fs::absolute(job.database.value_or(defaultDatabasePath())).string();
    const fs::path out = fs::absolute(
        job.out.value_or((fs::path(base.getString("experiment.output_dir")) / "bench_partitions").string()));
    spec.outputDir = out.string();
    spec.plotPath = fs::absolute(job.plot.value_or((out / "partitions.png").string())).string();
    spec.configFiles = files;
    spec.overrides = overrides;
    spec.workload = workloadKey(base);
    return spec;
}

PartitionBenchSpec partitionBenchSpec(const cmdline::Args& args)
{
    return partitionBenchSpecFromJob(PartitionBenchJob::fromArgs(args));
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

Table partitionModesTable(const PartitionChoice& choice)
{
    Table table({"mode", "logical devices", "memory per device", "batch size", "compute FPS", "full FPS", "fits"});
    for (const PartitionModeSummary& m : choice.modes)
        table.addRow({m.mode + (choice.recommended == m.mode ? " (recommended)" : ""), std::to_string(m.devices),
                      m.memoryBytes > 0 ? formatBytes(static_cast<double>(m.memoryBytes)) : std::string("-"),
                      m.batchSize ? std::to_string(*m.batchSize) : std::string("-"),
                      m.fits() ? partitionFpsText(m.computeFps) : "-", m.fits() ? partitionFpsText(m.fullFps) : "-",
                      m.fits() ? "yes" : "no (every run failed or ran out of memory)"});
    return table;
}

PartitionChoice partitionChoice(const PartitionBenchResult& result)
{
    std::vector<PartitionMeasurement> cells;
    for (const PartitionCell& c : result.cells)
        cells.push_back({c.mode, std::max(1, static_cast<int>(c.runs.size())), c.batchSize, c.computeFps, c.fullFps,
                         c.deviceMemoryBytes});
    return choosePartition(cells);
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
    const PartitionChoice choice = partitionChoice(result);
    j["recommended"] = choice.recommended ? Json(*choice.recommended) : Json(nullptr);
    j["reason"] = choice.reason;
    j["modes"] = Json::array();
    for (const PartitionModeSummary& m : choice.modes)
        j["modes"].push_back({{"mode", m.mode},
                              {"devices", m.devices},
                              {"fits", m.fits()},
                              {"batch_size", m.batchSize ? Json(*m.batchSize) : Json(nullptr)},
                              {"compute_fps", m.computeFps},
                              {"full_fps", m.fullFps},
                              {"memory_bytes", m.memoryBytes}});
    j["workload"] = spec.workload;
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
    text += result.unavailable.empty() ? "" : "\n";
    if (!result.cells.empty()) {
        const PartitionChoice choice = partitionChoice(result);
        text += "\nEach mode at its best batch size\n\n" + partitionModesTable(choice).toMarkdown();
        text += std::string("\n") + (choice.recommended ? "recommended: " : "no recommendation: ") + choice.reason + "\n";
    }
    return text + "\nplot: " + spec.plotPath +
           "\nruns and logs: " + spec.outputDir + "\n";
}

} // namespace pitwall::engine
