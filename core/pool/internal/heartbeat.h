#pragma once
// A background thread that heartbeats the trial a worker is running (Optuna's trial_heartbeats table), so
// that a pool or a resumed search can tell a running trial from one whose worker vanished
// (failStaleTrials in trialstate.h). A beat is progress: while a process of the trial (this process's
// descendants, e.g. a trial command) is stopped (SIGSTOP), no beat is written, so the pool that runs this worker
// fails the trial once the heartbeat grace period has passed ("no progress ... (stopped?)", workerpool.h).
//
// Threads: beat() and stop() are called from one owner thread; the heartbeat writes happen on the internal
// thread through its own Store connection. A failed write (database busy beyond retries) is retried at the
// next interval, never reported: a missed beat only brings the grace period closer.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace pitwall {

class HeartbeatThread {
public:
    // `intervalSeconds` > 0 between beats.
    HeartbeatThread(std::string storeLocation, double intervalSeconds);
    ~HeartbeatThread(); // stops the thread

    // Beats `trialId` right away (on the thread) and then every interval until stop() or the next beat().
    void beat(std::int64_t trialId);
    // Stops beating (the thread stays, idle).
    void stop();

private:
    void loop();

    std::string m_storeLocation;
    double m_intervalSeconds;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::optional<std::int64_t> m_trialId;
    bool m_quit = false;
    bool m_beatNow = false;
    std::thread m_thread;
};

} // namespace pitwall
