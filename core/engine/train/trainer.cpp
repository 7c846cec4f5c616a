#include "core/engine/train/trainer.h"

#include "core/engine/data/dataset.h"
#include "core/engine/data/loader.h"
#include "core/engine/data/sample.h"
#include "core/engine/synth/dataset.h"
#include "core/engine/train/checkpoint.h"
#include "core/engine/train/dataparallel.h"
#include "core/engine/train/framebatch.h"
#include "core/engine/train/lossscale.h"
#include "core/engine/train/meters.h"
#include "core/engine/train/precision.h"
#include "core/engine/train/schedule.h"
#include "core/engine/train/trainstep.h"
#include "core/store/metricswriter.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <unistd.h>

#include <filesystem>
#include <numeric>
#include <random>

namespace pitwall::engine {

namespace {

constexpr int kWarmupSteps = 2;          // excluded from compute FPS, per stage
constexpr double kMinLr = 0.0;

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string hostName()
{
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
}

// Sample order of an epoch: reproducible from (seed, stage, epoch).
std::vector<std::int64_t> epochOrder(std::int64_t count, std::int64_t seed, Stage stage, int epoch)
{
    std::vector<std::int64_t> order(count);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 1000003ULL + static_cast<std::uint64_t>(stage) * 7919ULL +
                        static_cast<std::uint64_t>(epoch));
    std::shuffle(order.begin(), order.end(), rng);
    return order;
}

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

// The last `fraction` of `count` samples (at least one), checked to leave at least one to train on.
std::int64_t tailCount(std::int64_t count, double fraction, const std::string& what)
{
    const std::int64_t tail = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(count) * fraction));
    if (count - tail < 1)
        throw InputError(what + " has " + std::to_string(count) +
                         " usable sample(s): too few to split into training and validation");
    return tail;
}

// Image batches of detection models (BatchKind::DetectionImages): the dataset split into training and
// validation, the data pipeline's loader for training, and in-order, un-augmented batches for validation.
class DetectionData {
public:
    // The dataset's own splits when it has them (YOLO images/{train,val}, OpenLane cipo/{training,validation}),
    // else the last validationFraction of its samples. With hpoFraction > 0 (data.hpo_split) the validation split
    // is held out and the training split is cut in two: train_hpo, and its last hpoFraction as val_hpo.
    DetectionData(const std::string& dir, const ModelPlan& plan, double validationFraction, double hpoFraction)
        : m_plan(plan)
    {
        namespace fs = std::filesystem;
        const fs::path root(dir);
        std::error_code ec;
        if (fs::is_directory(root / "images" / "train", ec) && fs::is_directory(root / "images" / "val", ec)) {
            m_train = std::make_shared<data::DatasetIndex>(data::indexDataset(dir, "train"));
            m_val = std::make_shared<data::DatasetIndex>(data::indexDataset(dir, "val"));
        } else if (fs::is_directory(root / "cipo" / "training", ec) &&
                   fs::is_directory(root / "cipo" / "validation", ec)) {
            m_train = std::make_shared<data::DatasetIndex>(data::indexDataset(dir, "training"));
            m_val = std::make_shared<data::DatasetIndex>(data::indexDataset(dir, "validation"));
        } else {
            m_train = std::make_shared<data::DatasetIndex>(data::indexDataset(dir));
            m_val = splitTail(*m_train, validationFraction, "the dataset " + dir);
        }
        if (hpoFraction > 0) {
            m_val = splitTail(*m_train, hpoFraction, "the training split of " + dir + " (data.hpo_split)");
            m_trainName = "train_hpo";
        }
        data::SampleOptions sample;
        sample.outputWidth = plan.inputWidth;
        sample.outputHeight = plan.inputHeight;
        sample.augment.enabled = false;
        m_renderer = std::make_unique<data::SampleRenderer>(sample);
    }

