#include "core/engine/train/experiment.h"

#include "core/devices/devices.h"
#include "core/engine/data/dataset.h"
#include "core/engine/model/modelapi.h"
#include "core/engine/train/dataparallel.h"
#include "core/engine/train/experimentreport.h"
#include "core/engine/train/precision.h"
#include "core/engine/train/trainranks.h"
#include "core/store/store.h"
#include "core/synth/dataset.h"
#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/paths.h"
#include "core/util/process.h"
#include "core/util/strings.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

namespace pitwall::engine {

namespace fs = std::filesystem;

namespace {

// A short stable key of the synthetic-world settings, so a changed size gets its own cached dataset.
std::string syntheticKey(const ResolvedConfig& config)
{
    std::string text;
    for (const ConfigEntry& e : config.entries())
        if (startsWith(e.spec.key, "data.synthetic."))
            text += e.spec.key + "=" + e.value.toText() + ";";
    std::uint64_t hash = 1469598103934665603ULL; // FNV-1a
    for (unsigned char c : text)
        hash = (hash ^ c) * 1099511628211ULL;
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
    return std::string(out).substr(0, 12);
}

Distribution seedDistribution(std::int64_t seed)
{
    Distribution d;
    d.kind = Distribution::Kind::Int;
    d.low = static_cast<double>(seed);
    d.high = static_cast<double>(seed);
    d.step = 1;
    return d;
}

// The study's last trial trained with this seed, when it can be resumed: still RUNNING (its process died), or
// cancelled (Ctrl-C, `pitwall jobs stop`). A cancelled trial is finished and never changes (as in Optuna), so
// it is continued by a new trial that trains on from its checkpoints.
std::optional<TrialRecord> resumableTrial(Store& store, std::int64_t studyId, std::int64_t seed)
{
    std::optional<TrialRecord> last;
    for (const TrialRecord& t : store.trials(studyId))
        if (t.userAttrs.contains("seed") && t.userAttrs["seed"] == seed)
            last = t;
    if (!last)
        return std::nullopt;
    const auto reason = last->systemAttrs.find("fail_reason");
    const bool cancelled = last->state == TrialState::Fail && reason != last->systemAttrs.end() && *reason == "cancelled";
    return last->state == TrialState::Running || cancelled ? last : std::nullopt;
}

// The study `name` of `pitwall train`, created (minimised validation loss) when the store has none.
std::int64_t trainStudy(Store& store, const std::string& name)
{
    if (auto study = store.findStudy(name))
        return study->id;
    const std::int64_t studyId = store.createStudy(name, {StudyDirection::Minimize});
    store.setStudySystemAttr(studyId, "pitwall:kind", "train");
    store.setStudyUserAttr(studyId, "objective", "validation loss of the last stage");
    return studyId;
}

// The trial that trains one seed, and the trial whose checkpoint folder it uses.
struct SeedTrial {
    TrialRecord trial;
    bool resuming = false;
    int checkpointTrial = 0;
};

// The trial for `seed`: with `resume`, the resumable one (a RUNNING trial goes on; a cancelled one is continued by
// a new trial that keeps its checkpoint folder), else a new one; a trial without parameters gets the seed and the
// config's changes.
SeedTrial trialForSeed(Store& store, std::int64_t studyId, std::int64_t seed, const ResolvedConfig& config, bool resume)
{
    std::optional<TrialRecord> trial;
    if (resume)
        trial = resumableTrial(store, studyId, seed);
    const bool resuming = trial.has_value();
    // The checkpoints' folder is named after the trial that started training; a continuation keeps it.
    std::optional<int> checkpointTrial;
    if (trial && trial->state != TrialState::Running) {
        checkpointTrial = trial->userAttrs.value("checkpoint_trial", trial->number);
        const int continued = trial->number;
        trial.reset();
        trial = store.createTrial(studyId);
        store.setTrialUserAttr(trial->id, "resumes_trial", continued);
    }
    if (!trial || trial->params.empty()) {
        if (!trial)
            trial = store.createTrial(studyId);
        store.setTrialParam(trial->id, "seed", static_cast<double>(seed), seedDistribution(seed));
        store.setTrialUserAttr(trial->id, "seed", seed);
        store.setTrialUserAttr(trial->id, "config_changes", [&] {
            Json changes = Json::object();
            for (const ConfigEntry* e : config.changedEntries())
                changes[e->spec.key] = e->value.toJson();
            return changes;
        }());
    }
    if (!checkpointTrial)
        checkpointTrial = trial->userAttrs.value("checkpoint_trial", trial->number);
    store.setTrialUserAttr(trial->id, "checkpoint_trial", *checkpointTrial);
    return {std::move(*trial), resuming, *checkpointTrial};
}

// Records a seed's training on its trial (metrics, stage times, run) and finishes it: COMPLETE with the final
// validation loss, FAIL when training diverged or was cancelled. True when it was cancelled (no more seeds run).
bool finishSeedTrial(Store& store, const TrialRecord& trial, const TrainResult& r, const ProgressReporter& reporter)
{
    Json metrics = Json::object();
    for (const auto& [key, value] : r.finalMetrics)
        metrics[key] = value;
    store.setTrialUserAttr(trial.id, "metrics", metrics);
    for (const StageResult& s : r.stages) {
        store.setTrialUserAttr(trial.id, "stage_seconds/" + s.stage, s.seconds);
        store.setTrialUserAttr(trial.id, "compute_fps/" + s.stage, s.computeFps);
        store.setTrialUserAttr(trial.id, "full_fps/" + s.stage, s.fullFps);
    }
    store.setTrialUserAttr(trial.id, "run_id", r.runId);
    if (r.cancelled) {
        store.finishTrial(trial.id, TrialState::Fail, {});
        store.setTrialSystemAttr(trial.id, "fail_reason", "cancelled");
        return true;
    }
    const auto loss = r.finalMetrics.find("loss");
    const double value = loss != r.finalMetrics.end() ? loss->second : 0.0;
    if (!std::isfinite(value)) { // a diverged run is a failed trial with its reason, not a store error
        store.setTrialSystemAttr(trial.id, "fail_reason",
                                 "training diverged: the final validation loss is " + formatDouble(value));
        store.finishTrial(trial.id, TrialState::Fail, {});
        reporter.message("trial " + std::to_string(trial.number) + " FAIL: training diverged (validation loss " +
                         formatDouble(value) + ")");
        return false;
    }
    store.finishTrial(trial.id, TrialState::Complete, {value});
    return false;
}

} // namespace

nlohmann::json trainResultToJson(const TrainResult& r)
{
    nlohmann::json stages = nlohmann::json::array();
    for (const StageResult& s : r.stages)
        stages.push_back({{"stage", s.stage},           {"epochs", s.epochs},       {"seconds", s.seconds},
                          {"compute_fps", s.computeFps}, {"full_fps", s.fullFps},   {"data_wait_ms", s.dataWaitMs},
                          {"final_loss", s.finalLoss},   {"validation", s.validation}, {"resumed_from_epoch", s.resumedFromEpoch},
                          {"ms_per_iteration", s.msPerIteration}});
    return {{"run_id", r.runId},     {"stages", stages},       {"total_seconds", r.totalSeconds},
            {"final_metrics", r.finalMetrics}, {"notices", r.notices}, {"cancelled", r.cancelled}};
}

TrainResult trainResultFromJson(const nlohmann::json& j)
{
    TrainResult r;
    r.runId = j.at("run_id").get<std::int64_t>();
    for (const auto& s : j.at("stages"))
        r.stages.push_back(StageResult{s.at("stage"), s.at("epochs"), s.at("seconds"), s.at("compute_fps"),
                                       s.at("full_fps"), s.at("data_wait_ms"), s.at("final_loss"),
                                       s.at("validation").get<std::map<std::string, double>>(), s.at("resumed_from_epoch"),
                                       s.at("ms_per_iteration")});
    r.totalSeconds = j.at("total_seconds");
    r.finalMetrics = j.at("final_metrics").get<std::map<std::string, double>>();
    r.notices = j.at("notices").get<std::vector<std::string>>();
    r.cancelled = j.at("cancelled");
    return r;
}

TrainResult trainDataParallel(const TrainRequest& request, const std::vector<LogicalDevice>& devices)
{
    const fs::path work = fs::path(request.checkpointDir) / "ranks";
    fs::create_directories(work);
    const fs::path configFile = work / "config.yaml";
    writeFileAtomically(configFile, request.config->toYaml());
    const fs::path rendezvous = work / "rendezvous";
    fs::remove(rendezvous);
    std::vector<RankLaunch> launches;
    const int world = static_cast<int>(devices.size());
    for (int rank = 0; rank < world; ++rank) {
        RankLaunch r;
        r.device = devices[static_cast<std::size_t>(rank)];
        r.threads = r.device.threads;
        r.configFile = configFile.string();
        r.rank = rank;
        r.worldSize = world;
        r.rendezvous = rendezvous.string();
        r.storeLocation = request.storeLocation;
        r.seed = request.seed;
        r.dataDir = request.dataDir;
        r.checkpointDir = request.checkpointDir;
        r.resultFile = (work / ("result_" + std::to_string(rank) + ".json")).string();
        r.logFile = (work / ("rank_" + std::to_string(rank) + ".log")).string();
        r.outputFile = r.logFile + ".out";
        r.trialId = request.trialId;
        r.resume = request.resume;
        launches.push_back(std::move(r));
    }
    // The first failure stops the others (they would wait for it in the next all-reduce).
    const RankExits ranks = runTrainRanks(launches, request.cancel, RankFailure::StopAll);
    if (const auto r = ranks.firstFailure)
        throw RuntimeError("rank " + std::to_string(*r) + " of " + std::to_string(world) + " ended with " +
                           ranks.exits[*r].describe() + ":\n" + fileTail(launches[*r].logFile));
    return trainResultFromJson(nlohmann::json::parse(readTextFile(work / "result_0.json")));
}

std::string ensureDataset(const ResolvedConfig& config, const ProgressReporter& reporter)
{
    const std::string root = config.getString("data.root");
    if (!root.empty()) {
        if (!fs::is_directory(root))
            throw InputError("data.root '" + root + "' is not a folder");
        return root;
    }
    const fs::path dir = fs::path(config.getString("experiment.output_dir")) / "synthetic" / syntheticKey(config);
    if (synth::isCompleteDataset(dir.string()))
        return dir.string();
    synth::writeDataset(dir.string(), synth::generatorOptionsFrom(config), reporter);
    return dir.string();
}

std::vector<LogicalDevice> runDevices(const ResolvedConfig& config)
{
    const int span = static_cast<int>(config.getInt("training.distribution.logical_devices"));
    if (span <= 1)
        return {};
    const auto mode = parsePartitionMode(config.getString("device.partition_mode"));
    const auto all = chooseBackend(config.getString("device.backend"))->logicalDevices(*mode);
    if (static_cast<int>(all.size()) < span)
        throw InputError("training.distribution.logical_devices=" + std::to_string(span) + " but device.partition_mode=" +
                         config.getString("device.partition_mode") + " gives " + std::to_string(all.size()) +
                         " logical device(s); choose a mode with at least " + std::to_string(span));
    return {all.begin(), all.begin() + span};
}

void checkRunnable(const ResolvedConfig& config, const LogicalDevice& device)
{
    const std::vector<LogicalDevice> devices = runDevices(config);
    const torch::Device torchDevice = deviceFor(config, devices.empty() ? device : devices.front());
    precisionFor(config, torchDevice);
    if (devices.size() > 1)
        collectiveBackendFor(config.getString("training.distribution.backend"), torchDevice,
                             config.getString("device.partition_mode"));
}

ExperimentResult runExperiment(const ResolvedConfig& config, const ExperimentOptions& options)
{
    ExperimentResult result;
    std::vector<std::int64_t> seeds = options.seeds;
    if (seeds.empty())
        for (long long s : config.value("experiment.seeds").asIntList())
            seeds.push_back(s);
    // A run spanning several logical devices gets one process per device of the configured partition mode.
    const std::vector<LogicalDevice> devices = runDevices(config);
    checkRunnable(config, options.device);
    result.dataDir = ensureDataset(config, options.reporter);
    // Opening the data before touching the store: a bad dataset leaves the store as it was.
    if (modelPlan(config).batches == BatchKind::DetectionImages)
        data::requireSamples(data::indexDataset(result.dataDir));
    else
        synth::SynthDataset::open(result.dataDir);

    auto store = openStore(options.storeLocation);
    result.study = config.getString("experiment.name");
    const std::int64_t studyId = trainStudy(*store, result.study);
    for (std::size_t seedIndex = 0; seedIndex < seeds.size(); ++seedIndex) {
        const std::int64_t seed = seeds[seedIndex];
        // Each seed an equal part of the work's progress.
        const ProgressReporter seedReporter = options.reporter.within(
            static_cast<double>(seedIndex) / static_cast<double>(seeds.size()),
            static_cast<double>(seedIndex + 1) / static_cast<double>(seeds.size()));
        const SeedTrial seedTrial = trialForSeed(*store, studyId, seed, config, options.resume);
        const TrialRecord& trial = seedTrial.trial;
        const fs::path checkpoints = fs::path(config.getString("experiment.output_dir")) / studyFolder(result.study) /
                                     ("trial_" + std::to_string(seedTrial.checkpointTrial));
        options.reporter.message((seedTrial.resuming ? "resuming trial " : "trial ") + std::to_string(trial.number) +
                                 " (seed " + std::to_string(seed) + "), checkpoints in " + checkpoints.string());
        TrainRequest request;
        request.config = &config;
        request.storeLocation = options.storeLocation;
        request.trialId = trial.id;
        request.seed = seed;
        request.device = options.device;
        request.dataDir = result.dataDir;
        request.checkpointDir = checkpoints.string();
        request.resume = seedTrial.resuming;
        request.cancel = options.cancel;
        request.progress = [&](const TrainProgress& p) { reportTrainProgress(seedReporter, seed, p); };
        try {
            SeedResult seedResult{seed, trial.number, checkpoints.string(),
                                  options.trainSeed         ? options.trainSeed(request)
                                  : devices.size() > 1 ? trainDataParallel(request, devices)
                                                       : train(request)};
            const bool cancelled = finishSeedTrial(*store, trial, seedResult.train, options.reporter);
            result.seeds.push_back(std::move(seedResult));
            if (cancelled)
                break;
        } catch (const std::exception& e) {
            store->setTrialSystemAttr(trial.id, "fail_reason", std::string(e.what()));
            store->finishTrial(trial.id, TrialState::Fail, {});
            throw;
        }
    }
    return result;
}

} // namespace pitwall::engine
