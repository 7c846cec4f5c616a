#include "core/engine/train/lossscale.h"

#include "core/util/error.h"

#include <cmath>

namespace pitwall::engine {

LossScaler::LossScaler(const torch::Device& device, LossScaleOptions options)
    : m_options(options), m_value(options.initScale)
{
    if (!(options.initScale > 0) || !(options.growthFactor > 1) || !(options.backoffFactor > 0) ||
        !(options.backoffFactor < 1) || options.growthInterval < 1)
        throw RuntimeError("loss scaling needs init scale > 0, growth factor > 1, 0 < backoff factor < 1 and a growth "
                           "interval of at least 1");
    m_scale = torch::full({}, m_value, torch::TensorOptions().dtype(torch::kFloat).device(device));
}

torch::Tensor LossScaler::scale(const torch::Tensor& loss) const { return loss.to(torch::kFloat) * m_scale; }

bool LossScaler::unscale(const std::vector<torch::Tensor>& parameters)
{
    const double inverse = 1.0 / m_value;
    std::vector<torch::Tensor> finite;
    finite.reserve(parameters.size());
    for (const torch::Tensor& parameter : parameters) {
        const torch::Tensor& grad = parameter.grad();
        if (!grad.defined())
            continue;
        grad.mul_(inverse);
        finite.push_back(torch::isfinite(grad).all());
    }
    return finite.empty() || torch::stack(finite).all().item<bool>();
}

void LossScaler::update(bool finite)
{
    if (finite) {
        if (++m_goodSteps < m_options.growthInterval)
            return;
        m_goodSteps = 0;
        m_value *= m_options.growthFactor;
    } else {
        ++m_skipped;
        m_goodSteps = 0;
        m_value *= m_options.backoffFactor;
    }
    m_scale.fill_(m_value);
}

void LossScaler::restore(double value)
{
    if (!(value > 0) || !std::isfinite(value))
        return; // an old checkpoint without a scale keeps the initial one
    m_value = value;
    m_goodSteps = 0;
    m_scale.fill_(m_value);
}

} // namespace pitwall::engine