    DataSpec spec() const
    {
        DataSpec spec;
        spec.imageWidth = m_plan.inputWidth;
        spec.imageHeight = m_plan.inputHeight;
        if (!m_train->classNames.empty())
            spec.boxClasses = static_cast<int>(m_train->classNames.size());
        return spec;
    }
    std::int64_t trainSize() const { return static_cast<std::int64_t>(m_train->samples.size()); }
    std::int64_t validationSize() const { return static_cast<std::int64_t>(m_val->samples.size()); }
    const std::vector<data::DataProblem>& problems() const { return m_train->problems; }

    std::int64_t stepsPerEpoch(const data::LoaderOptions& options) const
    {
        return data::EpochSampler(trainSize(), options.shard).samplesPerEpoch() / options.batchSize;
    }

    // The training stream of one rank for `epochs` epochs. The loader counts epochs from 0; a resumed stage
    // (firstEpoch > 0) mixes firstEpoch into the shuffling and augmentation seed instead.
    std::unique_ptr<data::BatchLoader> trainLoader(data::LoaderOptions options, int firstEpoch, int epochs) const
    {
        options.sample.outputWidth = m_plan.inputWidth;
        options.sample.outputHeight = m_plan.inputHeight;
        options.sample.augment = m_plan.augment;
        options.epochs = epochs;
        if (firstEpoch > 0)
            options.shard.seed = data::mixWords({options.shard.seed, static_cast<std::uint64_t>(firstEpoch)});
        if (options.usePreprocessed && options.cachePath.empty())
            options.cachePath =
                (std::filesystem::path(m_train->root) / ".pitwall-cache" /
                 (m_trainName + "-" + std::to_string(m_plan.inputWidth) + "x" + std::to_string(m_plan.inputHeight) + ".bin"))
                    .string();
        return data::makeBatchLoader(m_train, options);
    }

    Batch fromLoaded(const data::LoadedBatch& loaded) const
    {
        Batch batch;
        batch.size = loaded.images.size(0);
        batch.tensors["image"] = loaded.images;
        batch.tensors["boxes"] = data::packBoxes(loaded, m_plan.maxBoxes);
        return batch;
    }

    // Validation samples [first, first + count), centred and without augmentation, on the calling thread.
    Batch validationBatch(std::int64_t first, std::int64_t count)
    {
        data::LoadedBatch loaded;
        loaded.images = torch::empty({count, 3, m_plan.inputHeight, m_plan.inputWidth}, torch::kFloat);
        const std::int64_t slot = 3 * m_plan.inputHeight * m_plan.inputWidth;
        for (std::int64_t i = 0; i < count; ++i) {
            const data::SampleKey key{0, 0, first + i, 0};
            data::SampleResult r = m_renderer->render(m_val->samples[static_cast<std::size_t>(first + i)], key,
                                                      loaded.images.data_ptr<float>() + i * slot);
            loaded.boxes.push_back(std::move(r.boxes));
        }
        return fromLoaded(loaded);
    }

private:
    // Moves the last `fraction` of `index`'s samples into a new index (same root and classes) and returns it.
    static std::shared_ptr<data::DatasetIndex> splitTail(data::DatasetIndex& index, double fraction,
                                                         const std::string& what)
    {
        const auto count = static_cast<std::int64_t>(index.samples.size());
        const std::int64_t tail = tailCount(count, fraction, what);
        auto out = std::make_shared<data::DatasetIndex>();
        out->kind = index.kind;
        out->root = index.root;
        out->classNames = index.classNames;
        out->samples.assign(index.samples.end() - tail, index.samples.end());
        index.samples.resize(static_cast<std::size_t>(count - tail));
        return out;
    }

    ModelPlan m_plan;
    std::shared_ptr<data::DatasetIndex> m_train, m_val;
    std::string m_trainName = "train"; // names the pre-processed cache of the training samples
    std::unique_ptr<data::SampleRenderer> m_renderer;
};

// Everything one run needs while it trains.
class Run {
public:
    std::int64_t worldSize() const { return m_parallel ? m_parallel->worldSize() : 1; }
    Run(const TrainRequest& request) : m_request(request), m_config(*request.config) {}

    TrainResult execute();

private:
    StageResult trainStage(Stage stage, int epochs);
    int stageEpochs(Stage stage) const;
    std::map<std::string, double> validate(double& lossOut);
    Batch loadBatch(const std::vector<std::int64_t>& indices) const;
    void metric(const std::string& stage, std::int64_t step, const std::string& key, double value);
    void event(EventLevel level, const std::string& message);

