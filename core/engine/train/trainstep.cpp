#include "core/engine/train/trainstep.h"

#ifdef PITWALL_WITH_CUDA
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace pitwall::engine {

bool stepCaptureBuiltIn()
{
#ifdef PITWALL_WITH_CUDA
    return true;
#else
    return false;
#endif
}

CapturePlan planStepCapture(const ResolvedConfig& config, const torch::Device& device, bool modelAllows,
                            int accumulate, const std::string& modelName)
{
    CapturePlan plan;
    if (!config.getBool("training.optimization.use_torch_compile") || device.is_cpu())
        return plan;
    const std::string key = "training.optimization.use_torch_compile: ";
    if (!stepCaptureBuiltIn())
        plan.notice = key + "the linked LibTorch has no CUDA graphs (a HIP or CPU build); steps run eagerly";
    else if (!modelAllows)
        plan.notice = key + "the model " + modelName +
                      " computes its loss with data-dependent shapes or host synchronisation, which a captured "
                      "step cannot replay; steps run eagerly";
    else if (accumulate > 1)
        plan.notice = key + "gradient accumulation over " + std::to_string(accumulate) +
                      " batches cannot be captured; steps run eagerly";
    else {
        plan.capture = true;
        plan.notice = key + "the first " + std::to_string(kCaptureWarmupSteps) +
                      " steps of each stage run eagerly, then forward and backward are captured once and replayed";
        if (config.getString("training.optimization.torch_compile_mode") == "max-autotune")
            plan.notice += "; max-autotune: cuDNN autotunes each convolution during the eager steps";
    }
    return plan;
}

#ifdef PITWALL_WITH_CUDA
struct TrainStep::Graph {
    at::cuda::CUDAGraph graph;
    Batch inputs;       // static: every batch is copied in before a replay
    LossOutput outputs; // static: written by every replay
};
#else
struct TrainStep::Graph {};
#endif

namespace {
#ifdef PITWALL_WITH_CUDA
bool sameLayout(const Batch& a, const Batch& b)
{
    if (a.size != b.size || a.tensors.size() != b.tensors.size())
        return false;
    for (const auto& [key, tensor] : a.tensors) {
        const auto other = b.tensors.find(key);
        if (other == b.tensors.end() || other->second.sizes() != tensor.sizes() ||
            other->second.scalar_type() != tensor.scalar_type())
            return false;
    }
    return true;
}

// Runs `work` on `side`, ordered after the current stream's queued work and before its later work.
template <typename Work>
void onSideStream(const c10::cuda::CUDAStream& side, Work&& work)
{
    const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream();
    at::cuda::CUDAEvent ready;
    ready.record(current);
    ready.block(side);
    {
        c10::cuda::CUDAStreamGuard guard(side);
        work();
    }
    at::cuda::CUDAEvent done;
    done.record(side);
    done.block(current);
}
#endif
} // namespace

TrainStep::TrainStep(Model& model, const torch::Device& device, Precision precision, bool capture,
                     LossScaler* scaler)
    : m_model(model), m_device(device), m_precision(precision),
      m_capture(capture && stepCaptureBuiltIn() && device.is_cuda()),
      m_scaler(scaler)
{
}

TrainStep::~TrainStep() = default;

bool TrainStep::captured() const { return m_graph != nullptr; }

LossOutput TrainStep::forwardBackward(const Batch& batch)
{
    LossOutput loss;
    {
        AutocastGuard autocast(m_precision, m_device);
        loss = m_model.computeLoss(batch);
    }
    (m_scaler ? m_scaler->scale(loss.total) : loss.total).backward();
    return loss;
}

void TrainStep::clearGradients(torch::optim::Optimizer& optimizer)
{
    if (!m_graph)
        optimizer.zero_grad();
}

LossOutput TrainStep::run(const Batch& batch)
{
    if (!m_capture)
        return forwardBackward(batch);
#ifdef PITWALL_WITH_CUDA
    if (m_graph) {
        if (sameLayout(m_graph->inputs, batch)) {
            for (auto& [key, tensor] : m_graph->inputs.tensors)
                tensor.copy_(batch.at(key), /*non_blocking=*/true);
            m_graph->graph.replay();
            return m_graph->outputs;
        }
        // A batch of another shape: eagerly, accumulating into the zeroed static gradient buffers.
        {
            torch::NoGradGuard noGrad;
            for (torch::Tensor& parameter : m_model.module().parameters())
                if (parameter.grad().defined())
                    parameter.mutable_grad().zero_();
        }
        return forwardBackward(batch);
    }
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
    if (m_eagerSteps < kCaptureWarmupSteps) {
        ++m_eagerSteps;
        LossOutput loss;
        onSideStream(side, [&] { loss = forwardBackward(batch); });
        return loss;
    }
    // Capture: the gradients are dropped so that backward allocates them from the graph's pool; every replay then
    // writes (not adds) into those same buffers, which the eager optimiser step reads.
    auto graph = std::make_unique<Graph>();
    graph->inputs.size = batch.size;
    for (const auto& [key, tensor] : batch.tensors)
        graph->inputs.tensors[key] = tensor.clone();
    for (torch::Tensor& parameter : m_model.module().parameters())
        parameter.mutable_grad() = torch::Tensor();
    const bool cacheWasOn = at::autocast::is_autocast_cache_enabled();
    at::autocast::set_autocast_cache_enabled(false); // cached casts would be freed memory at replay
    try {
        onSideStream(side, [&] {
            graph->graph.capture_begin();
            graph->outputs = forwardBackward(graph->inputs);
            graph->graph.capture_end();
        });
    } catch (...) {
        at::autocast::set_autocast_cache_enabled(cacheWasOn);
        throw;
    }
    at::autocast::set_autocast_cache_enabled(cacheWasOn);
    m_graph = std::move(graph);
    m_graph->graph.replay(); // capture records without running
    return m_graph->outputs;
#else
    return forwardBackward(batch);
#endif
}

} // namespace pitwall::engine
