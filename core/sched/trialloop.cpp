#include "core/sched/trialloop.h"

#include "core/sched/heartbeat.h"
#include "core/sched/hposettings.h"
#include "core/sched/trialstate.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>

namespace pitwall {

WorkerLoopResult runWorkerLoop(const WorkerLoopOptions& options, TrialRunner& runner)
{
    if (!options.space)
        throw RuntimeError("runWorkerLoop: no search space");
    auto store = openStore(options.storeLocation);
    Study study = Study::load(*store, options.studyName);
    const std::int64_t studyId = study.record().id;
    HeartbeatThread heartbeat(options.storeLocation, options.heartbeatIntervalSeconds);
    const auto say = [&](const std::string& text) {
        if (options.message)
            options.message(text);
    };
    WorkerLoopResult result;
    for (;;) {
        if (options.cancel && options.cancel->load()) {
            result.cancelled = true;
            result.stopReason = "cancelled";
            break;
        }
        if (options.trialsLeft && result.trialsRun >= *options.trialsLeft) {
            result.stopReason = "ran its " + std::to_string(*options.trialsLeft) + " trial(s) (--trials-left)";
            break;
        }
        const int target = studyTarget(*store, options.studyName);
        if (target <= 0 && !options.trialsLeft)
            throw InputError("study '" + options.studyName +
                             "' has no target trial count (pitwall hpo sets one); give the worker --trials-left N");
        if (const int counted = countTrials(store->trials(studyId), study.options().direction).counted();
            target > 0 && counted >= target) {
            result.stopReason = "the study has " + std::to_string(counted) + " of its " + std::to_string(target) +
                                " trials (finished or running)";
            break;
        }

        // The target is checked again where the trial is numbered, so two workers that both saw one trial
        // missing start one between them.
        const auto underTarget = [&](const std::vector<TrialRecord>& trials) {
            return target <= 0 || countTrials(trials, study.options().direction).counted() < target;
        };
        const std::optional<AskedTrial> maybeAsked = study.askIf(*options.space, underTarget);
        if (!maybeAsked) {
            result.stopReason = "the study has its " + std::to_string(target) + " trials";
            break;
        }
        const AskedTrial& asked = *maybeAsked;
        const TrialRecord& trial = asked.trial;
        const Json worker{{"id", options.workerId},
                          {"pid", static_cast<std::int64_t>(::getpid())},
                          {"host", hostName()},
                          {"device", options.device},
                          {"log", options.workerLog}};
        store->setTrialSystemAttr(trial.id, kWorkerAttr, worker);
        heartbeat.beat(trial.id);

        const std::filesystem::path dir = std::filesystem::path(options.logDir.empty() ? "." : options.logDir) /
                                          ("trial_" + std::to_string(trial.number));
        std::filesystem::create_directories(dir);
        TrialContext context;
        context.asked = &asked;
        context.studyName = options.studyName;
        context.trialDir = dir.string();
        context.logFile = (dir / "trial.log").string();
        context.cancel = options.cancel;
        context.report = [&](std::int64_t step, double value) {
            study.report(trial.number, step, value);
            return study.shouldPrune(trial.number);
        };
        context.epochsDone = [&](std::int64_t epochs) { store->setTrialUserAttr(trial.id, kEpochsDoneAttr, epochs); };
        say("trial " + std::to_string(trial.number) + ": " + asked.params.dump());

        TrialOutcome outcome;
        try {
            outcome = runner.run(context);
        } catch (const std::exception& e) {
            outcome = TrialOutcome{};
            outcome.failReason = e.what();
        }
        for (auto it = outcome.userAttrs.begin(); it != outcome.userAttrs.end(); ++it)
            store->setTrialUserAttr(trial.id, it.key(), it.value());

        TrialState ended = outcome.state;
        try {
            if (outcome.state == TrialState::Complete && outcome.value) {
                ended = study.tell(trial.number, TrialState::Complete, outcome.value);
                if (ended == TrialState::Fail)
                    store->setTrialSystemAttr(trial.id, kFailReasonAttr,
                                              "the objective is " + formatDouble(*outcome.value));
            } else if (outcome.state == TrialState::Pruned) {
                ended = study.tell(trial.number, TrialState::Pruned);
            } else {
                ended = TrialState::Fail;
                const std::string reason = outcome.state == TrialState::Complete
                                               ? "the runner completed the trial without a value"
                                               : (outcome.failReason.empty() ? "failed" : outcome.failReason);
                failTrial(*store, trial, reason, outcome.interrupted ? FailKind::Interrupted : FailKind::TrialFault);
            }
        } catch (const InputError& e) {
            say("trial " + std::to_string(trial.number) + " was finished elsewhere: " + e.what());
        }
        heartbeat.stop();
        ++result.trialsRun;
        result.complete += ended == TrialState::Complete;
        result.pruned += ended == TrialState::Pruned;
        result.failed += ended == TrialState::Fail;
        std::string line = "trial " + std::to_string(trial.number) + " " + std::string(trialStateName(ended));
        if (outcome.value && ended != TrialState::Fail)
            line += " value " + formatDouble(*outcome.value);
        if (ended == TrialState::Fail)
            line += ": " + outcome.failReason;
        say(line);
        if (outcome.interrupted) {
            result.cancelled = true;
            result.stopReason = "cancelled";
            break;
        }
    }
    return result;
}

} // namespace pitwall
