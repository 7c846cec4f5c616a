// pitwall devices | pitwall plugins
#include "app/cli/cli.h"

#include "core/devices/devices.h"
#include "core/plugin/plugin.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#ifdef PITWALL_HAVE_ENGINE
#include "core/engine/engineinfo.h"
#endif

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

std::string cpuSetText(const std::vector<int>& cores)
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

int showDevices(const Args& args)
{
    PartitionMode mode = PartitionMode::SPX;
    if (auto text = args.value("mode")) {
        auto parsed = parsePartitionMode(*text);
        if (!parsed)
            throw InputError("--mode '" + *text + "' is not one of SPX, DPX, QPX, CPX");
        mode = *parsed;
    }
    const auto cpu = makeCpuBackend();
    nlohmann::json out;
    nlohmann::json backends = nlohmann::json::array();
    nlohmann::json backend{{"name", cpu->name()}};
    for (const PhysicalDevice& d : cpu->physicalDevices())
        backend["devices"].push_back({{"index", d.index},
                                      {"name", d.name},
                                      {"cores", d.cores},
                                      {"memory_bytes", d.memoryBytes},
                                      {"memory_available_bytes", d.memoryAvailableBytes}});
    for (const ModeAvailability& m : cpu->modes())
        backend["modes"].push_back({{"mode", partitionModeName(m.mode)}, {"available", m.available}, {"why", m.why}});
    std::vector<LogicalDevice> logical;
    std::string modeProblem;
    try {
        logical = cpu->logicalDevices(mode);
    } catch (const InputError& e) {
        modeProblem = e.what();
    }
    for (const LogicalDevice& l : logical)
        backend["logical_devices"].push_back({{"id", l.id},
                                              {"cpu_set", l.cpuSet},
                                              {"threads", l.threads},
                                              {"memory_bytes", l.memoryBytes},
                                              {"environment", l.environment}});
    backends.push_back(backend);
    out["backends"] = backends;
    out["mode"] = partitionModeName(mode);
#ifdef PITWALL_HAVE_ENGINE
    const EngineInfo engine = engineInfo();
    out["engine"] = {{"torch_version", engine.torchVersion},
                     {"gpu_available", engine.cudaAvailable},
                     {"gpu_count", engine.gpuCount},
                     {"hip_build", engine.hipBuild},
                     {"intra_op_threads", engine.intraOpThreads}};
#endif
    if (args.flag("json")) {
        std::cout << out.dump(2) << "\n";
        return modeProblem.empty() ? kExitOk : kExitBadInput;
    }
    for (const PhysicalDevice& d : cpu->physicalDevices())
        std::printf("cpu:%d  %s  %d cores  %s memory (%s available)\n", d.index, d.name.c_str(), d.cores,
                    formatBytes(static_cast<double>(d.memoryBytes)).c_str(),
                    formatBytes(static_cast<double>(d.memoryAvailableBytes)).c_str());
    std::printf("\npartition modes (cpu):\n");
    for (const ModeAvailability& m : cpu->modes())
        std::printf("  %s  %d logical device(s) per device  %s\n", partitionModeName(m.mode),
                    partitionsPerDevice(m.mode), m.available ? "available" : ("unavailable: " + m.why).c_str());
    if (!modeProblem.empty()) {
        std::cerr << "error: " << modeProblem << "\n";
        return kExitBadInput;
    }
    std::printf("\nlogical devices in %s:\n", partitionModeName(mode));
    for (const LogicalDevice& l : logical)
        std::printf("  %-8s cores %-8s %d thread(s)  %s memory share\n", l.id.c_str(), cpuSetText(l.cpuSet).c_str(),
                    l.threads, formatBytes(static_cast<double>(l.memoryBytes)).c_str());
#ifdef PITWALL_HAVE_ENGINE
    std::printf("\nengine: LibTorch %s, %s\n", engine.torchVersion.c_str(),
                engine.cudaAvailable ? (std::to_string(engine.gpuCount) + " GPU(s) visible").c_str()
                                     : "no GPU backend in this LibTorch or no GPU visible (CUDA/HIP backends: none)");
#endif
    return kExitOk;
}

int listPlugins(const Args& args)
{
    const PluginScan scan = scanPlugins(pluginSearchPath());
    if (args.flag("json")) {
        nlohmann::json out{{"search_path", nlohmann::json::array()}, {"plugins", nlohmann::json::array()},
                           {"problems", scan.problems}};
        for (const auto& folder : pluginSearchPath())
            out["search_path"].push_back(folder.string());
        for (const PluginLibrary& p : scan.plugins)
            out["plugins"].push_back({{"name", p.info().name},
                                      {"kind", pluginKindName(p.info().kind)},
                                      {"description", p.info().description ? p.info().description : ""},
                                      {"file", p.file().string()}});
        std::cout << out.dump(2) << "\n";
        return kExitOk;
    }
    std::cout << "plugin search path:\n";
    for (const auto& folder : pluginSearchPath())
        std::cout << "  " << folder.string() << "\n";
    std::cout << "plugins:\n";
    if (scan.plugins.empty())
        std::cout << "  (none)\n";
    for (const PluginLibrary& p : scan.plugins)
        std::printf("  %-12s %-8s %s\n", p.info().name, pluginKindName(p.info().kind),
                    p.info().description ? p.info().description : "");
    for (const std::string& problem : scan.problems)
        std::cerr << "warning: " << problem << "\n";
    return kExitOk;
}

} // namespace

void addDeviceCommands(Cli& cli)
{
    cli.add({"devices", "show compute backends, partition modes and the logical devices of a mode",
             "[--mode SPX|DPX|QPX|CPX] [--json]",
             "A logical device is what one worker process binds to. On CPU, a mode splits the cores this\n"
             "process may use into 1/2/4/8 sets (SPX/DPX/QPX/CPX), each with its own thread count.",
             {{"mode", "MODE", "partition mode whose logical devices are listed (default SPX)"}, jsonOption()},
             showDevices});
}

void addPluginCommands(Cli& cli)
{
    cli.add({"plugins", "list the plugins found on the plugin path and any that failed to load", "[--json]",
             "Plugins are loaded from $PITWALL_PLUGIN_PATH (':'-separated), then <install>/lib/pitwall/plugins.",
             {jsonOption()}, listPlugins});
}

} // namespace pitwall::cli
