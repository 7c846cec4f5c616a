#include "core/jobrun/commandjob.h"

#include "core/jobrun/jobcontrol.h"
#include "core/jobrun/jobsession.h"
#include "core/store/jobstore.h"
#include "core/store/pglocation.h"
#include "core/store/sqlitestore.h"
#include "core/util/error.h"
#include "core/util/slurm.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

// Runs the command's --check before a --detach start, so that bad input fails here, in the foreground (exit 2 and
// the message on stderr), before a job id is given. What the check prints on stdout (its report, or with --json
// the problems) is held back while it passes: a --detach start prints only the job id there.
int checkBeforeDetach(const cmdline::Command& command, const cmdline::Args& args)
{
    std::cout.flush();
    std::fflush(stdout);
    std::FILE* held = std::tmpfile();
    const int saved = held ? ::dup(STDOUT_FILENO) : -1;
    if (saved < 0) {
        if (held)
            std::fclose(held);
        throw RuntimeError(std::string("cannot check the command before starting it: ") + std::strerror(errno));
    }
    ::dup2(::fileno(held), STDOUT_FILENO);
    const auto restore = [&] {
        std::cout.flush();
        std::fflush(stdout);
        ::dup2(saved, STDOUT_FILENO);
        ::close(saved);
    };
    int code = kExitFailure;
    try {
        code = command.check(args);
    } catch (...) {
        restore();
        std::fclose(held);
        throw;
    }
    restore();
    if (code != kExitOk) {
        std::rewind(held);
        char buffer[4096];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, held)) > 0;)
            std::fwrite(buffer, 1, n, stdout);
        std::fflush(stdout);
    }
    std::fclose(held);
    return code;
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
                               "file beside the database (pitwall jobs log ID). A command that has --check checks "
                               "its input first: bad input fails here (exit 2) and starts no job"});
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
    // The file, or the server's location (without a password: main() moved it to PGPASSWORD).
    const bool server = isPostgresLocation(db);
    const std::string path = server ? locationWithoutPassword(db) : sqliteFilePath(db);
    const auto adopted = takeAdoptedJob();
    const Json spec = jobSpec(command.jobKind, words, path);

    if (args.flag("detach") && !adopted) {
        if (command.check) {
            if (const int checked = checkBeforeDetach(command, args); checked != kExitOk)
                return checked;
        }
        JobStore store(db);
        const std::int64_t id = store.create(command.jobKind, spec, JobState::Queued, 0, "");
        const std::string logFile = newJobLogFile(path, id);
        store.setLogFile(id, logFile);
        startDetachedJob(db, id, withoutDetach(words), logFile);
        std::cout << id << "\n";
        std::cerr << "pitwall: job " << id << " (" << command.jobKind << ") started in the background; "
                  << "follow it with: pitwall jobs log " << id << " --follow\n";
        return kExitOk;
    }

    // `srun -n N pitwall train` is one run of N ranks: rank 0 records the job, the other tasks only train.
    if (const auto task = slurmTrainingTask(); task && task->rank != 0 && command.jobKind == "train")
        return command.run(args);

    std::error_code error;
    const bool existed = server || fs::exists(path, error);
    JobSession session(db, command.jobKind, spec, adopted, "");
    std::cerr << "pitwall: job " << session.id() << " (" << command.jobKind << ")\n";
    const auto refused = [&](const std::string& why) {
        // A detached job's id was printed ("follow it with: pitwall jobs log N"): it stays, failed, with why, so
        // that `jobs log N` shows it. A job in the foreground never started: no record is left behind.
        if (adopted) {
            session.finish(kExitBadInput, why);
            return;
        }
        session.discard();
        if (!existed)
            removeDatabaseFiles(path);
    };
    int code = kExitFailure;
    try {
        code = command.run(args);
    } catch (const InputError& e) {
        refused(std::string("bad input: ") + e.what());
        throw;
    } catch (const std::exception& e) {
        session.finish(kExitFailure, e.what());
        throw;
    }
    if (code == kExitBadInput) {
        refused("bad input (exit status 2; its log says what)");
        return code;
    }
    session.finish(code, code == kExitOk ? "" : "exit status " + std::to_string(code));
    return code;
}

} // namespace pitwall
