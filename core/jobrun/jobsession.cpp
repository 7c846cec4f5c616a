#include "core/jobrun/jobsession.h"

#include "core/util/cancel.h"
#include "core/util/exitcodes.h"
#include "core/util/timefmt.h"

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
    double fraction = 0;
    std::string message;
    std::string phase;
    double phaseStartTime = 0;
    double phaseStartFraction = 0;
    std::optional<double> eta;
};

ProgressState& progressState()
{
    static ProgressState state;
    return state;
}

std::string phaseOf(const std::string& message)
{
    const auto digit = message.find_first_of("0123456789");
    return message.substr(0, digit);
}

} // namespace

void reportJobProgress(double fraction, const std::string& message)
{
    ProgressState& p = progressState();
    std::lock_guard lock(p.mutex);
    if (!p.active)
        return;
    const double now = nowSeconds();
    const std::string phase = phaseOf(message);
    if (phase != p.phase || fraction < p.fraction) {
        p.phase = phase;
        p.phaseStartTime = now;
        p.phaseStartFraction = fraction;
    }
    p.fraction = fraction;
    p.message = message;
    const double done = fraction - p.phaseStartFraction;
    constexpr double kMinFractionForEta = 0.02;
    p.eta = done > kMinFractionForEta ? std::optional<double>((now - p.phaseStartTime) * (1.0 - fraction) / done)
                                      : std::nullopt;
}

JobSession::JobSession(const std::string& storeLocation, const std::string& kind, const Json& spec,
                       std::optional<std::int64_t> adoptId, const std::string& logFile)
    : m_location(storeLocation)
{
    JobStore& store = m_store.emplace(storeLocation);
    if (adoptId) {
        m_id = *adoptId;
        store.start(m_id, ::getpid());
    } else {
        m_id = store.create(kind, spec, JobState::Running, ::getpid(), logFile);
    }
    ::setenv("PITWALL_JOB_ID", std::to_string(m_id).c_str(), 1);
    {
        ProgressState& p = progressState();
        std::lock_guard lock(p.mutex);
        p.active = true;
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
        ~RestoreParent()
        {
            ::setenv("PITWALL_JOB_ID", std::to_string(id).c_str(), 1);
            ProgressState& p = progressState();
            std::lock_guard lock(p.mutex);
            p.active = true;
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
    if (const auto id = currentJobId())
        JobStore(storeLocation).setSpecField(*id, "devices", devices);
}

} // namespace pitwall
