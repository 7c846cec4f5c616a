#include "core/devices/amdsmi.h"

#include "core/util/strings.h"

#include <algorithm>
#include <cctype>

namespace pitwall {

namespace {

constexpr int kNone = -1; // no GPU id

int gpuIdOf(const std::string& text)
{
    const auto id = parseInteger(trim(text));
    return id && *id >= 0 ? static_cast<int>(*id) : kNone;
}

bool notAvailable(const std::string& value)
{
    return value.empty() || value == "N/A";
}

// "CPX*" -> "CPX"; "N/A" -> "".
std::string partitionName(std::string value)
{
    value = trim(value);
    if (!value.empty() && value.back() == '*')
        value.pop_back();
    return notAvailable(value) ? std::string() : value;
}

AmdGpu& gpuById(AmdSmiReport& report, int id)
{
    for (AmdGpu& gpu : report.gpus)
        if (gpu.gpuId == id)
            return gpu;
    report.gpus.push_back(AmdGpu{});
    report.gpus.back().gpuId = id;
    return report.gpus.back();
}

void sortGpus(AmdSmiReport& report)
{
    std::sort(report.gpus.begin(), report.gpus.end(),
              [](const AmdGpu& a, const AmdGpu& b) { return a.gpuId < b.gpuId; });
}

// "0" -> id 0; "0,1,2,...": the whole list (the old --current format).
void setPartitionIds(AmdGpu& gpu, const std::string& cell)
{
    const std::string value = trim(cell);
    if (notAvailable(value))
        return;
    if (value.find(',') != std::string::npos) {
        gpu.partitionIds.clear();
        for (const std::string& part : split(value, ','))
            if (auto id = parseInteger(trim(part)))
                gpu.partitionIds.push_back(static_cast<int>(*id));
        if (!gpu.partitionIds.empty())
            gpu.partitionId = gpu.partitionIds.front();
        return;
    }
    if (auto id = parseInteger(value))
        gpu.partitionId = static_cast<int>(*id);
}

// "KEY: value" of a trimmed line, when it starts with key.
std::optional<std::string> field(const std::string& line, const std::string& key)
{
    if (!startsWith(line, key + ":"))
        return std::nullopt;
    return trim(line.substr(key.size() + 1));
}

// A column-aligned table: each column starts where its header word starts.
struct Table {
    std::vector<std::string> names;
    std::vector<std::size_t> starts;

