#include "core/jobrun/jobcontrol.h"

#include "core/store/pglocation.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/process.h"
#include "core/util/strings.h"

#include "core/util/timefmt.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

namespace pitwall {

namespace {

namespace fs = std::filesystem;

constexpr const char* kAdoptVariable = "PITWALL_ADOPT_JOB";
constexpr auto kPollInterval = std::chrono::milliseconds(200);

// Whether the job's own process (its pid with the recorded start time) runs on this host: the only one to signal.
bool aliveHere(const JobRecord& j)
{
    return jobProcess(j) == JobProcess::Here;
}

// The value of `--name VALUE` or `--name=VALUE` in a command line, or "".
std::string optionValue(const std::vector<std::string>& argv, const std::string& name)
{
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == "--" + name)
            return argv[i + 1];
    for (const std::string& a : argv)
        if (startsWith(a, "--" + name + "="))
            return a.substr(name.size() + 3);
    return {};
}

} // namespace

std::vector<std::string> withoutDetach(const std::vector<std::string>& words)
{
    std::vector<std::string> out;
    for (const std::string& w : words)
        if (w != "--detach")
            out.push_back(w);
    return out;
}

Json jobSpec(const std::string& kind, const std::vector<std::string>& words, const std::string& dbPath)
{
    std::error_code error;
    return {{"kind", kind},
            {"argv", withoutDetach(words)},
            {"cwd", fs::current_path(error).string()},
            {"db", isPostgresLocation(dbPath) ? locationWithoutPassword(dbPath) : fs::absolute(dbPath, error).string()}};
}

std::string jobLogFolder(const std::string& dbPath)
{
    if (isPostgresLocation(dbPath)) // a server's jobs: their logs on the machine that runs them
        return (fs::path(userStateFolder()) / "jobs" / studyFolder(locationWithoutPassword(dbPath))).string();
    const fs::path db = fs::absolute(dbPath);
    return (db.parent_path() / (db.filename().string() + ".jobs")).string();
}

std::string newJobLogFile(const std::string& dbPath, std::int64_t jobId)
{
    const fs::path dir = jobLogFolder(dbPath);
    fs::create_directories(dir);
    const std::string stem = (dir / ("job-" + std::to_string(jobId))).string();
    constexpr int kMaxTries = 1000;
    for (int n = 1; n <= kMaxTries; ++n) {
        const std::string path = stem + (n == 1 ? "" : "." + std::to_string(n)) + ".log";
        // Created here, exclusively, so that the name is this job's; a name taken (or a link planted) is skipped.
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ::close(fd);
            return path;
        }
        if (errno != EEXIST)
            throw RuntimeError(path + ": cannot create job " + std::to_string(jobId) + "'s log file (" +
                               std::strerror(errno) + ")");
    }
    throw RuntimeError(stem + ".log: cannot find a free name for job " + std::to_string(jobId) + "'s log file");
}

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

void startDetachedJob(const std::string& db, std::int64_t jobId, const std::vector<std::string>& words,
                      const std::string& logFile)
{
    ProcessOptions options;
    options.group = ProcessGroup::NewSession;
    options.stdoutFile = options.stderrFile = logFile;
    options.appendOutput = true;
    options.stdinFromDevNull = true;
    options.environment[kAdoptVariable] = std::to_string(jobId);
    const fs::path self = executablePath();
    if (self.empty())
        throw RuntimeError("cannot find this program's path (/proc/self/exe)");
    std::vector<std::string> argv{self.string()};
    argv.insert(argv.end(), words.begin(), words.end());
    try {
        ChildProcess::start(argv, options); // not waited for: the job outlives this process
    } catch (const std::exception& e) {
        JobStore(db).finish(jobId, JobState::Failed, std::nullopt, e.what());
        throw;
    }
}

std::vector<std::string> jobStudies(const JobRecord& job)
{
    std::vector<std::string> out;
    for (const JobLink& l : job.links)
        if (l.kind == "study")
            out.push_back(l.ref);
    return out;
}

