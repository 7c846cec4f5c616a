#include "core/jobrun/jobsession.h"

#include "core/util/cancel.h"
#include "core/util/exitcodes.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <unistd.h>

namespace pitwall {

namespace {

// The latest progress, written by the working thread and read by the heartbeat thread.
struct ProgressState {
    std::mutex mutex;
    bool active = false;
    double fraction = 0; // of the whole job; never goes back
    std::string message;
    double startTime = 0;     // when this process first reported progress (0: not yet)
    double startFraction = 0; // the fraction then (a resumed job starts where it was)
    std::optional<double> eta;
};

ProgressState& progressState()
{
    static ProgressState state;
    return state;
}

} // namespace

void reportJobProgress(double fraction, const std::string& message)
{
    ProgressState& p = progressState();
    std::lock_guard lock(p.mutex);
    if (!p.active)
        return;
    const double now = nowSeconds();
    if (p.startTime == 0) {
        p.startTime = now;
        p.startFraction = fraction;
    }
    // The job's bar never goes back (a trial interrupted mid-way takes its epochs with it; the work's parts report
    // their place in the whole: ProgressReporter::within). The ETA is for the whole job, from this process's pace.
    p.fraction = std::max(p.fraction, std::clamp(fraction, 0.0, 1.0));
    p.message = message;
    const double done = p.fraction - p.startFraction;
    constexpr double kMinFractionForEta = 0.02;
    p.eta = done > kMinFractionForEta && p.fraction < 1.0
                ? std::optional<double>((now - p.startTime) * (1.0 - p.fraction) / done)
                : std::nullopt;
}

JobSession::JobSession(const std::string& storeLocation, const std::string& kind, const Json& spec,
                       std::optional<std::int64_t> adoptId, const std::string& logFile)
    : m_location(storeLocation)
{
    JobStore& store = m_store.emplace(storeLocation);
    double resumedFrom = 0; // a resumed job's progress goes on from where it was
    if (adoptId) {
        m_id = *adoptId;
        store.start(m_id, ::getpid());
        if (const auto record = store.job(m_id))
            resumedFrom = record->progress;
    } else {
        m_id = store.create(kind, spec, JobState::Running, ::getpid(), logFile);
    }
    ::setenv("PITWALL_JOB_ID", std::to_string(m_id).c_str(), 1);
    {
        ProgressState& p = progressState();
        std::lock_guard lock(p.mutex);
        p.active = true;
        p.fraction = resumedFrom; // this job's progress starts here (a child job's too)
        p.message.clear();
        p.startTime = 0;
        p.startFraction = 0;
        p.eta.reset();
    }
    m_thread = std::thread([this] { beat(); });
}

JobSession::~JobSession()
{
    if (!m_done) {
        try {
            finish(1, "ended without a result");
        } catch (...) {
        }
    }
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void JobSession::beat()
{
    // Its own connection: a JobStore belongs to one thread.
    std::optional<JobStore> store;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait_for(lock, std::chrono::duration<double>(kJobHeartbeatIntervalSeconds), [&] { return m_stop; });
            if (m_stop)
                return;
        }
        double fraction = 0;
        std::string message;
        std::optional<double> eta;
        {
            ProgressState& p = progressState();
            std::lock_guard lock(p.mutex);
            fraction = p.fraction;
            message = p.message;
            eta = p.eta;
        }
        try {
            if (!store)
                store.emplace(m_location);
            // `jobs stop` from anywhere sets Stopping; the work sees it as if Ctrl-C had been pressed once.
            if (store->heartbeat(m_id, fraction, message, eta) == JobState::Stopping && !processCancelToken().requested())
                processCancelToken().request();
        } catch (const std::exception&) {
            store.reset(); // a busy or briefly unreadable file: try again at the next beat
        }
    }
}

void JobSession::finish(int exitCode, const std::string& error)
{
    m_done = true;
    double fraction = 0;
    std::string message;
    {
        ProgressState& p = progressState();
        std::lock_guard lock(p.mutex);
        p.active = false;
        fraction = p.fraction;
        message = p.message;
    }
    JobState state = JobState::Failed;
    if (exitCode == 0)
        state = JobState::Finished;
    else if (exitCode == kExitCancelled || processCancelToken().requested())
        state = JobState::Cancelled;
    JobStore& store = m_store ? *m_store : m_store.emplace(m_location);
    store.heartbeat(m_id, fraction, message, std::nullopt); // the last progress, not the one of the last beat
    store.finish(m_id, state, exitCode, state == JobState::Failed ? error : std::string());
}

void JobSession::discard()
{
    m_done = true;
    JobStore& store = m_store ? *m_store : m_store.emplace(m_location);
    store.remove(m_id);
    m_store.reset(); // the caller may remove the file it created
}

int runChildJob(const std::string& storeLocation, const std::string& kind, const Json& fields,
                const std::function<int()>& work)
{
    const auto parent = currentJobId();
    if (!parent)
        return work();
    Json spec = Json::object();
    {
        JobStore store(storeLocation);
        if (const auto record = store.job(*parent))
            spec = record->spec;
    }
    spec.update(fields);
    spec["kind"] = kind;
    spec["parent_job"] = *parent;
    // The parent's id and progress come back however the child ends.
    struct RestoreParent {
        std::int64_t id;
        double fraction = 0, startTime = 0, startFraction = 0;
        std::string message;
        explicit RestoreParent(std::int64_t parentId) : id(parentId)
        {
            ProgressState& p = progressState();
            std::lock_guard lock(p.mutex);
            fraction = p.fraction, startTime = p.startTime, startFraction = p.startFraction, message = p.message;
        }
        ~RestoreParent()
        {
            ::setenv("PITWALL_JOB_ID", std::to_string(id).c_str(), 1);
            ProgressState& p = progressState();
            std::lock_guard lock(p.mutex);
            p.active = true;
            p.fraction = fraction, p.startTime = startTime, p.startFraction = startFraction, p.message = message;
            p.eta.reset();
        }
    } restore{*parent};
    JobSession child(storeLocation, kind, spec, std::nullopt, "");
    JobStore(storeLocation).link(*parent, "job", std::to_string(child.id()));
    int code = 1;
    try {
        code = work();
    } catch (const std::exception& e) {
        child.finish(1, e.what());
        throw;
    }
    child.finish(code, code == 0 ? "" : "exit status " + std::to_string(code));
    return code;
}

void reportJobDevices(const std::string& storeLocation, const std::vector<std::string>& devices)
{
    reportJobField(storeLocation, "devices", devices);
}

void reportJobField(const std::string& storeLocation, const std::string& key, const Json& value)
{
    if (const auto id = currentJobId())
        JobStore(storeLocation).setSpecField(*id, key, value);
}

} // namespace pitwall
