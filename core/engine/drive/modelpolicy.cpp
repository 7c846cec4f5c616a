#include "core/engine/drive/modelpolicy.h"

#include "core/config/schema.h"
#include "core/engine/model/modelapi.h"
#include "core/engine/train/framebatch.h"
#include "core/synth/dataset.h"
#include "core/util/error.h"

#include <filesystem>

namespace pitwall::drive {

namespace {

class ModelPolicy : public DrivingPolicy {
public:
    ModelPolicy(std::int64_t runId, std::unique_ptr<engine::Model> model, const synth::SensorConfig& sensors,
                double intervalS)
        : m_runId(runId), m_model(std::move(model)), m_sensors(sensors), m_spec(engine::dataSpecFor(sensors)),
          m_intervalS(intervalS)
    {
    }

    std::string name() const override { return "run " + std::to_string(m_runId); }
    double planIntervalS() const override { return m_intervalS; }

    DrivingPlan plan(const synth::World& world) override
    {
        torch::NoGradGuard noGrad;
        const synth::Frame frame = synth::renderFrame(world, m_sensors);
        auto tensors = engine::frameTensors(frame, m_sensors.bev, m_spec);
        tensors["command"] = torch::tensor(static_cast<std::int64_t>(routeCommand(world)));
        const engine::Batch batch = engine::collate({tensors});
        const std::optional<engine::PlanOutput> out = m_model->plan(batch);
        if (!out)
            throw InputError(name() + ": the model cannot drive (its plan() gives nothing)");
        const torch::Tensor waypoints = out->waypoints.to(torch::kCPU, torch::kDouble).contiguous();
        if (waypoints.dim() != 3 || waypoints.size(0) != 1 || waypoints.size(2) != 2)
            throw RuntimeError(name() + ": plan() returned waypoints of an unexpected shape");
        DrivingPlan plan;
        const auto w = waypoints.accessor<double, 3>();
        for (std::int64_t i = 0; i < waypoints.size(1); ++i)
            plan.waypoints.push_back({w[0][i][0], w[0][i][1]});
        plan.targetSpeedMps = out->targetSpeed.to(torch::kCPU, torch::kDouble).reshape({-1})[0].item<double>();
        return plan;
    }

private:
    std::int64_t m_runId;
    std::unique_ptr<engine::Model> m_model;
    synth::SensorConfig m_sensors;
    engine::DataSpec m_spec;
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
