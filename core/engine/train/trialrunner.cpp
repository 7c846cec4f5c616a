#include "core/engine/train/trialrunner.h"

#include "core/engine/drive/runeval.h"
#include "core/engine/train/experiment.h"
#include "core/pool/objectives.h"
#include "core/store/store.h"
#include "core/pool/commandrunner.h"
#include "core/util/filewrite.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

namespace pitwall::engine {

namespace {

namespace fs = std::filesystem;

class TrainerRunner : public TrialRunner {
public:
    TrainerRunner(const SearchSetup& setup, std::string storeLocation, LogicalDevice device)
        : m_setup(setup), m_storeLocation(std::move(storeLocation)), m_device(std::move(device)),
          m_metric(objectiveMetric(setup.settings.objective.empty() ? "val/loss" : setup.settings.objective))
    {
    }

    TrialOutcome run(TrialContext& context) override
    {
        const AskedTrial& asked = *context.asked;
        const ResolvedConfig config = m_setup.trialConfig(asked.overrides);
        TrainRequest request;
        request.config = &config;
        request.storeLocation = m_storeLocation;
        request.trialId = asked.trial.id;
        request.seed = config.value("experiment.seeds").asIntList().front();
        request.device = m_device;
        request.dataDir = ensureDataset(config);
        request.checkpointDir = (fs::path(config.getString("experiment.output_dir")) / studyFolder(context.studyName) /
                                 ("trial_" + std::to_string(asked.trial.number)))
                                    .string();
        CancelToken stop;
        bool pruned = false;
        std::int64_t epoch = 0; // over all stages: the pruner's step
        request.cancel = &stop;
        request.progress = [&](const TrainProgress& p) {
            if (context.cancel && context.cancel->requested())
                stop.request();
            if (!p.epochDone || stop.requested())
                return;
            // A stage may lack the metric (TransFuser's pretrain has no waypoints): no value for that epoch. The
            // last epoch's value is reported, but its pruner verdict is not followed: the training is paid for, and
            // the trial completes with it (Optuna would prune it; docs/commands.md, pitwall hpo, says so).
            bool prune = false;
            if (m_setup.settings.objectives.empty()) {
                const auto it = p.validation.find(m_metric);
                prune = it != p.validation.end() && context.report(epoch, it->second);
            } else if (const auto values = epochObjectives(p)) {
                prune = context.reportValues(epoch, *values);
            }
            if (prune && !p.lastEpoch) {
                pruned = true;
                stop.request();
            }
            context.epochsDone(++epoch);
        };
        const TrainResult result = train(request); // before reading `pruned`, which its progress sets
        TrialOutcome outcome = outcomeOf(result, request.checkpointDir, pruned);
        if (outcome.state == TrialState::Complete && needsDrivingEvaluation(m_setup.settings))
            drive(config, result.runId, context, outcome);
        if (outcome.state == TrialState::Complete && drivingObjective()) {
            const auto it = outcome.metrics.find(m_metric);
            if (it != outcome.metrics.end() && std::isfinite(it->second)) {
                outcome.value = it->second;
            } else {
                outcome.state = TrialState::Fail;
                outcome.failReason = "the closed-loop evaluation gave no finite " + m_metric;
            }
        }
        return outcome;
    }

private:
    // One objective, a closed-loop driving metric (driving_score, ...): known only once the trained run drives.
    bool drivingObjective() const { return m_setup.settings.objectives.empty() && isDrivingMetric(m_metric); }

    // The closed-loop evaluation of a completed trial's run, on the routes of the config's hpo.driving.* (the same
    // for every trial of the search: paired scores), recorded with the run and its trial (runeval.h); its summary
    // becomes metrics --objective and --constraint can name. A run that cannot drive fails the trial with why.
    void drive(const ResolvedConfig& config, std::int64_t runId, TrialContext& context, TrialOutcome& outcome) const
    {
        drive::DrivingEvalOptions options;
        options.routes = static_cast<int>(config.getInt("hpo.driving.routes"));
        options.seed = static_cast<std::uint64_t>(config.getInt("hpo.driving.seed"));
        options.routeSeconds = config.getDouble("hpo.driving.route_seconds");
        drive::DriveCallbacks callbacks;
        callbacks.cancel = context.cancel;
        try {
            const drive::DrivingReport report = drive::evaluateRun(m_storeLocation, runId, options, {}, callbacks);
            if (context.cancel && context.cancel->requested()) {
                outcome.state = TrialState::Fail;
                outcome.failReason = "cancelled";
                outcome.interrupted = true;
                return;
            }
            drive::recordRunEvaluation(*openStore(m_storeLocation), runId, report, options);
            const Json summary = drive::drivingSummaryJson(report); // items() must not outlive it
            for (const auto& [key, value] : summary.items())
                if (isDrivingMetric(key))
                    outcome.metrics[key] = value.get<double>();
        } catch (const std::exception& e) {
            outcome.state = TrialState::Fail;
            outcome.failReason = std::string("closed-loop driving evaluation: ") + e.what();
        }
    }

