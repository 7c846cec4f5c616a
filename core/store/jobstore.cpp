// JobStore: the rules of job records (what a state change means, the messages); the SQL is per backend
// (internal/jobbackend.h: SQLite in sqlitejobs.cpp, PostgreSQL in pgjobs.cpp).

#include "core/store/jobstore.h"

#include "core/store/internal/jobbackend.h"
#include "core/store/pglocation.h"
#include "core/store/sqlitestore.h"
#include "core/util/error.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace pitwall {

namespace {

std::optional<std::int64_t> startTicksOf(std::int64_t pid)
{
    return pid > 0 ? processStartTicks(pid) : std::nullopt;
}

} // namespace

namespace store_internal {
void readJobSpec(JobRecord& job, const std::string& specJson)
{
    try {
        job.spec = Json::parse(specJson);
    } catch (const Json::exception&) {
        job.spec = specJson;
    }
    if (job.spec.is_object() && job.spec.contains(kSecondsBeforeKey)) {
        if (job.spec[kSecondsBeforeKey].is_number())
            job.secondsBefore = std::max(0.0, job.spec[kSecondsBeforeKey].get<double>());
        job.spec.erase(kSecondsBeforeKey);
    }
}
} // namespace store_internal

const char* jobStateName(JobState state)
{
    switch (state) {
    case JobState::Queued: return "queued";
    case JobState::Running: return "running";
    case JobState::Stopping: return "stopping";
    case JobState::Finished: return "finished";
    case JobState::Failed: return "failed";
    case JobState::Cancelled: return "cancelled";
    }
    return "failed";
}

std::optional<JobState> parseJobState(const std::string& text)
{
    for (JobState s : {JobState::Queued, JobState::Running, JobState::Stopping, JobState::Finished, JobState::Failed,
                       JobState::Cancelled})
        if (text == jobStateName(s))
            return s;
    return std::nullopt;
}

double jobElapsedSeconds(const JobRecord& j, double now)
{
    return j.secondsBefore + (j.startTime ? j.endTime.value_or(now) - *j.startTime : 0.0);
}

Json jobToJson(const JobRecord& j, double now)
{
    const auto optional = [](const auto& v) { return v ? Json(*v) : Json(nullptr); };
    Json links = Json::array();
    for (const JobLink& l : j.links)
        links.push_back({{"kind", l.kind}, {"ref", l.ref}});
    return {{"id", j.id},
            {"kind", j.kind},
            {"state", jobStateName(j.state)},
            {"spec", j.spec},
            {"host", j.host},
            {"pid", j.pid},
            {"process_start", optional(j.processStart)},
            {"create_time", j.createTime},
            {"start_time", optional(j.startTime)},
            {"end_time", optional(j.endTime)},
            {"heartbeat_time", optional(j.heartbeatTime)},
            {"elapsed_seconds", jobElapsedSeconds(j, now)},
            {"progress", j.progress},
            {"message", j.progressMessage},
            {"eta_seconds", optional(j.etaSeconds)},
            {"exit_code", optional(j.exitCode)},
            {"error", j.error},
            {"log_file", j.logFile},
            {"links", links}};
}

bool isFinal(JobState state)
{
    return state == JobState::Finished || state == JobState::Failed || state == JobState::Cancelled;
}

const std::vector<std::string>& jobKinds()
{
    static const std::vector<std::string> kinds{"train",           "hpo",          "hpo-final",    "bench-variants",
                                                "bench-partitions", "bench-loader", "eval-driving", "eval-detection"};
    return kinds;
}

std::optional<std::int64_t> processStartTicks(std::int64_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // "PID (COMMAND) STATE ...": the command may hold spaces and parentheses, so fields count from the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    std::string field;
    for (int number = 3; number <= 22; ++number)
        if (!(fields >> field))
            return std::nullopt;
    const auto ticks = parseInteger(field);
    return ticks ? std::optional<std::int64_t>(*ticks) : std::nullopt;
}

JobProcess jobProcess(const JobRecord& j)
{
    if (j.host != hostName())
        return JobProcess::Elsewhere;
    if (!processAlive(j.pid))
        return JobProcess::Gone;
    const auto start = processStartTicks(j.pid);
    return j.processStart && start == j.processStart ? JobProcess::Here : JobProcess::Other;
}

std::optional<std::string> jobVanishedReason(const JobRecord& j, double now)
{
    if (isFinal(j.state))
        return std::nullopt;
    const std::string pid = std::to_string(j.pid);
    // A queued job has no process yet (its starter is about to exec it): only the grace period applies.
    if (j.state != JobState::Queued) {
        const JobProcess process = jobProcess(j);
        if (process == JobProcess::Gone)
            return "process vanished (pid " + pid + " is gone)";
        // Without a recorded start time (an older Pitwall's job) a live pid is taken for the job's.
        if (process == JobProcess::Other && j.processStart)
            return "process vanished (pid " + pid + " is now another process)";
    }
    const double last = j.heartbeatTime.value_or(j.createTime);
    if (now - last > kJobHeartbeatGraceSeconds)
        return "process vanished (no heartbeat for " + std::to_string(static_cast<int>(now - last)) + " s)";
    return std::nullopt;
}

