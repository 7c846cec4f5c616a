#include "app/cli/jobrunner.h"

#include "core/sched/jobsession.h"
#include "core/store/jobstore.h"
#include "core/store/sqlitestore.h"
#include "core/util/error.h"
#include "core/util/process.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace pitwall::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kAdoptVariable = "PITWALL_ADOPT_JOB";

// The queued job this process was started for by a --detach start, read once and removed from the
// environment so that commands this one starts do not adopt it too.
std::optional<std::int64_t> takeAdoptedJob()
{
    const char* text = std::getenv(kAdoptVariable);
    if (!text)
        return std::nullopt;
    const std::string value = text;
    ::unsetenv(kAdoptVariable);
    try {
        const long long id = std::stoll(value);
        return id > 0 ? std::optional<std::int64_t>(id) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::vector<std::string> withoutDetach(const std::vector<std::string>& words)
{
    std::vector<std::string> out;
    for (const std::string& w : words)
        if (w != "--detach")
            out.push_back(w);
    return out;
}

Json specOf(const std::string& kind, const std::vector<std::string>& words, const std::string& dbPath)
{
    std::error_code error;
    return {{"kind", kind}, {"argv", withoutDetach(words)}, {"cwd", fs::current_path(error).string()},
            {"db", fs::absolute(dbPath, error).string()}};
}

std::string logFileFor(const std::string& dbPath, std::int64_t jobId)
{
    const fs::path db = fs::absolute(dbPath);
    const fs::path dir = db.parent_path() / (db.filename().string() + ".jobs");
    fs::create_directories(dir);
    return (dir / ("job-" + std::to_string(jobId) + ".log")).string();
}

void removeDatabaseFiles(const std::string& path)
{
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(path + suffix, ignored);
}

std::string selfExecutable()
{
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    if (error)
        throw RuntimeError("cannot find this program's path (/proc/self/exe): " + error.message());
    return self.string();
}

} // namespace

void addJobOptions(Command& command)
{
    // The job is recorded in the results database, also for a command that writes no other results there.
    if (std::none_of(command.options.begin(), command.options.end(), [](const OptionSpec& o) { return o.name == "db"; })) {
        OptionSpec db = dbOption();
        db.help = "results database where this job is recorded (default: $PITWALL_DB, else pitwall.db in the working directory)";
        command.options.push_back(db);
    }
    command.options.push_back({"detach", "",
                               "start in the background and print the job id on stdout; the output goes to a log "
                               "file beside the database (pitwall jobs log ID)"});
    command.usage += " [--detach]";
}

void startDetached(const std::string& db, std::int64_t jobId, const std::vector<std::string>& words)
{
    ProcessOptions options;
    options.group = ProcessGroup::NewSession;
    options.stdoutFile = options.stderrFile = logFileFor(db, jobId);
    options.appendOutput = true;
    options.stdinFromDevNull = true;
    options.environment[kAdoptVariable] = std::to_string(jobId);
    std::vector<std::string> argv{selfExecutable()};
    argv.insert(argv.end(), words.begin(), words.end());
    try {
        ChildProcess::start(argv, options); // not waited for: the job outlives this process
    } catch (const std::exception& e) {
        JobStore(db).finish(jobId, JobState::Failed, std::nullopt, e.what());
        throw;
    }
}

int runAsJob(const Command& command, const Args& args, const std::vector<std::string>& words)
{
    const std::string db = args.database();
    const std::string path = sqliteFilePath(db);
    const auto adopted = takeAdoptedJob();
    const Json spec = specOf(command.jobKind, words, path);

    if (args.flag("detach") && !adopted) {
        JobStore store(db);
        const std::int64_t id = store.create(command.jobKind, spec, JobState::Queued, 0, "");
        store.setLogFile(id, logFileFor(path, id));
        startDetached(db, id, withoutDetach(words));
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

} // namespace pitwall::cli
