// pitwall jobs list|show|stop|resume|log: the jobs recorded in the results store, whichever front end started them.
#include "app/cli/cli.h"

#include "core/jobrun/jobcontrol.h"
#include "core/jobrun/jobreport.h"
#include "core/jobs/jobcontrolspec.h"
#include "core/search/resumereview.h"
#include "core/util/error.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace pitwall::cli {

namespace {

int listJobs(const Args& args)
{
    auto store = openJobStoreForReading(args.database());
    const auto jobs = store->jobs(args.flag("all"));
    if (args.flag("json")) {
        std::cout << jobsJson(jobs, nowSeconds()).dump(2) << "\n";
        return kExitOk;
    }
    if (jobs.empty()) {
        std::cout << (args.flag("all") ? "no jobs in " : "no running or queued jobs in ") << store->path()
                  << (args.flag("all") ? "\n" : " (--all lists ended ones too)\n");
        return kExitOk;
    }
    std::cout << jobsTableText(jobs, nowSeconds());
    return kExitOk;
}

int showJob(const Args& args)
{
    auto store = openJobStoreForReading(args.database());
    const JobRecord j = requireJob(*store, jobIdArgument(args, "show"));
    if (args.flag("json")) {
        std::cout << jobToJson(j, nowSeconds()).dump(2) << "\n";
        return kExitOk;
    }
    std::cout << jobDetailsText(j, nowSeconds());
    return kExitOk;
}

int stopCommand(const Args& args)
{
    auto store = openJobStoreForWriting(args.database());
    const JobStopSpec spec = JobStopSpec::fromArgs(args);
    const std::int64_t id = spec.job;
    const JobRecord j = requireJob(*store, id);
    if (isFinal(j.state)) {
        std::cerr << "job " << id << " has already ended (" << jobStateName(j.state) << ")\n";
        return kExitBadInput;
    }
    const StopOutcome outcome = stopJob(*store, j, spec.now ? StopMode::Now : StopMode::Graceful);
    if (outcome == StopOutcome::NotItsProcess) {
        std::cerr << "job " << id << "'s process is gone: pid " << j.pid
                  << " is no longer it (no such process, or another process now: its start time differs), so it "
                     "was not signalled; the job is recorded as failed (process vanished)\n";
        return kExitFailure;
    }
    if (outcome == StopOutcome::NotVerified) {
        std::cerr << "job " << id << " was recorded without its process's start time (by an older Pitwall), so pid "
                  << j.pid << " cannot be told from another process and was not signalled; asked the job to stop "
                  << "through the store (it stops within a few seconds if it is still running)\n";
        return kExitFailure;
    }
    if (outcome == StopOutcome::AskedElsewhere) {
        std::cerr << "job " << id << " runs on " << j.host << ": asked it to stop through the store\n";
        return kExitOk;
    }
    if (outcome == StopOutcome::StoppedNow) {
        std::cout << "job " << id << " stopped at once (cancelled)\n";
        return kExitOk;
    }
    std::cout << "job " << id << " is stopping (the current step or trial ends; finished work is kept)\n";
    if (spec.wait)
        std::cout << "job " << id << " " << jobStateName(waitForJobEnd(*store, id)) << "\n";
    return kExitOk;
}

int resumeJob(const Args& args)
{
    auto store = openJobStoreForWriting(args.database());
    const JobResumeSpec spec = JobResumeSpec::fromArgs(args);
    const std::int64_t id = spec.job;
    const JobRecord job = requireJob(*store, id);
    // A search's stored command runs again: shown and refused unless this user ran or confirmed it (--yes).
    checkJobResume(job, args.database(), spec.yes);
    const std::vector<std::string> words = resumeJobDetached(*store, job, args.database());
    std::cout << id << "\n";
    std::cerr << "pitwall: job " << id << " resumes in the background: pitwall " << join(words, " ") << "\n";
    return kExitOk;
}

int jobLog(const Args& args)
{
    auto store = openJobStoreForReading(args.database());
    const std::int64_t id = jobIdArgument(args, "log");
    const JobRecord j = requireJob(*store, id);
    if (j.logFile.empty()) {
        std::cerr << "job " << id << " ran in the foreground: its output went to the terminal that started it\n";
        return kExitBadInput;
    }
    copyJobLog(*store, id, std::cout, args.flag("follow"));
    return kExitOk;
}

} // namespace

void addJobCommands(Cli& cli)
{
    cli.add({.path = "jobs list",
             .options = {dbOption(), jsonOption(), {"all", "", "include finished, failed and cancelled jobs"}},
             .run = listJobs});
    cli.add({.path = "jobs show", .options = {dbOption(), jsonOption()}, .run = showJob});
    cli.add(
        {.path = "jobs stop", .options = withOptions({dbOption()}, JobStopSpec::optionSpecs()), .run = stopCommand});
    cli.add(
        {.path = "jobs resume", .options = withOptions({dbOption()}, JobResumeSpec::optionSpecs()), .run = resumeJob});
    cli.add({.path = "jobs log",
             .options = {dbOption(), {"follow", "", "keep printing new output until the job ends"}},
             .run = jobLog});
}

} // namespace pitwall::cli
