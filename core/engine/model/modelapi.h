#pragma once
// The contract between the trainer and a model plugin. This header includes torch: only core/engine and
// model plugins see it. A model plugin exports `pitwall_create_model` (see PITWALL_DECLARE_MODEL), which the
// trainer finds through core/plugin's loader.

#include "core/config/config.h"
#include "core/engine/data/augment.h"
#include "core/plugin/plugin.h"

#include <torch/torch.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pitwall::engine {

// Training stages of the reference workloads. A model that has a single stage trains only "pretrain".
enum class Stage { Pretrain, Posttrain };
const char* stageName(Stage stage); // "pretrain", "posttrain"

// A batch of named tensors (e.g. "rgb", "lidar", "semantic", ...), first dimension = samples.
struct Batch {
    std::map<std::string, torch::Tensor> tensors;
    std::int64_t size = 0;

    const torch::Tensor& at(const std::string& name) const;
    bool has(const std::string& name) const { return tensors.count(name) != 0; }
    Batch to(const torch::Device& device, bool nonBlocking = false) const;
};

// What a training step needs from the model: the weighted total (what is back-propagated) and the
// unweighted per-head losses (what is logged as loss/<head>).
struct LossOutput {
    torch::Tensor total;
    std::map<std::string, torch::Tensor> heads;
};

// Validation metrics are summed over batches and divided at the end: value = sum / count per key.
class MetricAccumulator {
public:
    void add(const std::string& key, double sum, double count);
    std::map<std::string, double> means() const;
    // Custom reductions (e.g. mIoU from a confusion matrix) keep their state here.
    torch::Tensor& state(const std::string& key, const std::function<torch::Tensor()>& init);
    const std::map<std::string, torch::Tensor>& states() const { return m_states; }

private:
    std::map<std::string, std::pair<double, double>> m_sums;
    std::map<std::string, torch::Tensor> m_states;
};

// What a driving model decides for one sample: future waypoints in the ego frame (x forward, y left, metres,
// 0.25 s apart) and a target speed (m/s). Tensors on the CPU: waypoints [B, N, 2], targetSpeed [B].
struct PlanOutput {
    torch::Tensor waypoints;
    torch::Tensor targetSpeed;
};

// Shapes and class lists of a dataset, given to the model at construction.
struct DataSpec {
    std::int64_t imageHeight = 0, imageWidth = 0;
    std::int64_t bevHeight = 0, bevWidth = 0;
    std::int64_t waypoints = 8;
    int semanticClasses = 10;
    int bevSemanticClasses = 13;
    int boxClasses = 8;
    double maxDepthMeters = 100.0;
    double bevPixelsPerMeter = 1.0;
};

// What the trainer knows about a stage when it asks a model for its own optimisation.
struct StagePlan {
    Stage stage = Stage::Pretrain;
    int epochs = 0;
    std::int64_t stepsPerEpoch = 1; // batches per epoch on this rank
    std::int64_t batchSize = 1;     // per logical device
    int worldSize = 1;              // logical devices the run spans
};

// A model's own optimiser and learning-rate schedule (e.g. AutoSpeed's SGD with linear warm-up and an EMA of
// the weights), in place of the trainer's AdamW with cosine warm restarts. Per batch the trainer calls
// setLearningRate, then forward and backward; every accumulate() batches of an epoch, and after its last batch,
// it calls beforeOptimizerStep(), steps optimizer(), clears the gradients and calls afterOptimizerStep(). Used on the training thread only.
class Optimization {
public:
    virtual ~Optimization() = default;
    virtual torch::optim::Optimizer& optimizer() = 0;
    virtual int accumulate() const { return 1; }
    // Sets the learning rate of batch `batch` (0-based, counted over the stage) and returns it for the log.
    virtual double setLearningRate(std::int64_t batch) = 0;
    // Called with the accumulated (and, over devices, averaged) gradients just before optimizer().step(),
    // e.g. to clip them.
    virtual void beforeOptimizerStep() {}
    virtual void afterOptimizerStep() {}
};