JobStore::JobStore(const std::string& location, OpenMode mode)
    : m_path(isPostgresLocation(location) ? redactedLocation(location) : sqliteFilePath(location)), m_mode(mode),
      m_backend(isPostgresLocation(location) ? store_internal::pgJobBackend(location, mode)
                                             : store_internal::sqliteJobBackend(m_path, mode))
{
}

JobStore::~JobStore() = default;

std::int64_t JobStore::create(const std::string& kind, const Json& spec, JobState state, std::int64_t pid,
                              const std::string& logFile)
{
    return m_backend->create(kind, spec, state, pid, startTicksOf(pid), nowSeconds(), logFile);
}

void JobStore::setLogFile(std::int64_t id, const std::string& logFile)
{
    m_backend->setLogFile(id, logFile);
}

void JobStore::setSpecField(std::int64_t id, const std::string& key, const Json& value)
{
    m_backend->setSpecField(id, key, value);
}

void JobStore::start(std::int64_t id, std::int64_t pid)
{
    if (m_backend->start(id, pid, startTicksOf(pid), nowSeconds()))
        return;
    throw RuntimeError("job " + std::to_string(id) + " of " + m_path + " is not waiting for a process to run it (" +
                       m_backend->stateOf(id).value_or("no such job") +
                       "): another process took it over or it ended, so this one does not run it");
}

JobState JobStore::heartbeat(std::int64_t id, double fraction, const std::string& message, std::optional<double> eta)
{
    const auto state = m_backend->heartbeat(id, nowSeconds(), std::clamp(fraction, 0.0, 1.0), message, eta);
    return state ? parseJobState(*state).value_or(JobState::Failed) : JobState::Failed;
}

bool JobStore::requestStop(std::int64_t id)
{
    return m_backend->requestStop(id);
}

void JobStore::finish(std::int64_t id, JobState state, std::optional<int> exitCode, const std::string& error)
{
    if (!isFinal(state))
        throw RuntimeError(std::string("JobStore::finish needs a final state, not ") + jobStateName(state));
    m_backend->finish(id, state, nowSeconds(), exitCode, error);
}

void JobStore::requeue(std::int64_t id, const Json& spec, const std::string& logFile)
{
    // The claim: one statement that only a cancelled or failed job matches. The heartbeat is now, not the old run's,
    // so that no reaper takes the queued job for vanished before its process starts (which let a second `jobs
    // resume` claim it again). The time it ran so far goes into the new spec (kSecondsBeforeKey), so that its
    // elapsed time goes on; its progress stays where it was (the resumed process goes on from there).
    if (m_backend->requeue(id, spec, nowSeconds(), logFile))
        return;
    const auto stored = m_backend->stateOf(id);
    if (!stored)
        throw InputError("no job " + std::to_string(id) + " in " + m_path);
    const JobState state = parseJobState(*stored).value_or(JobState::Failed);
    if (!isFinal(state))
        throw InputError("job " + std::to_string(id) + " is already resuming (another `pitwall jobs resume` " +
                         "took it first; it is " + jobStateName(state) + " now)");
    throw InputError("job " + std::to_string(id) + " is " + jobStateName(state) +
                     ", so it cannot be resumed (only a cancelled or failed job resumes)");
}

void JobStore::link(std::int64_t id, const std::string& kind, const std::string& ref)
{
    m_backend->link(id, kind, ref);
}

void JobStore::remove(std::int64_t id)
{
    m_backend->remove(id);
}

std::optional<JobRecord> JobStore::job(std::int64_t id)
{
    return m_backend->job(id);
}

std::vector<JobRecord> JobStore::jobs(bool includeEnded)
{
    return m_backend->jobs(includeEnded);
}

int JobStore::reapVanished(double now)
{
    if (m_mode == OpenMode::ReadOnly)
        return 0;
    int changed = 0;
    for (const JobRecord& j : jobs(false))
        if (const auto reason = jobVanishedReason(j, now))
            changed += m_backend->markVanished(j, now, *reason);
    return changed;
}

std::optional<std::int64_t> currentJobId()
{
    const char* text = std::getenv("PITWALL_JOB_ID");
    if (!text || !*text)
        return std::nullopt;
    const auto id = parseInteger(text);
    return id && *id > 0 ? id : std::nullopt;
}


} // namespace pitwall
