#pragma once
// The engine module: the commands that train or evaluate, in a library of their own
// (lib/pitwall/pitwall_cli_engine.so) that a command line opens only for a command that needs it, so every other
// command starts without LibTorch's second of start-up. The module exports two C functions:
// `pitwall_engine_module_build` (its build id, which must be this Pitwall's: pitwallBuildId) and
// `pitwall_add_engine_commands` (adds its commands to a cmdline::CommandTree).

#include "core/util/cmdline.h"

#include <cstddef>
#include <string>

namespace pitwall {

// Whether `pitwall <word> ...` needs the engine module: a word that no built-in command starts with (options,
// "help" and an empty command line do not).
bool needsEngine(const cmdline::CommandTree& cli, const std::string& word);

// Opens the engine module beside this program (../lib/pitwall/pitwall_cli_engine.so from the executable, or
// $PITWALL_ENGINE_MODULE) and registers its commands. Returns false, with the reason in `why`, when there is no
// module (a build without the engine), it is not an engine module, or it belongs to another build.
bool loadEngineCommands(cmdline::CommandTree& cli, std::string& why);

// The overview's list of engine commands without loading the module: read from the index file written at
// build time beside it (engine-commands.tsv). Does nothing when there is none.
void listEngineCommands(cmdline::CommandTree& cli);

// Writes that index (path TAB summary per visible command from `firstEngineCommand` on, the ones the module
// added). Returns the exit status.
int writeEngineIndex(const cmdline::CommandTree& cli, std::size_t firstEngineCommand, const std::string& file);

} // namespace pitwall
