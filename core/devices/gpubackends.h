#pragma once
// The GPU backends, built from vendor-tool output (so every machine, and every test, can construct them):
//
// - CUDA (nvidia-smi): a GPU with MIG devices gives one logical device per MIG device whatever the mode
//   (CUDA_VISIBLE_DEVICES=<MIG UUID>): the hardware split is already made. A GPU without MIG is shared
//   through MPS: mode SPX/DPX/QPX/CPX gives 1/2/4/8 logical devices with CUDA_VISIBLE_DEVICES=<index> and
//   CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=floor(100/N).
// - HIP (amd-smi): the hardware is in one compute partition (SPX...CPX); only that mode has logical
//   devices, one per partition (HIP_VISIBLE_DEVICES=<id>). Changing it is an explicit, privileged action:
//   planAmdComputePartition() says the command, applyAmdComputePartition() runs it.
//
// Every logical device also gets a share of this process's cores (cpuSet, threads, OMP_NUM_THREADS).

#include "core/devices/amdsmi.h"
#include "core/devices/devices.h"
#include "core/devices/nvidiasmi.h"
#include "core/devices/toolrunner.h"

#include <chrono>

namespace pitwall {

std::unique_ptr<DeviceBackend> makeCudaBackend(std::vector<NvidiaGpu> gpus, std::vector<int> cores);
std::unique_ptr<DeviceBackend> makeHipBackend(const AmdSmiReport& report, std::vector<int> cores);

struct GpuDiscovery {
    std::vector<std::unique_ptr<DeviceBackend>> backends; // "cuda", then "hip"; only those found
    std::vector<std::string> problems;                    // a tool that is present but failed, and why
};

// Runs nvidia-smi and amd-smi when they are on PATH (each call bounded by `timeout`); a backend whose tool
// is absent is left out silently. Blocks for at most a few timeouts.
GpuDiscovery discoverGpuBackends(const ToolRunner& runner = systemToolRunner(),
                                 std::chrono::milliseconds timeout = std::chrono::seconds(10));

struct PartitionChange {
    std::vector<std::string> command; // what is run (or would be)
    bool applied = false;             // the command was run
    bool ok = false;
    std::vector<int> gpusSet; // GPU ids amd-smi reported as changed
    std::string error;        // the vendor tool's error, condensed
    std::string output;       // everything it printed
};

// The amd-smi command that puts every AMD GPU into `mode`. Runs nothing.
PartitionChange planAmdComputePartition(PartitionMode mode);
// Runs that command: directly as root, otherwise through `sudo -n` (which fails rather than prompting).
PartitionChange applyAmdComputePartition(PartitionMode mode, const ToolRunner& runner = systemToolRunner(),
                                         std::chrono::milliseconds timeout = std::chrono::seconds(300));

} // namespace pitwall
