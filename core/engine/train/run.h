#pragma once
// The trainer behind train() (trainer.h): one run of one seed on one logical device. trainer.cpp prepares the run
// (input checks, the batch source, the model, the store) and trains its stages; trainstage.cpp is the stage loop
// (epochs, steps, validation, checkpoints, meters). Engine-internal: includes torch; only those two files use it.

#include "core/engine/train/batchsource.h"
#include "core/engine/train/checkpoint.h"
#include "core/engine/train/dataparallel.h"
#include "core/engine/train/lossscale.h"
#include "core/engine/train/meters.h"
#include "core/engine/train/precision.h"
#include "core/engine/train/trainer.h"
#include "core/engine/train/trainstep.h"
#include "core/store/metricswriter.h"
#include "core/store/store.h"

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pitwall::engine::internal {

constexpr int kWarmupSteps = 2; // first steps of a stage, left out of compute FPS

using Clock = std::chrono::steady_clock;
inline double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// What the epochs of one stage share.
struct StageContext {
    Stage stage = Stage::Pretrain;
    std::string name;
    int epochs = 0;
    std::int64_t stepsPerEpoch = 1;
    std::vector<torch::Tensor> parameters; // trainable in this stage
    std::unique_ptr<Optimization> optimization;
    int accumulate = 1; // batches per optimiser step
    std::unique_ptr<TrainStep> trainStep;
    std::int64_t globalStep = 0; // steps taken in the stage, those before a resume included
    int warmupLeft = 0;          // first steps of the stage still left out of compute FPS
    StageMeters meters;          // the finished epochs
};

// One training step's outcome.
struct StepOutcome {
    LossOutput loss;      // valid until the next step
    double lossValue = 0; // loss.total on the host
    double lr = 0;
    double stepSeconds = 0;   // from the batch's arrival to finished device work
    std::int64_t samples = 0; // all ranks
};

// Everything one run needs while it trains. Lives on the training thread; rank 0 (the leader) alone writes the
// store and the checkpoints.
class Run {
public:
    explicit Run(const TrainRequest& request) : m_request(request), m_config(*request.config) {}

    TrainResult execute();

private:
    std::int64_t worldSize() const { return m_parallel ? m_parallel->worldSize() : 1; }
    bool cancelled() const { return m_request.cancel && m_request.cancel->requested(); }
    void checkInput();
    void setUpTraining();
    void openRunRecord();
    void trainLeaderStages();
    int stageEpochs(Stage stage) const;

    StageResult trainStage(Stage stage, int epochs);
    StageContext beginStage(Stage stage, int epochs);
    int restoreStage(StageContext& stage);
    EpochMeters trainEpoch(StageContext& stage, int epoch);
    StepOutcome trainBatch(StageContext& stage, const Batch& cpuBatch, std::int64_t step);
    void logStep(const StageContext& stage, const StepOutcome& outcome, double waitMs, bool warmup);
    void finishEpoch(StageContext& stage, int epoch, const EpochMeters& meters);
    void saveCheckpoint(const StageContext& stage, int epoch);
    StageResult summarise(const StageContext& stage, StageResult result);
    std::map<std::string, double> validate(double& lossOut);
    void metric(const std::string& stage, std::int64_t step, const std::string& key, double value);
    void event(EventLevel level, const std::string& message);

    const TrainRequest& m_request;
    const ResolvedConfig& m_config;
    std::unique_ptr<BatchSource> m_batches;
    ModelPlan m_plan;
    std::unique_ptr<Model> m_model;
    torch::Device m_device{torch::kCPU};
    Precision m_precision = Precision::Fp32;
    std::unique_ptr<LossScaler> m_scaler; // fp16 only
    std::int64_t m_batchSize = 1;
    std::int64_t m_valBatchSize = 1;
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

} // namespace pitwall::engine::internal
