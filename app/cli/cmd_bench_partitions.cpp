// pitwall bench partitions: node throughput with one trainer per logical device, for each partition mode and
// batch size (AutoSpeed's run_partition_exp.sh + compare_throughput_experiments.py).
#include "app/cli/cli.h"
#include "app/cli/configargs.h"
#include "app/cli/progress.h"

#include "core/engine/synth/internal/imageio.h"
#include "core/engine/train/experiment.h"
#include "core/report/plot.h"
#include "core/report/table.h"
#include "core/sched/trialstate.h"
#include "core/sched/workerpool.h"
#include "core/store/store.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace pitwall::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultConfig = "configs/transfuser/smoke.yaml";
constexpr double kFailed = -1.0; // AutoSpeed's tables write an out-of-memory (or failed) run as -1


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

struct DeviceRun {
    std::string device;
    double computeFps = kFailed;
    double fullFps = kFailed;
    std::string error;
};

struct Cell {
    std::string mode;
    long long batchSize = 0;
    std::vector<DeviceRun> runs;
    double computeFps = kFailed; // summed over the node's logical devices; -1 when any run failed
    double fullFps = kFailed;
};

// One trainer per logical device at once (pitwall train-rank with a world of 1, bound to the device).
Cell measure(const std::string& mode, long long batchSize, const ResolvedConfig& config,
             const std::vector<LogicalDevice>& devices, const fs::path& dir, const std::string& db,
             const std::string& dataDir)
{
    fs::create_directories(dir);
    const fs::path configFile = dir / "config.yaml";
    std::ofstream(configFile) << config.toYaml();
    Cell cell{mode, batchSize, {}, kFailed, kFailed};
    std::vector<ChildProcess> children;
    std::vector<std::string> logs;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const LogicalDevice& d = devices[i];
        const fs::path devDir = dir / ("device_" + std::to_string(i));
        fs::create_directories(devDir);
        fs::remove(devDir / "result.json");
        fs::remove_all(devDir / "checkpoints"); // no resume from an earlier run
        ProcessOptions options;
        options.environment = d.environment;
        options.cpuSet = d.cpuSet;
        options.stderrFile = (devDir / "train.log").string();
        options.stdoutFile = (devDir / "train.out").string();
        children.push_back(ChildProcess::start(
            {executablePath().string(), "train-rank", configFile.string(), "--rank=0", "--world-size=1", "--db=" + db,
             "--seed=0", "--data-dir=" + dataDir, "--checkpoint-dir=" + (devDir / "checkpoints").string(),
             "--device=" + d.id, "--threads=" + std::to_string(std::max(1, d.threads)),
             "--result=" + (devDir / "result.json").string()},
            options));
        logs.push_back(options.stderrFile);
        cell.runs.push_back({d.id, kFailed, kFailed, ""});
    }
    for (std::size_t done = 0; done < children.size();) {
        done = 0;
        for (std::size_t i = 0; i < children.size(); ++i) {
            if (processCancelToken().requested())
                children[i].signal(SIGTERM);
            if (const auto exit = children[i].poll()) {
                ++done;
                if ((!exit->exited || exit->code != 0) && cell.runs[i].error.empty())
                    cell.runs[i].error = describeExit(exit->exited, exit->code) + ": " +
                                         trim(split(trim(fileTail(logs[i], 600)), '\n').back());
            }
        }
        if (done < children.size())
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    bool allOk = true;
    double compute = 0, full = 0;
    for (std::size_t i = 0; i < children.size(); ++i) {
        DeviceRun& run = cell.runs[i];
        const fs::path result = dir / ("device_" + std::to_string(i)) / "result.json";
        if (run.error.empty() && fs::exists(result)) {
            const engine::TrainResult r = engine::trainResultFromJson(Json::parse(readTextFile(result)));
            if (!r.stages.empty() && !r.cancelled) {
                run.computeFps = r.stages.front().computeFps;
                run.fullFps = r.stages.front().fullFps;
            } else {
                run.error = r.cancelled ? "cancelled" : "no stage trained";
            }
        } else if (run.error.empty()) {
            run.error = "no result written";
        }
        allOk = allOk && run.error.empty();
        compute += run.computeFps;
        full += run.fullFps;
    }
    if (allOk) {
        cell.computeFps = compute;
        cell.fullFps = full;
    }
    return cell;
}

