// The engine's commands as a module of their own: `pitwall` loads it (and with it LibTorch) only for the
// commands that train or evaluate, so that study, db, config, devices, jobs, --help and --version start at once.
#include "app/cli/cli.h"

extern "C" {

// The build this module belongs to; the CLI refuses a module of another build (their C++ ABI must match).
const char* pitwall_engine_module_build() { return PITWALL_BUILD_ID; }

void pitwall_add_engine_commands(pitwall::cli::Cli& cli)
{
    using namespace pitwall::cli;
    addTrainCommands(cli);
    addBenchCommands(cli);
    addEvalCommands(cli);
    addHpoCommands(cli);
    addEngineInfoCommand(cli);
    // The long commands record themselves as jobs (pitwall jobs list) and take --detach.
    for (const auto& [path, kind] : {std::pair{"train", "train"},
                                     {"hpo", "hpo"},
                                     {"bench variants", "bench-variants"},
                                     {"bench partitions", "bench-partitions"},
                                     {"bench loader", "bench-loader"},
                                     {"eval driving", "eval-driving"},
                                     {"eval detection", "eval-detection"}})
        cli.setJobKind(path, kind);
}
}
