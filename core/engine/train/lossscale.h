#pragma once
// Dynamic loss scaling for fp16 training. fp16 holds magnitudes down to about 6e-8: many gradients are smaller
// and would flush to zero, so the loss is multiplied by a large scale before backward and the gradients divided by
// it before the optimiser step. A step whose gradients hold inf or NaN (the scale was too large) is skipped and the
// scale backed off; after `growthInterval` finite steps in a row it grows again. The defaults are those of
// PyTorch's GradScaler, so fp16 runs behave as users know them. Engine-internal.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace pitwall::engine {

struct LossScaleOptions {
    double initScale = 65536.0; // 2^16
    double growthFactor = 2.0;
    double backoffFactor = 0.5;
    int growthInterval = 2000;
};

class LossScaler {
public:
    explicit LossScaler(const torch::Device& device, LossScaleOptions options = {});

    // loss × scale. The scale lives in a device tensor that is updated in place, so a captured step reads the
    // current scale at every replay.
    torch::Tensor scale(const torch::Tensor& loss) const;
    // Divides the defined gradients of `parameters` by the scale in place. Returns true when all of them are
    // finite (one host synchronisation).
    bool unscale(const std::vector<torch::Tensor>& parameters);
    // After each optimiser step, taken (finite) or skipped (overflow).
    void update(bool finite);

    double value() const { return m_value; }
    std::int64_t skippedSteps() const { return m_skipped; }
    // Restores a scale saved with a checkpoint (resume); the growth counter starts afresh.
    void restore(double value);

private:
    LossScaleOptions m_options;
    torch::Tensor m_scale; // float32 scalar on the device
    double m_value;
    int m_goodSteps = 0;
    std::int64_t m_skipped = 0;
};

} // namespace pitwall::engine
