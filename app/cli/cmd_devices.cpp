// pitwall devices | pitwall plugins
#include "app/cli/cli.h"

#include "core/devices/devices.h"
#include "core/devices/gpubackends.h"
#include "core/plugin/plugin.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"


#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

nlohmann::json backendJson(const DeviceBackend& backend, PartitionMode mode, const std::vector<LogicalDevice>& logical,
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

void printBackend(const DeviceBackend& backend, PartitionMode mode, const std::vector<LogicalDevice>& logical,
                  const std::string& modeProblem)
{
    const bool cpu = backend.name() == "cpu";
    if (!cpu)
        std::printf("\n");
    for (const PhysicalDevice& d : backend.physicalDevices()) {
        if (cpu)
            std::printf("cpu:%d  %s  %d cores  %s memory (%s available)\n", d.index, d.name.c_str(), d.cores,
                        formatBytes(static_cast<double>(d.memoryBytes)).c_str(),
                        formatBytes(static_cast<double>(d.memoryAvailableBytes)).c_str());
        else
            std::printf("%s:%d  %s%s\n", backend.name().c_str(), d.index, d.name.c_str(),
                        d.memoryBytes > 0 ? ("  " + formatBytes(static_cast<double>(d.memoryBytes)) + " memory").c_str()
                                          : "");
    }
    for (const std::string& note : backend.notes())
        std::printf("  note: %s\n", note.c_str());
    std::printf("\npartition modes (%s):\n", backend.name().c_str());
    for (const ModeAvailability& m : backend.modes())
        std::printf("  %s  %d logical device(s) per device  %s\n", partitionModeName(m.mode),
                    partitionsPerDevice(m.mode), m.available ? "available" : ("unavailable: " + m.why).c_str());
    if (!modeProblem.empty()) {
        if (!cpu)
            std::printf("\nlogical devices in %s (%s): none, %s\n", partitionModeName(mode), backend.name().c_str(),
                        modeProblem.c_str());
        return;
    }
    std::printf("\nlogical devices in %s%s:\n", partitionModeName(mode),
                cpu ? "" : (" (" + backend.name() + ")").c_str());
    for (const LogicalDevice& l : logical) {
        std::string env;
        for (const char* key : {"CUDA_VISIBLE_DEVICES", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "HIP_VISIBLE_DEVICES"})
            if (!cpu && l.environment.count(key))
                env += std::string("  ") + key + "=" + l.environment.at(key);
        std::printf("  %-8s cores %-8s %d thread(s)  %s memory share%s\n", l.id.c_str(), formatCpuList(l.cpuSet).c_str(),
                    l.threads, formatBytes(static_cast<double>(l.memoryBytes)).c_str(), env.c_str());
    }
}

// --set-partition MODE [--apply]: say (or run) the amd-smi command that changes the AMD compute partition.
int setPartition(const Args& args, PartitionMode mode)
{
    PartitionChange change = planAmdComputePartition(mode);
    if (!args.flag("apply")) {
        if (args.flag("json")) {
            std::cout << nlohmann::json{{"command", commandText(change.command)}, {"applied", false}}.dump(2) << "\n";
            return kExitOk;
        }
        std::cout << "would run: " << commandText(change.command) << "\n"
                  << "Add --apply to run it (it needs root, and every GPU workload must stop first).\n";
        return kExitOk;
    }
    if (!findOnPath("amd-smi"))
        throw InputError(
            "--set-partition needs amd-smi, which is not on PATH (only AMD GPUs are partitioned this way)");
    change = applyAmdComputePartition(mode);
    if (args.flag("json"))
        std::cout << nlohmann::json{{"command", commandText(change.command)},
                                    {"applied", change.applied},
                                    {"ok", change.ok},
                                    {"gpus_set", change.gpusSet},
                                    {"error", change.error},
                                    {"output", change.output}}
                         .dump(2)
                  << "\n";
    else if (change.ok)
        std::cout << "ran: " << commandText(change.command) << "\n"
                  << partitionModeName(mode) << " set on " << change.gpusSet.size() << " GPU(s)\n";
    if (!change.ok) {
        std::cerr << "error: `" << commandText(change.command) << "` failed: " << change.error << "\n";
        return kExitFailure;
    }
    return kExitOk;
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
    if (auto text = args.value("set-partition")) {
        const auto parsed = parsePartitionMode(*text);
        if (!parsed)
            throw InputError("--set-partition '" + *text + "' is not one of SPX, DPX, QPX, CPX");
        return setPartition(args, *parsed);
    }
    if (args.flag("apply"))
        throw InputError("--apply goes with --set-partition MODE");
    const std::string only = args.value("backend", "");
    if (!only.empty() && only != "cpu" && only != "cuda" && only != "hip")
        throw InputError("--backend '" + only + "' is not one of cpu, cuda, hip");

    std::vector<std::unique_ptr<DeviceBackend>> backends;
    backends.push_back(makeCpuBackend());
    GpuDiscovery gpus = discoverGpuBackends();
    for (auto& backend : gpus.backends)
        backends.push_back(std::move(backend));

    nlohmann::json out;
    nlohmann::json list = nlohmann::json::array();
    std::string cpuProblem;
    bool shown = false;
    for (const auto& backend : backends) {
        if (!only.empty() && backend->name() != only)
            continue;
        std::vector<LogicalDevice> logical;
        std::string modeProblem;
        try {
            logical = backend->logicalDevices(mode);
        } catch (const InputError& e) {
            modeProblem = e.what();
        }
        if (backend->name() == "cpu")
            cpuProblem = modeProblem;
        list.push_back(backendJson(*backend, mode, logical, modeProblem));
        if (!args.flag("json")) {
            printBackend(*backend, mode, logical, modeProblem);
            if (backend->name() == "cpu" && !modeProblem.empty()) {
                std::cerr << "error: " << modeProblem << "\n";
                return kExitBadInput;
            }
        }
        shown = true;
    }
    if (!shown && !args.flag("json"))
        std::printf("no %s backend on this machine\n", only.c_str());
    out["backends"] = list;
    out["mode"] = partitionModeName(mode);
    out["problems"] = gpus.problems;
    if (args.flag("json")) {
        std::cout << out.dump(2) << "\n";
        return cpuProblem.empty() ? kExitOk : kExitBadInput;
    }
    for (const std::string& problem : gpus.problems)
        std::cerr << "warning: " << problem << "\n";
    std::printf("\nengine: 'pitwall engine info' shows the LibTorch version and the GPUs LibTorch sees\n");
    return kExitOk;
}

int listPlugins(const Args& args)
{
    const bool check = args.flag("check"); // loads every library (and LibTorch with the model plugins)
    const PluginListing listing = check ? checkPlugins(pluginSearchPath()) : listPluginManifests(pluginSearchPath());
    const int status = check && !listing.problems.empty() ? kExitFailure : kExitOk;
    if (args.flag("json")) {
        nlohmann::json out{{"search_path", nlohmann::json::array()}, {"plugins", nlohmann::json::array()},
                           {"problems", listing.problems}, {"checked", check}};
        for (const auto& folder : pluginSearchPath())
            out["search_path"].push_back(folder.string());
        for (const PluginManifest& p : listing.plugins)
            out["plugins"].push_back({{"name", p.name}, {"kind", pluginKindName(p.kind)}, {"description", p.description},
                                      {"file", p.library.string()}, {"schema", p.schema.string()}});
        std::cout << out.dump(2) << "\n";
        return status;
    }
    std::cout << "plugin search path:\n";
    for (const auto& folder : pluginSearchPath())
        std::cout << "  " << folder.string() << "\n";
    std::cout << "plugins:\n";
    if (listing.plugins.empty())
        std::cout << "  (none)\n";
    for (const PluginManifest& p : listing.plugins)
        std::printf("  %-12s %-8s %s\n", p.name.c_str(), pluginKindName(p.kind), p.description.c_str());
    for (const std::string& problem : listing.problems)
        std::cerr << (check ? "error: " : "warning: ") << problem << "\n";
    if (check && listing.problems.empty())
        std::cout << "checked: every plugin loads and matches its manifest and this build\n";
    return status;
}

} // namespace