    const TrainRequest& m_request;
    const ResolvedConfig& m_config;
    std::unique_ptr<synth::SynthDataset> m_dataset; // driving frames
    std::unique_ptr<DetectionData> m_detection;     // detection images
    ModelPlan m_plan;
    DataSpec m_spec;
    std::unique_ptr<Model> m_model;
    torch::Device m_device{torch::kCPU};
    Precision m_precision = Precision::Fp32;
    std::unique_ptr<LossScaler> m_scaler; // fp16 only
    std::vector<std::int64_t> m_trainIndices, m_valIndices;
    std::int64_t m_batchSize = 1;
    std::int64_t m_valBatchSize = 1;
    int m_loaderThreads = 1;
    int m_prefetch = 2;
    int m_logEvery = 10;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MetricsWriter> m_writer;
    std::int64_t m_runId = 0;
    std::unique_ptr<CheckpointStore> m_checkpoints;
    std::unique_ptr<DataParallel> m_parallel;
    std::int64_t m_globalBatch = 1; // across all ranks
    bool m_leader = true;           // rank 0: writes the store and checkpoints
    TrainResult m_result;
};

void Run::metric(const std::string& stage, std::int64_t step, const std::string& key, double value)
{
    if (m_leader)
        m_writer->add(MetricSample{m_runId, stage, step, key, value, nowSeconds()});
}

void Run::event(EventLevel level, const std::string& message)
{
    if (m_leader)
        m_store->addEvent(m_runId, level, message);
}

Batch Run::loadBatch(const std::vector<std::int64_t>& indices) const
{
    std::vector<std::map<std::string, torch::Tensor>> samples;
    samples.reserve(indices.size());
    for (std::int64_t i : indices)
        samples.push_back(frameTensors(m_dataset->readFrame(i), m_dataset->sensors().bev, m_spec));
    return collate(samples);
}

std::map<std::string, double> Run::validate(double& lossOut)
{
    torch::NoGradGuard noGrad;
    m_model->module().eval();
    MetricAccumulator metrics;
    double lossSum = 0;
    std::int64_t batches = 0;
    const std::int64_t count =
        m_detection ? m_detection->validationSize() : static_cast<std::int64_t>(m_valIndices.size());
    for (std::int64_t start = 0; start < count; start += m_valBatchSize) {
        const std::int64_t end = std::min(count, start + m_valBatchSize);
        const Batch batch = (m_detection ? m_detection->validationBatch(start, end - start)
                                         : loadBatch({m_valIndices.begin() + start, m_valIndices.begin() + end}))
                                .to(m_device);
        AutocastGuard autocast(m_precision, m_device);
        lossSum += m_model->computeLoss(batch).total.item<double>();
        m_model->evaluate(batch, metrics);
        ++batches;
    }
    m_model->module().train();
    lossOut = batches ? lossSum / batches : 0.0;
    return m_model->finishMetrics(metrics);
}

