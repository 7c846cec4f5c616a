#include "core/devices/devicereport.h"

#include "core/devices/gpubackends.h"
#include "core/util/error.h"
#include "core/util/printf.h"
#include "core/util/strings.h"

namespace pitwall {

namespace {

nlohmann::json backendJson(const DeviceBackend& backend, const std::vector<LogicalDevice>& logical,
                           const std::string& modeProblem)
{
    nlohmann::json out{{"name", backend.name()}};
    out["devices"] = nlohmann::json::array();
    for (const PhysicalDevice& d : backend.physicalDevices())
        out["devices"].push_back({{"index", d.index},
                                  {"name", d.name},
                                  {"cores", d.cores},
                                  {"memory_bytes", d.memoryBytes},
                                  {"memory_available_bytes", d.memoryAvailableBytes}});
    for (const ModeAvailability& m : backend.modes())
        out["modes"].push_back({{"mode", partitionModeName(m.mode)}, {"available", m.available}, {"why", m.why}});
    out["logical_devices"] = nlohmann::json::array();
    for (const LogicalDevice& l : logical)
        out["logical_devices"].push_back({{"id", l.id},
                                          {"cpu_set", l.cpuSet},
                                          {"threads", l.threads},
                                          {"memory_bytes", l.memoryBytes},
                                          {"environment", l.environment}});
    if (backend.name() != "cpu") {
        const auto current = backend.currentMode();
        out["current_mode"] = current ? nlohmann::json(partitionModeName(*current)) : nlohmann::json(nullptr);
        out["notes"] = backend.notes();
        if (!modeProblem.empty())
            out["mode_problem"] = modeProblem;
    }
    return out;
}

std::string physicalText(const DeviceBackend& backend, bool cpu)
{
    std::string text;
    for (const PhysicalDevice& d : backend.physicalDevices()) {
        if (cpu)
            text += stringPrintf("cpu:%d  %s  %d cores  %s memory (%s available)\n", d.index, d.name.c_str(), d.cores,
                                 formatBytes(static_cast<double>(d.memoryBytes)).c_str(),
                                 formatBytes(static_cast<double>(d.memoryAvailableBytes)).c_str());
        else
            text += stringPrintf(
                "%s:%d  %s%s\n", backend.name().c_str(), d.index, d.name.c_str(),
                d.memoryBytes > 0 ? ("  " + formatBytes(static_cast<double>(d.memoryBytes)) + " memory").c_str() : "");
    }
    return text;
}

std::string backendText(const DeviceBackend& backend, PartitionMode mode, const std::vector<LogicalDevice>& logical,
                        const std::string& modeProblem)
{
    const bool cpu = backend.name() == "cpu";
    std::string text = (cpu ? "" : "\n") + physicalText(backend, cpu);
    for (const std::string& note : backend.notes())
        text += stringPrintf("  note: %s\n", note.c_str());
    text += stringPrintf("\npartition modes (%s):\n", backend.name().c_str());
    for (const ModeAvailability& m : backend.modes())
        text +=
            stringPrintf("  %s  %d logical device(s) per device  %s\n", partitionModeName(m.mode),
                         partitionsPerDevice(m.mode), m.available ? "available" : ("unavailable: " + m.why).c_str());
    if (!modeProblem.empty()) {
        if (!cpu)
            text += stringPrintf("\nlogical devices in %s (%s): none, %s\n", partitionModeName(mode),
                                 backend.name().c_str(), modeProblem.c_str());
        return text;
    }
    text += stringPrintf("\nlogical devices in %s%s:\n", partitionModeName(mode),
                         cpu ? "" : (" (" + backend.name() + ")").c_str());
    for (const LogicalDevice& l : logical) {
        std::string env;
        for (const char* key : {"CUDA_VISIBLE_DEVICES", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "HIP_VISIBLE_DEVICES"})
            if (!cpu && l.environment.count(key))
                env += std::string("  ") + key + "=" + l.environment.at(key);
        text += stringPrintf("  %-8s cores %-8s %d thread(s)  %s memory share%s\n", l.id.c_str(),
                             formatCpuList(l.cpuSet).c_str(), l.threads,
                             formatBytes(static_cast<double>(l.memoryBytes)).c_str(), env.c_str());
    }
    return text;
}

} // namespace

nlohmann::json DevicesReport::toJson() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const BackendReport& b : backends)
        list.push_back(b.json);
    nlohmann::json out;
    out["backends"] = list;
    out["mode"] = partitionModeName(mode);
    out["problems"] = problems;
    return out;
}

BackendReport describeBackend(const DeviceBackend& backend, PartitionMode mode)
{
    BackendReport report;
    report.backend = backend.name();
    std::vector<LogicalDevice> logical;
    try {
        logical = backend.logicalDevices(mode);
    } catch (const InputError& e) {
        report.modeProblem = e.what();
    }
    report.json = backendJson(backend, logical, report.modeProblem);
    report.text = backendText(backend, mode, logical, report.modeProblem);
    return report;
}

DevicesReport describeDevices(PartitionMode mode, const std::string& onlyBackend)
{
    std::vector<std::unique_ptr<DeviceBackend>> backends;
    backends.push_back(makeCpuBackend());
    GpuDiscovery gpus = discoverGpuBackends();
    for (auto& backend : gpus.backends)
        backends.push_back(std::move(backend));
    DevicesReport report;
    report.mode = mode;
    report.problems = gpus.problems;
    for (const auto& backend : backends)
        if (onlyBackend.empty() || backend->name() == onlyBackend)
            report.backends.push_back(describeBackend(*backend, mode));
    return report;
}

nlohmann::json partitionPlanJson(const PartitionChange& plan)
{
    return nlohmann::json{{"command", commandText(plan.command)}, {"applied", false}};
}

std::string partitionPlanText(const PartitionChange& plan)
{
    return "would run: " + commandText(plan.command) + "\n" +
           "Add --apply to run it (it needs root, and every GPU workload must stop first).\n";
}

nlohmann::json partitionChangeJson(const PartitionChange& change)
{
    return nlohmann::json{{"command", commandText(change.command)},
                          {"applied", change.applied},
                          {"ok", change.ok},
                          {"gpus_set", change.gpusSet},
                          {"error", change.error},
                          {"output", change.output}};
}

std::string partitionChangeText(const PartitionChange& change, PartitionMode mode)
{
    if (!change.ok)
        return "";
    return "ran: " + commandText(change.command) + "\n" + std::string(partitionModeName(mode)) + " set on " +
           std::to_string(change.gpusSet.size()) + " GPU(s)\n";
}

} // namespace pitwall
