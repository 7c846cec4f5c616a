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
        return printReport(args, partitionPlanJson(change), partitionPlanText(change));
    }
    if (!findOnPath("amd-smi"))
        throw InputError(
            "--set-partition needs amd-smi, which is not on PATH (only AMD GPUs are partitioned this way)");
    change = applyAmdComputePartition(mode);
    printReport(args, partitionChangeJson(change), partitionChangeText(change, mode));
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
    cli.add({.path = "devices",
             .options = {{"mode", "MODE", "partition mode whose logical devices are listed (default SPX)"},
                         {"backend", "NAME", "show only this backend (cpu, cuda or hip)"},
                         {"set-partition", "MODE", "AMD GPUs: the command that sets this compute partition"},
                         {"apply", "", "with --set-partition: run that command"},
                         jsonOption()},
             .run = showDevices});
}

void addPluginCommands(Cli& cli)
{
    cli.add({.path = "plugins",
             .options = {{"check", "", "load every plugin and verify it (loads LibTorch)"}, jsonOption()},
             .run = listPlugins});
}

} // namespace pitwall::cli