void addDeviceCommands(Cli& cli)
{
    cli.add({"devices",
             "show compute backends, partition modes and the logical devices of a mode",
             "[--mode SPX|DPX|QPX|CPX] [--backend cpu|cuda|hip] [--json]\n"
             "       | --set-partition SPX|DPX|QPX|CPX [--apply] [--json]",
             "A logical device is what one worker process binds to. On CPU, a mode splits the cores this\n"
             "process may use into 1/2/4/8 sets (SPX/DPX/QPX/CPX), each with its own thread count.\n"
             "CUDA (when nvidia-smi is on PATH): MIG devices are the logical devices of a GPU split by MIG;\n"
             "other GPUs are shared by 1/2/4/8 MPS clients. HIP (when amd-smi is on PATH): the GPUs' current\n"
             "compute partition gives the logical devices; --set-partition shows the amd-smi command that\n"
             "changes it, and --apply runs it (root; every GPU workload must stop first).",
             {{"mode", "MODE", "partition mode whose logical devices are listed (default SPX)"},
              {"backend", "NAME", "show only this backend (cpu, cuda or hip)"},
              {"set-partition", "MODE", "AMD GPUs: the command that sets this compute partition"},
              {"apply", "", "with --set-partition: run that command"},
              jsonOption()},
             showDevices});
}

void addPluginCommands(Cli& cli)
{
    cli.add({"plugins", "list the plugins found on the plugin path and any that were left out", "[--check] [--json]",
             "Plugins are found in $PITWALL_PLUGIN_PATH (':'-separated), then <install>/lib/pitwall/plugins.\n"
             "The list comes from each plugin's manifest (<name>.plugin.json, written by the build beside\n"
             "<name>.so), so no plugin is loaded and LibTorch is not started. --check loads every library\n"
             "as training would, checks its ABI and build id, compares it with its manifest, and exits 1\n"
             "when any of them fails.",
             {{"check", "", "load every plugin and verify it (loads LibTorch)"}, jsonOption()}, listPlugins});
}

} // namespace pitwall::cli