    // What a finished training run makes of the trial: its attributes, the metrics --objective and --constraint
    // can name, and its state (pruned, cancelled, complete with the objective's value, or failed with why).
    TrialOutcome outcomeOf(const TrainResult& result, const std::string& checkpointDir, bool pruned) const
    {
        TrialOutcome outcome;
        Json metrics = Json::object();
        for (const auto& [key, value] : result.finalMetrics)
            metrics["val/" + key] = value;
        outcome.userAttrs["metrics"] = metrics;
        for (const char* key : {"map50", "precision", "recall"}) // as AutoSpeed's script sets them on its trials
            if (const auto it = result.finalMetrics.find(key); it != result.finalMetrics.end())
                outcome.userAttrs[key] = it->second;
        for (const StageResult& s : result.stages) {
            outcome.userAttrs["stage_seconds/" + s.stage] = s.seconds;
            outcome.userAttrs["compute_fps/" + s.stage] = s.computeFps;
            outcome.userAttrs["full_fps/" + s.stage] = s.fullFps;
        }
        // What --objective KEY and --constraint can name (core/pool/objectives.h): every number above, and the last
        // stage's throughput as full_fps and compute_fps.
        for (const auto& [key, value] : result.finalMetrics)
            outcome.metrics["val/" + key] = value;
        for (auto it = outcome.userAttrs.begin(); it != outcome.userAttrs.end(); ++it)
            if (it.value().is_number() && it.key() != "run_id")
                outcome.metrics[it.key()] = it.value().get<double>();
        if (!result.stages.empty()) {
            outcome.metrics["full_fps"] = result.stages.back().fullFps;
            outcome.metrics["compute_fps"] = result.stages.back().computeFps;
        }
        outcome.userAttrs["run_id"] = result.runId;
        outcome.userAttrs["checkpoint_dir"] = absolutePath(checkpointDir);
        if (pruned) {
            outcome.state = TrialState::Pruned;
        } else if (result.cancelled) {
            outcome.failReason = "cancelled";
            outcome.interrupted = true;
        } else if (!m_setup.settings.objectives.empty() || drivingObjective()) {
            // Several objectives: the worker loop picks them from the metrics. A driving objective: run() sets the
            // value once the trial has driven.
            outcome.state = TrialState::Complete;
        } else if (const auto it = result.finalMetrics.find(m_metric);
                   it != result.finalMetrics.end() && !std::isfinite(it->second)) {
            outcome.failReason = "training diverged: " + m_setup.settings.objective + " is " + formatDouble(it->second);
        } else if (it != result.finalMetrics.end()) {
            outcome.state = TrialState::Complete;
            outcome.value = it->second;
        } else {
            std::vector<std::string> known;
            for (const auto& [key, value] : result.finalMetrics)
                known.push_back("val/" + key);
            outcome.failReason = "the objective '" + m_setup.settings.objective + "' is not a validation metric of " +
                                 "this model (it has " + join(known, ", ") + ")";
        }
        return outcome;
    }

    // Several objectives: the epoch's vector, one value per objective in the study's order, when the epoch has every
    // one of them: a validation metric (val/KEY) from the epoch's validation, compute_fps from the epoch's training
    // steps. Objectives known only once a stage or the trial ends (full_fps, stage_seconds/..., user attributes) make
    // every epoch lack a value, so nothing is reported and the pruner never stops such a trial.
    std::optional<std::vector<double>> epochObjectives(const TrainProgress& p) const
    {
        std::vector<double> values;
        for (const std::string& objective : m_setup.settings.objectives) {
            if (objective == "compute_fps" && p.computeFps > 0.0) {
                values.push_back(p.computeFps);
                continue;
            }
            if (!startsWith(objective, "val/"))
                return std::nullopt;
            const auto it = p.validation.find(objectiveMetric(objective));
            if (it == p.validation.end())
                return std::nullopt;
            values.push_back(it->second);
        }
        return values;
    }

    const SearchSetup& m_setup;
    std::string m_storeLocation;
    LogicalDevice m_device;
    std::string m_metric;
};

} // namespace

std::unique_ptr<TrialRunner> makeTrialRunner(const SearchSetup& setup, const std::string& storeLocation,
                                             const LogicalDevice& device)
{
    if (setup.builtin())
        return std::make_unique<TrainerRunner>(setup, storeLocation, device);
    CommandRunnerOptions options;
    options.words = setup.commandWords;
    options.storeLocation = storeLocation;
    options.device = device.id;
    options.threads = device.threads;
    options.epochs = setup.settings.epochs;
    options.termGraceSeconds = setup.settings.termGraceSeconds;
    if (setup.base)
        options.writeConfig = [&setup](const AskedTrial& asked, const std::string& dir) {
            const std::string path = (fs::path(dir) / "config.yaml").string();
            writeFileAtomically(path, setup.trialConfig(asked.overrides).toYaml()); // a full disk fails the trial
            return path;
        };
    return std::make_unique<CommandRunner>(options);
}

} // namespace pitwall::engine
