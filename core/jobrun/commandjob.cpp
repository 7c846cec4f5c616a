#include "core/jobrun/commandjob.h"

#include "core/jobrun/jobcontrol.h"
#include "core/jobrun/jobsession.h"
#include "core/store/jobstore.h"
#include "core/store/sqlitestore.h"
#include "core/util/error.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace pitwall {

namespace {

namespace fs = std::filesystem;
using cmdline::OptionSpec;

void removeDatabaseFiles(const std::string& path)
{
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(path + suffix, ignored);
}

} // namespace

cmdline::JobHooks commandJobHooks()
{
    return {addJobOptions, runCommandAsJob};
}

void addJobOptions(cmdline::Command& command)
{
    if (std::none_of(command.options.begin(), command.options.end(),
                     [](const OptionSpec& o) { return o.name == "db"; }))
        command.options.push_back({"db", "FILE",
                                   "results database where this job is recorded (default: $PITWALL_DB, else "
                                   "pitwall.db in the working directory)"});
    command.options.push_back({"detach", "",
                               "start in the background and print the job id on stdout; the output goes to a log "
                               "file beside the database (pitwall jobs log ID)"});
    command.usage += " [--detach]";
    if (command.check) {
        command.options.push_back({"check", "",
                                   "check everything this command checks before it starts work, then stop: no job, "
                                   "no results file, nothing written (exit 0: it would start; 2: the problem)"});
        command.usage += " [--check]";
    }
}

int runCommandAsJob(const cmdline::Command& command, const cmdline::Args& args, const std::vector<std::string>& words)
{
    const std::string db = args.database();
    const std::string path = sqliteFilePath(db);
    const auto adopted = takeAdoptedJob();
    const Json spec = jobSpec(command.jobKind, words, path);

    if (args.flag("detach") && !adopted) {
        JobStore store(db);
        const std::int64_t id = store.create(command.jobKind, spec, JobState::Queued, 0, "");
        store.setLogFile(id, jobLogFile(path, id));
        startDetachedJob(db, id, withoutDetach(words));
        std::cout << id << "\n";
        std::cerr << "pitwall: job " << id << " (" << command.jobKind << ") started in the background; "
                  << "follow it with: pitwall jobs log " << id << " --follow\n";
        return kExitOk;
    }

    std::error_code error;
    const bool existed = fs::exists(path, error);
    JobSession session(db, command.jobKind, spec, adopted, "");
    std::cerr << "pitwall: job " << session.id() << " (" << command.jobKind << ")\n";
    const auto refused = [&] {
        session.discard();
        if (!existed)
            removeDatabaseFiles(path);
    };
    int code = kExitFailure;
    try {
        code = command.run(args);
    } catch (const InputError&) {
        refused();
        throw;
    } catch (const std::exception& e) {
        session.finish(kExitFailure, e.what());
        throw;
    }
    if (code == kExitBadInput) {
        refused();
        return code;
    }
    session.finish(code, code == kExitOk ? "" : "exit status " + std::to_string(code));
    return code;
}

} // namespace pitwall
