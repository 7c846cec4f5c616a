#include "core/devices/gpubackends.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <unistd.h>

#include <algorithm>
#include <set>

namespace pitwall {

namespace {

// Gives each of `count` logical devices its cores: an even split, or one core each round-robin when
// there are more devices than cores.
std::vector<std::vector<int>> coreShares(const std::vector<int>& cores, int count)
{
    if (count <= 0 || cores.empty())
        return std::vector<std::vector<int>>(static_cast<std::size_t>(std::max(count, 0)));
    if (count <= static_cast<int>(cores.size()))
        return splitCores(cores, count);
    std::vector<std::vector<int>> shares(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        shares[static_cast<std::size_t>(i)] = {cores[static_cast<std::size_t>(i) % cores.size()]};
    return shares;
}

void bindCores(LogicalDevice& device, std::vector<int> cores)
{
    device.cpuSet = std::move(cores);
    device.threads = std::max(1, static_cast<int>(device.cpuSet.size()));
    device.environment["OMP_NUM_THREADS"] = std::to_string(device.threads);
    device.environment["MKL_NUM_THREADS"] = std::to_string(device.threads);
    device.environment["OPENBLAS_NUM_THREADS"] = std::to_string(device.threads);
}

// Shares the host's cores among the logical devices of a GPU mode (the host side of each trainer).
std::vector<LogicalDevice> withCoreShares(std::vector<LogicalDevice> devices, const std::vector<int>& hostCores)
{
    const auto cores = coreShares(hostCores, static_cast<int>(devices.size()));
    for (std::size_t i = 0; i < devices.size(); ++i)
        bindCores(devices[i], cores[i]);
    return devices;
}

class CudaBackend final : public DeviceBackend {
public:
    CudaBackend(std::vector<NvidiaGpu> gpus, std::vector<int> cores)
        : m_gpus(std::move(gpus)), m_cores(std::move(cores))
    {
    }

    std::string name() const override { return "cuda"; }

    std::vector<PhysicalDevice> physicalDevices() const override
    {
        std::vector<PhysicalDevice> out;
        for (const NvidiaGpu& gpu : m_gpus)
            out.push_back({"cuda", gpu.index, gpu.name, 0, gpu.memoryBytes, gpu.memoryFreeBytes});
        return out;
    }

    std::vector<ModeAvailability> modes() const override
    {
        std::vector<ModeAvailability> out;
        for (PartitionMode mode : allPartitionModes())
            out.push_back({mode, !m_gpus.empty(), m_gpus.empty() ? "no GPU" : ""});
        return out;
    }

    std::vector<LogicalDevice> logicalDevices(PartitionMode mode) const override
    {
        const int shares = partitionsPerDevice(mode);
        std::vector<LogicalDevice> out;
        for (const NvidiaGpu& gpu : m_gpus) {
            if (!gpu.migDevices.empty()) {
                for (const NvidiaMigDevice& mig : gpu.migDevices) {
                    LogicalDevice d;
                    d.backend = "cuda";
                    d.physicalIndex = gpu.index;
                    d.partitionIndex = mig.index;
                    d.id = "cuda:" + std::to_string(gpu.index) + "." + std::to_string(mig.index);
                    d.memoryBytes = mig.memoryBytes;
                    d.environment["CUDA_VISIBLE_DEVICES"] = mig.uuid;
                    out.push_back(std::move(d));
                }
                continue;
            }
            if (gpu.migEnabled.value_or(false))
                continue; // MIG on without MIG devices: nothing to run on (see notes())
            for (int p = 0; p < shares; ++p) {
                LogicalDevice d;
                d.backend = "cuda";
                d.physicalIndex = gpu.index;
                d.partitionIndex = p;
                d.id = "cuda:" + std::to_string(gpu.index) + "." + std::to_string(p);
                d.memoryBytes = gpu.memoryBytes / shares;
                d.environment["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"; // nvidia-smi's index order
                d.environment["CUDA_VISIBLE_DEVICES"] = std::to_string(gpu.index);
                if (shares > 1)
                    d.environment["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = std::to_string(100 / shares);
                out.push_back(std::move(d));
            }
        }
        return withCoreShares(std::move(out), m_cores);
    }

    std::vector<std::string> notes() const override
    {
        std::vector<std::string> out;
        bool shared = false;
        for (const NvidiaGpu& gpu : m_gpus) {
            if (!gpu.migDevices.empty()) {
                std::vector<std::string> profiles;
                for (const auto& mig : gpu.migDevices)
                    profiles.push_back(mig.profile);
                out.push_back("GPU " + std::to_string(gpu.index) + " is split by MIG into " +
                              std::to_string(gpu.migDevices.size()) + " devices (" + join(profiles, ", ") +
                              "); they are its logical devices in every mode");
            } else if (gpu.migEnabled.value_or(false)) {
                out.push_back("GPU " + std::to_string(gpu.index) +
                              " has MIG enabled but no MIG device: create instances (nvidia-smi mig -cgi ... -C) "
                              "or disable MIG (nvidia-smi -i " +
                              std::to_string(gpu.index) + " -mig 0)");
            } else {
                shared = true;
            }
        }
        if (shared)
            out.push_back("GPUs without MIG are shared through MPS in DPX/QPX/CPX; start the MPS daemon "
                          "(nvidia-cuda-mps-control -d) so that their processes run concurrently");
        return out;
    }

private:
    std::vector<NvidiaGpu> m_gpus;
    std::vector<int> m_cores;
};

class HipBackend final : public DeviceBackend {
public:
    HipBackend(const AmdSmiReport& report, std::vector<int> cores)
        : m_report(report), m_devices(groupAmdDevices(report)), m_cores(std::move(cores))
    {
    }

    std::string name() const override { return "hip"; }

    std::vector<PhysicalDevice> physicalDevices() const override
    {
        std::vector<PhysicalDevice> out;
        for (const AmdDevice& d : m_devices) {
            std::string name = "AMD GPU";
            if (!d.bdf.empty())
                name += " " + d.bdf;
            name += " (amd-smi GPU " + std::to_string(d.gpuIds.front()) +
                    (d.gpuIds.size() > 1 ? "-" + std::to_string(d.gpuIds.back()) : "") + ")";
            out.push_back({"hip", d.index, name, 0, 0, 0});
        }
        return out;
    }

    std::optional<PartitionMode> currentMode() const override
    {
        std::optional<PartitionMode> mode;
        for (const AmdDevice& d : m_devices) {
            const auto parsed = parsePartitionMode(d.computePartition);
            if (!parsed || (mode && *mode != *parsed))
                return std::nullopt;
            mode = parsed;
        }
        return mode;
    }

    std::vector<ModeAvailability> modes() const override
    {
        std::vector<ModeAvailability> out;
        const auto current = currentMode();
        for (PartitionMode mode : allPartitionModes()) {
            ModeAvailability a{mode, current == mode, ""};
            if (!a.available)
                a.why = whyUnavailable(mode);
            out.push_back(a);
        }
        return out;
    }

    std::vector<LogicalDevice> logicalDevices(PartitionMode mode) const override
    {
        if (currentMode() != mode)
            throw InputError("partition mode unavailable on hip: " + whyUnavailable(mode));
        std::vector<LogicalDevice> out;
        for (const AmdDevice& device : m_devices) {
            for (std::size_t p = 0; p < device.gpuIds.size(); ++p) {
                const int gpuId = device.gpuIds[p];
                LogicalDevice d;
                d.backend = "hip";
                d.physicalIndex = device.index;
                d.partitionIndex = static_cast<int>(p);
                d.id = "hip:" + std::to_string(device.index) + "." + std::to_string(p);
                int visible = gpuId;
                for (const AmdGpu& gpu : m_report.gpus)
                    if (gpu.gpuId == gpuId && gpu.hipId)
                        visible = *gpu.hipId;
                d.environment["HIP_VISIBLE_DEVICES"] = std::to_string(visible);
                out.push_back(std::move(d));
            }
        }
        return withCoreShares(std::move(out), m_cores);
    }

    std::vector<std::string> notes() const override
    {
        std::vector<std::string> out;
        std::size_t logical = 0;
        std::set<std::string> modes;
        for (const AmdDevice& d : m_devices) {
            logical += d.gpuIds.size();
            modes.insert((d.computePartition.empty() ? "unknown" : d.computePartition) + "/" +
                         (d.memoryPartition.empty() ? "unknown" : d.memoryPartition));
        }
        out.push_back(std::to_string(m_devices.size()) + " device(s) in " +
                      join(std::vector<std::string>(modes.begin(), modes.end()), ", ") +
                      " (compute/memory partition): " + std::to_string(logical) + " logical GPU(s)");
        for (const std::string& warning : m_report.warnings)
            out.push_back("amd-smi: " + warning);
        return out;
    }

private:
    std::string whyUnavailable(PartitionMode mode) const
    {
        const std::string name = partitionModeName(mode);
        std::vector<std::string> supported;
        bool listed = false;
        std::string memoryNote;
        for (const AmdDevice& d : m_devices)
            for (const AmdPartitionProfile& p : d.profiles) {
                if (std::find(supported.begin(), supported.end(), p.type) == supported.end())
                    supported.push_back(p.type);
                if (p.type == name) {
                    listed = true;
                    if (!p.memoryCaps.empty() && !d.memoryPartition.empty() &&
                        std::find(p.memoryCaps.begin(), p.memoryCaps.end(), d.memoryPartition) == p.memoryCaps.end())
                        memoryNote = "; " + name + " needs memory partition " + join(p.memoryCaps, " or ") + " (now " +
                                     d.memoryPartition + ")";
                }
            }
        if (!supported.empty() && !listed)
            return name + " is not among the accelerator profiles amd-smi reports (" + join(supported, ", ") + ")";
        const auto current = currentMode();
        std::string now = current ? std::string("the GPUs are in ") + partitionModeName(*current)
                                  : std::string("the GPUs' compute partition is unknown or mixed");
        return now + "; switching needs `" + commandText(amdSmiSetComputePartitionCommand(mode)) +
               "` (pitwall devices --set-partition " + name + " --apply)" + memoryNote;
    }

    AmdSmiReport m_report;
    std::vector<AmdDevice> m_devices;
    std::vector<int> m_cores;
};

} // namespace

std::unique_ptr<DeviceBackend> makeCudaBackend(std::vector<NvidiaGpu> gpus, std::vector<int> cores)
{
    return std::make_unique<CudaBackend>(std::move(gpus), std::move(cores));
}

std::unique_ptr<DeviceBackend> makeHipBackend(const AmdSmiReport& report, std::vector<int> cores)
{
    return std::make_unique<HipBackend>(report, std::move(cores));
}

GpuDiscovery discoverGpuBackends(const ToolRunner& runner, std::chrono::milliseconds timeout)
{
    GpuDiscovery discovery;
    if (runner.available("nvidia-smi")) {
        const ToolResult list = runner.run(nvidiaSmiListCommand(), timeout);
        NvidiaSmiList parsed = list.ok() ? parseNvidiaSmiList(list.out) : NvidiaSmiList{};
        if (!list.ok())
            discovery.problems.push_back("`" + commandText(nvidiaSmiListCommand()) + "`: " + list.failure());
        else if (parsed.gpus.empty())
            discovery.problems.push_back("`nvidia-smi -L` listed no GPU: " + trim(list.out));
        if (!parsed.gpus.empty()) {
            const ToolResult query = runner.run(nvidiaSmiQueryCommand(), timeout);
            if (!query.ok() || !applyNvidiaSmiQuery(query.out, parsed.gpus))
                discovery.problems.push_back("`" + commandText(nvidiaSmiQueryCommand()) +
                                             "`: " + (query.ok() ? std::string("no usable header") : query.failure()) +
                                             " (GPU memory unknown)");
            discovery.backends.push_back(makeCudaBackend(std::move(parsed.gpus), processCores()));
        }
    }
    if (runner.available("amd-smi")) {
        AmdSmiReport report;
        const ToolResult partition = runner.run(amdSmiPartitionCommand(), timeout);
        if (partition.ok())
            report = parseAmdSmiPartition(partition.out);
        if (report.gpus.empty()) { // ROCm before 6.4 has no `amd-smi partition`
            const ToolResult statics = runner.run(amdSmiStaticPartitionCommand(), timeout);
            if (statics.ok())
                report = parseAmdSmiStaticPartition(statics.out);
            else
                discovery.problems.push_back("`" + commandText(amdSmiStaticPartitionCommand()) +
                                             "`: " + statics.failure());
        }
        ToolResult list = runner.run(amdSmiListCommand(), timeout);
        if (!list.ok())
            list = runner.run({"amd-smi", "list"}, timeout);
        if (list.ok())
            mergeAmdSmiList(list.out, report);
        if (report.gpus.empty())
            discovery.problems.push_back("amd-smi reported no GPU");
        else
            discovery.backends.push_back(makeHipBackend(report, processCores()));
    }
    return discovery;
}

PartitionChange planAmdComputePartition(PartitionMode mode)
{
    PartitionChange change;
    change.command = amdSmiSetComputePartitionCommand(mode);
    return change;
}

PartitionChange applyAmdComputePartition(PartitionMode mode, const ToolRunner& runner,
                                         std::chrono::milliseconds timeout)
{
    PartitionChange change = planAmdComputePartition(mode);
    std::vector<std::string> argv = change.command;
    if (geteuid() == 0)
        argv.erase(argv.begin()); // already root
    else
        argv.insert(argv.begin() + 1, "-n");
    if (!runner.available(argv.front())) {
        change.error = argv.front() + " is not on PATH";
        return change;
    }
    const ToolResult result = runner.run(argv, timeout);
    change.command = argv;
    change.applied = result.started;
    change.output = result.out + result.err;
    if (result.timedOut) {
        change.error = "`" + commandText(argv) + "` timed out";
        return change;
    }
    const AmdSmiSetResult parsed = parseAmdSmiSetOutput(change.output, result.exitCode);
    change.ok = parsed.ok;
    change.gpusSet = parsed.gpusSet;
    change.error = parsed.error;
    return change;
}

} // namespace pitwall
