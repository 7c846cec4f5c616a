#include "core/pool/internal/heartbeat.h"

#include "core/pool/internal/proctree.h"
#include "core/store/store.h"

#include <unistd.h>

#include <chrono>
#include <memory>

namespace pitwall {

HeartbeatThread::HeartbeatThread(std::string storeLocation, double intervalSeconds)
    : m_storeLocation(std::move(storeLocation)), m_intervalSeconds(intervalSeconds > 0 ? intervalSeconds : 1.0)
{
    m_thread = std::thread([this] { loop(); });
}

HeartbeatThread::~HeartbeatThread()
{
    {
        std::lock_guard lock(m_mutex);
        m_quit = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void HeartbeatThread::beat(std::int64_t trialId)
{
    {
        std::lock_guard lock(m_mutex);
        m_trialId = trialId;
        m_beatNow = true;
    }
    m_wake.notify_all();
}

void HeartbeatThread::stop()
{
    std::lock_guard lock(m_mutex);
    m_trialId.reset();
}

void HeartbeatThread::loop()
{
    std::unique_ptr<Store> store;
    const auto interval = std::chrono::duration<double>(m_intervalSeconds);
    std::unique_lock lock(m_mutex);
    while (!m_quit) {
        if (!m_beatNow)
            m_wake.wait_for(lock, interval);
        m_beatNow = false;
        if (m_quit)
            break;
        if (!m_trialId)
            continue;
        const std::int64_t trial = *m_trialId;
        lock.unlock();
        // A trial whose process is stopped makes no progress: no beat, so the pool's watchdog fails it.
        if (sched_internal::stoppedProcess(::getpid())) {
            lock.lock();
            continue;
        }
        try {
            if (!store)
                store = openStore(m_storeLocation);
            store->heartbeat(trial);
        } catch (const std::exception&) {
            store.reset(); // reopen next time
        }
        lock.lock();
    }
}

} // namespace pitwall
