#pragma once
// The `pitwall` command line: its commands on the generic subcommand machinery of core/util/cmdline.h.
// Exit status: 0 success, 1 the work failed, 2 bad input or usage (the message says what to change).

#include "core/util/cmdline.h"

namespace pitwall::cli {

using cmdline::Args;
using cmdline::Command;
using cmdline::kExitBadInput;
using cmdline::kExitFailure;
using cmdline::kExitOk;
using cmdline::OptionSpec;
using Cli = cmdline::CommandTree;

// The `pitwall` command tree with no commands yet: its overview texts and its job hooks (app/cli/jobrunner.h).
Cli makePitwallCli();

// Options every command that touches results takes.
OptionSpec dbOption();
OptionSpec jsonOption();

// Command groups, each in its own file.
void addConfigCommands(Cli& cli);
void addDbCommands(Cli& cli);
void addDeviceCommands(Cli& cli);
void addPluginCommands(Cli& cli);
void addStudyCommands(Cli& cli);
void addJobCommands(Cli& cli);
void addTrainCommands(Cli& cli); // needs the engine
void addBenchCommands(Cli& cli); // needs the engine
void addLoaderBenchCommands(Cli& cli); // needs the engine
void addEvalCommands(Cli& cli);  // needs the engine
void addDataCommands(Cli& cli);  // needs the engine
void addHpoCommands(Cli& cli);   // needs the engine (hpo, worker)
void addBenchPartitionsCommands(Cli& cli); // needs the engine
void addEngineInfoCommand(Cli& cli); // needs the engine

} // namespace pitwall::cli
