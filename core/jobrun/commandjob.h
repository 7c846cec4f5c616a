#pragma once
// A command line's long commands run as jobs: recorded in the results store (pitwall_jobs) while they run in the
// foreground, or started in the background with --detach. These are the JobHooks of a cmdline::CommandTree
// (core/util/cmdline.h); core/jobrun/jobsession.h is the record's running side, core/jobrun/jobcontrol.h the rest.

#include "core/util/cmdline.h"

#include <string>
#include <vector>

namespace pitwall {

// The hooks below, ready for a CommandTree.
cmdline::JobHooks commandJobHooks();

// Adds --detach (and --check, for a command that has a check) to a job command's options, and --db when it has
// none: the job is recorded in the results database even by a command that writes no other results there.
void addJobOptions(cmdline::Command& command);

// Runs a job command: records the job (or adopts the queued one a --detach start made), prints
// "pitwall: job N (KIND)" on stderr, runs it, and records how it ended. With --detach, runs the command's check
// first (Command::check, its --check: bad input fails here with exit 2, and no job is made), then starts the same
// command in a new session with its output in a new log file beside the database, prints the job id on stdout
// and returns. `words` are the command line after the program's name (the spec to start it again). Bad input
// (exit 2) in the foreground leaves no job record behind, and no results file when there was none before; a
// detached job, whose id was given, is recorded as failed with the reason.
int runCommandAsJob(const cmdline::Command& command, const cmdline::Args& args, const std::vector<std::string>& words);

} // namespace pitwall
