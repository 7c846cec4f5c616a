#include "core/engine/drive/modelpolicy.h"

#include "core/config/schema.h"
#include "core/engine/model/modelapi.h"
#include "core/engine/train/framebatch.h"
#include "core/synth/dataset.h"
#include "core/util/error.h"

#include <filesystem>
#include <map>
#include <vector>

namespace pitwall::drive {

namespace {

class ModelPolicy : public DrivingPolicy {
public:
    ModelPolicy(std::int64_t runId, std::unique_ptr<engine::Model> model, const synth::SensorConfig& sensors,
                double intervalS)
        : m_runId(runId), m_model(std::move(model)), m_sensors(sensors), m_intervalS(intervalS)
    {
    }

    std::string name() const override { return "run " + std::to_string(m_runId); }
    double planIntervalS() const override { return m_intervalS; }

    DrivingPlan plan(const synth::World& world) override { return planBatch({&world}).front(); }

    // Stateless: the model sees one frame and the route command, and keeps nothing between plans.
    bool plansRoutesTogether() const override { return true; }

    // One forward pass for all the worlds: each renders what the ego's sensors see, as in training but without
    // the labels, and row i of the model's output is world i's plan.
    std::vector<DrivingPlan> planBatch(const std::vector<const synth::World*>& worlds) override
    {
        torch::NoGradGuard noGrad;
        std::vector<std::map<std::string, torch::Tensor>> samples;
        samples.reserve(worlds.size());
        for (const synth::World* world : worlds) {
            auto tensors = engine::planTensors(synth::renderSensors(*world, m_sensors));
            tensors["command"] = torch::tensor(static_cast<std::int64_t>(routeCommand(*world)));
            samples.push_back(std::move(tensors));
        }
        const std::optional<engine::PlanOutput> out = m_model->plan(engine::collate(samples));
        if (!out)
            throw InputError(name() + ": the model cannot drive (its plan() gives nothing)");
        const auto rows = static_cast<std::int64_t>(worlds.size());
        const torch::Tensor waypoints = out->waypoints.to(torch::kCPU, torch::kDouble).contiguous();
        const torch::Tensor speeds = out->targetSpeed.to(torch::kCPU, torch::kDouble).reshape({-1}).contiguous();
        if (waypoints.dim() != 3 || waypoints.size(0) != rows || waypoints.size(2) != 2 || speeds.size(0) != rows)
            throw RuntimeError(name() + ": plan() returned waypoints of an unexpected shape");
        const auto w = waypoints.accessor<double, 3>();
        const auto v = speeds.accessor<double, 1>();
        std::vector<DrivingPlan> plans(worlds.size());
        for (std::int64_t b = 0; b < rows; ++b) {
            DrivingPlan& plan = plans[static_cast<std::size_t>(b)];
            for (std::int64_t i = 0; i < waypoints.size(1); ++i)
                plan.waypoints.push_back({w[b][i][0], w[b][i][1]});
            plan.targetSpeedMps = v[b];
        }
        return plans;
    }

private:
    std::int64_t m_runId;
    std::unique_ptr<engine::Model> m_model;
    synth::SensorConfig m_sensors;
    double m_intervalS;
};

// The .model.pt of the run's last post-train checkpoint, else its last checkpoint of any stage.
std::string lastCheckpoint(Store& store, std::int64_t runId)
{
    std::string any, posttrain;
    for (const ArtifactRecord& artifact : store.artifacts(runId)) {
        if (artifact.kind != "checkpoint")
            continue;
        any = artifact.path;
        if (std::filesystem::path(artifact.path).parent_path().filename() ==
            engine::stageName(engine::Stage::Posttrain))
            posttrain = artifact.path;
    }
    const std::string chosen = posttrain.empty() ? any : posttrain;
    if (chosen.empty())
        throw InputError("run " + std::to_string(runId) + " has no checkpoint in " + store.location() +
                         " (train it with 'pitwall train', which records one per epoch)");
    if (!std::filesystem::exists(chosen))
        throw InputError(SourceLocation{chosen}, "checkpoint of run " + std::to_string(runId) + " not found");
    return chosen;
}

} // namespace

std::unique_ptr<DrivingPolicy> loadRunPolicy(Store& store, std::int64_t runId, const ModelPolicyOptions& options,
                                             RunModelInfo* info)
{
    const std::optional<RunRecord> run = store.run(runId);
    if (!run)
        throw InputError("no run " + std::to_string(runId) + " in " + store.location());
    const std::string checkpoint = lastCheckpoint(store, runId);
    const ResolvedConfig config = resolveConfigText(loadSchema(), run->configYaml, "run " + std::to_string(runId));
    const synth::SynthOptions synthOptions = synth::synthOptionsFromConfig(config);
    if (options.threads > 0)
        at::set_num_threads(options.threads);
    std::unique_ptr<engine::Model> model = engine::createModel(config, engine::dataSpecFor(synthOptions.sensors));
    try {
        torch::serialize::InputArchive archive;
        archive.load_from(checkpoint);
        model->module().load(archive);
    } catch (const c10::Error& e) {
        throw InputError(SourceLocation{checkpoint},
                         std::string("cannot load the checkpoint: ") + e.what_without_backtrace());
    }
    model->module().to(torch::kCPU);
    model->module().eval();
    if (info) {
        info->runId = runId;
        info->model = config.getString("experiment.model");
        info->checkpoint = checkpoint;
        info->sensors = synthOptions.sensors;
        info->world = synthOptions.world;
    }
    auto policy = std::make_unique<ModelPolicy>(runId, std::move(model), synthOptions.sensors,
                                                std::max(options.planIntervalS, 0.01));
    synth::WorldOptions probe;
    probe.durationS = 5;
    policy->plan(synth::World::create(0, probe)); // InputError now, not in the middle of a route
    return policy;
}

} // namespace pitwall::drive
