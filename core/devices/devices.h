#pragma once
// Compute backends and their partitioning into logical devices. A logical device is what one worker
// process binds to: a CPU set and thread count, and for GPUs the visible-device environment.
//
// Modes SPX / DPX / QPX / CPX give 1 / 2 / 4 / 8 logical devices per physical device. The CPU backend
// splits the cores the process may run on; a mode that needs more partitions than cores is unavailable.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

enum class PartitionMode { SPX = 1, DPX = 2, QPX = 4, CPX = 8 };
const char* partitionModeName(PartitionMode mode);
std::optional<PartitionMode> parsePartitionMode(const std::string& name); // case-insensitive
int partitionsPerDevice(PartitionMode mode);
const std::vector<PartitionMode>& allPartitionModes();

struct PhysicalDevice {
    std::string backend;   // "cpu", "cuda", "hip"
    int index = 0;
    std::string name;      // "AMD EPYC 7B13", "NVIDIA H100 80GB HBM3"
    int cores = 0;         // CPU: usable cores; GPU: 0 when unknown
    std::int64_t memoryBytes = 0;
    std::int64_t memoryAvailableBytes = 0;
};

struct ModeAvailability {
    PartitionMode mode = PartitionMode::SPX;
    bool available = false;
    std::string why;       // when unavailable: the reason, in words
};

struct LogicalDevice {
    std::string id;        // "cpu:0.1" = backend:physical.partition
    std::string backend;
    int physicalIndex = 0;
    int partitionIndex = 0;
    std::vector<int> cpuSet;  // cores a worker bound to this device may run on
    int threads = 1;          // intra-op threads for that worker
    std::int64_t memoryBytes = 0; // its share of the device memory
    std::map<std::string, std::string> environment; // e.g. CUDA_VISIBLE_DEVICES, OMP_NUM_THREADS
};

class DeviceBackend {
public:
    virtual ~DeviceBackend() = default;
    virtual std::string name() const = 0;
    virtual std::vector<PhysicalDevice> physicalDevices() const = 0;
    virtual std::vector<ModeAvailability> modes() const = 0;
    // Logical devices of a mode; throws InputError when the mode is unavailable (with why).
    virtual std::vector<LogicalDevice> logicalDevices(PartitionMode mode) const = 0;
    // The mode the hardware is in, for backends whose partitioning is a hardware setting (HIP).
    virtual std::optional<PartitionMode> currentMode() const { return std::nullopt; }
    // Remarks for the user: how logical devices are made, what to run to change the hardware mode.
    virtual std::vector<std::string> notes() const { return {}; }
};

// The CPU backend over the cores this process may use (sched_getaffinity) and /proc/meminfo.
std::unique_ptr<DeviceBackend> makeCpuBackend();
// A CPU backend over given cores and memory (for tests and for planning another machine's split).
std::unique_ptr<DeviceBackend> makeCpuBackend(std::vector<int> cores, std::int64_t memoryBytes,
                                              std::int64_t memoryAvailableBytes, std::string modelName);

// The backend named `name` ("cpu", "cuda", "hip", or "auto": the first GPU backend found, else cpu).
// InputError when a named GPU backend is not present.
std::unique_ptr<DeviceBackend> chooseBackend(const std::string& name);

// The cores this process may run on (sched_getaffinity), at least one.
std::vector<int> processCores();
// A CPU set as Linux writes CPU lists: runs of consecutive cores as ranges, "0-3,6,8-9"; "" when empty.
std::string formatCpuList(const std::vector<int>& cores);

// Splits `cores` into `parts` contiguous, nearly equal sets (first sets get the remainder).
std::vector<std::vector<int>> splitCores(const std::vector<int>& cores, int parts);

} // namespace pitwall
