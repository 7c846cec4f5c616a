#include "core/devices/nvidiasmi.h"

#include "core/util/strings.h"

#include <cctype>

namespace pitwall {

namespace {

// "(UUID: X)" at the end of a line -> X.
std::string uuidOf(const std::string& line)
{
    const auto start = line.find("(UUID: ");
    if (start == std::string::npos)
        return {};
    const auto end = line.find(')', start);
    return trim(line.substr(start + 7, end == std::string::npos ? std::string::npos : end - start - 7));
}

// "81559 MiB" -> bytes; nullopt for "[N/A]" and the like.
std::optional<std::int64_t> mebibytes(const std::string& cell)
{
    const auto value = parseInteger(trim(split(trim(cell), ' ').front()));
    if (!value)
        return std::nullopt;
    return *value * 1024 * 1024;
}

} // namespace

std::int64_t migProfileMemoryBytes(const std::string& profile)
{
    const std::string lower = toLower(profile);
    const auto gb = lower.rfind("gb");
    if (gb == std::string::npos)
        return 0;
    auto start = gb;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(lower[start - 1])))
        --start;
    const auto value = parseInteger(lower.substr(start, gb - start));
    return value ? *value * 1024LL * 1024 * 1024 : 0;
}

NvidiaSmiList parseNvidiaSmiList(const std::string& text)
{
    NvidiaSmiList list;
    for (const std::string& raw : split(text, '\n')) {
        const std::string line = trim(raw);
        if (line.empty())
            continue;
        if (startsWith(line, "GPU ")) {
            // GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)
            const auto colon = line.find(':');
            const auto index = colon == std::string::npos ? std::nullopt : parseInteger(line.substr(4, colon - 4));
            const auto uuidAt = line.rfind(" (UUID: ");
            if (!index || uuidAt == std::string::npos || uuidAt < colon) {
                list.unrecognised.push_back(line);
                continue;
            }
            NvidiaGpu gpu;
            gpu.index = static_cast<int>(*index);
            gpu.name = trim(line.substr(colon + 1, uuidAt - colon - 1));
            gpu.uuid = uuidOf(line);
            list.gpus.push_back(std::move(gpu));
        } else if (startsWith(line, "MIG ") && !list.gpus.empty()) {
            // MIG 3g.40gb     Device  0: (UUID: MIG-...)
            const auto device = line.find(" Device ");
            const auto colon = line.find(':', device == std::string::npos ? 0 : device);
            const auto index = device == std::string::npos || colon == std::string::npos
                                   ? std::nullopt
                                   : parseInteger(trim(line.substr(device + 8, colon - device - 8)));
            if (!index) {
                list.unrecognised.push_back(line);
                continue;
            }
            NvidiaMigDevice mig;
            mig.index = static_cast<int>(*index);
            mig.profile = trim(line.substr(4, device - 4));
            mig.uuid = uuidOf(line);
            mig.memoryBytes = migProfileMemoryBytes(mig.profile);
            list.gpus.back().migDevices.push_back(std::move(mig));
        } else {
            list.unrecognised.push_back(line);
        }
    }
    return list;
}

bool applyNvidiaSmiQuery(const std::string& csv, std::vector<NvidiaGpu>& gpus)
{
    const std::vector<std::string> lines = split(csv, '\n');
    if (lines.empty())
        return false;
    // Header cells look like "memory.total [MiB]"; the column name is what precedes " [".
    std::vector<std::string> header;
    for (const std::string& cell : split(lines.front(), ','))
        header.push_back(trim(trim(cell).substr(0, trim(cell).find(" ["))));
    auto column = [&](const std::string& name) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name)
                return i;
        return std::nullopt;
    };
    const auto index = column("index");
    if (!index)
        return false;
    const auto total = column("memory.total"), free = column("memory.free"), mig = column("mig.mode.current");
    for (std::size_t l = 1; l < lines.size(); ++l) {
        const std::vector<std::string> cells = split(lines[l], ',');
        if (cells.size() != header.size())
            continue;
        const auto gpuIndex = parseInteger(trim(cells[*index]));
        if (!gpuIndex)
            continue;
        for (NvidiaGpu& gpu : gpus) {
            if (gpu.index != *gpuIndex)
                continue;
            if (total)
                gpu.memoryBytes = mebibytes(cells[*total]).value_or(0);
            if (free)
                gpu.memoryFreeBytes = mebibytes(cells[*free]).value_or(0);
            if (mig) {
                const std::string mode = trim(cells[*mig]);
                if (mode == "Enabled")
                    gpu.migEnabled = true;
                else if (mode == "Disabled")
                    gpu.migEnabled = false;
            }
        }
    }
    return true;
}

std::vector<std::string> nvidiaSmiListCommand()
{
    return {"nvidia-smi", "-L"};
}

std::vector<std::string> nvidiaSmiQueryCommand()
{
    return {"nvidia-smi", "--query-gpu=index,name,uuid,memory.total,memory.free,mig.mode.current", "--format=csv"};
}

} // namespace pitwall
