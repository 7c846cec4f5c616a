#pragma once
// Commands that do long work run as jobs: recorded in the results store (pitwall_jobs) while they run in the
// foreground, or started in the background with --detach. See core/sched/jobsession.h for the record's side.

#include "app/cli/cli.h"

#include <string>
#include <vector>

namespace pitwall::cli {

// Adds --detach to a job command's options.
void addJobOptions(Command& command);

// Runs a job command: records the job (or adopts the queued one a --detach start made), prints
// "pitwall: job N (KIND)" on stderr, runs it, and records how it ended. With --detach, starts the same command
// in a new session with its output in a log file beside the database, prints the job id on stdout and returns.
// `words` are the command line after "pitwall" (the spec to start it again). Bad input (exit 2) leaves no job
// record behind, and no results file when there was none before.
int runAsJob(const Command& command, const Args& args, const std::vector<std::string>& words);

} // namespace pitwall::cli