StageResult Run::trainStage(Stage stage, int epochs)
{
    const std::string name = stageName(stage);
    StageResult result;
    result.stage = name;
    result.epochs = epochs;
    m_model->setStage(stage);
    const auto parameters = m_model->trainableParameters();
    data::LoaderOptions loaderOptions;
    if (m_detection) {
        loaderOptions = data::loaderOptionsFromConfig(m_config, static_cast<std::uint64_t>(m_request.seed),
                                                      m_request.rank, static_cast<int>(worldSize()));
        loaderOptions.batchSize = static_cast<int>(m_batchSize);
        if (loaderOptions.threads == 0)
            loaderOptions.threads = m_loaderThreads;
    }
    const std::int64_t stepsPerEpoch =
        m_detection ? m_detection->stepsPerEpoch(loaderOptions)
                    : std::max<std::int64_t>(1, static_cast<std::int64_t>(m_trainIndices.size()) / m_globalBatch);
    std::unique_ptr<Optimization> optimization =
        m_model->makeOptimization(StagePlan{stage, epochs, stepsPerEpoch, m_batchSize, static_cast<int>(worldSize())});
    if (!optimization)
        optimization = std::make_unique<DefaultOptimization>(parameters, m_config, stepsPerEpoch);
    torch::optim::Optimizer& optimizer = optimization->optimizer();
    const int accumulate = std::max(1, optimization->accumulate());
    const CapturePlan capture = planStepCapture(m_config, m_device, m_model->supportsStepCapture(), accumulate,
                                                m_config.getString("experiment.model"));
    if (!capture.notice.empty()) {
        event(EventLevel::Info, name + ": " + capture.notice);
        if (std::find(m_result.notices.begin(), m_result.notices.end(), capture.notice) == m_result.notices.end())
            m_result.notices.push_back(capture.notice);
    }
    TrainStep trainStep(*m_model, m_device, m_precision, capture.capture, m_scaler.get());
    const std::int64_t rankOffset = m_parallel ? m_parallel->rank() * m_batchSize : 0;

    int firstEpoch = 0;
    std::int64_t globalStep = 0;
    nlohmann::json meters = nlohmann::json::object();
    if (m_request.resume)
        if (auto done = m_checkpoints->latest(stage)) {
            m_checkpoints->loadModel(stage, done->epoch, *m_model);
            m_checkpoints->loadOptimizer(stage, done->epoch, optimizer);
            firstEpoch = done->epoch + 1;
            globalStep = done->globalStep;
            meters = done->meters;
            result.resumedFromEpoch = firstEpoch;
            if (m_scaler)
                m_scaler->restore(meters.value("loss_scale", 0.0));
            event(EventLevel::Info, name + ": resumed after epoch " + std::to_string(done->epoch + 1) + " of " +
                                        std::to_string(epochs));
        }
    if (firstEpoch == 0 && stage == Stage::Posttrain) {
        // LEAD's post-train loads the last pretrain weights; optimiser and epoch counter start afresh.
        if (auto pre = m_checkpoints->latest(Stage::Pretrain)) {
            m_checkpoints->loadModel(Stage::Pretrain, pre->epoch, *m_model);
            event(EventLevel::Info, "posttrain: loaded pretrain weights of epoch " + std::to_string(pre->epoch + 1));
        }
    }

    const auto stageStart = Clock::now();
    double stageSamples = meters.value("samples", 0.0), stageStepSeconds = meters.value("step_seconds", 0.0);
    double stageWallSeconds = meters.value("wall_seconds", 0.0), stageWaitMs = meters.value("wait_ms", 0.0);
    std::int64_t stageSteps = meters.value("steps", std::int64_t(0));
    double lastLoss = meters.value("last_loss", 0.0);
    result.validation = meters.value("validation", std::map<std::string, double>{});
    int warmupLeft = firstEpoch == 0 ? kWarmupSteps : 0;
    std::unique_ptr<data::BatchLoader> loader; // detection: one stream over the stage's remaining epochs
    if (m_detection && firstEpoch < epochs)
        loader = m_detection->trainLoader(loaderOptions, firstEpoch, epochs - firstEpoch);

    for (int epoch = firstEpoch; epoch < epochs; ++epoch) {
        if (m_request.cancel && m_request.cancel->load())
            break;
        std::function<bool(Batch&)> nextBatch;
        std::unique_ptr<BatchPrefetcher> prefetcher;
        if (m_detection) {
            nextBatch = [&](Batch& batch) {
                data::LoadedBatch loaded;
                if (!loader->next(loaded))
                    return false;
                batch = m_detection->fromLoaded(loaded);
                return true;
            };
        } else {
            const auto order =
                epochOrder(static_cast<std::int64_t>(m_trainIndices.size()), m_request.seed, stage, epoch);
            prefetcher = std::make_unique<BatchPrefetcher>(
                stepsPerEpoch, m_loaderThreads, m_prefetch, [&, order](std::int64_t b) {
                    std::vector<std::int64_t> indices;
                    // Global batch b covers order[b*G, (b+1)*G); this rank takes its slice of it.
                    for (std::int64_t i = b * m_globalBatch + rankOffset;
                         i < b * m_globalBatch + rankOffset + m_batchSize; ++i)
                        indices.push_back(m_trainIndices[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]);
                    Batch batch = loadBatch(indices);
                    if (m_device.is_cuda()) // page-locked host memory makes the copy to the GPU asynchronous
                        for (auto& [key, tensor] : batch.tensors)
                            tensor = tensor.pin_memory();
                    return batch;
                });
            nextBatch = [&](Batch& batch) { return prefetcher->next(batch); };
        }
        CpuMeter cpu;
        const auto epochStart = Clock::now();
        double epochSamples = 0, epochStepSeconds = 0, epochLossSum = 0, epochWaitMs = 0;
        std::int64_t measuredSamples = 0;
        Batch cpuBatch;
        bool interrupted = false;
        for (std::int64_t step = 1; step <= stepsPerEpoch; ++step) {
            if (m_request.cancel && m_request.cancel->load()) {
                interrupted = true;
                break;
            }
            const auto waitStart = Clock::now();
            if (!nextBatch(cpuBatch))
                break;
            const double waitMs = secondsSince(waitStart) * 1000.0;
            const auto stepStart = Clock::now();
            const Batch batch = cpuBatch.to(m_device, m_device.is_cuda());
            const double lr = optimization->setLearningRate(globalStep);
            if (step == 1)
                trainStep.clearGradients(optimizer);
            const LossOutput loss = trainStep.run(batch);
            if (m_parallel)
                m_parallel->averageGradients(parameters);
            if (step % accumulate == 0 || step == stepsPerEpoch) {
                // fp16: a step whose gradients overflowed is skipped and the loss scale backed off.
                const bool finite = !m_scaler || m_scaler->unscale(parameters);
                if (finite) {
                    optimization->beforeOptimizerStep();
                    optimizer.step();
                }
                trainStep.clearGradients(optimizer);
                if (finite)
                    optimization->afterOptimizerStep();
                if (m_scaler)
                    m_scaler->update(finite);
            }
            synchronize(m_device);
            const double lossValue = loss.total.item<double>();
            const double stepSeconds = secondsSince(stepStart);
            ++globalStep;
            if (!std::isfinite(lossValue))
                throw RuntimeError(name + " epoch " + std::to_string(epoch + 1) + " step " + std::to_string(step) +
                                   ": the loss is " + std::to_string(lossValue) + " (diverged)");
            const bool warmup = warmupLeft > 0;
            if (warmup) {
                --warmupLeft;
            } else {
                epochStepSeconds += stepSeconds;
                measuredSamples += batch.size * worldSize();
            }
            epochSamples += static_cast<double>(batch.size * worldSize());
            epochLossSum += lossValue;
            epochWaitMs += waitMs;
            const std::int64_t logStep = globalStep;
            if (step % m_logEvery == 0 || step == stepsPerEpoch || warmup) {
                metric(name, logStep, "loss", lossValue);
                for (const auto& [head, value] : loss.heads)
                    metric(name, logStep, "loss/" + head, value.item<double>());
                metric(name, logStep, "lr", lr);
                metric(name, logStep, "data_wait_ms", waitMs);
                metric(name, logStep, "step_ms", stepSeconds * 1000.0);
                if (m_scaler)
                    metric(name, logStep, "loss_scale", m_scaler->value());
                if (warmup)
                    metric(name, logStep, "warmup", 1.0);
                else
                    metric(name, logStep, "compute_fps", static_cast<double>(batch.size * worldSize()) / stepSeconds);
            }
            if (m_request.progress && m_leader) {
                TrainProgress p{name, epoch, epochs, step, stepsPerEpoch, lossValue,
                                epochStepSeconds > 0 ? static_cast<double>(measuredSamples) / epochStepSeconds : 0.0};
                m_request.progress(p);
            }
        }
        // A cancelled epoch is not an epoch: no validation, metrics or checkpoint for it, so that --resume trains
        // it again from its start (from the last finished epoch's checkpoint) instead of skipping its rest.
        if (interrupted)
            break;
        const double epochWall = secondsSince(epochStart);
        const double cpuPercent = cpu.percentAndRestart();
        double valLoss = 0;
        const auto validation = m_leader ? validate(valLoss) : std::map<std::string, double>{};
        const std::int64_t epochSteps = stepsPerEpoch;
        stageSamples += epochSamples;
        stageStepSeconds += epochStepSeconds;
        stageWallSeconds += epochWall;
        stageWaitMs += epochWaitMs;
        stageSteps += epochSteps;
        lastLoss = epochLossSum / static_cast<double>(epochSteps);
        result.validation = validation;
        result.validation["loss"] = valLoss;

        metric(name, globalStep, "epoch", epoch + 1);
        metric(name, globalStep, "epoch_loss", lastLoss);
        metric(name, globalStep, "full_fps", epochSamples / epochWall);
        if (epochStepSeconds > 0)
            metric(name, globalStep, "epoch_compute_fps", static_cast<double>(measuredSamples) / epochStepSeconds);
        metric(name, globalStep, "cpu_percent", cpuPercent);
        if (m_scaler)
            metric(name, globalStep, "fp16_skipped_steps", static_cast<double>(m_scaler->skippedSteps()));
        metric(name, globalStep, "peak_memory_bytes", static_cast<double>(peakResidentBytes()));
        for (const auto& [key, value] : result.validation)
            metric(name, globalStep, "val/" + key, value);
        if (!m_leader)
            continue; // the leader validates, logs and saves; the others go on to the next epoch
        m_writer->flush();

        nlohmann::json epochMeters{{"samples", stageSamples},    {"step_seconds", stageStepSeconds},
                                   {"wall_seconds", stageWallSeconds}, {"wait_ms", stageWaitMs},
                                   {"steps", stageSteps},        {"last_loss", lastLoss},
                                   {"validation", result.validation}};
        if (m_scaler)
            epochMeters["loss_scale"] = m_scaler->value();
        m_checkpoints->save(stage, CheckpointInfo{epoch, globalStep, epochMeters}, *m_model, optimizer);
        ArtifactRecord artifact;
        artifact.runId = m_runId;
        artifact.kind = "checkpoint";
        artifact.path = std::filesystem::absolute(m_checkpoints->modelFile(stage, epoch)).string();
        artifact.description = name + " epoch " + std::to_string(epoch + 1) + "/" + std::to_string(epochs);
        artifact.time = nowSeconds();
        m_store->addArtifact(artifact);
        if (m_request.progress) {
            TrainProgress p{name, epoch, epochs, stepsPerEpoch, stepsPerEpoch, lastLoss,
                            epochStepSeconds > 0 ? static_cast<double>(measuredSamples) / epochStepSeconds : 0.0};
            p.epochDone = true;
            p.validation = result.validation;
            m_request.progress(p);
        }
    }
    if (m_parallel)
        m_parallel->barrier(); // the leader's last checkpoint is on disk before any rank goes on (post-train loads it)
    result.seconds = stageWallSeconds;
    result.computeFps = stageStepSeconds > 0
                            ? (stageSamples - static_cast<double>(kWarmupSteps * m_globalBatch)) / stageStepSeconds
                            : 0.0;
    result.fullFps = stageWallSeconds > 0 ? stageSamples / stageWallSeconds : 0.0;
    result.dataWaitMs = stageSteps > 0 ? stageWaitMs / static_cast<double>(stageSteps) : 0.0;
    result.finalLoss = lastLoss;
    metric(name, globalStep, "stage_seconds/" + name, result.seconds);
    metric(name, globalStep, "stage_compute_fps", result.computeFps);
    metric(name, globalStep, "stage_full_fps", result.fullFps);
    (void)stageStart;
    return result;
}

