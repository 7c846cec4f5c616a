#pragma once
// What `pitwall devices` reports: every backend's physical devices, partition modes and the logical devices of
// one mode, as JSON and as text. Front ends print these as they are.

#include "core/devices/devices.h"
#include "core/devices/gpubackends.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pitwall {

// One backend in a report: its logical devices in the mode, or why the mode gives none.
struct BackendReport {
    std::string backend;     // "cpu", "cuda", "hip"
    std::string modeProblem; // empty when the mode is available on this backend
    nlohmann::json json;     // name, devices, modes, logical_devices (and current_mode, notes for GPUs)
    std::string text;        // devices, notes, modes and logical devices, one per line
};

struct DevicesReport {
    PartitionMode mode = PartitionMode::SPX;
    std::vector<BackendReport> backends; // the CPU first, then the GPU backends found
    std::vector<std::string> problems;   // GPU tools that are present but failed, and why
    // {"backends": [...], "mode": "SPX", "problems": [...]}
    nlohmann::json toJson() const;
};

// The backend's report in `mode` (InputError from the backend becomes modeProblem).
BackendReport describeBackend(const DeviceBackend& backend, PartitionMode mode);

// The CPU backend and the GPU backends on this machine (discoverGpuBackends: runs the vendor tools), only the one
// named `onlyBackend` when that is not empty.
DevicesReport describeDevices(PartitionMode mode, const std::string& onlyBackend);

// `devices --set-partition MODE` without --apply: {"command", "applied": false}, and as text the command it would
// run and how to run it.
nlohmann::json partitionPlanJson(const PartitionChange& plan);
std::string partitionPlanText(const PartitionChange& plan);
// With --apply: {"command", "applied", "ok", "gpus_set", "error", "output"}; as text, for a change that worked,
// "ran: COMMAND" and "MODE set on N GPU(s)" (empty for one that failed: its error goes to stderr).
nlohmann::json partitionChangeJson(const PartitionChange& change);
std::string partitionChangeText(const PartitionChange& change, PartitionMode mode);

} // namespace pitwall
