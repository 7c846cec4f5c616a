#include "core/jobs/jobcontrolspec.h"

#include "core/jobs/jobproblems.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>

namespace pitwall {

namespace {

constexpr const char* kNow = "now";
constexpr const char* kWait = "wait";
constexpr const char* kDatabase = "db";
constexpr const char* kYes = "yes";

std::string option(const char* name)
{
    return std::string("--") + name;
}

} // namespace

std::vector<std::string> JobStopSpec::toArgs() const
{
    std::vector<std::string> words = {"jobs", "stop", std::to_string(job)};
    if (now)
        words.push_back(option(kNow));
    if (wait)
        words.push_back(option(kWait));
    return words;
}

JobStopSpec JobStopSpec::fromArgs(const cmdline::Args& args)
{
    return {.job = jobIdArgument(args, "stop"), .now = args.flag(kNow), .wait = args.flag(kWait)};
}

std::vector<cmdline::OptionSpec> JobStopSpec::optionSpecs()
{
    return {{kNow, "", "kill the process at once instead of waiting for the current step"},
            {kWait, "", "return only when the job has ended"}};
}

std::vector<std::string> JobResumeSpec::toArgs() const
{
    std::vector<std::string> words = {"jobs", "resume", std::to_string(job)};
    if (yes)
        words.push_back(option(kYes));
    return words;
}

JobResumeSpec JobResumeSpec::fromArgs(const cmdline::Args& args)
{
    return {.job = jobIdArgument(args, "resume"), .yes = args.flag(kYes)};
}

std::vector<cmdline::OptionSpec> JobResumeSpec::optionSpecs()
{
    return {{kYes, "",
             "resume a search whose stored command, log folder or best-parameters path you have not run or confirmed "
             "before (they are shown when this is needed)"}};
}

std::int64_t jobIdArgument(const cmdline::Args& args, const std::string& command)
{
    if (args.positionals.size() != 1)
        throw InputError("pitwall jobs " + command + ": give one job id (pitwall jobs list shows them)");
    const auto id = parseInteger(args.positionals[0]);
    if (!id || *id <= 0)
        throw InputError("pitwall jobs " + command + ": '" + args.positionals[0] + "' is not a job id");
    return *id;
}

std::vector<std::string> withDatabase(std::vector<std::string> words, const std::string& database)
{
    const std::string db = option(kDatabase);
    const bool named = std::any_of(words.begin(), words.end(),
                                   [&](const std::string& w) { return w == db || w.rfind(db + "=", 0) == 0; });
    if (!named) {
        words.push_back(db);
        words.push_back(database);
    }
    return words;
}

bool startsBackgroundJob(const std::vector<std::string>& words)
{
    if (words.size() >= 2 && words[0] == "jobs" && words[1] == "resume")
        return true;
    const std::string detach = detachedWords({}).front(); // "--detach", spelt where it is added
    return std::find(words.begin(), words.end(), detach) != words.end();
}

} // namespace pitwall
