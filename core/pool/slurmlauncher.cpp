#include "core/pool/slurmlauncher.h"

#include "core/pool/hposettings.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

namespace pitwall {

namespace {

namespace fs = std::filesystem;

constexpr auto kToolTimeout = std::chrono::seconds(30);

// States after which a job runs nothing more (scontrol's JobState).
bool finalState(const std::string& state)
{
    static const std::set<std::string> running{"PENDING",     "CONFIGURING", "RUNNING",   "COMPLETING",
                                               "SUSPENDED",   "RESIZING",    "REQUEUED",  "REQUEUE_HOLD",
                                               "REQUEUE_FED", "SIGNALING",   "STAGE_OUT", "STOPPED"};
    return state.empty() || running.count(state) == 0;
}

} // namespace

std::string shellWord(const std::string& word)
{
    const bool safe = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                              "0123456789_./:=@%+,-") == std::string::npos;
    if (safe)
        return word;
    std::string quoted = "'";
    for (char c : word)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

SlurmLauncher::SlurmLauncher(SlurmLaunchOptions options, const ToolRunner& runner)
    : m_options(std::move(options)), m_runner(runner)
{
}

std::string SlurmLauncher::logFile() const
{
    return (fs::path(m_options.logDir) / ("slurm-" + m_jobId + ".log")).string();
}

std::string SlurmLauncher::submit()
{
    if (!m_runner.available("sbatch"))
        throw InputError("--launcher slurm: sbatch is not on PATH (install Slurm's client tools, or run where they "
                         "are)");
    fs::create_directories(m_options.logDir);
    const fs::path script = fs::path(m_options.logDir) / "slurm-workers.sh";
    std::vector<std::string> srun{"srun", "--kill-on-bad-exit=0"};
    for (const std::string& word : m_options.workerCommand)
        srun.push_back(word);
    std::string text = "#!/bin/sh\n# The workers of study '" + m_options.studyName +
                       "', one per task (pitwall hpo --launcher slurm wrote this).\nexec";
    for (const std::string& word : srun)
        text += " " + shellWord(word);
    writeFileAtomically(script, text + "\n");
    std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=pitwall-" + m_options.studyName,
                                  "--ntasks=" + std::to_string(m_options.tasks),
                                  "--output=" + (fs::path(m_options.logDir) / "slurm-%j.log").string()};
    argv.insert(argv.end(), m_options.slurmArgs.begin(), m_options.slurmArgs.end());
    argv.push_back(script.string());
    const ToolResult result = m_runner.run(argv, kToolTimeout);
    if (!result.ok())
        throw InputError("--launcher slurm: sbatch refused the workers' job (" + result.failure() + ")" +
                         (trim(result.err).empty() ? std::string() : ":\n" + trim(result.err)));
    // --parsable prints "JOBID" or "JOBID;CLUSTER".
    m_jobId = trim(result.out.substr(0, result.out.find(';')));
    if (m_jobId.empty() || m_jobId.find_first_not_of("0123456789_") != std::string::npos)
        throw RuntimeError("sbatch printed no job id: '" + trim(result.out) + "'");
    return m_jobId;
}

std::string SlurmLauncher::JobInfo::describe() const
{
    if (state.empty())
        return "no longer known to Slurm";
    std::string text = state;
    if (!tasks.empty() && state != "PENDING")
        text += ": " + tasks + " task(s)" + (nodes.empty() || nodes == "(null)" ? "" : " on " + nodes);
    return text;
}

SlurmLauncher::JobInfo SlurmLauncher::jobInfo() const
{
    JobInfo info;
    const ToolResult result = m_runner.run({"scontrol", "show", "job", "-o", m_jobId}, kToolTimeout);
    if (!result.ok())
        return info; // "Invalid job id specified": Slurm has forgotten it (MinJobAge)
    const auto field = [&](const std::string& key) {
        const std::size_t at = result.out.find(" " + key + "=");
        if (at == std::string::npos)
            return std::string();
        const std::size_t from = at + key.size() + 2;
        return result.out.substr(from, result.out.find_first_of(" \n", from) - from);
    };
    info.state = field("JobState");
    info.tasks = field("NumTasks");
    info.nodes = field("NodeList");
    return info;
}

PoolStatus SlurmLauncher::run(const CancelToken* cancel, const std::function<void(const std::string&)>& onSubmitted,
                              const std::function<void(const PoolEvent&)>& onEvent,
                              const std::function<void(const PoolStatus&)>& onStatus)
{
    auto store = openStore(m_options.storeLocation);
    const StudyRecord study = store->requireStudy(m_options.studyName);
    const int target = studyTarget(*store, m_options.studyName);
    for (const TrialRecord& t : store->trials(study.id))
        m_changes.seen(t.number, t.state);
    submit();
    if (onSubmitted)
        onSubmitted(m_jobId);
    PoolStatus status;
    status.target = target;
    std::string state = "PENDING", lastReport;
    double cancelledAt = 0;
    for (;;) {
        const auto trials = store->trials(study.id);
        m_changes.report(trials, onEvent);
        status.counts = countTrials(trials, study.directions);
        status.pending = std::max(0, target - status.counts.counted());
        const JobInfo info = jobInfo();
        state = info.state;
        status.workersAlive = state == "RUNNING" ? parseInteger(info.tasks).value_or(m_options.tasks) : 0;
        status.mostWorkers = std::max(status.mostWorkers, status.workersAlive);
        if (const std::string report = info.describe(); report != lastReport && onEvent)
            onEvent({PoolEventKind::JobState, "", std::nullopt, "slurm job " + m_jobId + ": " + report});
        lastReport = info.describe();
        if (cancel && cancel->requested() && cancelledAt == 0) {
            m_runner.run({"scancel", m_jobId}, kToolTimeout);
            cancelledAt = nowSeconds();
            status.stopping = true;
        }
        if (finalState(state)) {
            status.finished = true;
            if (status.pending > 0 && !status.stopping)
                status.error = "slurm job " + m_jobId + " ended (" + (state.empty() ? "gone" : state) + ") with " +
                               std::to_string(status.pending) + " trial(s) to run; its log " + logFile() + " ends:\n" +
                               fileTail(logFile(), 1500);
        }
        if (onStatus)
            onStatus(status);
        if (status.finished)
            return status;
        if (cancelledAt > 0 && nowSeconds() - cancelledAt > m_options.cancelWaitSeconds) {
            status.error = "slurm job " + m_jobId + " was cancelled (scancel) but is still " + state + " after " +
                           formatDouble(m_options.cancelWaitSeconds) + " s";
            return status;
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(m_options.pollIntervalSeconds));
    }
}

} // namespace pitwall
