#include "core/pool/trialstate.h"

#include "core/store/besttrial.h"
#include "core/store/pareto.h"
#include "core/util/error.h"
#include "core/util/printable.h"
#include "core/util/timefmt.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace pitwall {

bool isInterrupted(const TrialRecord& trial)
{
    const auto it = trial.systemAttrs.find(kInterruptedAttr);
    return it != trial.systemAttrs.end() && it->is_boolean() && it->get<bool>();
}

StudyCounts countTrials(const std::vector<TrialRecord>& trials, StudyDirection direction)
{
    StudyCounts c;
    BestTracker best(direction);
    for (const TrialRecord& t : trials) {
        const auto done = t.userAttrs.find(kEpochsDoneAttr);
        const std::int64_t epochs =
            std::max(static_cast<std::int64_t>(t.intermediateValues.size()),
                     done != t.userAttrs.end() && done->is_number_integer() ? done->get<std::int64_t>() : 0);
        c.epochsDone += epochs;
        if (t.state == TrialState::Running)
            c.runningEpochs += epochs;
        switch (t.state) {
        case TrialState::Running:
            ++c.running;
            if (!t.heartbeatTime && !t.systemAttrs.contains(kWorkerAttr))
                ++c.untracked;
            break;
        case TrialState::Waiting:
            ++c.waiting;
            break;
        case TrialState::Complete:
            ++c.complete;
            best.offer(t);
            break;
        case TrialState::Pruned:
            ++c.pruned;
            break;
        case TrialState::Fail:
            ++c.failed;
            if (isInterrupted(t))
                ++c.interrupted;
            break;
        }
    }
    c.bestValue = best.value();
    c.bestTrial = best.number();
    return c;
}

StudyCounts countTrials(const std::vector<TrialRecord>& trials, const std::vector<StudyDirection>& directions)
{
    if (directions.size() <= 1)
        return countTrials(trials, directions.empty() ? StudyDirection::Minimize : directions.front());
    StudyCounts c = countTrials(trials, directions.front());
    c.bestValue.reset();
    c.bestTrial.reset();
    c.frontSize = static_cast<int>(paretoFrontIndices(trials, directions).size());
    return c;
}

std::string countsText(const StudyCounts& c)
{
    return "complete " + std::to_string(c.complete) + " · pruned " + std::to_string(c.pruned) + " · failed " +
           std::to_string(c.failed - c.interrupted) + " · interrupted " + std::to_string(c.interrupted);
}

bool failTrial(Store& store, const TrialRecord& trial, const std::string& reason, FailKind kind,
               std::optional<int> exitCode)
{
    // Re-read: the worker may have finished it since the caller looked.
    const auto current = store.trial(trial.studyId, trial.number);
    if (!current || current->state != TrialState::Running)
        return false;
    // A command's output can be anything (binary, megabytes): stored as readable UTF-8, at most kMaxFailReasonBytes.
    constexpr std::size_t kMaxFailReasonBytes = 2000;
    store.setTrialSystemAttr(trial.id, kFailReasonAttr, printable(reason, LineBreaks::Keep, kMaxFailReasonBytes));
    if (kind == FailKind::Interrupted)
        store.setTrialSystemAttr(trial.id, kInterruptedAttr, true);
    try {
        store.finishTrial(trial.id, TrialState::Fail, {});
    } catch (const InputError&) {
        return false; // finished by its worker between the read and the write
    }
    std::vector<RunRecord> runs = store.runs(trial.id);
    if (runs.empty()) {
        RunRecord run;
        run.trialId = trial.id;
        run.kind = "worker";
        run.host = hostName();
        run.startTime = trial.startTime.value_or(nowSeconds());
        if (const auto w = current->systemAttrs.find(kWorkerAttr); w != current->systemAttrs.end() && w->is_object()) {
            run.logicalDevice = w->value("device", std::string());
            run.pid = w->value("pid", std::int64_t(0));
            run.host = w->value("host", run.host);
        }
        run.id = store.createRun(run);
        runs.push_back(run);
    }
    for (const RunRecord& run : runs)
        if (run.status == RunStatus::Running)
            store.finishRun(run.id, kind == FailKind::Interrupted ? RunStatus::Cancelled : RunStatus::Failed, exitCode,
                            reason);
    store.addEvent(runs.back().id, EventLevel::Error, "trial " + std::to_string(trial.number) + " failed: " + reason);
    return true;
}

bool workerAliveHere(const TrialRecord& trial)
{
    const auto w = trial.systemAttrs.find(kWorkerAttr);
    if (w == trial.systemAttrs.end() || !w->is_object())
        return false;
    const std::int64_t pid = w->value("pid", std::int64_t(0));
    return w->value("host", std::string()) == hostName() && processAlive(pid);
}

std::vector<StaleTrial> failStaleTrials(Store& store, std::int64_t studyId, double graceSeconds)
{
    std::vector<StaleTrial> failed;
    const double now = store.now(); // the clock the heartbeats were written in
    for (const TrialRecord& t : store.trials(studyId)) {
        if (t.state != TrialState::Running)
            continue;
        const bool hasWorker = t.systemAttrs.contains(kWorkerAttr);
        if (!t.heartbeatTime && !hasWorker)
            continue; // nobody said who runs it: cannot judge
        const double last = t.heartbeatTime ? *t.heartbeatTime : t.startTime.value_or(now);
        const double silent = now - last;
        if (silent <= graceSeconds || workerAliveHere(t))
            continue;
        std::string who;
        if (hasWorker) {
            const Json& w = t.systemAttrs[kWorkerAttr];
            who = " (worker pid " + std::to_string(w.value("pid", std::int64_t(0))) + " on " +
                  w.value("host", std::string("?")) + ", device " + w.value("device", std::string("?")) + ")";
        }
        StaleTrial stale{t.number, silent,
                         "worker vanished: no heartbeat for " +
                             std::to_string(static_cast<long long>(std::lround(silent))) + " s" + who};
        if (failTrial(store, t, stale.reason, FailKind::Interrupted))
            failed.push_back(stale);
    }
    return failed;
}

std::string describeExit(bool exited, int code)
{
    std::string text;
    if (exited) {
        text = "exit status " + std::to_string(code);
        if (code == 137)
            text += " (128+9: killed with SIGKILL, usually the out-of-memory killer)";
        else if (code > 128 && code < 128 + 65)
            text += " (128+" + std::to_string(code - 128) + ": a signal)";
        return text;
    }
    const char* name = sigabbrev_np(code);
    text = "killed by signal " + std::to_string(code) + (name ? std::string(" (SIG") + name + ")" : std::string());
    if (code == SIGKILL)
        text += ", e.g. the out-of-memory killer or kill -9";
    else if (code == SIGSEGV || code == SIGBUS || code == SIGABRT)
        text += ", a crash";
    return text;
}

} // namespace pitwall