std::vector<std::string> resumeCommandLine(const JobRecord& j)
{
    const auto argv = j.spec.value("argv", std::vector<std::string>{});
    const std::string db = j.spec.value("db", std::string());
    if (j.kind == "train") {
        std::vector<std::string> words = argv;
        if (std::find(words.begin(), words.end(), "--resume") == words.end())
            words.push_back("--resume");
        if (optionValue(words, "db").empty() && !db.empty())
            words.insert(words.end(), {"--db", db});
        return words;
    }
    if (j.kind == "hpo") {
        std::string study = optionValue(argv, "resume");
        if (study.empty() && !jobStudies(j).empty())
            study = jobStudies(j).front();
        if (study.empty())
            throw InputError("job " + std::to_string(j.id) + " created no study, so there is nothing to resume; start it again");
        std::vector<std::string> words{"hpo", "--resume", study, "--db", db};
        // What --resume may set (hpojob.cpp checkResumeArgs), as the job was started with it.
        for (const char* carried : {"trials", "partition", "backend", "heartbeat-interval", "heartbeat-grace"})
            if (const std::string v = optionValue(argv, carried); !v.empty())
                words.insert(words.end(), {std::string("--") + carried, v});
        return words;
    }
    throw InputError("a " + j.kind + " job cannot resume (only train and hpo jobs continue where they stopped); " +
                     "start it again with: pitwall " + join(argv, " "));
}

std::vector<std::string> resumeJobDetached(JobStore& store, const JobRecord& j, const std::string& defaultDb)
{
    const std::int64_t id = j.id;
    if (!isFinal(j.state) && j.spec.contains("resumed_from"))
        throw InputError("job " + std::to_string(id) + " is already resuming (it is " + jobStateName(j.state) +
                         " now)");
    if (j.state != JobState::Cancelled && j.state != JobState::Failed)
        throw InputError("job " + std::to_string(id) + " is " + jobStateName(j.state) +
                         ": only a cancelled or failed job resumes");
    const std::vector<std::string> words = resumeCommandLine(j);
    Json spec = j.spec;
    spec["argv"] = words;
    spec["resumed_from"] = j.spec.value("argv", std::vector<std::string>{});
    const std::string db = j.spec.value("db", defaultDb);
    // A job that ran in the foreground has no log yet; a resumed one goes on in its own.
    const std::string logFile = j.logFile.empty() ? newJobLogFile(db, id) : j.logFile;
    store.requeue(id, spec, logFile); // the claim: throws for every racing resume but one
    // The job continues where it was started: its config paths are relative to that folder.
    if (const auto cwd = j.spec.value("cwd", std::string()); !cwd.empty()) {
        std::error_code error;
        fs::current_path(cwd, error);
    }
    startDetachedJob(db, id, words, logFile);
    return words;
}

StopOutcome stopJob(JobStore& store, const JobRecord& j, StopMode mode)
{
    const JobProcess process = jobProcess(j);
    if (j.state != JobState::Queued && process == JobProcess::Other && !j.processStart) {
        // Recorded by a Pitwall that kept no start time: the pid cannot be told from a reused one, so only the
        // store's request reaches the job.
        store.requestStop(j.id);
        return StopOutcome::NotVerified;
    }
    if (j.state != JobState::Queued && (process == JobProcess::Gone || process == JobProcess::Other)) {
        // Its pid names no process, or another one (reused, or an edited record): nothing to signal.
        store.finish(j.id, JobState::Failed, std::nullopt,
                     "process vanished (pid " + std::to_string(j.pid) +
                         (process == JobProcess::Gone ? " is gone)" : " is now another process)"));
        return StopOutcome::NotItsProcess;
    }
    store.requestStop(j.id);
    const auto pid = static_cast<pid_t>(j.pid);
    if (mode == StopMode::Graceful) {
        if (aliveHere(j))
            ::kill(pid, SIGINT); // as one Ctrl-C
        return StopOutcome::Stopping;
    }
    if (aliveHere(j)) {
        // A detached job leads its own session: its whole group (the workers) goes with it.
        const bool leadsGroup = ::getpgid(pid) == pid;
        ::kill(leadsGroup ? -pid : pid, SIGKILL);
        const double until = nowSeconds() + kStopNowWaitSeconds;
        while (aliveHere(j) && nowSeconds() < until)
            std::this_thread::sleep_for(kPollInterval);
    } else if (!j.host.empty()) {
        return StopOutcome::AskedElsewhere;
    }
    constexpr int kKilledExit = 137;
    store.finish(j.id, JobState::Cancelled, kKilledExit, "");
    return StopOutcome::StoppedNow;
}

JobState waitForJobEnd(JobStore& store, std::int64_t id)
{
    for (;;) {
        store.reapVanished(nowSeconds());
        const auto now = store.job(id);
        if (!now)
            throw InputError("job " + std::to_string(id) + " is no longer in " + store.path());
        if (isFinal(now->state))
            return now->state;
        std::this_thread::sleep_for(kPollInterval);
    }
}

} // namespace pitwall