int Run::stageEpochs(Stage stage) const
{
    if (m_plan.epochs >= 0) // the model's own epochs key: a single stage
        return stage == Stage::Pretrain ? m_plan.epochs : 0;
    return static_cast<int>(m_config.getInt(stage == Stage::Pretrain ? "training.stages.pretrain.epochs"
                                                                     : "training.stages.posttrain.epochs"));
}

TrainResult Run::execute()
{
    // Everything that can be wrong with the input is checked before the store is touched.
    m_plan = modelPlan(m_config);
    const double validationFraction = m_config.getDouble("data.validation_fraction");
    const double hpoFraction = m_config.getBool("data.hpo_split") ? m_config.getDouble("data.hpo_validation_fraction") : 0.0;
    if (m_plan.batches == BatchKind::DetectionImages) {
        m_detection = std::make_unique<DetectionData>(m_request.dataDir, m_plan, validationFraction, hpoFraction);
        m_spec = m_detection->spec();
    } else {
        m_dataset = std::make_unique<synth::SynthDataset>(synth::SynthDataset::open(m_request.dataDir));
        m_spec = dataSpecFor(m_dataset->sensors());
    }
    m_device = deviceFor(m_config, m_request.device);
    m_precision = precisionFor(m_config, m_device);
    if (m_precision == Precision::Fp16)
        m_scaler = std::make_unique<LossScaler>(m_device);
    if (!m_device.is_cpu() && m_config.getBool("training.optimization.use_torch_compile") &&
        m_config.getString("training.optimization.torch_compile_mode") == "max-autotune")
        at::globalContext().setBenchmarkCuDNN(true); // each convolution shape is timed once, the fastest kept
    const int world = std::max(1, m_request.worldSize);
    if (world > 1) // checked here, before any data is read
        collectiveBackendFor(m_config.getString("training.distribution.backend"), m_device,
                             m_config.getString("device.partition_mode"));
    if (m_plan.batchSize > 0) { // the model's own key: a batch per logical device
        m_batchSize = m_plan.batchSize;
    } else {
        m_globalBatch = m_config.getInt("training.optimization.batch_size");
        if (m_globalBatch < world)
            throw InputError("training.optimization.batch_size=" + std::to_string(m_globalBatch) +
                             " is smaller than the " + std::to_string(world) +
                             " logical devices the run spans (one sample each at least)");
        m_batchSize = m_globalBatch / world; // per rank, as LEAD: batch_size // device_count
    }
    m_globalBatch = m_batchSize * world;
    m_valBatchSize = m_plan.validationBatchSize > 0 ? m_plan.validationBatchSize : m_batchSize;
    m_leader = m_request.rank == 0;
    std::int64_t trainCount = 0;
    if (m_detection) {
        trainCount = m_detection->trainSize();
    } else {
        // Frames [0, trainCount) train and [valFirst, valEnd) validate: the last validation_fraction, or under
        // data.hpo_split the last hpo_validation_fraction of the training part (the rest stays held out).
        const std::int64_t frames = m_dataset->size();
        trainCount = frames - tailCount(frames, validationFraction, "the dataset " + m_request.dataDir);
        std::int64_t valFirst = trainCount, valEnd = frames;
        if (hpoFraction > 0) {
            valEnd = trainCount;
            trainCount -= tailCount(trainCount, hpoFraction,
                                    "the training part of " + m_request.dataDir + " (data.hpo_split)");
            valFirst = trainCount;
        }
        for (std::int64_t i = 0; i < trainCount; ++i)
            m_trainIndices.push_back(i);
        for (std::int64_t i = valFirst; i < valEnd; ++i)
            m_valIndices.push_back(i);
    }
    if (trainCount < m_globalBatch)
        throw InputError("the dataset " + m_request.dataDir + " leaves " + std::to_string(trainCount) +
                         " sample(s) for training after the validation split" +
                         (hpoFraction > 0 ? std::string(" and data.hpo_split") : std::string()) +
                         ", fewer than one batch of " + std::to_string(m_globalBatch) +
                         " (make more frames or lower the batch size)");

    const int threads = m_config.getInt("training.optimization.num_threads") > 0
                            ? static_cast<int>(m_config.getInt("training.optimization.num_threads"))
                            : std::max(1, m_request.device.threads);
    at::set_num_threads(threads);
    m_loaderThreads = m_config.getInt("data.num_workers") > 0 ? static_cast<int>(m_config.getInt("data.num_workers"))
                                                              : std::max(1, threads / 2);
    m_prefetch = static_cast<int>(m_config.getInt("data.prefetch_batches"));
    m_logEvery = static_cast<int>(m_config.getInt("training.experiment.log_scalars_every_n_steps"));
    torch::manual_seed(static_cast<std::uint64_t>(m_request.seed));
    m_model = createModel(m_config, m_spec);
    m_model->module().to(m_device);
    m_model->module().train();
    m_result.notices = precisionNotices(m_config, m_device);
    for (const std::string& note : m_model->notices())
        m_result.notices.push_back(note);
    m_checkpoints = std::make_unique<CheckpointStore>(m_request.checkpointDir);
    if (world > 1) {
        m_parallel = std::make_unique<DataParallel>(
            m_request.rank, world, m_request.rendezvous, std::chrono::minutes(5),
            collectiveBackendFor(m_config.getString("training.distribution.backend"), m_device,
                                 m_config.getString("device.partition_mode")),
            m_device);
        std::vector<torch::Tensor> state = m_model->module().parameters();
        for (const auto& b : m_model->module().buffers())
            state.push_back(b);
        m_parallel->broadcast(state); // every rank starts from rank 0's weights
    }
    if (!m_leader) {
        m_result = TrainResult{};
        for (const Stage stage : {Stage::Pretrain, Stage::Posttrain})
            if (const int epochs = stageEpochs(stage); epochs > 0)
                m_result.stages.push_back(trainStage(stage, epochs));
        return m_result;
    }

    m_store = openStore(m_request.storeLocation);
    RunRecord record;
    record.trialId = m_request.trialId;
    record.kind = "train";
    record.configYaml = m_config.toYaml();
    record.seed = m_request.seed;
    record.logicalDevice = m_request.device.id.empty() ? std::string("cpu:0.0") : m_request.device.id;
    if (world > 1)
        record.logicalDevice += " (rank 0 of " + std::to_string(world) + ")";
    record.host = hostName();
    record.pid = getpid();
    record.startTime = nowSeconds();
    m_runId = m_store->createRun(record);
    m_result.runId = m_runId;
    m_writer = std::make_unique<MetricsWriter>(m_request.storeLocation);
    for (const std::string& note : m_result.notices)
        event(EventLevel::Info, note);
    if (m_detection)
        for (const data::DataProblem& problem : m_detection->problems())
            event(EventLevel::Warning, "data: " + problem.file + ": " + problem.reason);

    const auto start = Clock::now();
    try {
        for (const Stage stage : {Stage::Pretrain, Stage::Posttrain}) {
            const int epochs = stageEpochs(stage);
            if (epochs == 0)
                continue;
            event(EventLevel::Info, std::string(stageName(stage)) + ": " + std::to_string(epochs) + " epoch(s), " +
                                        std::to_string(m_detection ? m_detection->trainSize()
                                                                   : static_cast<std::int64_t>(m_trainIndices.size())) +
                                        " training frames, " +
                                        std::to_string(m_detection ? m_detection->validationSize()
                                                                   : static_cast<std::int64_t>(m_valIndices.size())) +
                                        (m_config.getBool("data.hpo_split") ? " val_hpo" : " validation") +
                                        " frames, batch " + std::to_string(m_batchSize));
            m_result.stages.push_back(trainStage(stage, epochs));
            m_result.finalMetrics = m_result.stages.back().validation;
            if (m_request.cancel && m_request.cancel->load())
                break;
        }
        m_result.cancelled = m_request.cancel && m_request.cancel->load();
        m_result.totalSeconds = secondsSince(start);
        m_writer->flush();
        m_store->finishRun(m_runId, m_result.cancelled ? RunStatus::Cancelled : RunStatus::Succeeded, 0,
                           m_result.cancelled ? "cancelled" : "");
    } catch (const std::exception& e) {
        try {
            m_writer->flush();
        } catch (const std::exception&) {
        }
        m_store->finishRun(m_runId, RunStatus::Failed, 1, e.what());
        throw;
    }
    return m_result;
}

} // namespace

TrainResult train(const TrainRequest& request)
{
    if (!request.config)
        throw RuntimeError("train: no configuration given");
    Run run(request);
    return run.execute();
}

} // namespace pitwall::engine
