#include "core/search/search.h"
#include "core/store/sqlitestore.h"

#include "core/config/workload.h"
#include "core/hpo/study.h"
#include "core/hpo/triallabels.h"
#include "core/jobrun/jobsession.h"
#include "core/jobs/hpojob.h"
#include "core/pool/objectives.h"
#include "core/pool/slurmlauncher.h"
#include "core/pool/workerpool.h"
#include "core/search/partitionauto.h"
#include "core/search/resumereview.h"
#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/paths.h"
#include "core/util/printable.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace pitwall {

namespace {

namespace fs = std::filesystem;

// The search's settings and study before any trial runs: everything that can be checked is checked here.
struct Prepared {
    HpoSettings settings;
    std::string studyName;
    std::optional<ResumeReview> review; // resuming: what the results file says to run, and whether it is confirmed
    std::optional<SearchSetup> setup;
    std::vector<LogicalDevice> devices;
    std::string bestParamsPath;
    std::string partitionReason; // --partition auto: which measurement chose the mode, and why
};

std::string defaultStudyName(const SearchSetup& setup)
{
    return HpoJob::defaultStudyName(setup.base ? std::optional(setup.base->getString("experiment.name"))
                                               : std::nullopt);
}

std::string outputDir(const SearchSetup& setup)
{
    return setup.base ? setup.base->getString("experiment.output_dir") : "runs";
}

HpoSettings startingSettings(const SearchSpec& spec, Store* store, Prepared& p)
{
    if (!spec.resumeStudy)
        return spec.settings;
    if (!store)
        throw InputError(spec.storeLocation + ": no such results database, so no study '" + *spec.resumeStudy +
                         "' to resume");
    p.review = reviewResume(*store, *spec.resumeStudy);
    if (!p.review->confirmed && !spec.confirmResume)
        throwUnconfirmedResume(*p.review, "pitwall hpo --resume " + *spec.resumeStudy + " --db " + spec.storeLocation);
    HpoSettings settings = *readHpoSettings(store->requireStudy(*spec.resumeStudy));
    if (spec.targetTrials)
        settings.targetTrials = *spec.targetTrials;
    return settings;
}

// Grid size and TPE start-up checks of a new study; lowers the target to the grid's points.
void checkSampler(const StudyOptions& options, const SearchSetup& setup, HpoSettings& settings,
                  const std::function<void(const std::string&)>& note)
{
    if (options.sampler.kind == SamplerKind::Grid) {
        const auto points = gridPoints(*setup.space);
        if (!points)
            throw InputError::forOption("sampler",
                                        "--sampler grid needs discrete values: give continuous parameters of " +
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
}

// Creates the new study, or (store null or `write` false: a check) only checks that it could.
void createStudy(const SearchSpec& spec, Store* store, bool write, Prepared& p,
                 const std::function<void(const std::string&)>& note)
{
    const SearchSetup& setup = *p.setup;
    StudyOptions options = spec.study;
    options.direction =
        !spec.directions.empty() ? spec.directions.front()
        : setup.builtin() && setup.base
            ? parseStudyDirection(setup.base->getString("hpo.direction")).value_or(StudyDirection::Minimize)
            : StudyDirection::Minimize;
    if (spec.directions.size() > 1)
        options.directions = spec.directions;
    p.studyName = spec.studyName.value_or(defaultStudyName(setup));
    if (store && store->findStudy(p.studyName))
        throw InputError::forOption("study", "study '" + p.studyName + "' already exists in " + spec.storeLocation +
                                                 ": continue it with --resume " + p.studyName +
                                                 ", or name a new one with --study NAME");
    checkSampler(options, setup, p.settings, note);
    std::vector<TrialLabel> labels;
    if (spec.labelsPath) {
        if (!setup.space)
            throw InputError::forOption("labels", "--labels names points of the search space; give --space");
        labels = parseTrialLabels(readTextFile(*spec.labelsPath), *spec.labelsPath, *setup.space);
    }
    p.settings.logDir =
        absolutePath(spec.logDir.value_or((fs::path(outputDir(setup)) / studyFolder(p.studyName) / "hpo").string()));
    if (!store || !write)
        return;
    const Study study = Study::create(*store, p.studyName, options);
    store->setStudyUserAttr(study.record().id, "objective", p.settings.objective);
    if (!p.settings.objectives.empty())
        store->setStudyUserAttr(study.record().id, "objectives", p.settings.objectives);
    if (!labels.empty())
        store->setStudyUserAttr(study.record().id, kLabelsAttr, trialLabelsJson(labels));
}

// What --partition auto measures: the search's configs and overrides on its backend, into its results database.
PartitionMeasureSpec partitionMeasureSpec(const SearchSpec& spec, const Prepared& p)
{
    return {p.settings.configs, p.settings.overrides, p.settings.backend, spec.storeLocation,
            absolutePath((fs::path(outputDir(*p.setup)) / "bench_partitions_auto").string())};
}

// --partition auto: the mode a stored measurement of this workload recommends. Without one, `measure` (a run)
// makes one first; a check (no `measure`) leaves the partition "auto" and says what the run would measure.
void choosePartitionAutomatically(const SearchSpec& spec, Store* store, const DeviceBackend& backend, Prepared& p,
                                  const std::function<bool(const PartitionMeasureSpec&)>& measure)
{
    if (!p.setup->builtin() || !p.setup->base)
        throw InputError::forOption("partition", "--partition auto measures the config's training; a --command "
                                                 "search has none to measure: give SPX, DPX, QPX or CPX");
    PartitionWorkload w{hostName(), backend.name(), workloadKey(*p.setup->base), {}};
    for (const ModeAvailability& m : backend.modes())
        if (m.available)
            w.modes.push_back(partitionModeName(m.mode));
    std::optional<StoredPartitionChoice> stored =
        store ? storedPartitionChoice(store->benchmarks("partitions"), w) : std::nullopt;
    if (!stored) {
        const PartitionMeasureSpec m = partitionMeasureSpec(spec, p);
        if (!measure) {
            p.partitionReason = "no measurement of this workload on " + w.host + " (" + w.backend +
                                ") is stored: the search would first measure " + join(w.modes, ", ") +
                                " (pitwall bench partitions --recommend, runs in " + m.outputDir + ")";
            return;
        }
        if (!measure(m))
            throw RuntimeError("cancelled while measuring the partition modes: nothing was started");
        stored = storedPartitionChoice(store->benchmarks("partitions"), w);
        if (!stored)
            throw RuntimeError("the partition measurement stored no result for this workload (see " + m.outputDir +
                               "/bench.log)");
    }
    if (!stored->choice.recommended)
        throw InputError::forOption("partition",
                                    "--partition auto: the stored measurement ran no mode (" + stored->choice.reason +
                                        "); give a mode, or measure again with pitwall bench partitions --recommend");
    p.settings.partition = *stored->choice.recommended;
    p.partitionReason = "partition auto: " + describeStoredChoice(*stored);
}

Prepared prepare(const SearchSpec& spec, Store* store, bool write, const std::function<void(const std::string&)>& note,
                 const std::function<bool(const PartitionMeasureSpec&)>& measure = {})
{
    Prepared p;
    p.settings = startingSettings(spec, store, p);
    p.setup = prepareSearch(p.settings, spec.schema);
    SearchSetup& setup = *p.setup;
    const bool objectiveFromConfig = p.settings.objective.empty();
    if (setup.builtin() && objectiveFromConfig) { // the config's hpo.objective (val/loss by default)
        p.settings.objective = setup.base->getString("hpo.objective");
        setup.settings.objective = p.settings.objective;
    }
    // Before any trial trains: an objective or constraint the model never records would fail every trial at its end.
    if (p.settings.objectives.empty() && isDrivingMetric(p.settings.objective))
        checkRecordedKey(setup, p.settings.objective, "objective"); // the model must drive
    else if (p.settings.objectives.empty())
        checkObjective(setup, p.settings.objective,
                       spec.resumeStudy      ? "the study's objective"
                       : objectiveFromConfig ? "hpo.objective"
                                             : "--objective");
    for (const std::string& key : p.settings.objectives) {
        if (startsWith(key, "val/"))
            checkObjective(setup, key, spec.resumeStudy ? "the study's objective" : "--objective");
        else if (!key.empty())
            checkRecordedKey(setup, key, "objective");
    }
    for (const std::string& constraint : p.settings.constraints)
        checkRecordedKey(setup, parseConstraint(constraint).key, "constraint");
    if (spec.finalEpochs && !p.settings.objectives.empty())
        throw InputError::forOption("final-epochs", "--final-epochs compares the best configuration with the default; "
                                                    "a search with several objectives has a Pareto front, not one best "
                                                    "(pick a trial from 'pitwall study best' and train it)");
    if (spec.finalEpochs && p.settings.objectives.empty() && isDrivingMetric(p.settings.objective))
        throw InputError::forOption("final-epochs", "--final-epochs compares the best configuration with the default "
                                                    "on the validation objective; this search's objective is the "
                                                    "closed-loop '" + p.settings.objective + "' (drive the two with "
                                                    "'pitwall eval driving' instead)");
    if (spec.finalEpochs && !setup.builtin())
        throw InputError::forOption(
            "final-epochs", "--final-epochs retrains with the built-in trainer; a --command search has no config to "
                            "retrain (run your command with the values of best_params.yaml)");
    // Resuming: where the study was started to write them (not a path relative to today's working folder).
    const std::string recorded = p.review ? p.review->bestParamsPath : "";
    p.bestParamsPath = absolutePath(spec.bestParamsPath.value_or(
        !recorded.empty() ? recorded
                          : (fs::path(outputDir(setup)) /
                             studyFolder(spec.resumeStudy.value_or(spec.studyName.value_or(defaultStudyName(setup)))) /
                             "best_params.yaml")
                                .string()));
    const bool resume = spec.resumeStudy.has_value();
    p.settings.partition = spec.partition.value_or(
        resume ? p.settings.partition : (setup.base ? setup.base->getString("device.partition_mode") : "SPX"));
    p.settings.backend = spec.backend.value_or(
        resume ? p.settings.backend : (setup.base ? setup.base->getString("device.backend") : "auto"));
    if (p.settings.partition != kAutoPartition && !parsePartitionMode(p.settings.partition))
        throw InputError::forOption("partition", "--partition '" + p.settings.partition +
                                                     "' is not one of SPX, DPX, QPX, CPX or auto");
    const auto backend = chooseBackend(p.settings.backend);
    p.settings.backend = backend->name();
    if (p.settings.partition == kAutoPartition)
        choosePartitionAutomatically(spec, store, *backend, p, measure);
    if (const auto mode = parsePartitionMode(p.settings.partition))
        p.devices = backend->logicalDevices(*mode);
    if (resume)
        p.studyName = *spec.resumeStudy;
    else
        createStudy(spec, store, write, p, note);
    return p;
}

// Epochs one trial trains (for the progress line's epoch total); nullopt when not known.
std::optional<int> epochsPerTrial(const SearchSetup& setup)
{
    if (!setup.base || !setup.builtin())
        return setup.settings.epochs;
    // A model that counts its own epochs (autospeed.epochs) trains one stage of them.
    const std::string modelEpochs = setup.base->getString("experiment.model") + ".epochs";
    return static_cast<int>(setup.base->contains(modelEpochs)
                                ? setup.base->getInt(modelEpochs)
                                : setup.base->getInt("training.stages.pretrain.epochs") +
                                      setup.base->getInt("training.stages.posttrain.epochs"));
}

constexpr double kWorkerStopMarginSeconds = 20.0;

// The workers as one Slurm job (--launcher slurm): each task one worker that binds to what Slurm gives it and fails
// other tasks' trials whose heartbeat stopped; the job is followed, and cancelled with the search.
PoolStatus runSlurmWorkers(const SearchSpec& spec, const Prepared& p, std::vector<std::string> workerCommand,
                           CancelToken& cancel, const ProgressReporter& reporter,
                           const std::function<void(const PoolEvent&)>& onEvent,
                           const std::function<void(const PoolStatus&)>& onStatus)
{
    workerCommand.push_back("--heartbeat-grace");
    workerCommand.push_back(formatDouble(spec.heartbeatGraceSeconds));
    SlurmLaunchOptions options;
    options.storeLocation = spec.storeLocation;
    options.studyName = p.studyName;
    options.workerCommand = std::move(workerCommand);
    options.tasks = static_cast<int>(p.devices.size());
    options.slurmArgs = spec.slurmArgs;
    options.logDir = p.settings.logDir;
    options.cancelWaitSeconds = p.settings.termGraceSeconds + kWorkerStopMarginSeconds + 60;
    SlurmLauncher launcher(options);
    return launcher.run(
        &cancel,
        [&](const std::string& job) {
            reportJobField(spec.storeLocation, "slurm_job", job);
            reporter.message("workers: slurm job " + job + " (cancelled when the search stops), its output in " +
                             launcher.logFile());
        },
        onEvent, onStatus);
}

// Runs the pool (or the Slurm job) when trials remain (or run); returns its status.
PoolStatus runPool(const SearchSpec& spec, const Prepared& p, int remaining, bool running, CancelToken& cancel,
                   const ProgressReporter& reporter, const std::function<void(const std::string&)>& note)
{
    WorkerPoolOptions pool;
    pool.storeLocation = spec.storeLocation;
    pool.studyName = p.studyName;
    pool.workerCommand = {executablePath().string(),
                          "worker",
                          "--db",
                          spec.storeLocation,
                          "--study",
                          p.studyName,
                          "--heartbeat-interval",
                          formatDouble(spec.heartbeatIntervalSeconds)};
    pool.devices = p.devices;
    std::vector<std::string> deviceNames;
    for (const LogicalDevice& d : p.devices)
        deviceNames.push_back(d.id + " (" + p.settings.partition + ", " + std::to_string(d.threads) + " thread" +
                              (d.threads == 1 ? ")" : "s)"));
    if (!spec.slurm)
        reportJobDevices(spec.storeLocation, deviceNames);
    pool.logDir = p.settings.logDir;
    pool.heartbeatGraceSeconds = spec.heartbeatGraceSeconds;
    // A stopping worker may be waiting out its command's term grace: SIGKILL only after that (and a margin).
    pool.stopTimeoutSeconds = p.settings.termGraceSeconds + kWorkerStopMarginSeconds;
    reporter.message("study '" + printable(p.studyName) + "' in " + printable(spec.storeLocation) + ": " +
                     std::to_string(p.settings.targetTrials) + " trials on " + std::to_string(p.devices.size()) + " " +
                     (spec.slurm ? std::string("Slurm task(s) (--ntasks, unless --slurm-args say otherwise)")
                                 : p.settings.backend + " worker(s) (" + p.settings.partition + ")") +
                     ", logs in " + printable(p.settings.logDir));
    if (remaining <= 0 && !running) {
        reporter.message("the study already has its " + std::to_string(p.settings.targetTrials) + " trials");
        return {};
    }
    const std::optional<int> epochs = epochsPerTrial(*p.setup);
    const auto onEvent = [&](const PoolEvent& e) {
        if (e.kind == PoolEventKind::HostBound)
            note(e.message);
        else if (e.kind != PoolEventKind::WorkerStarted && e.kind != PoolEventKind::WorkerExited)
            reporter.message(e.message);
    };
    const auto onStatus = [&](const PoolStatus& s) {
        // By epochs when a trial's are known: a finished trial counts all of its epochs (a pruned one ended early),
        // a running one those it trained, so the bar moves before the first trial ends.
        const double target = std::max(1, s.target);
        const double done = epochs ? std::min<double>(target * *epochs, static_cast<double>(s.counts.finished()) *
                                                                                *epochs +
                                                                            static_cast<double>(s.counts.runningEpochs)) /
                                         *epochs
                                   : s.counts.finished();
        reporter.progress({"trials", done, target, searchProgressDetail(s, epochs)});
    };
    const PoolStatus status = spec.slurm
                                  ? runSlurmWorkers(spec, p, pool.workerCommand, cancel, reporter, onEvent, onStatus)
                                  : WorkerPool(pool).run(&cancel, onEvent, onStatus);
    reporter.phaseDone();
    return status;
}

} // namespace

std::string searchProgressDetail(const PoolStatus& s, std::optional<int> epochsPerTrial)
{
    const StudyCounts& c = s.counts;
    // Epochs against a target that counts re-runs: an interrupted trial's epochs are done, and its replacement
    // trains them again.
    std::string text = "running " + std::to_string(c.running) + " · pending " + std::to_string(s.pending) + " · " +
                       countsText(c) + " · epochs " + std::to_string(c.epochsDone);
    if (epochsPerTrial)
        text += "/" + std::to_string(*epochsPerTrial * (s.target + c.interrupted));
    if (c.bestValue)
        text += " · best " + formatDouble(*c.bestValue) + " (#" + std::to_string(*c.bestTrial) + ")";
    if (c.frontSize)
        text += " · front " + std::to_string(*c.frontSize);
    return text;
}

SearchCheck checkSearch(const SearchSpec& spec)
{
    SearchCheck check;
    std::unique_ptr<Store> store;
    if (storeExists(spec.storeLocation))
        store = openStore(spec.storeLocation, OpenMode::ReadOnly);
    const Prepared p =
        prepare(spec, store.get(), false, [&](const std::string& text) { check.warnings.push_back(text); });
    check.studyName = p.studyName;
    check.targetTrials = p.settings.targetTrials;
    check.partition = p.settings.partition;
    check.partitionReason = p.partitionReason;
    check.backend = p.settings.backend;
    for (const LogicalDevice& d : p.devices)
        check.devices.push_back(d.id);
    return check;
}

SearchResult runSearch(const SearchSpec& spec, CancelToken& cancel, const ProgressReporter& reporter)
{
    SearchResult result;
    const auto note = [&](const std::string& text) {
        result.warnings.push_back(text);
        reporter.warning(text);
    };
    auto store = openStore(spec.storeLocation);
    Prepared p = prepare(spec, store.get(), true, note, [&](const PartitionMeasureSpec& m) {
        reporter.message("partition auto: no measurement of this workload is stored; measuring the partition modes "
                         "first (pitwall bench partitions --recommend, log in " +
                         printable(m.outputDir) + "/bench.log)");
        return measurePartitions(m, cancel);
    });
    if (!p.partitionReason.empty())
        reporter.message(p.partitionReason);
    const std::int64_t studyId = store->requireStudy(p.studyName).id;
    writeHpoSettings(*store, studyId, p.settings);
    store->setStudySystemAttr(studyId, kBestParamsAttr, p.bestParamsPath);
    // Started here by this user, or resumed with their confirmation: a later resume of the same goes on by itself.
    if (const std::string warning = recordConfirmed(p.settings.command, p.settings.logDir, p.bestParamsPath);
        !warning.empty())
        note(warning);

    if (p.review)
        reporter.message("resuming study '" + printable(p.studyName) + "' (" +
                         (p.review->confirmed ? "as you started or confirmed it" : "confirmed with --yes") + "):\n" +
                         p.review->describe());
    for (const StaleTrial& s : failStaleTrials(*store, studyId, spec.heartbeatGraceSeconds))
        reporter.message("trial " + std::to_string(s.number) + " FAIL: " + s.reason);
    const StudyDirection direction = store->requireStudy(p.studyName).directions.front();
    const int remaining = p.settings.targetTrials - countTrials(store->trials(studyId), direction).counted();
    if (remaining > 0 && remaining < 2 * static_cast<int>(p.devices.size()))
        note(std::to_string(remaining) + " trial(s) to run on " + std::to_string(p.devices.size()) +
             " worker(s): with few trials per worker, workers sit idle while the last trials finish");
    if (p.setup->builtin() && spec.prepareData)
        reporter.message("data: " + spec.prepareData(*p.setup->base, reporter));

    const double start = nowSeconds();
    const bool running = countTrials(store->trials(studyId), direction).running > 0;
    // Cancelled while the data was prepared: no worker starts, the study stays as it is.
    const PoolStatus status =
        cancel.requested() ? PoolStatus{} : runPool(spec, p, remaining, running, cancel, reporter, note);
    result.seconds = nowSeconds() - start;
    store->requireSameDatabase(); // never a best_params.yaml from a file that was deleted or replaced meanwhile
    result.error = status.error;
    result.trials = store->trials(studyId);
    result.counts = countTrials(result.trials, store->requireStudy(p.studyName).directions);
    Study study = Study::load(*store, p.studyName);
    if (study.objectiveCount() > 1) {
        result.front = study.bestTrials(); // no single best, so no best_params.yaml: the front is in the study
        result.searchDone = !result.front.empty() && !cancel.requested() && result.error.empty();
    } else {
        result.best = study.bestTrial();
        result.searchDone = result.best && !cancel.requested() && result.error.empty();
        if (result.searchDone)
            writeBestParams(*result.best, p.bestParamsPath);
    }
    result.setup = std::move(*p.setup);
    result.settings = p.settings;
    result.studyName = p.studyName;
    result.workers = spec.slurm ? static_cast<std::size_t>(status.mostWorkers) : p.devices.size();
    result.bestParamsPath = p.bestParamsPath;
    return result;
}

void writeBestParams(const TrialRecord& best, const std::string& path)
{
    YAML::Emitter yaml;
    yaml << YAML::BeginMap;
    for (const TrialParam& p : best.params) {
        yaml << YAML::Key << p.name << YAML::Value;
        const Json v = p.value();
        if (v.is_string())
            yaml << v.get<std::string>();
        else if (v.is_boolean())
            yaml << v.get<bool>();
        else if (v.is_number_integer())
            yaml << v.get<long long>();
        else
            yaml << YAML::Precision(17) << v.get<double>();
    }
    yaml << YAML::EndMap;
    const fs::path target(path);
    if (!target.parent_path().empty())
        fs::create_directories(target.parent_path());
    std::ostringstream text;
    text << "# Best trial " << best.number << " (value " << formatDouble(best.values.front())
         << "): its sampled parameters under the search space's names.\n"
         << yaml.c_str() << "\n";
    // Written beside and renamed over: never a half-written file under the real name, and a full disk is an error
    // naming the file instead of "best parameters written".
    writeFileAtomically(target, text.str());
}

} // namespace pitwall
