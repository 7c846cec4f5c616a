#include "core/engine/train/run.h"

#include "core/engine/data/augment.h"

#include "core/engine/train/schedule.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <filesystem>

namespace pitwall::engine::internal {

namespace {

constexpr double kMinLr = 0.0;

// The trainer's own optimisation (LEAD's recipe): AdamW (amsgrad) with cosine warm restarts, one cycle of
// stepsPerEpoch batches first, stepped per batch.
class DefaultOptimization final : public Optimization {
public:
    DefaultOptimization(const std::vector<torch::Tensor>& parameters, const ResolvedConfig& config,
                        std::int64_t stepsPerEpoch)
        : m_optimizer(parameters, torch::optim::AdamWOptions(config.getDouble("training.optimization.lr"))
                                      .weight_decay(config.getDouble("training.optimization.weight_decay"))
                                      .amsgrad(true)),
          m_baseLr(config.getDouble("training.optimization.lr")), m_stepsPerEpoch(stepsPerEpoch)
    {
    }
    torch::optim::Optimizer& optimizer() override { return m_optimizer; }
    double setLearningRate(std::int64_t batch) override
    {
        const double lr = cosineWarmRestartsLr(batch, m_stepsPerEpoch, m_baseLr, kMinLr);
        for (auto& group : m_optimizer.param_groups())
            static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
        return lr;
    }

private:
    torch::optim::AdamW m_optimizer;
    double m_baseLr;
    std::int64_t m_stepsPerEpoch;
};

// What a progress callback sees after `step` of `epoch`.
TrainProgress progressOf(const StageContext& context, int epoch, std::int64_t step, double loss, double computeFps)
{
    TrainProgress progress;
    progress.stage = context.name;
    progress.epoch = epoch;
    progress.epochs = context.epochs;
    progress.step = step;
    progress.stepsPerEpoch = context.stepsPerEpoch;
    progress.loss = loss;
    progress.computeFps = computeFps;
    return progress;
}

} // namespace

StageResult Run::trainStage(Stage stage, int epochs)
{
    StageContext context = beginStage(stage, epochs);
    StageResult result;
    result.stage = context.name;
    result.epochs = epochs;
    const int firstEpoch = restoreStage(context);
    result.resumedFromEpoch = firstEpoch;
    context.warmupLeft = firstEpoch == 0 ? kWarmupSteps : 0;
    m_batches->startStage(stage, firstEpoch, epochs);
    for (int epoch = firstEpoch; epoch < epochs; ++epoch) {
        if (cancelled())
            break;
        const EpochMeters meters = trainEpoch(context, epoch);
        // A cancelled epoch is not validated or checkpointed, so that --resume trains it again from its start
        // (from the last finished epoch's checkpoint) instead of skipping its rest.
        if (meters.interrupted)
            break;
        finishEpoch(context, epoch, meters);
    }
    m_batches->stopStage();
    if (m_parallel)
        m_parallel->barrier(); // the leader's last checkpoint is on disk before any rank goes on (post-train loads it)
    return summarise(context, result);
}

// The stage's parameters, optimisation and step; nothing trained yet.
StageContext Run::beginStage(Stage stage, int epochs)
{
    StageContext context;
    context.stage = stage;
    context.name = stageName(stage);
    context.epochs = epochs;
    m_model->setStage(stage);
    context.parameters = m_model->trainableParameters();
    context.stepsPerEpoch = m_batches->stepsPerEpoch();
    context.optimization = m_model->makeOptimization(
        StagePlan{stage, epochs, context.stepsPerEpoch, m_batchSize, static_cast<int>(worldSize())});
    if (!context.optimization)
        context.optimization =
            std::make_unique<DefaultOptimization>(context.parameters, m_config, context.stepsPerEpoch);
    context.accumulate = std::max(1, context.optimization->accumulate());
    const CapturePlan capture = planStepCapture(m_config, m_device, m_model->supportsStepCapture(), context.accumulate,
                                                m_config.getString("experiment.model"));
    if (!capture.notice.empty()) {
        event(EventLevel::Info, context.name + ": " + capture.notice);
        if (std::find(m_result.notices.begin(), m_result.notices.end(), capture.notice) == m_result.notices.end())
            m_result.notices.push_back(capture.notice);
    }
    context.trainStep = std::make_unique<TrainStep>(*m_model, m_device, m_precision, capture.capture, m_scaler.get());
    return context;
}

// Under resume, the stage's last finished epoch (weights, optimiser, meters); else for post-train the last pretrain
// weights (LEAD: optimiser and epoch counter start afresh). Returns the first epoch left to train.
int Run::restoreStage(StageContext& context)
{
    int firstEpoch = 0;
    if (m_request.resume)
        if (auto done = m_checkpoints->latest(context.stage)) {
            m_checkpoints->loadModel(context.stage, done->epoch, *m_model);
            m_checkpoints->loadOptimizer(context.stage, done->epoch, context.optimization->optimizer());
            firstEpoch = done->epoch + 1;
            context.globalStep = done->globalStep;
            context.meters = done->meters;
            if (m_scaler)
                m_scaler->restore(context.meters.lossScale);
            event(EventLevel::Info, context.name + ": resumed after epoch " + std::to_string(done->epoch + 1) + " of " +
                                        std::to_string(context.epochs));
        }
    if (firstEpoch == 0 && context.stage == Stage::Posttrain)
        if (auto pre = m_checkpoints->latest(Stage::Pretrain)) {
            m_checkpoints->loadModel(Stage::Pretrain, pre->epoch, *m_model);
            event(EventLevel::Info, "posttrain: loaded pretrain weights of epoch " + std::to_string(pre->epoch + 1));
        }
    return firstEpoch;
}

EpochMeters Run::trainEpoch(StageContext& context, int epoch)
{
    // Torch's generator (dropout) starts every epoch from (seed, stage, epoch), so an epoch trained after a
    // resume draws exactly what it drew in an uninterrupted run: the state is not in any checkpoint.
    torch::manual_seed(data::mixWords({static_cast<std::uint64_t>(m_request.seed), static_cast<std::uint64_t>(context.stage),
                                       static_cast<std::uint64_t>(epoch), 0x546f726368ull /*"Torch"*/}));
    m_batches->startEpoch(epoch);
    CpuMeter cpu;
    const auto epochStart = Clock::now();
    EpochMeters meters;
    meters.steps = context.stepsPerEpoch;
    Batch cpuBatch;
    for (std::int64_t step = 1; step <= context.stepsPerEpoch; ++step) {
        if (cancelled()) {
            meters.interrupted = true;
            break;
        }
        const auto waitStart = Clock::now();
        if (!m_batches->next(cpuBatch))
            break;
        const double waitMs = secondsSince(waitStart) * 1000.0;
        const StepOutcome outcome = trainBatch(context, cpuBatch, step);
        ++context.globalStep;
        if (!std::isfinite(outcome.lossValue))
            throw RuntimeError(context.name + " epoch " + std::to_string(epoch + 1) + " step " + std::to_string(step) +
                               ": the loss is " + std::to_string(outcome.lossValue) + " (diverged)");
        const bool warmup = context.warmupLeft > 0;
        if (warmup) {
            --context.warmupLeft;
        } else {
            meters.stepSeconds += outcome.stepSeconds;
            meters.measuredSamples += outcome.samples;
        }
        meters.samples += static_cast<double>(outcome.samples);
        meters.lossSum += outcome.lossValue;
        meters.waitMs += waitMs;
        if (step % m_logEvery == 0 || step == context.stepsPerEpoch || warmup)
            logStep(context, outcome, waitMs, warmup);
        if (m_request.progress && m_leader)
            m_request.progress(progressOf(context, epoch, step, outcome.lossValue, meters.computeFps()));
    }
    meters.wallSeconds = secondsSince(epochStart);
    meters.cpuPercent = cpu.percentAndRestart();
    return meters;
}

// Forward and backward of one batch, the gradients averaged over ranks, and every `accumulate` batches (and at the
// epoch's last) the optimiser step. Timed from the batch's arrival to finished device work.
StepOutcome Run::trainBatch(StageContext& context, const Batch& cpuBatch, std::int64_t step)
{
    StepOutcome outcome;
    const auto stepStart = Clock::now();
    const Batch batch = cpuBatch.to(m_device, m_device.is_cuda());
    torch::optim::Optimizer& optimizer = context.optimization->optimizer();
    outcome.lr = context.optimization->setLearningRate(context.globalStep);
    if (step == 1)
        context.trainStep->clearGradients(optimizer);
    outcome.loss = context.trainStep->run(batch);
    if (m_parallel)
        m_parallel->averageGradients(context.parameters);
    if (step % context.accumulate == 0 || step == context.stepsPerEpoch) {
        // fp16: a step whose gradients overflowed is skipped and the loss scale backed off.
        const bool finite = !m_scaler || m_scaler->unscale(context.parameters);
        if (finite) {
            context.optimization->beforeOptimizerStep();
            optimizer.step();
        }
        context.trainStep->clearGradients(optimizer);
        if (finite)
            context.optimization->afterOptimizerStep();
        if (m_scaler)
            m_scaler->update(finite);
    }
    synchronize(m_device);
    outcome.lossValue = outcome.loss.total.item<double>();
    outcome.stepSeconds = secondsSince(stepStart);
    outcome.samples = batch.size * worldSize();
    return outcome;
}

void Run::logStep(const StageContext& context, const StepOutcome& outcome, double waitMs, bool warmup)
{
    const std::string& name = context.name;
    const std::int64_t step = context.globalStep;
    metric(name, step, "loss", outcome.lossValue);
    for (const auto& [head, value] : outcome.loss.heads)
        metric(name, step, "loss/" + head, value.item<double>());
    metric(name, step, "lr", outcome.lr);
    metric(name, step, "data_wait_ms", waitMs);
    metric(name, step, "step_ms", outcome.stepSeconds * 1000.0);
    if (m_scaler)
        metric(name, step, "loss_scale", m_scaler->value());
    if (warmup)
        metric(name, step, "warmup", 1.0);
    else
        metric(name, step, "compute_fps", static_cast<double>(outcome.samples) / outcome.stepSeconds);
}

// Validation (the leader's), the epoch's metrics and, on the leader, its checkpoint and progress report.
void Run::finishEpoch(StageContext& context, int epoch, const EpochMeters& meters)
{
    double valLoss = 0;
    const auto validation = m_leader ? validate(valLoss) : std::map<std::string, double>{};
    context.meters.add(meters);
    context.meters.validation = validation;
    context.meters.validation["loss"] = valLoss;
    if (m_scaler)
        context.meters.lossScale = m_scaler->value();

    const std::string& name = context.name;
    const std::int64_t step = context.globalStep;
    metric(name, step, "epoch", epoch + 1);
    metric(name, step, "epoch_loss", context.meters.lastLoss);
    metric(name, step, "full_fps", meters.samples / meters.wallSeconds);
    if (meters.stepSeconds > 0)
        metric(name, step, "epoch_compute_fps", meters.computeFps());
    metric(name, step, "cpu_percent", meters.cpuPercent);
    if (m_scaler)
        metric(name, step, "fp16_skipped_steps", static_cast<double>(m_scaler->skippedSteps()));
    metric(name, step, "peak_memory_bytes", static_cast<double>(peakResidentBytes()));
    for (const auto& [key, value] : context.meters.validation)
        metric(name, step, "val/" + key, value);
    if (!m_leader)
        return; // the leader validates, logs and saves; the others go on to the next epoch
    m_writer->flush();
    saveCheckpoint(context, epoch);
    if (m_request.progress) {
        TrainProgress progress =
            progressOf(context, epoch, context.stepsPerEpoch, context.meters.lastLoss, meters.computeFps());
        progress.epochDone = true;
        progress.lastEpoch = epoch + 1 == context.epochs &&
                             (context.stage == Stage::Posttrain || stageEpochs(Stage::Posttrain) == 0);
        progress.validation = context.meters.validation;
        m_request.progress(progress);
    }
}

void Run::saveCheckpoint(const StageContext& context, int epoch)
{
    m_checkpoints->save(context.stage, CheckpointInfo{epoch, context.globalStep, context.meters}, *m_model,
                        context.optimization->optimizer());
    ArtifactRecord artifact;
    artifact.runId = m_runId;
    artifact.kind = "checkpoint";
    artifact.path = std::filesystem::absolute(m_checkpoints->modelFile(context.stage, epoch)).string();
    artifact.description = context.name + " epoch " + std::to_string(epoch + 1) + "/" + std::to_string(context.epochs);
    artifact.time = nowSeconds();
    m_store->addArtifact(artifact);
}

StageResult Run::summarise(const StageContext& context, StageResult result)
{
    const StageMeters& m = context.meters;
    result.seconds = m.wallSeconds;
    result.computeFps =
        m.stepSeconds > 0 ? (m.samples - static_cast<double>(kWarmupSteps * m_globalBatch)) / m.stepSeconds : 0.0;
    result.fullFps = m.wallSeconds > 0 ? m.samples / m.wallSeconds : 0.0;
    result.dataWaitMs = m.steps > 0 ? m.waitMs / static_cast<double>(m.steps) : 0.0;
    result.msPerIteration = m.steps > 0 ? m.wallSeconds * 1000.0 / static_cast<double>(m.steps) : 0.0;
    result.finalLoss = m.lastLoss;
    result.validation = m.validation;
    metric(context.name, context.globalStep, "stage_seconds/" + context.name, result.seconds);
    metric(context.name, context.globalStep, "stage_compute_fps", result.computeFps);
    metric(context.name, context.globalStep, "stage_full_fps", result.fullFps);
    return result;
}

} // namespace pitwall::engine::internal
