#include "core/devices/devices.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <sched.h>

#include <fstream>
#include <sstream>

namespace pitwall {

namespace {

const std::vector<PartitionMode> kModes = {PartitionMode::SPX, PartitionMode::DPX, PartitionMode::QPX,
                                           PartitionMode::CPX};

} // namespace

std::string formatCpuList(const std::vector<int>& cores)
{
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < cores.size();) {
        std::size_t j = i;
        while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1)
            ++j;
        parts.push_back(i == j ? std::to_string(cores[i]) : std::to_string(cores[i]) + "-" + std::to_string(cores[j]));
        i = j + 1;
    }
    return join(parts, ",");
}

std::vector<int> processCores()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cores;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set))
                cores.push_back(c);
    }
    if (cores.empty())
        cores.push_back(0);
    return cores;
}

namespace {

// A field of /proc/meminfo in bytes, or 0.
std::int64_t meminfoBytes(const std::string& field)
{
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (startsWith(line, field + ":")) {
            std::istringstream fields(line.substr(field.size() + 1));
            std::int64_t kib = 0;
            fields >> kib;
            return kib * 1024;
        }
    }
    return 0;
}

std::string cpuModelName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (startsWith(line, "model name")) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                return trim(line.substr(colon + 1));
        }
    return "CPU";
}

class CpuBackend final : public DeviceBackend {
public:
    CpuBackend(std::vector<int> cores, std::int64_t memory, std::int64_t available, std::string model)
        : m_cores(std::move(cores)), m_memory(memory), m_available(available), m_model(std::move(model))
    {
    }

    std::string name() const override { return "cpu"; }

    std::vector<PhysicalDevice> physicalDevices() const override
    {
        PhysicalDevice device;
        device.backend = "cpu";
        device.index = 0;
        device.name = m_model;
        device.cores = static_cast<int>(m_cores.size());
        device.memoryBytes = m_memory;
        device.memoryAvailableBytes = m_available;
        return {device};
    }

    std::vector<ModeAvailability> modes() const override
    {
        std::vector<ModeAvailability> out;
        for (PartitionMode mode : kModes) {
            ModeAvailability a;
            a.mode = mode;
            a.available = partitionsPerDevice(mode) <= static_cast<int>(m_cores.size());
            if (!a.available)
                a.why = std::string(partitionModeName(mode)) + " needs " + std::to_string(partitionsPerDevice(mode)) +
                        " cores (one per logical device); this process may use " + std::to_string(m_cores.size());
            out.push_back(a);
        }
        return out;
    }

    std::vector<LogicalDevice> logicalDevices(PartitionMode mode) const override
    {
        for (const ModeAvailability& a : modes())
            if (a.mode == mode && !a.available)
                throw InputError("partition mode unavailable on cpu: " + a.why);
        const int parts = partitionsPerDevice(mode);
        std::vector<LogicalDevice> out;
        const std::vector<std::vector<int>> sets = splitCores(m_cores, parts);
        for (int p = 0; p < parts; ++p) {
            LogicalDevice d;
            d.backend = "cpu";
            d.physicalIndex = 0;
            d.partitionIndex = p;
            d.id = "cpu:0." + std::to_string(p);
            d.cpuSet = sets[p];
            d.threads = static_cast<int>(sets[p].size());
            d.memoryBytes = m_memory / parts;
            d.environment["OMP_NUM_THREADS"] = std::to_string(d.threads);
            d.environment["MKL_NUM_THREADS"] = std::to_string(d.threads);
            d.environment["OPENBLAS_NUM_THREADS"] = std::to_string(d.threads);
            // Workers share the machine: idle OpenMP threads must sleep, not spin (spinning made 2-thread
            // steps up to 7× slower when another process ran on the same cores). Read at library load, so it
            // can only be set in the worker's environment.
            d.environment["OMP_WAIT_POLICY"] = "PASSIVE";
            d.environment["CUDA_VISIBLE_DEVICES"] = ""; // a CPU worker must not grab a GPU
            d.environment["HIP_VISIBLE_DEVICES"] = "";
            out.push_back(std::move(d));
        }
        return out;
    }

private:
    std::vector<int> m_cores;
    std::int64_t m_memory;
    std::int64_t m_available;
    std::string m_model;
};

} // namespace

const char* partitionModeName(PartitionMode mode)
{
    switch (mode) {
    case PartitionMode::SPX:
        return "SPX";
    case PartitionMode::DPX:
        return "DPX";
    case PartitionMode::QPX:
        return "QPX";
    case PartitionMode::CPX:
        return "CPX";
    }
    return "?";
}

std::optional<PartitionMode> parsePartitionMode(const std::string& name)
{
    const std::string lower = toLower(name);
    for (PartitionMode mode : kModes)
        if (lower == toLower(partitionModeName(mode)))
            return mode;
    return std::nullopt;
}

int partitionsPerDevice(PartitionMode mode) { return static_cast<int>(mode); }

const std::vector<PartitionMode>& allPartitionModes() { return kModes; }

std::vector<std::vector<int>> splitCores(const std::vector<int>& cores, int parts)
{
    std::vector<std::vector<int>> sets(parts);
    const int n = static_cast<int>(cores.size());
    int next = 0;
    for (int p = 0; p < parts; ++p) {
        const int count = n / parts + (p < n % parts ? 1 : 0);
        for (int i = 0; i < count; ++i)
            sets[p].push_back(cores[next++]);
    }
    return sets;
}

std::unique_ptr<DeviceBackend> makeCpuBackend()
{
    return std::make_unique<CpuBackend>(processCores(), meminfoBytes("MemTotal"), meminfoBytes("MemAvailable"),
                                        cpuModelName());
}

std::unique_ptr<DeviceBackend> makeCpuBackend(std::vector<int> cores, std::int64_t memoryBytes,
                                              std::int64_t memoryAvailableBytes, std::string modelName)
{
    return std::make_unique<CpuBackend>(std::move(cores), memoryBytes, memoryAvailableBytes, std::move(modelName));
}

} // namespace pitwall
