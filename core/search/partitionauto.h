#pragma once
// `pitwall hpo --partition auto`: the partition mode chosen from a stored measurement of the same workload on the
// same machine and backend (`pitwall bench partitions`, whose records carry the workload key of
// core/config/workload.h), or from one made first by running `pitwall bench partitions --recommend`. The
// recommendation itself is core/devices/partitionchoice.h's rule; the device panel reads the same records.

#include "core/devices/partitionchoice.h"
#include "core/store/records.h"
#include "core/util/cancel.h"

#include <optional>
#include <string>
#include <vector>

namespace pitwall {

inline constexpr const char* kAutoPartition = "auto";

// What a measurement is matched on.
struct PartitionWorkload {
    std::string host;               // hostName()
    std::string backend;            // the backend's name ("cpu", "cuda", ...)
    std::string workload;           // workloadKey of the config
    std::vector<std::string> modes; // the modes available now (a measured mode that is not is left out)
};

struct StoredPartitionChoice {
    PartitionChoice choice;
    std::size_t cells = 0; // measured cells it rests on
    double measuredAt = 0; // the newest cell's time (seconds since the epoch)
};

// The newest record of each mode and batch size among `records` (suite "partitions") that match `w`, in the order
// first measured; records without a workload key (older benchmarks) never match.
std::vector<PartitionMeasurement> matchingPartitionMeasurements(const std::vector<BenchmarkRecord>& records,
                                                                const PartitionWorkload& w, double* newest = nullptr);

// The recommendation from the matching records, or nullopt when none match.
std::optional<StoredPartitionChoice> storedPartitionChoice(const std::vector<BenchmarkRecord>& records,
                                                           const PartitionWorkload& w);

// "DPX (measured 2026-12-06 20:41 UTC on 3 cells: REASON)"
std::string describeStoredChoice(const StoredPartitionChoice& stored);

// What the measurement runs: `pitwall bench partitions --recommend` with these configs and overrides.
struct PartitionMeasureSpec {
    std::vector<std::string> configs, overrides;
    std::string backend;       // the backend's name
    std::string storeLocation; // where the records go
    std::string outputDir;     // the bench's runs; its output in <outputDir>/bench.log
};

// The command line of that measurement (the running executable's `bench partitions --recommend ...`).
std::vector<std::string> partitionMeasureCommand(const PartitionMeasureSpec& spec);

// Runs it as a child process and waits; false when `cancel` was requested (the child is stopped). RuntimeError
// naming the log's last lines when it fails.
bool measurePartitions(const PartitionMeasureSpec& spec, CancelToken& cancel);

} // namespace pitwall
