#include "core/pool/workerpool.h"

#include "core/pool/hposettings.h"
#include "core/pool/internal/proctree.h"
#include "core/store/storefile.h"
#include "core/util/error.h"
#include "core/util/exitcodes.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <thread>
#include <utility>

namespace pitwall {

namespace {

constexpr std::size_t kLogTailBytes = 2000;
constexpr double kCpuSampleSeconds = 2.0;
// A longer gap between two polls means the pool itself was stopped or asleep: the no-progress clock restarts.
constexpr double kPoolSuspendedSeconds = 10.0;

std::string workerIdOf(const TrialRecord& t)
{
    const auto w = t.systemAttrs.find(kWorkerAttr);
    return w != t.systemAttrs.end() && w->is_object() ? w->value("id", std::string()) : std::string();
}

std::string fileSafe(std::string text)
{
    for (char& c : text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
            c = '-';
    return text;
}

} // namespace

struct WorkerPool::Slot {
    LogicalDevice device;
    std::optional<ChildProcess> process;
    std::string workerId;
    std::string logFile;
    int generation = 0;
    int logNumber = 0;
    int startFailures = 0;
    bool gaveUp = false;
    std::string stopReason; // set when the watchdog stops this worker (its trial hung)
    double killAt = 0;      // then: when its tree gets SIGKILL
};

WorkerPool::WorkerPool(WorkerPoolOptions options) : m_options(std::move(options))
{
    m_poolId = hostName() + ":" + std::to_string(::getpid()) + ":" +
               std::to_string(static_cast<long long>(nowSeconds() * 1000));
    for (const LogicalDevice& d : m_options.devices) {
        auto slot = std::make_unique<Slot>();
        slot->device = d;
        m_slots.push_back(std::move(slot));
        for (int core : d.cpuSet)
            if (std::find(m_cores.begin(), m_cores.end(), core) == m_cores.end())
                m_cores.push_back(core);
    }
}

WorkerPool::~WorkerPool()
{
    if (m_options.parentExit == ParentExit::LeaveRunning)
        return;
    bool any = false;
    for (auto& slot : m_slots)
        if (slot->process && !slot->process->poll()) {
            slot->process->signal(SIGTERM);
            any = true;
        }
    const double start = nowSeconds();
    while (any && nowSeconds() - start < m_options.stopTimeoutSeconds) {
        any = false;
        for (auto& slot : m_slots)
            any = any || (slot->process && !slot->process->poll());
        if (any)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (auto& slot : m_slots)
        if (slot->process && !slot->process->poll()) {
            sched_internal::killTree(slot->process->pid());
            slot->process->wait();
        }
}

void WorkerPool::start()
{
    if (m_slots.empty())
        throw InputError("the worker pool has no logical devices");
    m_store = openStore(m_options.storeLocation);
    const StudyRecord study = m_store->requireStudy(m_options.studyName);
    m_studyId = study.id;
    if (!study.directions.empty())
        m_directions = study.directions;
    if (studyTarget(*m_store, m_options.studyName) <= 0)
        throw InputError("study '" + m_options.studyName + "' has no target trial count (" + kHpoSettingsAttr + ")");
    if (const auto settings = readHpoSettings(study))
        m_trialTimeout = settings->trialTimeoutSeconds;
    for (const TrialRecord& t : m_store->trials(m_studyId))
        m_changes.seen(t.number, t.state);
    std::filesystem::create_directories(m_options.logDir.empty() ? "." : m_options.logDir);
    m_cpuBefore = readCpuTimes();
    m_lastCpuSample = nowSeconds();
    m_watchFrom = m_lastCpuSample;
    m_started = true;
    for (auto& slot : m_slots)
        startWorker(*slot, {});
}

void WorkerPool::startWorker(Slot& slot, const std::function<void(const PoolEvent&)>& onEvent)
{
    ++slot.generation;
    slot.workerId = m_poolId + "/" + slot.device.id + "." + std::to_string(slot.generation);
    // worker_<device>.<n>.log with the first n not used yet (a resumed search keeps the earlier logs).
    const std::filesystem::path dir(m_options.logDir.empty() ? "." : m_options.logDir);
    do {
        slot.logFile =
            (dir / ("worker_" + fileSafe(slot.device.id) + "." + std::to_string(++slot.logNumber) + ".log")).string();
    } while (std::filesystem::exists(slot.logFile));
    std::vector<std::string> argv = m_options.workerCommand;
    argv.insert(argv.end(), {"--device", slot.device.id, "--threads", std::to_string(std::max(1, slot.device.threads)),
                             "--worker-id", slot.workerId, "--worker-log", slot.logFile});
    if (m_options.parentExit == ParentExit::StopWorkers)
        argv.push_back("--stop-with-parent");
    ProcessOptions options;
    options.environment = slot.device.environment;
    // A worker started after the results file was replaced refuses the new file (core/store/storefile.h).
    if (const std::string held = heldStoreFile(m_options.storeLocation); !held.empty())
        options.environment[kStoreFileVariable] = held;
    options.cpuSet = slot.device.cpuSet;
    options.stderrFile = slot.logFile;
    options.stdoutFile = "/dev/null";
    slot.process = ChildProcess::start(argv, options);
    if (onEvent)
        onEvent({PoolEventKind::WorkerStarted, slot.device.id, std::nullopt,
                 "worker " + std::to_string(slot.process->pid()) + " started on " + slot.device.id + " (log " +
                     slot.logFile + ")"});
}

void WorkerPool::reap(Slot& slot, const std::vector<TrialRecord>& trials,
                      const std::function<void(const PoolEvent&)>& onEvent)
{
    const auto exit = slot.process->poll();
    if (!exit)
        return;
    const pid_t pid = slot.process->pid();
    slot.process.reset();
    const std::string stopReason = std::exchange(slot.stopReason, std::string());
    const bool clean = (exit->exited && exit->code == 0) || !stopReason.empty(); // stopped by the watchdog
    const bool cancelledExit = m_stopping && exit->exited && exit->code == kExitCancelled;
    const std::string how = describeExit(exit->exited, exit->code);
    const std::string tail = fileTail(slot.logFile, kLogTailBytes);
    bool ranAny = false;
    for (const TrialRecord& t : trials) {
        if (workerIdOf(t) != slot.workerId)
            continue;
        ranAny = true;
        if (t.state != TrialState::Running)
            continue;
        std::string reason = "worker on " + slot.device.id + " (pid " + std::to_string(pid) + ") ended with " + how;
        if (m_stopping)
            reason = "cancelled: " + reason;
        if (!tail.empty())
            reason += "\n--- end of " + slot.logFile + " ---\n" + tail;
        const int code = exit->exited ? exit->code : 128 + exit->code;
        if (failTrial(*m_store, t, reason, m_stopping ? FailKind::Interrupted : FailKind::TrialFault, code) && onEvent)
            onEvent({PoolEventKind::TrialFinished, slot.device.id, t.number,
                     "trial " + std::to_string(t.number) + " FAIL: " + firstLine(reason)});
        m_changes.seen(t.number, TrialState::Fail);
    }
    if (clean || cancelledExit) {
        slot.startFailures = 0;
        if (onEvent)
            onEvent({PoolEventKind::WorkerExited, slot.device.id, std::nullopt,
                     "worker " + std::to_string(pid) + " on " + slot.device.id +
                         (stopReason.empty() ? " exited" : " stopped (" + how + "): " + stopReason)});
        return;
    }
    if (onEvent)
        onEvent({PoolEventKind::WorkerCrashed, slot.device.id, std::nullopt,
                 "worker " + std::to_string(pid) + " on " + slot.device.id + " ended with " + how});
    if (exit->exited && exit->code == 2 && !m_stopping) {
        m_error = "the worker on " + slot.device.id + " rejected its input (exit status 2):\n" + tail;
        if (onEvent)
            onEvent({PoolEventKind::Error, slot.device.id, std::nullopt, m_error});
        requestStop();
        return;
    }
    slot.startFailures = ranAny ? 0 : slot.startFailures + 1;
    if (slot.startFailures >= m_options.maxStartFailures) {
        slot.gaveUp = true;
        if (onEvent)
            onEvent({PoolEventKind::WorkerGaveUp, slot.device.id, std::nullopt,
                     "giving up on " + slot.device.id + ": its worker failed " + std::to_string(slot.startFailures) +
                         " times without running a trial; last log:\n" + tail});
    }
}


void WorkerPool::sampleCpu(const std::function<void(const PoolEvent&)>& onEvent)
{
    const double now = nowSeconds();
    if (now - m_lastCpuSample < kCpuSampleSeconds)
        return;
    const CpuTimes after = readCpuTimes();
    m_cpuBusy = busyFraction(m_cpuBefore, after, m_cores);
    m_cpuBefore = after;
    m_lastCpuSample = now;
    const bool anyAlive =
        std::any_of(m_slots.begin(), m_slots.end(), [](const auto& s) { return s->process.has_value(); });
    if (!m_cpuBusy || *m_cpuBusy < m_options.hostBoundBusyFraction || !anyAlive) {
        m_busySince = -1;
        return;
    }
    if (m_busySince < 0)
        m_busySince = now - kCpuSampleSeconds;
    if (!m_warnedHostBound && now - m_busySince >= m_options.hostBoundSeconds) {
        m_warnedHostBound = true;
        const bool cpuOnly =
            std::all_of(m_slots.begin(), m_slots.end(), [](const auto& s) { return s->device.backend == "cpu"; });
        if (onEvent)
            onEvent({PoolEventKind::HostBound, "", std::nullopt,
                     "workers are host-bound: their " + std::to_string(m_cores.size()) + " core(s) have been " +
                         std::to_string(static_cast<int>(*m_cpuBusy * 100 + 0.5)) + "% busy for " +
                         std::to_string(static_cast<int>(now - m_busySince)) + " s" +
                         (cpuOnly ? " (CPU backend: more logical devices split the same cores, they add no compute)"
                                  : " (the accelerators wait for the CPU: data loading or Python overhead; fewer "
                                    "partitions per node, pre-processed data or more cores per worker may help)")});
    }
}

std::string WorkerPool::hungReason(const Slot& slot, const TrialRecord& trial, double now, double skew) const
{
    const auto seconds = [](double s) { return std::to_string(static_cast<long long>(std::lround(s))); };
    // The trial's times are the store's clock; `now` and m_watchFrom this machine's.
    const auto local = [&](std::optional<double> t) { return t ? std::optional<double>(*t - skew) : std::nullopt; };
    const std::optional<double> start = local(trial.startTime);
    if (m_trialTimeout && start && now - *start > *m_trialTimeout)
        return "exceeded --trial-timeout " + formatDouble(*m_trialTimeout) + " s (ran " + seconds(now - *start) +
               " s); its processes were stopped";
    const double last = std::max(local(trial.heartbeatTime).value_or(start.value_or(now)), m_watchFrom);
    if (now - last <= m_options.heartbeatGraceSeconds)
        return {};
    const pid_t pid = slot.process->pid();
    std::string why = "its worker (pid " + std::to_string(pid) + ") exists but has not heartbeaten";
    if (const auto stopped = sched_internal::stoppedProcess(pid))
        why = stopped->pid == pid ? "its worker (pid " + std::to_string(pid) + ") is stopped"
                                  : sched_internal::describeProcess(*stopped) + " of the trial is stopped";
    return "no progress for " + seconds(now - last) + " s (stopped?): " + why + "; its processes were stopped";
}

void WorkerPool::stopHungWorker(Slot& slot, const std::string& why)
{
    slot.stopReason = why;
    slot.killAt = nowSeconds() + m_options.stopTimeoutSeconds;
    slot.process->signal(SIGTERM); // the worker stops its command (term grace) and what the command left behind
    sched_internal::signalTree(slot.process->pid(), SIGCONT);
}

void WorkerPool::watchTrials(const std::vector<TrialRecord>& trials,
                             const std::function<void(const PoolEvent&)>& onEvent)
{
    const double now = nowSeconds();
    const double skew = m_store->now() - now; // the store's clock ahead of this machine's (0 for a file)
    for (auto& slot : m_slots) {
        if (!slot->process || !slot->stopReason.empty() || slot->process->poll())
            continue;
        for (const TrialRecord& t : trials) {
            if (t.state != TrialState::Running || workerIdOf(t) != slot->workerId)
                continue;
            const std::string reason = hungReason(*slot, t, now, skew);
            if (reason.empty())
                continue;
            // A worker stopped (SIGSTOP) inside a write transaction, say its heartbeat's, holds the database's
            // write lock: failTrial would wait on it until the store gives up (120 s). Stopped, it cannot end its
            // trial anyway, so its tree is killed first (SIGKILL works on a stopped process and frees its locks).
            const pid_t pid = slot->process->pid();
            if (const auto stopped = sched_internal::stoppedProcess(pid); stopped && stopped->pid == pid)
                sched_internal::killTree(pid);
            if (!failTrial(*m_store, t, reason, FailKind::TrialFault))
                continue; // its worker finished it meanwhile
            const std::string trial = "trial " + std::to_string(t.number);
            m_changes.seen(t.number, TrialState::Fail);
            if (onEvent)
                onEvent({PoolEventKind::HungTrial, slot->device.id, t.number, trial + " FAIL: " + reason});
            stopHungWorker(*slot, trial + " " + reason.substr(0, reason.find(';')));
            break;
        }
    }
}

void WorkerPool::requestStop()
{
    if (m_stopping)
        return;
    m_stopping = true;
    m_stopSentAt = nowSeconds();
    // SIGCONT too: a stopped worker or command would not act on SIGTERM until someone continued it.
    for (auto& slot : m_slots)
        if (slot->process && !slot->process->poll()) {
            slot->process->signal(SIGTERM);
            sched_internal::signalTree(slot->process->pid(), SIGCONT);
        }
}

PoolStatus WorkerPool::poll(const std::function<void(const PoolEvent&)>& onEvent)
{
    if (!m_started)
        throw RuntimeError("WorkerPool::poll before start");
    m_store->requireSameDatabase(); // a deleted or replaced results file stops the search (workers stop writing)
    const double now = nowSeconds();
    if (m_lastPoll > 0 && now - m_lastPoll > std::max(kPoolSuspendedSeconds, 20 * m_options.pollIntervalSeconds))
        m_watchFrom = now; // the pool was stopped (Ctrl-Z) or the machine slept: its workers could not beat
    m_lastPoll = now;
    for (auto& slot : m_slots)
        if (slot->process && !slot->process->poll() &&
            ((m_stopping && now - m_stopSentAt > m_options.stopTimeoutSeconds) ||
             (!slot->stopReason.empty() && now > slot->killAt)))
            sched_internal::killTree(slot->process->pid());
    // Reap first, with the trials as they are now, so a dead worker's trial is failed by its exit status.
    bool anyEnded = false;
    for (auto& slot : m_slots)
        anyEnded = anyEnded || (slot->process && slot->process->poll());
    if (anyEnded) {
        const std::vector<TrialRecord> before = m_store->trials(m_studyId);
        for (auto& slot : m_slots)
            if (slot->process)
                reap(*slot, before, onEvent);
    }
    const bool watchDue = now - m_lastStaleCheck >= m_options.staleCheckSeconds;
    if (watchDue) {
        m_lastStaleCheck = now;
        for (const StaleTrial& s : failStaleTrials(*m_store, m_studyId, m_options.heartbeatGraceSeconds)) {
            m_changes.seen(s.number, TrialState::Fail);
            if (onEvent)
                onEvent({PoolEventKind::StaleTrial, "", s.number,
                         "trial " + std::to_string(s.number) + " FAIL: " + s.reason});
        }
    }
    std::vector<TrialRecord> trials = m_store->trials(m_studyId);
    if (!m_stopping && watchDue) {
        watchTrials(trials, onEvent);
        trials = m_store->trials(m_studyId);
    }
    m_changes.report(trials, onEvent);

    PoolStatus status;
    status.counts = countTrials(trials, m_directions);
    status.target = studyTarget(*m_store, m_options.studyName);
    status.pending = std::max(0, status.target - status.counts.counted());
    if (!m_stopping && m_error.empty() && status.pending > 0)
        for (auto& slot : m_slots)
            if (!slot->process && !slot->gaveUp)
                startWorker(*slot, onEvent);
    sampleCpu(onEvent);
    for (const auto& slot : m_slots)
        status.workersAlive += slot->process.has_value();
    const bool allGaveUp = std::all_of(m_slots.begin(), m_slots.end(), [](const auto& s) { return s->gaveUp; });
    if (allGaveUp && m_error.empty())
        m_error = "every worker failed before running a trial (see the worker logs in " + m_options.logDir + ")";
    const int trackedRunning = status.counts.running - status.counts.untracked;
    status.cpuBusyFraction = m_cpuBusy;
    status.stopping = m_stopping;
    status.error = m_error;
    status.finished =
        status.workersAlive == 0 && (m_stopping || !m_error.empty() || (status.pending == 0 && trackedRunning == 0));
    m_finished = status.finished;
    return status;
}

PoolStatus WorkerPool::run(const CancelToken* cancel, const std::function<void(const PoolEvent&)>& onEvent,
                           const std::function<void(const PoolStatus&)>& onStatus)
{
    if (!m_started) {
        start();
        // start() reports no events (it may run before a caller is ready); say what started now.
        if (onEvent)
            for (const auto& slot : m_slots)
                if (slot->process)
                    onEvent({PoolEventKind::WorkerStarted, slot->device.id, std::nullopt,
                             "worker " + std::to_string(slot->process->pid()) + " started on " + slot->device.id +
                                 " (log " + slot->logFile + ")"});
    }
    for (;;) {
        if (cancel && cancel->requested())
            requestStop();
        const PoolStatus status = poll(onEvent);
        if (onStatus)
            onStatus(status);
        if (status.finished)
            return status;
        std::this_thread::sleep_for(std::chrono::duration<double>(m_options.pollIntervalSeconds));
    }
}

} // namespace pitwall
