// pitwall hpo: creates (or resumes) a study and runs the worker pool over a partition's logical devices.
// The worker side ('pitwall worker') and the command registration are in cmd_hpo.cpp.
#include "app/cli/cli.h"
#include "app/cli/cmd_hpo_final.h"
#include "app/cli/configargs.h"
#include "app/cli/progress.h"

#include "core/engine/train/experiment.h"
#include "core/hpo/study.h"
#include "core/sched/searchsetup.h"
#include "core/sched/workerpool.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace pitwall::cli {

namespace {

namespace fs = std::filesystem;



std::string absolute(const std::string& path)
{
    return fs::absolute(path).lexically_normal().string();
}

// --NAME as an int >= minimum (nullopt when absent).
std::optional<int> countOption(const Args& args, const std::string& name, int minimum)
{
    const auto value = args.integer(name, minimum);
    return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

// The settings of a new search from the command line.
HpoSettings newSettings(const Args& args)
{
    HpoSettings s;
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    for (const std::string& file : args.values("config"))
        s.configs.push_back(absolute(file));
    for (const std::string& file : files)
        s.configs.push_back(absolute(file));
    s.overrides = overrides;
    const auto space = args.value("space");
    if (!space)
        throw InputError(
            "--space SPACE.yaml is required: the search space (e.g. configs/transfuser/hpo/speed_space.yaml)");
    s.spacePath = absolute(*space);
    s.command = args.value("command", "");
    const auto trials = countOption(args, "trials", 1);
    if (!trials)
        throw InputError("--trials N is required: how many trials the study should have");
    s.targetTrials = *trials;
    s.epochs = countOption(args, "epochs", 1);
    s.objective = args.value("objective", s.command.empty() ? "" : "objective"); // built-in: hpo.objective later
    if (!s.command.empty() && args.value("objective"))
        throw InputError("--objective chooses a validation metric of the built-in trainer; a command reports its "
                         "objective itself ({\"objective\": V})");
    s.model = args.value("model", "");
    return s;
}

StudyOptions studyOptionsFromArgs(const Args& args, const std::string& defaultDirection)
{
    StudyOptions options;
    const auto direction = parseStudyDirection(args.value("direction", defaultDirection));
    if (!direction)
        throw InputError("--direction '" + args.value("direction", "") + "' is not minimize or maximize");
    options.direction = *direction;
    const auto sampler = parseSamplerKind(args.value("sampler", "tpe"));
    if (!sampler)
        throw InputError("--sampler '" + args.value("sampler", "") + "' is not one of tpe, random, grid");
    options.sampler.kind = *sampler;
    if (auto seed = countOption(args, "seed", 0))
        options.sampler.seed = static_cast<std::uint64_t>(*seed);
    const auto pruner = parsePrunerKind(args.value("pruner", "median"));
    if (!pruner)
        throw InputError("--pruner '" + args.value("pruner", "") + "' is not one of median, sha, hyperband, none");
    options.pruner = PrunerSettings::defaults(*pruner);
    if (auto startup = countOption(args, "pruner-startup-trials", 0))
        options.pruner.startupTrials = *startup;
    if (auto warmup = countOption(args, "warmup-steps", 0))
        options.pruner.warmupSteps = *warmup;
    options.pruner = PrunerSettings::fromJson(options.pruner.toJson()); // range checks
    return options;
}

Json trialJson(const TrialRecord& t)
{
    Json params = Json::object();
    for (const TrialParam& p : t.params)
        params[p.name] = p.value();
    Json row{{"number", t.number}, {"state", trialStateName(t.state)}, {"params", params}};
    row["value"] = t.values.empty() ? Json(nullptr) : Json(t.values.front());
    if (const auto reason = t.systemAttrs.find(kFailReasonAttr); reason != t.systemAttrs.end())
        row["fail_reason"] = *reason;
    row["interrupted"] = isInterrupted(t);
    row["intermediate_values"] = t.intermediateValues.size();
    return row;
}

std::string progressSuffix(const PoolStatus& s, std::optional<int> epochsPerTrial)
{
    const StudyCounts& c = s.counts;
    std::string text = "running " + std::to_string(c.running) + " · pending " + std::to_string(s.pending) +
                       " · complete " + std::to_string(c.complete) + " · pruned " + std::to_string(c.pruned) +
                       " · failed " + std::to_string(c.failed - c.interrupted) + " · epochs " +
                       std::to_string(c.epochsDone);
    if (epochsPerTrial)
        text += "/" + std::to_string(*epochsPerTrial * s.target);
    if (c.bestValue)
        text += " · best " + formatDouble(*c.bestValue) + " (#" + std::to_string(*c.bestTrial) + ")";
    return text;
}

} // namespace

int hpoCommand(const Args& args)
{
    const std::string db = absolute(args.database());
    const bool json = args.flag("json");
    const Schema schema = schemaWithWarnings();
    std::vector<std::string> notes;
    ProgressLine line;
    const auto note = [&](const std::string& text) {
        notes.push_back(text);
        line.message("warning: " + text);
    };
    auto store = openStore(db);

    HpoSettings settings;
    std::string studyName;
    const auto resume = args.value("resume");
    if (resume) {
        for (const char* option : {"space", "command", "config", "sampler", "pruner", "direction", "objective", "study",
                                   "epochs", "model", "seed", "log-dir", "pruner-startup-trials", "warmup-steps"})
            if (args.value(option))
                throw InputError(std::string("--resume continues with the study's stored settings; --") + option +
                                 " cannot change them (--trials, --partition, --backend and --heartbeat-* can)");
        if (!args.positionals.empty())
            throw InputError("--resume continues with the study's stored configs; give no config arguments");
        studyName = *resume;
        const auto stored = readHpoSettings(store->requireStudy(studyName));
        if (!stored)
            throw InputError("study '" + studyName + "' was not started by pitwall hpo (it has no " + kHpoSettingsAttr +
                             " attribute); add workers to it with pitwall worker --trials-left N");
        settings = *stored;
        if (auto trials = countOption(args, "trials", 1))
            settings.targetTrials = *trials;
    } else {
        settings = newSettings(args);
    }
    SearchSetup setup = prepareSearch(settings, schema);
    if (setup.builtin() && settings.objective.empty()) { // the config's hpo.objective (val/loss by default)
        settings.objective = setup.base->getString("hpo.objective");
        setup.settings.objective = settings.objective;
    }
    const auto finalEpochs = countOption(args, "final-epochs", 1);
    if (finalEpochs && !setup.builtin())
        throw InputError("--final-epochs retrains with the built-in trainer; a --command search has no config to "
                         "retrain (run your command with the values of best_params.yaml)");
    const std::string bestParamsPath = absolute(args.value(
        "best-params", (fs::path(setup.base ? setup.base->getString("experiment.output_dir") : "runs") /
                        (resume ? *resume : args.value("study", setup.base ? setup.base->getString("experiment.name") + "-hpo" : "hpo")) /
                        "best_params.yaml")
                           .string()));
    settings.partition =
        args.value("partition",
                   resume ? settings.partition : (setup.base ? setup.base->getString("device.partition_mode") : "SPX"));
    settings.backend = args.value("backend", resume ? settings.backend
                                                    : (setup.base ? setup.base->getString("device.backend") : "auto"));
    const auto mode = parsePartitionMode(settings.partition);
    if (!mode)
        throw InputError("--partition '" + settings.partition + "' is not one of SPX, DPX, QPX, CPX");
    const auto backend = chooseBackend(settings.backend);
    const std::vector<LogicalDevice> devices = backend->logicalDevices(*mode);
    settings.backend = backend->name();

    if (!resume) {
        const StudyOptions options = studyOptionsFromArgs(
            args, setup.builtin() && setup.base ? setup.base->getString("hpo.direction") : "minimize");
        studyName = args.value("study", setup.base ? setup.base->getString("experiment.name") + "-hpo" : "hpo");
        if (store->findStudy(studyName))
            throw InputError("study '" + studyName + "' already exists in " + db + ": continue it with --resume " +
                             studyName + ", or name a new one with --study NAME");
        if (options.sampler.kind == SamplerKind::Grid) {
            const auto points = gridPoints(*setup.space);
            if (!points)
                throw InputError("--sampler grid needs discrete values: give continuous parameters of " +
                                 settings.spacePath + " a 'step' or make them categorical");
            if (settings.targetTrials > *points) {
                note("the grid has " + std::to_string(*points) + " points: --trials " +
                     std::to_string(settings.targetTrials) + " lowered to " + std::to_string(*points));
                settings.targetTrials = static_cast<int>(*points);
            }
        }
        if (options.sampler.kind == SamplerKind::Tpe && settings.targetTrials <= options.sampler.tpe.startupTrials)
            note("TPE samples its first " + std::to_string(options.sampler.tpe.startupTrials) + " trials at random: " +
                 "with " + std::to_string(settings.targetTrials) + " trials this search is a random search");
        settings.logDir = absolute(args.value(
            "log-dir",
            (fs::path(setup.base ? setup.base->getString("experiment.output_dir") : "runs") / studyName / "hpo")
                .string()));
        const Study study = Study::create(*store, studyName, options);
        store->setStudyUserAttr(study.record().id, "objective", settings.objective);
    }
    const std::int64_t studyId = store->requireStudy(studyName).id;
    writeHpoSettings(*store, studyId, settings);

    const double grace = args.positive("heartbeat-grace", 60.0, "number of seconds");
    for (const StaleTrial& s : failStaleTrials(*store, studyId, grace))
        line.message("trial " + std::to_string(s.number) + " FAIL: " + s.reason);
    const StudyRecord study = store->requireStudy(studyName);
    const StudyDirection direction = study.directions.front();
    const int remaining = settings.targetTrials - countTrials(store->trials(studyId), direction).counted();
    if (remaining > 0 && remaining < 2 * static_cast<int>(devices.size()))
        note(std::to_string(remaining) + " trial(s) to run on " + std::to_string(devices.size()) +
             " worker(s): with few trials per worker, workers sit idle while the last trials finish");
    if (setup.builtin()) {
        const std::string dataDir = engine::ensureDataset(*setup.base, [&](std::int64_t done, std::int64_t total) {
            line.update("synthesising frames", static_cast<double>(done), static_cast<double>(total), "");
            if (done == total)
                line.finish();
        });
        line.message("data: " + dataDir);
    }
    std::optional<int> epochsPerTrial = settings.epochs;
    if (setup.base && setup.builtin()) {
        // A model that counts its own epochs (autospeed.epochs) trains one stage of them.
        const std::string modelEpochs = setup.base->getString("experiment.model") + ".epochs";
        epochsPerTrial = static_cast<int>(setup.base->contains(modelEpochs)
                                              ? setup.base->getInt(modelEpochs)
                                              : setup.base->getInt("training.stages.pretrain.epochs") +
                                                    setup.base->getInt("training.stages.posttrain.epochs"));
    }

    WorkerPoolOptions pool;
    pool.storeLocation = db;
    pool.studyName = studyName;
    pool.workerCommand = {executablePath().string(),
                          "worker",
                          "--db",
                          db,
                          "--study",
                          studyName,
                          "--heartbeat-interval",
                          formatDouble(args.positive("heartbeat-interval", 5.0, "number of seconds"))};
    pool.devices = devices;
    pool.logDir = settings.logDir;
    pool.heartbeatGraceSeconds = grace;
    line.message("study '" + studyName + "' in " + db + ": " + std::to_string(settings.targetTrials) + " trials on " +
                 std::to_string(devices.size()) + " " + backend->name() + " worker(s) (" + settings.partition +
                 "), logs in " + settings.logDir);
    installInterruptHandlers(InterruptPolicy::Command);
    const double start = nowSeconds();
    PoolStatus status;
    if (remaining > 0 || countTrials(store->trials(studyId), direction).running > 0) {
        WorkerPool workers(pool);
        status = workers.run(
            processCancelToken().flag(),
            [&](const PoolEvent& e) {
                if (e.kind == PoolEventKind::HostBound)
                    note(e.message);
                else if (e.kind != PoolEventKind::WorkerStarted && e.kind != PoolEventKind::WorkerExited)
                    line.message(e.message);
            },
            [&](const PoolStatus& s) {
                line.update("trials", s.counts.finished(), std::max(1, s.target), progressSuffix(s, epochsPerTrial));
            });
        line.finish();
    } else {
        line.message("the study already has its " + std::to_string(settings.targetTrials) + " trials");
    }
    const double seconds = nowSeconds() - start;

    const std::vector<TrialRecord> trials = store->trials(studyId);
    const StudyCounts counts = countTrials(trials, direction);
    Study handle = Study::load(*store, studyName);
    const auto best = handle.bestTrial();
    const bool searchDone = best && !processCancelToken().requested() && status.error.empty();
    if (!json) {
        std::printf(
            "\nstudy '%s' in %s: %d complete, %d pruned, %d failed (%d interrupted) in %.1f s on %zu worker(s)\n",
            studyName.c_str(), db.c_str(), counts.complete, counts.pruned, counts.failed, counts.interrupted, seconds,
            devices.size());
        for (const TrialRecord& t : trials)
            if (t.state == TrialState::Fail && !isInterrupted(t) && t.systemAttrs.contains(kFailReasonAttr))
                std::printf("  trial %d failed: %s\n", t.number,
                            split(t.systemAttrs[kFailReasonAttr].get<std::string>(), '\n').front().c_str());
        if (best) {
            std::printf("best trial %d: %s %s\n", best->number, settings.objective.c_str(),
                        formatDouble(best->values.front()).c_str());
            for (const TrialParam& p : best->params)
                std::printf("  %s: %s\n", p.name.c_str(), overrideText(p.value()).c_str());
        }
    }
    if (searchDone) {
        writeBestParams(*best, bestParamsPath);
        if (!json)
            std::printf("best parameters written to %s\n", bestParamsPath.c_str());
        std::fflush(stdout);
    }
    std::optional<Table> finalResults;
    if (searchDone && finalEpochs) {
        FinalOptions final;
        final.epochs = *finalEpochs;
        final.storeLocation = db;
        final.studyName = studyName;
        final.cancel = processCancelToken().flag();
        final.message = [&](const std::string& text) { line.message(text); };
        final.progress = [&](const std::string& label, const engine::TrainProgress& p) {
            if (!p.epochDone)
                line.update("final " + label + " " + p.stage + " epoch " + std::to_string(p.epoch + 1) + "/" +
                                std::to_string(p.epochs),
                            static_cast<double>(p.step), static_cast<double>(p.stepsPerEpoch), "");
        };
        line.message("final comparison: the default and the best configuration, " + std::to_string(*finalEpochs) +
                     " epoch(s) each on the whole training split, evaluated on the held-out validation split");
        const FinalComparison comparison = runFinalComparison(setup, *best, final);
        line.finish();
        finalResults = finalTable(comparison, objectiveMetric(settings.objective));
        if (!json)
            std::printf("\nheld-out validation after %d epoch(s) (studies '%s/final-default', '%s/final-optimised'):\n%s",
                        *finalEpochs, studyName.c_str(), studyName.c_str(), finalResults->toText().c_str());
    }
    const bool cancelled = processCancelToken().requested();
    if (json) {
        Json out{{"study", studyName},
                 {"db", db},
                 {"target", settings.targetTrials},
                 {"workers", devices.size()},
                 {"partition", settings.partition},
                 {"backend", settings.backend},
                 {"seconds", seconds},
                 {"cancelled", cancelled},
                 {"error", status.error},
                 {"warnings", notes},
                 {"objective", settings.objective},
                 {"counts",
                  {{"complete", counts.complete},
                   {"pruned", counts.pruned},
                   {"failed", counts.failed},
                   {"interrupted", counts.interrupted},
                   {"running", counts.running},
                   {"epochs", counts.epochsDone}}},
                 {"best", best ? trialJson(*best) : Json(nullptr)},
                 {"best_params", searchDone ? Json(bestParamsPath) : Json(nullptr)},
                 {"final", finalResults ? finalResults->toJson() : Json(nullptr)},
                 {"trials", Json::array()}};
        for (const TrialRecord& t : trials)
            out["trials"].push_back(trialJson(t));
        std::cout << out.dump(2) << "\n";
    }
    if (cancelled) {
        std::fprintf(
            stderr,
            "cancelled: running trials ended as FAIL 'cancelled'; continue with: pitwall hpo --resume %s --db %s\n",
            studyName.c_str(), db.c_str());
        return 130;
    }
    if (!status.error.empty()) {
        std::fprintf(stderr, "pitwall hpo: %s\n", status.error.c_str());
        return kExitFailure;
    }
    if (!best && counts.pruned == 0) {
        std::fprintf(stderr, "pitwall hpo: no trial completed (see the fail reasons above and the logs in %s)\n",
                     settings.logDir.c_str());
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace pitwall::cli