std::string fpsText(double fps)
{
    return fps < 0 ? "-1" : formatFixed(fps, 1);
}

void writePlot(const std::vector<Cell>& cells, const std::vector<std::string>& modes, const std::string& path)
{
    LineChart compute{"Compute FPS per node", "batch size", "FPS", true, {}};
    LineChart full{"Full FPS per node", "batch size", "FPS", true, {}};
    for (const std::string& mode : modes) {
        PlotSeries c{mode, {}}, f{mode, {}};
        for (const Cell& cell : cells)
            if (cell.mode == mode) {
                c.points.emplace_back(static_cast<double>(cell.batchSize), cell.computeFps);
                f.points.emplace_back(static_cast<double>(cell.batchSize), cell.fullFps);
            }
        compute.series.push_back(c);
        full.series.push_back(f);
    }
    const RgbImage image = renderLineCharts({compute, full}, 640, 440);
    synth::internal::writeFile(path,
                               synth::internal::encodePng(image.pixels.data(), image.width, image.height, 3, false, 6));
}

int benchPartitions(const Args& args)
{
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    for (const std::string& file : args.values("config"))
        files.push_back(file);
    if (files.empty())
        files.push_back(defaultConfig());
    std::vector<std::string> modeNames;
    for (const std::string& name : split(args.value("modes", "SPX,DPX,QPX,CPX"), ',')) {
        const auto mode = parsePartitionMode(trim(name));
        if (!mode)
            throw InputError("--modes: '" + name + "' is not one of SPX, DPX, QPX, CPX");
        modeNames.push_back(partitionModeName(*mode));
    }
    const std::vector<long long> batchSizes = parseSizes(args.value("batch-sizes", "8,16,32"));
    const auto epochs = parseInteger(args.value("epochs", "2"));
    if (!epochs || *epochs < 1)
        throw InputError("--epochs '" + args.value("epochs", "") + "' is not an integer >= 1");
    overrides.push_back("training.stages.pretrain.epochs=" + std::to_string(*epochs));
    overrides.push_back("training.stages.posttrain.epochs=0");
    const Schema schema = schemaWithWarnings();
    // Every batch size resolves before anything runs.
    std::vector<ResolvedConfig> configs;
    for (long long b : batchSizes) {
        std::vector<std::string> all = overrides;
        all.push_back("training.optimization.batch_size=" + std::to_string(b));
        configs.push_back(resolveConfig(schema, files, all));
    }
    const auto backend = chooseBackend(args.value("backend", configs.front().getString("device.backend")));
    const std::string db = fs::absolute(args.database()).string();
    const fs::path out = fs::absolute(args.value(
        "out", (fs::path(configs.front().getString("experiment.output_dir")) / "bench_partitions").string()));
    ProgressLine line;
    const std::string dataDir = engine::ensureDataset(configs.front(), [&](std::int64_t done, std::int64_t total) {
        line.update("synthesising frames", static_cast<double>(done), static_cast<double>(total), "");
        if (done == total)
            line.finish();
    });
    installInterruptHandlers(InterruptPolicy::Command);

    std::vector<Cell> cells;
    std::vector<std::string> measured;
    std::vector<std::pair<std::string, std::string>> unavailable;
    for (const std::string& name : modeNames) {
        const PartitionMode mode = *parsePartitionMode(name);
        std::string why;
        for (const ModeAvailability& a : backend->modes())
            if (a.mode == mode && !a.available)
                why = a.why.empty() ? "unavailable" : a.why;
        if (!why.empty()) {
            unavailable.emplace_back(name, why);
            line.message(name + ": unavailable: " + why);
            continue;
        }
        const std::vector<LogicalDevice> devices = backend->logicalDevices(mode);
        measured.push_back(name);
        for (std::size_t i = 0; i < batchSizes.size() && !processCancelToken().requested(); ++i) {
            line.message(name + " (" + std::to_string(devices.size()) + " logical device(s)), batch size " +
                         std::to_string(batchSizes[i]) + ": training " + std::to_string(*epochs) + " epoch(s)...");
            cells.push_back(measure(name, batchSizes[i], configs[i], devices,
                                    out / name / ("bs_" + std::to_string(batchSizes[i])), db, dataDir));
            const Cell& c = cells.back();
            line.message("  compute FPS " + fpsText(c.computeFps) + ", full FPS " + fpsText(c.fullFps));
            for (const DeviceRun& r : c.runs)
                if (!r.error.empty())
                    line.message("  " + r.device + " failed: " + r.error);
        }
    }
    if (processCancelToken().requested()) {
        std::fprintf(stderr, "cancelled\n");
        return 130;
    }

    std::vector<std::string> header{"batch size"};
    for (const std::string& m : measured) {
        header.push_back(m + " compute FPS");
        header.push_back(m + " full FPS");
    }
    Table table(header);
    for (long long b : batchSizes) {
        std::vector<std::string> row{std::to_string(b)};
        for (const std::string& m : measured)
            for (const Cell& c : cells)
                if (c.mode == m && c.batchSize == b) {
                    row.push_back(fpsText(c.computeFps));
                    row.push_back(fpsText(c.fullFps));
                }
        table.addRow(row);
    }
    fs::create_directories(out);
    const std::string plot = fs::absolute(args.value("plot", (out / "partitions.png").string())).string();
    writePlot(cells, measured, plot);

    auto store = openStore(db);
    for (const Cell& c : cells) {
        BenchmarkRecord record;
        record.suite = "partitions";
        record.name = c.mode + "/bs" + std::to_string(c.batchSize);
        record.host = hostName();
        record.time = nowSeconds();
        record.parameters = {{"mode", c.mode},
                             {"batch_size", c.batchSize},
                             {"epochs", *epochs},
                             {"logical_devices", c.runs.size()},
                             {"backend", backend->name()},
                             {"configs", files},
                             {"overrides", overrides}};
        record.results = {{"compute_fps", c.computeFps}, {"full_fps", c.fullFps}, {"devices", Json::array()}};
        for (const DeviceRun& r : c.runs)
            record.results["devices"].push_back(
                {{"device", r.device}, {"compute_fps", r.computeFps}, {"full_fps", r.fullFps}, {"error", r.error}});
        store->addBenchmark(record);
    }

    if (args.flag("json")) {
        Json j{{"backend", backend->name()},
               {"epochs", *epochs},
               {"plot", plot},
               {"rows", Json::array()},
               {"unavailable", Json::array()}};
        for (const Cell& c : cells) {
            Json devices = Json::array();
            for (const DeviceRun& r : c.runs)
                devices.push_back(
                    {{"device", r.device}, {"compute_fps", r.computeFps}, {"full_fps", r.fullFps}, {"error", r.error}});
            j["rows"].push_back({{"mode", c.mode},
                                 {"batch_size", c.batchSize},
                                 {"compute_fps", c.computeFps},
                                 {"full_fps", c.fullFps},
                                 {"devices", devices}});
        }
        for (const auto& [mode, why] : unavailable)
            j["unavailable"].push_back({{"mode", mode}, {"why", why}});
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    std::cout << "\nNode throughput (" << backend->name() << ", " << *epochs
              << " epoch(s) per run, one trainer per logical device; summed samples/s; -1 = a run failed or ran out of "
                 "memory)\n\n"
              << table.toMarkdown();
    for (const auto& [mode, why] : unavailable)
        std::cout << "\n" << mode << ": unavailable: " << why;
    std::cout << (unavailable.empty() ? "" : "\n") << "\nplot: " << plot << "\nruns and logs: " << out.string() << "\n";
    return kExitOk;
}

} // namespace

void addBenchPartitionsCommands(Cli& cli)
{
    cli.add({"bench partitions",
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
             benchPartitions});
}

} // namespace pitwall::cli
