#pragma once
// Parsers for nvidia-smi's output (pure functions over text, tested with recorded outputs):
//   nvidia-smi -L                     GPUs and, under each, its MIG devices
//   nvidia-smi --query-gpu=... --format=csv   memory and MIG mode per GPU (header with units)

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct NvidiaMigDevice {
    int index = 0;                // "Device N" under its GPU
    std::string profile;          // "3g.40gb", "1c.3g.71gb" (a compute instance sharing a GPU instance)
    std::string uuid;             // "MIG-...", or the old "MIG-GPU-<uuid>/<gi>/<ci>" form
    std::int64_t memoryBytes = 0; // from the profile name (…<N>gb), approximate; 0 when absent
};

struct NvidiaGpu {
    int index = 0;
    std::string name; // "NVIDIA H100 80GB HBM3"
    std::string uuid; // "GPU-..."
    std::vector<NvidiaMigDevice> migDevices;
    std::int64_t memoryBytes = 0; // from --query-gpu, 0 when unknown
    std::int64_t memoryFreeBytes = 0;
    std::optional<bool> migEnabled; // mig.mode.current, when queried
};

struct NvidiaSmiList {
    std::vector<NvidiaGpu> gpus;
    std::vector<std::string> unrecognised; // non-empty lines that are neither a GPU nor a MIG device
};

// `nvidia-smi -L`.
NvidiaSmiList parseNvidiaSmiList(const std::string& text);
// `nvidia-smi --query-gpu=<fields> --format=csv` (with or without units and header; columns are found by
// the header's names). Fills memory and MIG mode of the GPUs with the same index. Returns false when the
// text has no usable header.
bool applyNvidiaSmiQuery(const std::string& csv, std::vector<NvidiaGpu>& gpus);
// "3g.40gb" -> 40 GiB; 0 when the profile names no size.
std::int64_t migProfileMemoryBytes(const std::string& profile);

// The commands whose outputs these parse.
std::vector<std::string> nvidiaSmiListCommand();
std::vector<std::string> nvidiaSmiQueryCommand();

} // namespace pitwall
