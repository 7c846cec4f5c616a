#pragma once
// The forward and backward pass of one training batch, eager or captured (training.optimization.
// use_torch_compile). LibTorch has no torch.compile; its C++ counterpart for a whole step is a CUDA graph: the
// first kCaptureWarmupSteps batches of a stage run eagerly on a side stream (allocator, cuDNN and cuBLAS settle),
// the next is captured with static input and gradient buffers, and every later batch is copied into the inputs and
// the graph replayed: one launch instead of thousands of kernel launches. The optimiser step stays eager (its
// learning rate and step count change every step). With fp16 the loss is scaled before backward (LossScaler).
// Engine-internal.

#include "core/config/config.h"
#include "core/engine/model/modelapi.h"
#include "core/engine/train/lossscale.h"
#include "core/engine/train/precision.h"

#include <memory>
#include <string>

namespace pitwall::engine {

constexpr int kCaptureWarmupSteps = 3;

// Whether a stage's steps are captured, and what to tell the user when capture was asked for but cannot run.
struct CapturePlan {
    bool capture = false;
    std::string notice; // empty when there is nothing to say
};
// use_torch_compile on `device` for a model that allows capture (Model::supportsStepCapture) and an optimiser
// that steps every `accumulate` batches. CPU is not mentioned here (precisionNotices says it once per run).
CapturePlan planStepCapture(const ResolvedConfig& config, const torch::Device& device, bool modelAllows,
                            int accumulate, const std::string& modelName);
// True when this build's LibTorch has CUDA graphs.
bool stepCaptureBuiltIn();

class TrainStep {
public:
    // `capture` takes effect only on a CUDA device of a build with CUDA graphs (stepCaptureBuiltIn()); elsewhere
    // every step runs eagerly. `scaler` (fp16 only) must outlive the step.
    TrainStep(Model& model, const torch::Device& device, Precision precision, bool capture, LossScaler* scaler);
    ~TrainStep();
    TrainStep(const TrainStep&) = delete;
    TrainStep& operator=(const TrainStep&) = delete;

    // Forward and backward of `batch` (on the device). The gradients of the model's parameters hold this batch's
    // gradients (scaled under fp16) afterwards, added to what they held unless cleared. The returned losses are
    // valid until the next call.
    LossOutput run(const Batch& batch);
    // Clears the gradients before the next batch. A captured step writes fresh gradients into its static buffers
    // at every replay, so there it clears nothing (and must not drop the buffers).
    void clearGradients(torch::optim::Optimizer& optimizer);
    bool captured() const;
    // Whether this step captures once its warm-up steps are done (see the constructor).
    bool capturing() const { return m_capture; }

private:
    LossOutput forwardBackward(const Batch& batch);
    struct Graph;

    Model& m_model;
    torch::Device m_device;
    Precision m_precision;
    bool m_capture;
    LossScaler* m_scaler;
    int m_eagerSteps = 0;
    std::unique_ptr<Graph> m_graph;
};

} // namespace pitwall::engine
