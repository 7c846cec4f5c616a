#pragma once
// Which partition mode to train with, from a measurement of every mode (`pitwall bench partitions`): the one rule
// the benchmark's report, and later `hpo --partition auto` and the device panel, read.
//
// Rule: each mode's throughput is its best summed full FPS (samples per second of the whole node, data loading
// included) over the batch sizes measured; a mode whose every cell failed (a run out of memory or crashed) does not
// fit and is never recommended. The mode with the highest throughput is recommended when it beats every other by
// more than `margin` (5 % by default: below that, two runs of the same mode differ as much). Otherwise, among the modes
// within the margin of the best, the one with the fewest logical devices wins: larger partitions keep more memory
// per trainer and run fewer processes for the same throughput. Ties keep the measured order.
//
// Pure: any thread.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pitwall {

// One measured cell: a mode at a batch size; fps <= 0 means the cell failed.
struct PartitionMeasurement {
    std::string mode;     // "SPX", ...
    int devices = 1;      // logical devices of the mode (trainers at once)
    long long batchSize = 0;
    double computeFps = -1;
    double fullFps = -1;
    std::int64_t memoryBytes = 0; // memory of one logical device (0: not known)
};

// A mode's best cell (the batch size with the highest full FPS), or nullopt when none ran.
struct PartitionModeSummary {
    std::string mode;
    int devices = 1;
    std::optional<long long> batchSize;
    double computeFps = -1, fullFps = -1;
    std::int64_t memoryBytes = 0; // memory of one logical device (0: not known)
    bool fits() const { return batchSize.has_value(); }
};

struct PartitionChoice {
    std::vector<PartitionModeSummary> modes; // in the order first measured
    std::optional<std::string> recommended;  // nullopt when no mode ran
    std::string reason;                      // one sentence with the figures it rests on
};

inline constexpr double kPartitionMargin = 0.05;

PartitionChoice choosePartition(std::span<const PartitionMeasurement> cells, double margin = kPartitionMargin);

} // namespace pitwall
