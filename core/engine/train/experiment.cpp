#include "core/engine/train/experiment.h"

#include "core/engine/synth/dataset.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <filesystem>
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

// An unfinished trial of the study trained with this seed, to resume.
std::optional<TrialRecord> unfinishedTrial(Store& store, std::int64_t studyId, std::int64_t seed)
{
    for (const TrialRecord& t : store.trials(studyId))
        if (t.state == TrialState::Running && t.userAttrs.contains("seed") && t.userAttrs["seed"] == seed)
            return t;
    return std::nullopt;
}

} // namespace

std::string ensureDataset(const ResolvedConfig& config, const std::function<void(std::int64_t, std::int64_t)>& progress)
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
    synth::writeDataset(dir.string(), synth::generatorOptionsFrom(config), progress);
    return dir.string();
}

ExperimentResult runExperiment(const ResolvedConfig& config, const ExperimentOptions& options)
{
    ExperimentResult result;
    std::vector<std::int64_t> seeds = options.seeds;
    if (seeds.empty())
        for (long long s : config.value("experiment.seeds").asIntList())
            seeds.push_back(s);
    result.dataDir = ensureDataset(config, options.dataProgress);
    // Opening the data before touching the store: a bad dataset leaves the store as it was.
    synth::SynthDataset::open(result.dataDir);

    auto store = openStore(options.storeLocation);
    result.study = config.getString("experiment.name");
    std::int64_t studyId;
    if (auto study = store->findStudy(result.study)) {
        studyId = study->id;
    } else {
        studyId = store->createStudy(result.study, {StudyDirection::Minimize});
        store->setStudySystemAttr(studyId, "pitwall:kind", "train");
        store->setStudyUserAttr(studyId, "objective", "validation loss of the last stage");
    }

    for (std::int64_t seed : seeds) {
        std::optional<TrialRecord> trial;
        if (options.resume)
            trial = unfinishedTrial(*store, studyId, seed);
        const bool resuming = trial.has_value();
        if (!trial) {
            trial = store->createTrial(studyId);
            store->setTrialParam(trial->id, "seed", static_cast<double>(seed), seedDistribution(seed));
            store->setTrialUserAttr(trial->id, "seed", seed);
            store->setTrialUserAttr(trial->id, "config_changes", [&] {
                Json changes = Json::object();
                for (const ConfigEntry* e : config.changedEntries())
                    changes[e->spec.key] = e->value.toJson();
                return changes;
            }());
        }
        const fs::path checkpoints = fs::path(config.getString("experiment.output_dir")) / result.study /
                                     ("trial_" + std::to_string(trial->number));
        if (options.message)
            options.message((resuming ? "resuming trial " : "trial ") + std::to_string(trial->number) + " (seed " +
                            std::to_string(seed) + "), checkpoints in " + checkpoints.string());
        TrainRequest request;
        request.config = &config;
        request.storeLocation = options.storeLocation;
        request.trialId = trial->id;
        request.seed = seed;
        request.device = options.device;
        request.dataDir = result.dataDir;
        request.checkpointDir = checkpoints.string();
        request.resume = resuming;
        request.cancel = options.cancel;
        if (options.progress)
            request.progress = [&](const TrainProgress& p) { options.progress(seed, p); };
        try {
            SeedResult seedResult{seed, trial->number, checkpoints.string(), train(request)};
            const TrainResult& r = seedResult.train;
            Json metrics = Json::object();
            for (const auto& [key, value] : r.finalMetrics)
                metrics[key] = value;
            store->setTrialUserAttr(trial->id, "metrics", metrics);
            for (const StageResult& s : r.stages) {
                store->setTrialUserAttr(trial->id, "stage_seconds/" + s.stage, s.seconds);
                store->setTrialUserAttr(trial->id, "compute_fps/" + s.stage, s.computeFps);
                store->setTrialUserAttr(trial->id, "full_fps/" + s.stage, s.fullFps);
            }
            store->setTrialUserAttr(trial->id, "run_id", r.runId);
            if (r.cancelled) {
                store->finishTrial(trial->id, TrialState::Fail, {});
                store->setTrialSystemAttr(trial->id, "fail_reason", "cancelled");
                result.seeds.push_back(std::move(seedResult));
                break;
            }
            const auto loss = r.finalMetrics.find("loss");
            store->finishTrial(trial->id, TrialState::Complete, {loss != r.finalMetrics.end() ? loss->second : 0.0});
            result.seeds.push_back(std::move(seedResult));
        } catch (const std::exception& e) {
            store->setTrialSystemAttr(trial->id, "fail_reason", std::string(e.what()));
            store->finishTrial(trial->id, TrialState::Fail, {});
            throw;
        }
    }
    return result;
}

} // namespace pitwall::engine