    explicit Table(const std::string& header)
    {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (!std::isspace(static_cast<unsigned char>(header[i])) &&
                (i == 0 || std::isspace(static_cast<unsigned char>(header[i - 1])))) {
                starts.push_back(i);
                auto end = header.find_first_of(" \t", i);
                names.push_back(header.substr(i, end == std::string::npos ? std::string::npos : end - i));
            }
    }
    std::string cell(const std::string& line, const std::string& name) const
    {
        for (std::size_t c = 0; c < names.size(); ++c) {
            if (names[c] != name)
                continue;
            if (starts[c] >= line.size())
                return {};
            const std::size_t end = c + 1 < starts.size() ? starts[c + 1] : std::string::npos;
            return trim(line.substr(starts[c], end == std::string::npos ? std::string::npos : end - starts[c]));
        }
        return {};
    }
};

bool isSectionTitle(const std::string& trimmed)
{
    if (trimmed.size() < 2 || trimmed.back() != ':')
        return false;
    return std::all_of(trimmed.begin(), trimmed.end() - 1,
                       [](char c) { return std::isupper(static_cast<unsigned char>(c)) || c == '_'; });
}

// A table row starts with a GPU id, N/A, or (continuation rows) spaces.
bool isRow(const std::string& line)
{
    if (trim(line).empty())
        return false;
    if (std::isspace(static_cast<unsigned char>(line.front())))
        return true;
    const std::string first = split(trim(line), ' ').front();
    return first == "N/A" || parseInteger(first).has_value();
}

} // namespace

AmdSmiReport parseAmdSmiStaticPartition(const std::string& text)
{
    AmdSmiReport report;
    int current = kNone;
    for (const std::string& raw : split(text, '\n')) {
        const std::string line = trim(raw);
        if (auto id = field(line, "GPU")) {
            current = gpuIdOf(*id);
            if (current != kNone)
                gpuById(report, current);
            continue;
        }
        if (current == kNone)
            continue;
        AmdGpu& gpu = gpuById(report, current);
        if (auto v = field(line, "COMPUTE_PARTITION"); v)
            gpu.computePartition = partitionName(*v);
        else if (auto a = field(line, "ACCELERATOR_PARTITION"); a)
            gpu.computePartition = partitionName(*a);
        else if (auto m = field(line, "MEMORY_PARTITION"); m && !m->empty())
            gpu.memoryPartition = partitionName(*m);
        else if (auto p = field(line, "PARTITION_ID"); p)
            setPartitionIds(gpu, *p);
    }
    sortGpus(report);
    return report;
}

namespace {

// A banner line ("** text **", amd-smi's boxed notices): adds its text to `banner`; the box's border lines and
// its WARNING: title add nothing.
void addBannerLine(std::string& banner, const std::string& trimmed)
{
    if (trimmed.find("WARNING:") == std::string::npos && trimmed.find_first_not_of("* ") != std::string::npos) {
        const std::string text = trim(trimmed.substr(2, trimmed.size() >= 4 ? trimmed.size() - 4 : 0));
        banner += (banner.empty() || text.empty() ? "" : " ") + text;
    }
}

// A CURRENT_PARTITION row: the GPU's memory and compute partition and its partition id.
void readCurrentPartitionRow(AmdSmiReport& report, int gpuId, const Table& table, const std::string& line)
{
    AmdGpu& gpu = gpuById(report, gpuId);
    gpu.memoryPartition = partitionName(table.cell(line, "MEMORY"));
    gpu.computePartition = partitionName(table.cell(line, "ACCELERATOR_TYPE"));
    setPartitionIds(gpu, table.cell(line, "PARTITION_ID"));
}

// A MEMORY_PARTITION row: the GPU's current memory partition.
void readMemoryPartitionRow(AmdSmiReport& report, int gpuId, const Table& table, const std::string& line)
{
    const std::string current = partitionName(table.cell(line, "CURRENT_MEMORY_PARTITION"));
    if (!current.empty())
        gpuById(report, gpuId).memoryPartition = current;
}

// An ACCELERATOR_PARTITION_PROFILES row: one profile of the GPU; the current one ('*') also gives the GPU's
// compute partition and partition id when nothing did before. A row without a profile index (a secondary
// partition) gives only the partition id.
void readProfileRow(AmdSmiReport& report, int gpuId, const Table& table, const std::string& line)
{
    const std::string indexCell = table.cell(line, "PROFILE_INDEX");
    AmdGpu& gpu = gpuById(report, gpuId);
    const auto index = parseInteger(indexCell);
    if (!index) {
        if (indexCell == "N/A" && !gpu.partitionId) // a secondary partition: only its id is known
            setPartitionIds(gpu, table.cell(line, "PARTITION_ID"));
        return;
    }
    AmdPartitionProfile profile;
    profile.gpuId = gpuId;
    profile.profileIndex = static_cast<int>(*index);
    const std::string type = table.cell(line, "ACCELERATOR_TYPE");
    profile.current = !type.empty() && type.back() == '*';
    profile.type = partitionName(type);
    profile.partitions = static_cast<int>(parseInteger(table.cell(line, "NUM_PARTITIONS")).value_or(0));
    for (const std::string& cap : split(table.cell(line, "MEMORY_PARTITION_CAPS"), ','))
        if (!notAvailable(trim(cap)))
            profile.memoryCaps.push_back(trim(cap));
    if (profile.current) {
        if (gpu.computePartition.empty())
            gpu.computePartition = profile.type;
        if (!gpu.partitionId)
            setPartitionIds(gpu, table.cell(line, "PARTITION_ID"));
    }
    report.profiles.push_back(std::move(profile));
}

} // namespace

AmdSmiReport parseAmdSmiPartition(const std::string& text)
{
    AmdSmiReport report;
    const std::vector<std::string> lines = split(text, '\n');
    std::string section;
    std::optional<Table> table;
    int tableGpu = kNone; // the GPU of continuation rows (profiles)
    int blockGpu = kNone; // "GPU: N" blocks of the older mixed output
    bool inMemoryBlock = false;
    std::string banner;
    for (const std::string& raw : lines) {
        std::string line = raw;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const std::string trimmed = trim(line);
        if (isSectionTitle(trimmed) && !startsWith(line, " ")) {
            section = trimmed.substr(0, trimmed.size() - 1);
            table.reset();
            tableGpu = kNone;
            blockGpu = kNone;
            continue;
        }
        if (startsWith(trimmed, "**")) { // a banner: its lines become one warning
            addBannerLine(banner, trimmed);
            continue;
        }
        if (!banner.empty()) {
            report.warnings.push_back(banner);
            banner.clear();
        }
        if (auto id = field(trimmed, "GPU"); id && !startsWith(line, " ")) { // a "GPU: N" block
            table.reset();
            blockGpu = gpuIdOf(*id);
            continue;
        }
        if (blockGpu != kNone) {
            if (trimmed == "MEMORY_PARTITION:")
                inMemoryBlock = true;
            else if (auto current = field(trimmed, "CURRENT"); current && inMemoryBlock)
                gpuById(report, blockGpu).memoryPartition = partitionName(*current);
            continue;
        }
        if (!table) {
            if (startsWith(trimmed, "GPU_ID") || startsWith(trimmed, "RESOURCE_INDEX"))
                table.emplace(line);
            continue;
        }
        if (!isRow(line)) {
            table.reset();
            continue;
        }
        const std::string idCell = table->cell(line, "GPU_ID");
        if (!idCell.empty())
            tableGpu = gpuIdOf(idCell); // kNone for "N/A": a GPU amd-smi could not name
        if (tableGpu == kNone)
            continue;
        if (section == "CURRENT_PARTITION")
            readCurrentPartitionRow(report, tableGpu, *table, line);
        else if (section == "MEMORY_PARTITION")
            readMemoryPartitionRow(report, tableGpu, *table, line);
        else if (section == "ACCELERATOR_PARTITION_PROFILES")
            readProfileRow(report, tableGpu, *table, line);
    }
    if (!banner.empty())
        report.warnings.push_back(banner);
    sortGpus(report);
    return report;
}

void mergeAmdSmiList(const std::string& text, AmdSmiReport& report)
{
    int current = kNone;
    for (const std::string& raw : split(text, '\n')) {
        const std::string line = trim(raw);
        if (auto id = field(line, "GPU")) {
            current = gpuIdOf(*id);
            continue;
        }
        if (current == kNone)
            continue;
        AmdGpu& gpu = gpuById(report, current);
        if (auto bdf = field(line, "BDF"))
            gpu.bdf = *bdf;
        else if (auto p = field(line, "PARTITION_ID"); p && !gpu.partitionId)
            setPartitionIds(gpu, *p);
        else if (auto hip = field(line, "HIP_ID"))
            if (auto n = parseInteger(*hip))
                gpu.hipId = static_cast<int>(*n);
    }
    sortGpus(report);
}

std::vector<AmdDevice> groupAmdDevices(const AmdSmiReport& report)
{
    std::vector<AmdDevice> devices;
    std::size_t pendingSecondaries = 0; // old format: ids listed on the primary still to come
    for (const AmdGpu& gpu : report.gpus) {
        bool joins = false;
        if (gpu.partitionIds.size() > 1) {
            pendingSecondaries = gpu.partitionIds.size() - 1;
        } else if (gpu.partitionId && *gpu.partitionId > 0 && !devices.empty()) {
            joins = true;
        } else if (!gpu.partitionId && pendingSecondaries > 0 && !devices.empty()) {
            joins = true;
            --pendingSecondaries;
        } else {
            pendingSecondaries = 0;
        }
        if (!joins) {
            AmdDevice device;
            device.index = static_cast<int>(devices.size());
            device.bdf = gpu.bdf;
            for (const AmdPartitionProfile& p : report.profiles)
                if (p.gpuId == gpu.gpuId)
                    device.profiles.push_back(p);
            devices.push_back(std::move(device));
        }
        AmdDevice& device = devices.back();
        device.gpuIds.push_back(gpu.gpuId);
        if (device.computePartition.empty())
            device.computePartition = gpu.computePartition;
        if (device.memoryPartition.empty())
            device.memoryPartition = gpu.memoryPartition;
    }
    return devices;
}

std::vector<std::string> amdSmiPartitionCommand()
{
    return {"amd-smi", "partition"};
}
std::vector<std::string> amdSmiStaticPartitionCommand()
{
    return {"amd-smi", "static", "--partition"};
}
std::vector<std::string> amdSmiListCommand()
{
    return {"amd-smi", "list", "-e"};
}

std::vector<std::string> amdSmiSetComputePartitionCommand(PartitionMode mode)
{
    return {"sudo", "amd-smi", "set", "--gpu", "all", "--compute-partition", partitionModeName(mode)};
}

std::vector<std::string> amdSmiSetMemoryPartitionCommand(const std::string& nps)
{
    return {"sudo", "amd-smi", "set", "--memory-partition", nps};
}

AmdSmiSetResult parseAmdSmiSetOutput(const std::string& output, int exitCode)
{
    AmdSmiSetResult result;
    int current = kNone;
    std::vector<std::string> errors;
    for (const std::string& raw : split(output, '\n')) {
        const std::string line = trim(raw);
        if (auto id = field(line, "GPU")) {
            current = gpuIdOf(*id);
            continue;
        }
        if (line.find("Successfully set") != std::string::npos) {
            if (current != kNone)
                result.gpusSet.push_back(current);
            continue;
        }
        // The informative lines of amd-smi's errors: the AMDSMI status, the final Python exception, argparse
        // and parameter complaints.
        const bool status = line.find("AMDSMI_STATUS_") != std::string::npos && line.find('|') != std::string::npos;
        const bool exception = (line.find("Error: ") != std::string::npos || startsWith(line, "ValueError") ||
                                startsWith(line, "PermissionError") || startsWith(line, "OSError")) &&
                               !startsWith(line, "amdsmi.amdsmi_exception");
        const bool usage = line.find(": error: ") != std::string::npos ||
                           line.find("is invalid") != std::string::npos || startsWith(line, "Can not find") ||
                           startsWith(line, "sudo: ");
        if (status) {
            errors.push_back(trim(line.substr(line.find('|') + 1)));
        } else if (startsWith(line, "[AMDSMI_STATUS_") || startsWith(line, "Users may need")) {
            errors.push_back(line);
        } else if (exception || usage) {
            errors.push_back(line);
        }
    }
    result.ok = exitCode == 0 && errors.empty() && !result.gpusSet.empty();
    if (!result.ok) {
        result.error = join(errors, "; ");
        if (result.error.empty())
            result.error = exitCode == 0 ? "amd-smi reported no GPU as changed"
                                         : "amd-smi exited with status " + std::to_string(exitCode);
    }
    return result;
}

} // namespace pitwall
