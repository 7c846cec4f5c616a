#pragma once
// Parsers for amd-smi's partition reports (pure functions over text, tested with recorded outputs), and the
// commands that change a partition. amd-smi lists every partition of a partitioned GPU as a GPU of its own
// ("GPU: 0" ... "GPU: 63" on 8 MI300X in CPX); these are the logical devices HIP_VISIBLE_DEVICES selects.
//
//   amd-smi static --partition        GPU: N / PARTITION: / COMPUTE_PARTITION (ACCELERATOR_PARTITION since
//                                     ROCm 6.4.2) / MEMORY_PARTITION / PARTITION_ID
//   amd-smi partition [--current | -c -m | --accelerator]   the CURRENT_PARTITION, MEMORY_PARTITION and
//                                     ACCELERATOR_PARTITION_PROFILES tables (column-aligned)
//   amd-smi list [-e]                 GPU: N / BDF / UUID / PARTITION_ID [/ HIP_ID]

#include "core/devices/devices.h"

#include <optional>
#include <string>
#include <vector>

namespace pitwall {

// One GPU id as amd-smi lists it.
struct AmdGpu {
    int gpuId = 0;
    std::string computePartition;   // "SPX", "DPX", "QPX", "CPX", "TPX"; "" when unknown or N/A
    std::string memoryPartition;    // "NPS1", "NPS4"; "" when unknown
    std::optional<int> partitionId; // index of this partition within its device
    std::vector<int> partitionIds;  // ROCm < 6.4 listed all of a device's ids on its first GPU ("0,1,...,7")
    std::string bdf;                // from amd-smi list
    std::optional<int> hipId;       // from amd-smi list -e
};

// One accelerator partition profile a device supports (ACCELERATOR_PARTITION_PROFILES).
struct AmdPartitionProfile {
    int gpuId = 0; // the device's first (primary) GPU id
    int profileIndex = 0;
    std::string type;                    // "SPX", ...
    int partitions = 0;                  // NUM_PARTITIONS
    std::vector<std::string> memoryCaps; // memory partitions this profile works with ("NPS1", "NPS4")
    bool current = false;                // marked with '*'
};

struct AmdSmiReport {
    std::vector<AmdGpu> gpus; // by GPU id
    std::vector<AmdPartitionProfile> profiles;
    std::vector<std::string> warnings; // banners amd-smi printed (e.g. "requires sudo/root permissions")
};

AmdSmiReport parseAmdSmiStaticPartition(const std::string& text);
AmdSmiReport parseAmdSmiPartition(const std::string& text);
// Adds BDF, partition id and HIP id from `amd-smi list [-e]` to the GPUs of `report` (adding missing ones).
void mergeAmdSmiList(const std::string& text, AmdSmiReport& report);

// A physical device: consecutive GPU ids that are partitions of one device.
struct AmdDevice {
    int index = 0;
    std::vector<int> gpuIds;      // its logical GPUs
    std::string computePartition; // of the primary partition; "" when unknown
    std::string memoryPartition;
    std::vector<AmdPartitionProfile> profiles; // supported profiles; empty when not reported
    std::string bdf;
};
std::vector<AmdDevice> groupAmdDevices(const AmdSmiReport& report);

// The commands these parse and the ones that change partitions (as AMD's partitioning guide writes them).
std::vector<std::string> amdSmiPartitionCommand();       // amd-smi partition
std::vector<std::string> amdSmiStaticPartitionCommand(); // amd-smi static --partition
std::vector<std::string> amdSmiListCommand();            // amd-smi list -e
std::vector<std::string>
amdSmiSetComputePartitionCommand(PartitionMode mode); // sudo amd-smi set --gpu all --compute-partition CPX
std::vector<std::string>
amdSmiSetMemoryPartitionCommand(const std::string& nps); // sudo amd-smi set --memory-partition NPS1

// What a set command reported: the GPUs it changed, or the vendor tool's error in a few lines.
struct AmdSmiSetResult {
    bool ok = false;
    std::vector<int> gpusSet;
    std::string error; // e.g. "AMDSMI_STATUS_NO_PERM - Permission Denied; PermissionError: Command requires elevation"
};
AmdSmiSetResult parseAmdSmiSetOutput(const std::string& output, int exitCode);

} // namespace pitwall
