#include "core/pool/trialloop.h"

#include "core/pool/hposettings.h"
#include "core/pool/internal/heartbeat.h"
#include "core/pool/internal/proctree.h"
#include "core/pool/internal/triallog.h"
#include "core/pool/objectives.h"
#include "core/pool/trialstate.h"
#include "core/store/storefile.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <optional>

namespace pitwall {

namespace {

void say(const WorkerLoopOptions& options, const std::string& text)
{
    if (options.message)
        options.message(text);
}

// The study's target trial count (0: none). Throws InputError when there is none and the worker has no limit
// of its own either.
int requireTarget(Store& store, const WorkerLoopOptions& options)
{
    const int target = studyTarget(store, options.studyName);
    if (target <= 0 && !options.trialsLeft)
        throw InputError("study '" + options.studyName +
                         "' has no target trial count (pitwall hpo sets one); give the worker --trials-left N");
    return target;
}

// Records this worker on the trial (system attr pitwall:worker).
void recordWorker(Store& store, const TrialRecord& trial, const WorkerLoopOptions& options)
{
    const Json worker{{"id", options.workerId},
                      {"pid", static_cast<std::int64_t>(::getpid())},
                      {"host", hostName()},
                      {"device", options.device},
                      {"log", options.workerLog}};
    store.setTrialSystemAttr(trial.id, kWorkerAttr, worker);
}

// Creates the trial's folder and the context its runner gets; report() and epochsDone() write through
// `study` and `store`, which must outlive it.
TrialContext makeTrialContext(const WorkerLoopOptions& options, const AskedTrial& asked, Study& study, Store& store)
{
    const TrialRecord& trial = asked.trial;
    const std::filesystem::path dir = std::filesystem::path(options.logDir.empty() ? "." : options.logDir) /
                                      ("trial_" + std::to_string(trial.number));
    std::filesystem::create_directories(dir);
    TrialContext context;
    context.asked = &asked;
    context.studyName = options.studyName;
    context.trialDir = dir.string();
    context.logFile = (dir / "trial.log").string();
    context.cancel = options.cancel;
    context.report = [&study, &trial](std::int64_t step, double value) {
        if (study.objectiveCount() > 1)
            return false; // one value cannot stand for several objectives: only reportValues() reports there
        study.report(trial.number, step, value);
        return study.shouldPrune(trial.number);
    };
    context.reportValues = [&study, &trial](std::int64_t step, const std::vector<double>& values) {
        study.report(trial.number, step, values);
        return study.shouldPrune(trial.number);
    };
    context.epochsDone = [&store, &trial](std::int64_t epochs) {
        store.setTrialUserAttr(trial.id, kEpochsDoneAttr, epochs);
    };
    return context;
}

// The runner's outcome; an exception it throws fails the trial with its message (StoreFileChangedError
// propagates).
TrialOutcome runTrial(TrialRunner& runner, TrialContext& context)
{
    try {
        return runner.run(context);
    } catch (const StoreFileChangedError&) {
        throw; // the results file was deleted or replaced: nothing more is recorded, the worker stops
    } catch (const std::exception& e) {
        TrialOutcome outcome;
        outcome.failReason = e.what();
        return outcome;
    }
}

// Tells the study how the trial ended and returns the state it ended in. A trial finished elsewhere meanwhile
// (InputError from the study) is only reported to the worker's log.
TrialState tellOutcome(Study& study, Store& store, const TrialRecord& trial, const TrialOutcome& outcome,
                       const WorkerLoopOptions& options)
{
    TrialState ended = outcome.state;
    try {
        if (outcome.state == TrialState::Complete) {
            const HpoSettings settings = readHpoSettings(study.record()).value_or(HpoSettings{});
            const TrialValues told = trialValues(settings, study.objectiveCount(), outcome);
            if (!told.problem.empty()) {
                failTrial(store, trial, told.problem, FailKind::TrialFault);
                return TrialState::Fail;
            }
            ended = study.tell(trial.number, TrialState::Complete, told.values, told.constraints);
            if (ended == TrialState::Fail) {
                std::vector<std::string> values;
                for (double v : told.values)
                    values.push_back(formatDouble(v));
                store.setTrialSystemAttr(trial.id, kFailReasonAttr,
                                         std::string(values.size() == 1 ? "the objective is " : "the objectives are ") +
                                             join(values, ", "));
            }
        } else if (outcome.state == TrialState::Pruned) {
            ended = study.tell(trial.number, TrialState::Pruned);
        } else {
            ended = TrialState::Fail;
            const std::string reason = outcome.failReason.empty() ? "failed" : outcome.failReason;
            failTrial(store, trial, reason, outcome.interrupted ? FailKind::Interrupted : FailKind::TrialFault);
        }
    } catch (const InputError& e) {
        say(options, "trial " + std::to_string(trial.number) + " was finished elsewhere: " + e.what());
    }
    return ended;
}

// The worker log's line for a trial that ended: its state, and its value or why it failed.
std::string trialEndLine(const TrialRecord& trial, TrialState ended, const TrialOutcome& outcome)
{
    std::string line = "trial " + std::to_string(trial.number) + " " + std::string(trialStateName(ended));
    if (outcome.value && ended != TrialState::Fail)
        line += " value " + formatDouble(*outcome.value);
    else if (!outcome.objectives.empty() && ended != TrialState::Fail) {
        std::vector<std::string> values;
        for (double v : outcome.objectives)
            values.push_back(formatDouble(v));
        line += " values " + join(values, ", ");
    }
    if (ended == TrialState::Fail)
        line += ": " + outcome.failReason;
    return line;
}

// Processes a trial left running after it ended get SIGTERM, then SIGKILL after this long.
constexpr double kLeftoverGraceSeconds = 2.0;

// Stops what the trial left behind (LeftoverProcesses::Stop) and says so in its log and the worker's.
void stopLeftovers(const WorkerLoopOptions& options, const TrialContext& context, int number)
{
    if (options.leftovers != LeftoverProcesses::Stop)
        return;
    const std::vector<sched_internal::ProcessInfo> stopped = sched_internal::stopOwnDescendants(kLeftoverGraceSeconds);
    if (stopped.empty())
        return;
    std::string names;
    for (const sched_internal::ProcessInfo& p : stopped)
        names += (names.empty() ? "" : ", ") + sched_internal::describeProcess(p);
    const std::string line = "stopped " + std::to_string(stopped.size()) + " process(es) that trial " +
                             std::to_string(number) + " left running: " + names;
    say(options, line);
    try {
        sched_internal::TrialLog(context.logFile).write("[pitwall] " + line + "\n");
    } catch (const RuntimeError& e) {
        say(options, e.what());
    }
}

// Runs one asked trial to its end: its worker record and heartbeat, its folder and log, the runner, whatever it left
// running, its attributes and the tell. Returns the state it ended in and the runner's outcome.
std::pair<TrialState, TrialOutcome> runAskedTrial(const WorkerLoopOptions& options, TrialRunner& runner, Study& study,
                                                  Store& store, const AskedTrial& asked, HeartbeatThread& heartbeat)
{
    const TrialRecord& trial = asked.trial;
    recordWorker(store, trial, options);
    heartbeat.beat(trial.id);
    std::optional<TrialContext> made;
    try {
        made.emplace(makeTrialContext(options, asked, study, store));
    } catch (const std::filesystem::filesystem_error& e) {
        // A full disk or a read-only --log-dir: the reason goes to the results database (this worker's own log
        // may be on that disk, 0 bytes), the trial fails with it, and the worker stops (exit 1).
        failTrial(store, trial,
                  "cannot create the trial's folder " + e.path1().string() + ": " + e.code().message(),
                  FailKind::TrialFault);
        throw;
    }
    TrialContext& context = *made;
    say(options, "trial " + std::to_string(trial.number) + ": " + asked.params.dump());

    TrialOutcome outcome;
    try {
        outcome = runTrial(runner, context);
    } catch (...) {
        stopLeftovers(options, context, trial.number); // the worker stops: nothing of the trial stays
        throw;
    }
    stopLeftovers(options, context, trial.number);
    for (auto it = outcome.userAttrs.begin(); it != outcome.userAttrs.end(); ++it)
        store.setTrialUserAttr(trial.id, it.key(), it.value());
    const TrialState ended = tellOutcome(study, store, trial, outcome, options);
    heartbeat.stop();
    return {ended, std::move(outcome)};
}

} // namespace

WorkerLoopResult runWorkerLoop(const WorkerLoopOptions& options, TrialRunner& runner)
{
    if (!options.space)
        throw RuntimeError("runWorkerLoop: no search space");
    auto store = openStore(options.storeLocation);
    Study study = Study::load(*store, options.studyName);
    HeartbeatThread heartbeat(options.storeLocation, options.heartbeatIntervalSeconds);
    if (options.leftovers == LeftoverProcesses::Stop && !sched_internal::becomeSubreaper())
        say(options, "cannot become the subreaper of trial processes (PR_SET_CHILD_SUBREAPER): processes a trial "
                     "starts in a new session may outlive it");
    WorkerLoopResult result;
    for (;;) {
        if (options.cancel && options.cancel->requested()) {
            result.cancelled = true;
            result.stopReason = "cancelled";
            break;
        }
        if (options.trialsLeft && result.trialsRun >= *options.trialsLeft) {
            result.stopReason = "ran its " + std::to_string(*options.trialsLeft) + " trial(s) (--trials-left)";
            break;
        }
        if (options.staleGraceSeconds)
            for (const StaleTrial& stale : failStaleTrials(*store, study.record().id, *options.staleGraceSeconds))
                say(options, "trial " + std::to_string(stale.number) + " FAIL: " + stale.reason);
        const int target = requireTarget(*store, options);
        // The target is checked where the trial is numbered (from the study's incremental read of its trials), so
        // two workers that both saw one trial missing start one between them.
        int counted = 0;
        const auto underTarget = [&](const std::vector<TrialRecord>& trials) {
            counted = countTrials(trials, study.options().direction).counted();
            return target <= 0 || counted < target;
        };
        const std::optional<AskedTrial> maybeAsked = study.askIf(*options.space, underTarget);
        if (!maybeAsked) {
            result.stopReason = "the study has " + std::to_string(counted) + " of its " + std::to_string(target) +
                                " trials (finished or running)";
            break;
        }
        const TrialRecord& trial = maybeAsked->trial;
        const auto [ended, outcome] = runAskedTrial(options, runner, study, *store, *maybeAsked, heartbeat);
        ++result.trialsRun;
        result.complete += ended == TrialState::Complete;
        result.pruned += ended == TrialState::Pruned;
        result.failed += ended == TrialState::Fail;
        say(options, trialEndLine(trial, ended, outcome));
        if (outcome.interrupted) {
            result.cancelled = true;
            result.stopReason = "cancelled";
            break;
        }
    }
    return result;
}

} // namespace pitwall
