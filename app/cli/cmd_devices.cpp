// pitwall devices | pitwall plugins
#include "app/cli/cli.h"

#include "core/devices/devicereport.h"
#include "core/devices/gpubackends.h"
#include "core/plugin/pluginreport.h"
#include "core/util/error.h"
#include "core/util/paths.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

// --NAME as a partition mode, nullopt when absent.
std::optional<PartitionMode> modeOption(const Args& args, const std::string& name)
{
    const auto text = args.value(name);
    if (!text)
        return std::nullopt;
    const auto mode = parsePartitionMode(*text);
    if (!mode)
        throw InputError("--" + name + " '" + *text + "' is not one of SPX, DPX, QPX, CPX");
    return mode;
}

// --set-partition MODE [--apply]: say (or run) the amd-smi command that changes the AMD compute partition.
int setPartition(const Args& args, PartitionMode mode)
{
    PartitionChange change = planAmdComputePartition(mode);
    if (!args.flag("apply")) {
        if (args.flag("json"))
            std::cout << partitionPlanJson(change).dump(2) << "\n";
        else
            std::cout << partitionPlanText(change);
        return kExitOk;
    }
    if (!findOnPath("amd-smi"))
        throw InputError(
            "--set-partition needs amd-smi, which is not on PATH (only AMD GPUs are partitioned this way)");
    change = applyAmdComputePartition(mode);
    if (args.flag("json"))
        std::cout << partitionChangeJson(change).dump(2) << "\n";
    else
        std::cout << partitionChangeText(change, mode);
    if (!change.ok) {
        std::cerr << "error: `" << commandText(change.command) << "` failed: " << change.error << "\n";
        return kExitFailure;
    }
    return kExitOk;
}

int showDevices(const Args& args)
{
    const PartitionMode mode = modeOption(args, "mode").value_or(PartitionMode::SPX);
    if (const auto partition = modeOption(args, "set-partition"))
        return setPartition(args, *partition);
    if (args.flag("apply"))
        throw InputError("--apply goes with --set-partition MODE");
    const std::string only = args.value("backend", "");
    if (!only.empty() && only != "cpu" && only != "cuda" && only != "hip")
        throw InputError("--backend '" + only + "' is not one of cpu, cuda, hip");

    const DevicesReport report = describeDevices(mode, only);
    if (args.flag("json")) {
        std::cout << report.toJson().dump(2) << "\n";
        const bool cpuProblem = !report.backends.empty() && report.backends.front().backend == "cpu" &&
                                !report.backends.front().modeProblem.empty();
        return cpuProblem ? kExitBadInput : kExitOk;
    }
    for (const BackendReport& backend : report.backends) {
        std::fputs(backend.text.c_str(), stdout);
        if (backend.backend == "cpu" && !backend.modeProblem.empty()) {
            std::cerr << "error: " << backend.modeProblem << "\n";
            return kExitBadInput;
        }
    }
    if (report.backends.empty())
        std::printf("no %s backend on this machine\n", only.c_str());
    for (const std::string& problem : report.problems)
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
        std::cout << pluginListingJson(listing, pluginSearchPath(), check).dump(2) << "\n";
        return status;
    }
    std::cout << pluginListingText(listing, pluginSearchPath());
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
