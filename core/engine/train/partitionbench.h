#pragma once
// Node throughput with one trainer per logical device, for each partition mode and batch size (AutoSpeed's
// run_partition_exp.sh + compare_throughput_experiments.py), as `pitwall bench partitions` runs it. Plain values
// only: no torch in this header.

#include "core/config/config.h"
#include "core/devices/devices.h"
#include "core/report/table.h"
#include "core/store/records.h"
#include "core/util/cancel.h"
#include "core/util/progress.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pitwall::engine {

// AutoSpeed's tables write an out-of-memory (or failed) run as -1.
inline constexpr double kFailedFps = -1.0;

struct PartitionBenchSpec {
    std::vector<ResolvedConfig> configs;  // one per batch size, in the order of batchSizes
    std::vector<long long> batchSizes;
    std::vector<std::string> modes;       // partition mode names, in order ("SPX", ...)
    long long epochs = 0;                 // of the first stage (recorded; the configs already set it)
    std::string backend;                  // device backend name ("auto", "cpu", ...)
    std::string storeLocation;            // absolute; one benchmark record per cell (suite "partitions")
    std::string outputDir;                // runs and logs: <outputDir>/<mode>/bs_<size>/device_<i>/
    std::string plotPath;                 // the PNG: FPS against batch size, one line per mode
    std::vector<std::string> configFiles; // recorded with every benchmark record
    std::vector<std::string> overrides;   // recorded with every benchmark record
    std::string workload;                 // workloadKey of the configs (core/config/workload.h), recorded too
};

struct PartitionDeviceRun {
    std::string device;
    double computeFps = kFailedFps;
    double fullFps = kFailedFps;
    std::string error; // empty when the run finished
};

struct PartitionCell {
    std::string mode;
    long long batchSize = 0;
    std::vector<PartitionDeviceRun> runs;
    double computeFps = kFailedFps; // summed over the node's logical devices; -1 when any run failed
    double fullFps = kFailedFps;
    std::int64_t deviceMemoryBytes = 0; // one logical device's memory
};

struct PartitionBenchResult {
    std::string backend;                                     // the backend's name as chosen
    std::vector<PartitionCell> cells;                        // mode by mode, batch size by batch size
    std::vector<std::string> measured;                       // the modes that were available
    std::vector<std::pair<std::string, std::string>> unavailable; // mode, why
    bool cancelled = false; // then nothing was plotted or stored
};

// One trainer per logical device at once (`pitwall train-rank` with a world of one each, bound to its device),
// training `config` in `dir`; sums the devices' first-stage FPS.
PartitionCell measurePartition(const std::string& mode, long long batchSize, const ResolvedConfig& config,
                               const std::vector<LogicalDevice>& devices, const std::string& dir,
                               const std::string& storeLocation, const std::string& dataDir, CancelToken& cancel);

// What runPartitionBench checks before it trains (`pitwall bench partitions --check`), without writing anything
// (no results file, data, folder or plot): one config per batch size, at least one mode, epochs >= 1, the backend,
// each mode's availability and logical devices, data.root when set, and that the output folder, the plot and the
// results file can be created. InputError for the first problem; an unavailable mode is not one (it is listed).
struct PartitionModeCheck {
    std::string mode;                   // "SPX", ...
    std::vector<LogicalDevice> devices; // one trainer each; empty when unavailable
    std::string why;                    // empty when available
};
struct PartitionBenchCheck {
    std::string backend;                   // the backend's name as chosen
    std::vector<PartitionModeCheck> modes; // in the order of spec.modes
};
PartitionBenchCheck checkPartitionBench(const PartitionBenchSpec& spec);

// Every available mode × batch size (checkPartitionBench first), then the plot and the benchmark records.
// Messages per cell and per failed device; InputError for what the check finds.
PartitionBenchResult runPartitionBench(const PartitionBenchSpec& spec, CancelToken& cancel,
                                       const ProgressReporter& reporter);

// Compute and full FPS per mode, one row per batch size ("-1" for a failed cell).
Table partitionTable(const PartitionBenchResult& result, const std::vector<long long>& batchSizes);

// The cell's runs as [{device, compute_fps, full_fps, error}] (the benchmark record's "devices").
Json partitionDevicesJson(const PartitionCell& cell);

// "-1" for a failed run, else one decimal.
std::string partitionFpsText(double fps);

} // namespace pitwall::engine
