#pragma once
// The commands that act on a recorded job (`pitwall jobs stop|resume`): their options and command lines in one place,
// so the CLI declares and reads them here and the window builds them here, and neither spells an option name.

#include "core/util/cmdline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pitwall {

// `pitwall jobs stop ID [--now] [--wait]`.
struct JobStopSpec {
    std::int64_t job = 0;
    bool now = false;  // kill the job's processes at once instead of letting the current step or trial end
    bool wait = false; // return only when the job has ended

    // {"jobs", "stop", "7", "--now"}: the words after "pitwall". fromArgs(toArgs()) gives this spec back.
    std::vector<std::string> toArgs() const;
    // From the words after "jobs stop" as the CLI parsed them; InputError for a missing or malformed job id.
    static JobStopSpec fromArgs(const cmdline::Args& args);
    // The options fromArgs reads besides --db.
    static std::vector<cmdline::OptionSpec> optionSpecs();
};

// `pitwall jobs resume ID [--yes]`: a cancelled or failed run or search continues in the background; prints the job
// id. A search whose stored command this user has not run or confirmed before is refused unless `yes`
// (core/search/resumereview.h).
struct JobResumeSpec {
    std::int64_t job = 0;
    bool yes = false; // the stored command, log folder and best-parameters path were reviewed: run them

    std::vector<std::string> toArgs() const;
    static JobResumeSpec fromArgs(const cmdline::Args& args);
    // The options fromArgs reads besides --db.
    static std::vector<cmdline::OptionSpec> optionSpecs();
};

// The one positional of `pitwall jobs <command> ID`; InputError "pitwall jobs <command>: ..." when there is not
// exactly one or it is not a positive integer.
std::int64_t jobIdArgument(const cmdline::Args& args, const std::string& command);

// `words` (after "pitwall") naming the results database `database` with --db, unless they name one already (a job's
// recorded command line does).
std::vector<std::string> withDatabase(std::vector<std::string> words, const std::string& database);

// Whether `words` start a job in the background, whose command then prints the new job's id as its last line:
// a command line with --detach (detachedWords in core/jobs/jobproblems.h), or `jobs resume`.
bool startsBackgroundJob(const std::vector<std::string>& words);

} // namespace pitwall
