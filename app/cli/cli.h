#pragma once
// The `pitwall` command line: its commands on the generic subcommand machinery of core/util/cmdline.h.
// Exit status: 0 success, 1 the work failed, 2 bad input or usage (the message says what to change).

#include "core/jobs/jobproblems.h"
#include "core/util/cmdline.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace pitwall::cli {

using cmdline::Args;
using cmdline::Command;
using cmdline::OptionSpec;
using cmdline::withOptions;
using Cli = cmdline::CommandTree;

// docs/commands.md, embedded by the build: every command's summary, usage and description.
const char* commandReference();

// The `pitwall` command tree with no commands yet: its overview texts, the command reference and its job hooks
// (core/jobrun/commandjob.h).
Cli makePitwallCli();

// Options every command that touches results takes.
OptionSpec dbOption();
OptionSpec jsonOption();

// Prints a command's outcome, `json` as an indented JSON document when the command got --json, else `text`, and
// returns kExitOk.
int printReport(const Args& args, const nlohmann::json& json, const std::string& text);

// A job command's --check: runs `check` (which prints what would run and returns the exit status). With --json, the
// InputError it throws becomes {"ok": false, "problems": [{"field", "option", "message"}]} on stdout, each problem at
// its field of `fields` (exit 2); without --json it goes on to the command line's usual "error: ..." lines.
int checkReport(const Args& args, const JobFields& fields, const std::function<int()>& check);

// Command groups, each in its own file.
void addConfigCommands(Cli& cli);
void addDbCommands(Cli& cli);
void addDeviceCommands(Cli& cli);
void addPluginCommands(Cli& cli);
void addStudyCommands(Cli& cli);
void addJobCommands(Cli& cli);
void addTrainCommands(Cli& cli); // needs the engine
void addBenchCommands(Cli& cli); // needs the engine (variants, partitions, loader)
void addEvalCommands(Cli& cli);  // needs the engine
void addDataCommands(Cli& cli);  // data synth, data info: core/synth, no engine
void addHpoCommands(Cli& cli);   // needs the engine (hpo, worker)
void addEngineInfoCommand(Cli& cli); // needs the engine

} // namespace pitwall::cli