class Model {
public:
    virtual ~Model() = default;
    virtual torch::nn::Module& module() = 0;
    // Switches the heads and losses of a stage on or off (e.g. planning only in post-train).
    virtual void setStage(Stage stage) = 0;
    // Parameters the optimiser updates in the current stage: no frozen backbone, no disabled heads.
    virtual std::vector<torch::Tensor> trainableParameters() = 0;
    // Parameters of the shared backbone (for freeze checks and reports).
    virtual std::vector<torch::Tensor> backboneParameters() = 0;
    // Forward pass and losses of one batch (already on the model's device).
    virtual LossOutput computeLoss(const Batch& batch) = 0;
    // Forward pass without gradients and metric accumulation (validation).
    virtual void evaluate(const Batch& batch, MetricAccumulator& metrics) = 0;
    // Finishes metrics that are not plain means (mIoU). Default: metrics.means().
    virtual std::map<std::string, double> finishMetrics(const MetricAccumulator& metrics) { return metrics.means(); }
    // Driving output for closed-loop evaluation (no gradients; the model is put in eval mode by the caller).
    // Models that cannot drive return std::nullopt.
    virtual std::optional<PlanOutput> plan(const Batch& batch) { return std::nullopt; }
    // True when computeLoss has the same tensor shapes for every batch and never waits for the device (no
    // .item(), no data-dependent sizes such as nonzero or masked_select), so that forward and backward can be
    // captured once into a CUDA graph and replayed (training.optimization.use_torch_compile). Default: false.
    virtual bool supportsStepCapture() const { return false; }
    // One-time notes for the user (e.g. "use_torch_compile does nothing on CPU").
    virtual std::vector<std::string> notices() const { return {}; }
    // The model's own optimisation of trainableParameters() for a stage; nullptr (the default) keeps the
    // trainer's AdamW (training.optimization.lr, weight_decay) with cosine warm restarts.
    virtual std::unique_ptr<Optimization> makeOptimization(const StagePlan& plan) { return nullptr; }
};

// The batches a model trains on.
enum class BatchKind {
    DrivingFrames,   // synthetic-world frames: "rgb", "lidar", "semantic", ... (train/framebatch.h)
    DetectionImages, // the data pipeline's images (core/engine/data): "image" [B,3,H,W] float, normalised, and
                     // "boxes" [B,N,5] float (class, x0, y0, x1, y1) in input pixels, padding rows class -1
};

// What a model needs from the trainer before it is built. A plugin declares it by exporting
// `pitwall_model_plan` (PITWALL_DECLARE_MODEL_PLAN); without one the trainer feeds driving frames and reads the
// core keys (training.optimization.batch_size, training.stages.*.epochs).
struct ModelPlan {
    BatchKind batches = BatchKind::DrivingFrames;
    // DetectionImages only:
    int inputWidth = 0, inputHeight = 0; // network input in pixels; also the DataSpec's imageWidth / imageHeight
    data::AugmentOptions augment;        // training augmentation (validation sees the plain, centred image)
    int maxBoxes = 64;                   // rows of "boxes"; an image's boxes beyond it are dropped
    // Both kinds; 0 or -1 keep the core keys:
    std::int64_t batchSize = 0;           // per logical device; 0: training.optimization.batch_size split over devices
    std::int64_t validationBatchSize = 0; // 0: the training batch size
    int epochs = -1;                      // a single stage (pretrain) of this many epochs; -1: training.stages.*
};

extern "C" {
using ModelPlanFunction = void (*)(const ResolvedConfig* config, ModelPlan* plan);
}
#define PITWALL_MODEL_PLAN_SYMBOL "pitwall_model_plan"

// In a model plugin source:  PITWALL_DECLARE_MODEL_PLAN(myPlanFunction)  with void myPlanFunction(const
// ResolvedConfig&, ModelPlan&), which fills the plan from the configuration.
#define PITWALL_DECLARE_MODEL_PLAN(FUNCTION)                                                                           \
    extern "C" __attribute__((visibility("default"))) void pitwall_model_plan(const pitwall::ResolvedConfig* config,   \
                                                                              pitwall::engine::ModelPlan* plan)        \
    {                                                                                                                  \
        FUNCTION(*config, *plan);                                                                                      \
    }

extern "C" {
using CreateModelFunction = Model* (*)(const ResolvedConfig* config, const DataSpec* spec);
}
#define PITWALL_CREATE_MODEL_SYMBOL "pitwall_create_model"

// In a model plugin source:  PITWALL_DECLARE_MODEL(MyModel)  where MyModel(const ResolvedConfig&, const DataSpec&).
#define PITWALL_DECLARE_MODEL(CLASS)                                                                            \
    extern "C" __attribute__((visibility("default"))) pitwall::engine::Model* pitwall_create_model(              \
        const pitwall::ResolvedConfig* config, const pitwall::engine::DataSpec* spec)                            \
    {                                                                                                            \
        return new CLASS(*config, *spec);                                                                        \
    }

// Creates the model named by experiment.model from the plugins on the plugin path.
std::unique_ptr<Model> createModel(const ResolvedConfig& config, const DataSpec& spec);
// The plan of the model named by experiment.model (the default plan when its plugin declares none).
ModelPlan modelPlan(const ResolvedConfig& config);

} // namespace pitwall::engine
