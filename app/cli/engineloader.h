#pragma once
// Loading the engine's commands on demand: the module (and LibTorch behind it) is opened only for a command
// that needs it, so every other command starts without LibTorch's second of start-up.

#include "app/cli/cli.h"

#include <string>

namespace pitwall::cli {

// Whether `pitwall <word> ...` needs the engine module: a word that no built-in command starts with (options,
// "help" and an empty command line do not).
bool needsEngine(const Cli& cli, const std::string& word);

// Opens the engine module beside this program (lib/pitwall/pitwall_cli_engine.so, or $PITWALL_ENGINE_MODULE)
// and registers its commands. Returns false, with the reason in `why`, when there is no module (a build
// without the engine) or it belongs to another build.
bool loadEngineCommands(Cli& cli, std::string& why);

// The overview's list of engine commands without loading the module: read from the index file written at
// build time beside it (engine-commands.tsv). Does nothing when there is none.
void listEngineCommands(Cli& cli);

// Writes that index (path TAB summary per visible command from `firstEngineCommand` on, the ones the module
// added). Returns the exit status.
int writeEngineIndex(const Cli& cli, std::size_t firstEngineCommand, const std::string& file);

} // namespace pitwall::cli
