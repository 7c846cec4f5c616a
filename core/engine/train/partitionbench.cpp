#include "core/engine/train/partitionbench.h"

#include "core/engine/train/benchcheck.h"
#include "core/engine/train/experiment.h"
#include "core/engine/train/trainranks.h"
#include "core/pool/trialstate.h"
#include "core/report/plot.h"
#include "core/store/store.h"
#include "core/synth/internal/imageio.h"
#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/pathcheck.h"
#include "core/util/paths.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <filesystem>
#include <fstream>

namespace pitwall::engine {

namespace {

namespace fs = std::filesystem;

// The run's FPS from its result file, or why there is none.
void readDeviceResult(PartitionDeviceRun& run, const fs::path& result)
{
    if (!run.error.empty())
        return;
    if (!fs::exists(result)) {
        run.error = "no result written";
        return;
    }
    const TrainResult r = trainResultFromJson(Json::parse(readTextFile(result)));
    if (!r.stages.empty() && !r.cancelled) {
        run.computeFps = r.stages.front().computeFps;
        run.fullFps = r.stages.front().fullFps;
    } else {
        run.error = r.cancelled ? "cancelled" : "no stage trained";
    }
}

void writePlot(const std::vector<PartitionCell>& cells, const std::vector<std::string>& modes, const std::string& path)
{
    LineChart compute{"Compute FPS per node", "batch size", "FPS", true, {}};
    LineChart full{"Full FPS per node", "batch size", "FPS", true, {}};
    for (const std::string& mode : modes) {
        PlotSeries c{mode, {}}, f{mode, {}};
        for (const PartitionCell& cell : cells)
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

void storeRecords(const PartitionBenchSpec& spec, const PartitionBenchResult& result)
{
    auto store = openStore(spec.storeLocation);
    for (const PartitionCell& c : result.cells) {
        BenchmarkRecord record;
        record.suite = "partitions";
        record.name = c.mode + "/bs" + std::to_string(c.batchSize);
        record.host = hostName();
        record.time = nowSeconds();
        record.parameters = {{"mode", c.mode},
                             {"model", spec.configs.empty() ? std::string() : spec.configs.front().getString("experiment.model")},
                             {"batch_size", c.batchSize},
                             {"epochs", spec.epochs},
                             {"logical_devices", c.runs.size()},
                             {"device_memory_bytes", c.deviceMemoryBytes},
                             {"workload", spec.workload},
                             {"backend", result.backend},
                             {"configs", spec.configFiles},
                             {"overrides", spec.overrides}};
        record.results = {{"compute_fps", c.computeFps}, {"full_fps", c.fullFps}, {"devices", partitionDevicesJson(c)}};
        store->addBenchmark(record);
    }
}

} // namespace

Json partitionDevicesJson(const PartitionCell& c)
{
    Json devices = Json::array();
    for (const PartitionDeviceRun& r : c.runs)
        devices.push_back(
            {{"device", r.device}, {"compute_fps", r.computeFps}, {"full_fps", r.fullFps}, {"error", r.error}});
    return devices;
}

PartitionCell measurePartition(const std::string& mode, long long batchSize, const ResolvedConfig& config,
                               const std::vector<LogicalDevice>& devices, const std::string& dir,
                               const std::string& storeLocation, const std::string& dataDir, CancelToken& cancel)
{
    fs::create_directories(dir);
    const fs::path configFile = fs::path(dir) / "config.yaml";
    writeFileAtomically(configFile, config.toYaml());
    PartitionCell cell{mode, batchSize, {}, kFailedFps, kFailedFps, devices.empty() ? 0 : devices.front().memoryBytes};
    std::vector<RankLaunch> launches;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const fs::path devDir = fs::path(dir) / ("device_" + std::to_string(i));
        fs::create_directories(devDir);
        fs::remove(devDir / "result.json");
        fs::remove_all(devDir / "checkpoints"); // no resume from an earlier run
        RankLaunch r;
        r.device = devices[i];
        r.threads = std::max(1, r.device.threads);
        r.configFile = configFile.string();
        r.storeLocation = storeLocation;
        r.dataDir = dataDir;
        r.checkpointDir = (devDir / "checkpoints").string();
        r.resultFile = (devDir / "result.json").string();
        r.logFile = (devDir / "train.log").string();
        r.outputFile = (devDir / "train.out").string();
        launches.push_back(std::move(r));
        cell.runs.push_back({devices[i].id, kFailedFps, kFailedFps, ""});
    }
    const RankExits exits = runTrainRanks(launches, &cancel, RankFailure::KeepOthers);
    bool allOk = true;
    double compute = 0, full = 0;
    for (std::size_t i = 0; i < launches.size(); ++i) {
        PartitionDeviceRun& run = cell.runs[i];
        const ProcessExit& exit = exits.exits[i];
        if (!exit.exited || exit.code != 0)
            run.error = describeExit(exit.exited, exit.code) + ": " +
                        trim(split(trim(fileTail(launches[i].logFile, 600)), '\n').back());
        readDeviceResult(run, launches[i].resultFile);
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

PartitionBenchCheck checkPartitionBench(const PartitionBenchSpec& spec)
{
    if (spec.configs.empty() || spec.configs.size() != spec.batchSizes.size())
        throw InputError("--batch-sizes: give at least one batch size (one config is resolved for each)");
    if (spec.modes.empty())
        throw InputError("--modes: give at least one of SPX, DPX, QPX, CPX");
    if (spec.epochs < 1)
        throw InputError("--epochs " + std::to_string(spec.epochs) + ": give an integer >= 1");
    PartitionBenchCheck check;
    const auto backend = chooseBackend(spec.backend);
    check.backend = backend->name();
    const std::vector<ModeAvailability> modes = backend->modes();
    for (const std::string& name : spec.modes) {
        const auto mode = parsePartitionMode(name);
        if (!mode)
            throw InputError("--modes: '" + name + "' is not one of SPX, DPX, QPX, CPX");
        std::string why;
        for (const ModeAvailability& a : modes)
            if (a.mode == *mode && !a.available)
                why = a.why.empty() ? "unavailable" : a.why;
        check.modes.push_back({name, why.empty() ? backend->logicalDevices(*mode) : std::vector<LogicalDevice>{}, why});
    }
    checkTrainingPaths(spec.configs.front(), spec.storeLocation); // the data, checkpoints and runs of every cell
    checkCanCreate(spec.outputDir, PathKind::Folder, "--out");
    checkCanCreate(spec.plotPath, PathKind::File, "--plot");
    return check;
}

PartitionBenchResult runPartitionBench(const PartitionBenchSpec& spec, CancelToken& cancel,
                                       const ProgressReporter& reporter)
{
    PartitionBenchResult result;
    const PartitionBenchCheck check = checkPartitionBench(spec);
    result.backend = check.backend;
    const std::string dataDir = ensureDataset(spec.configs.front(), reporter);
    for (const PartitionModeCheck& mode : check.modes) {
        const std::string& name = mode.mode;
        if (!mode.why.empty()) {
            result.unavailable.emplace_back(name, mode.why);
            reporter.message(name + ": unavailable: " + mode.why);
            continue;
        }
        const std::vector<LogicalDevice>& devices = mode.devices;
        result.measured.push_back(name);
        for (std::size_t i = 0; i < spec.batchSizes.size() && !cancel.requested(); ++i) {
            const long long size = spec.batchSizes[i];
            reporter.message(name + " (" + std::to_string(devices.size()) + " logical device(s)), batch size " +
                             std::to_string(size) + ": training " + std::to_string(spec.epochs) + " epoch(s)...");
            const fs::path dir = fs::path(spec.outputDir) / name / ("bs_" + std::to_string(size));
            result.cells.push_back(
                measurePartition(name, size, spec.configs[i], devices, dir.string(), spec.storeLocation, dataDir, cancel));
            const PartitionCell& c = result.cells.back();
            reporter.message("  compute FPS " + partitionFpsText(c.computeFps) + ", full FPS " +
                             partitionFpsText(c.fullFps));
            for (const PartitionDeviceRun& r : c.runs)
                if (!r.error.empty())
                    reporter.message("  " + r.device + " failed: " + r.error);
        }
    }
    result.cancelled = cancel.requested();
    if (result.cancelled)
        return result;
    fs::create_directories(spec.outputDir);
    writePlot(result.cells, result.measured, spec.plotPath);
    storeRecords(spec, result);
    return result;
}

Table partitionTable(const PartitionBenchResult& result, const std::vector<long long>& batchSizes)
{
    std::vector<std::string> header{"batch size"};
    for (const std::string& m : result.measured) {
        header.push_back(m + " compute FPS");
        header.push_back(m + " full FPS");
    }
    Table table(header);
    for (long long b : batchSizes) {
        std::vector<std::string> row{std::to_string(b)};
        for (const std::string& m : result.measured)
            for (const PartitionCell& c : result.cells)
                if (c.mode == m && c.batchSize == b) {
                    row.push_back(partitionFpsText(c.computeFps));
                    row.push_back(partitionFpsText(c.fullFps));
                }
        table.addRow(row);
    }
    return table;
}

std::string partitionFpsText(double fps)
{
    return fps < 0 ? "-1" : formatFixed(fps, 1);
}

} // namespace pitwall::engine
