#include "core/hpo/internal/parzen.h"

#include "core/hpo/internal/argsort.h"
#include "core/hpo/internal/truncnorm.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace pitwall::hpo_internal {

namespace {

constexpr double kEps = 1e-12;
constexpr double kSigma0Magnitude = 0.2;

} // namespace

ParzenOptions optuna5ParzenOptions()
{
    ParzenOptions options;
    options.optuna31Density = false;
    options.logIntsAsSteps = true;
    options.priorInGaps = false;
    return options;
}

std::vector<double> defaultWeights(std::size_t count)
{
    if (count < 25)
        return std::vector<double>(count, 1.0);
    // numpy.linspace(1/n, 1, n - 25) then 25 ones.
    std::vector<double> weights(count, 1.0);
    const std::size_t ramp = count - 25;
    const double start = 1.0 / static_cast<double>(count);
    for (std::size_t i = 0; i < ramp; ++i)
        weights[i] = ramp == 1 ? start : start + (1.0 - start) * static_cast<double>(i) / static_cast<double>(ramp - 1);
    return weights;
}

namespace {

// One weight per observation (given, or defaultWeights) and one for the prior kernel when there is one, summing to 1.
std::vector<double> kernelWeights(std::size_t observations, const std::optional<std::vector<double>>& given, bool prior,
                                  double priorWeight)
{
    std::vector<double> weights = given ? *given : defaultWeights(observations);
    if (prior)
        weights.push_back(priorWeight);
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    for (double& w : weights)
        w /= total;
    return weights;
}

// A categorical parameter's kernels: per kernel, the probability of each choice. Every choice starts at the
// prior weight spread over the kernels; an observation's kernel adds 1 to its choice.
std::vector<std::vector<double>> categoricalKernelWeights(const std::vector<double>& choiceIndices, std::size_t n,
                                                          std::size_t kernels, std::size_t choices, bool prior,
                                                          double priorWeight)
{
    const double fill = priorWeight / static_cast<double>(prior ? n + 1 : n);
    std::vector<std::vector<double>> weights(kernels, std::vector<double>(choices, fill));
    for (std::size_t i = 0; i < n; ++i)
        weights[i][static_cast<std::size_t>(choiceIndices[i])] += 1.0;
    for (auto& row : weights) {
        const double sum = std::accumulate(row.begin(), row.end(), 0.0);
        for (double& w : row)
            w /= sum;
    }
    return weights;
}

// Where a number parameter is modelled: log space for log distributions, half a step beyond the bounds for
// discrete ones (step 0: continuous).
struct ModelBounds {
    double low = 0.0, high = 0.0, step = 0.0;
};

ModelBounds modelBounds(const Distribution& dist, bool logIntsAsSteps)
{
    if (dist.kind == Distribution::Kind::Float) {
        if (dist.log)
            return {std::log(dist.low), std::log(dist.high), 0.0};
        if (dist.step)
            return {dist.low - 0.5 * *dist.step, dist.high + 0.5 * *dist.step, *dist.step};
        return {dist.low, dist.high, 0.0};
    }
    const double step = dist.step.value_or(1.0);
    if (dist.log)
        return {std::log(dist.low - 0.5 * step), std::log(dist.high + 0.5 * step), logIntsAsSteps ? step : 0.0};
    return {dist.low - 0.5 * step, dist.high + 0.5 * step, step};
}

// Each kernel is as wide as the larger gap to its sorted neighbours (bounds as outer neighbours). Equal mus
// share zero gaps except at the ends of their run; which of them (with their different weights) gets an end
// follows numpy's unstable argsort, as in Optuna.
std::vector<double> neighbourGapSigmas(const std::vector<double>& mus, double low, double high, bool considerEndpoints)
{
    const std::size_t kernels = mus.size();
    const std::vector<std::size_t> order = numpyArgsort(mus);
    std::vector<double> points;
    points.reserve(kernels + 2);
    points.push_back(low);
    for (std::size_t i : order)
        points.push_back(mus[i]);
    points.push_back(high);
    std::vector<double> sorted(kernels);
    for (std::size_t i = 0; i < kernels; ++i)
        sorted[i] = std::max(points[i + 1] - points[i], points[i + 2] - points[i + 1]);
    if (!considerEndpoints && points.size() >= 4) {
        sorted.front() = points[2] - points[1];
        sorted.back() = points[points.size() - 2] - points[points.size() - 3];
    }
    std::vector<double> sigmas(kernels, 0.0);
    for (std::size_t i = 0; i < kernels; ++i)
        sigmas[order[i]] = sorted[i];
    return sigmas;
}

} // namespace

ParzenEstimator::ParzenEstimator(const std::vector<std::vector<double>>& observations,
                                 const std::vector<Distribution>& space, const ParzenOptions& options)
    : m_space(space)
{
    const std::size_t n = observations.empty() ? 0 : observations.front().size();
    const bool prior = options.considerPrior || n == 0;

    if (options.observationWeights && options.observationWeights->size() != n)
        throw std::logic_error("ParzenEstimator: one weight per observation");
    m_weights = kernelWeights(n, options.observationWeights, prior, options.priorWeight);
    const std::size_t kernels = m_weights.size();

    const double sigma0 = kSigma0Magnitude * std::pow(static_cast<double>(std::max<std::size_t>(n, 1)),
                                                      -1.0 / (static_cast<double>(space.size()) + 4.0));

    for (std::size_t p = 0; p < space.size(); ++p) {
        const Distribution& dist = space[p];
        Dimension d;
        if (dist.kind == Distribution::Kind::Categorical) {
            d.categorical = true;
            d.categoricalWeights =
                categoricalKernelWeights(observations[p], n, kernels, dist.choices.size(), prior, options.priorWeight);
            m_dims.push_back(std::move(d));
            continue;
        }
        d.log = dist.log;
        const ModelBounds bounds = modelBounds(dist, options.logIntsAsSteps);
        d.low = bounds.low;
        d.high = bounds.high;
        d.step = bounds.step;

        d.mus.resize(kernels);
        for (std::size_t i = 0; i < n; ++i)
            d.mus[i] = toModel(d, observations[p][i]);
        if (prior)
            d.mus[n] = 0.5 * (d.low + d.high);
        if (options.scottBandwidths)
            d.sigmas.assign(kernels, sigma0 * (d.high - d.low));
        else if (options.priorInGaps || !prior)
            d.sigmas = neighbourGapSigmas(d.mus, d.low, d.high, options.considerEndpoints);
        else {
            d.sigmas = neighbourGapSigmas(std::vector<double>(d.mus.begin(), d.mus.begin() + static_cast<long>(n)),
                                          d.low, d.high, options.considerEndpoints);
            d.sigmas.push_back(d.high - d.low); // the prior's, set below
        }
        const double maxSigma = d.high - d.low;
        const double minSigma =
            options.considerMagicClip ? (d.high - d.low) / std::min(100.0, 1.0 + static_cast<double>(kernels)) : kEps;
        for (double& s : d.sigmas)
            s = std::clamp(s, minSigma, maxSigma);
        if (prior)
            d.sigmas[n] = d.high - d.low;
        m_dims.push_back(std::move(d));
    }
    m_optuna31Density = options.optuna31Density;
}

std::vector<std::vector<double>> ParzenEstimator::sample(Rng& rng, int count) const
{
    std::vector<double> cumulative(m_weights.size());
    std::partial_sum(m_weights.begin(), m_weights.end(), cumulative.begin());
    std::vector<std::size_t> active(static_cast<std::size_t>(count));
    for (auto& a : active)
        a = rng.choice(cumulative);

    std::vector<std::vector<double>> out(m_dims.size(), std::vector<double>(static_cast<std::size_t>(count)));
    for (std::size_t p = 0; p < m_dims.size(); ++p)
        for (std::size_t k = 0; k < active.size(); ++k)
            out[p][k] = draw(p, active[k], 1.0, rng);
    return out;
}

std::vector<double> ParzenEstimator::sampleKernel(Rng& rng, std::size_t kernel, double widthFactor) const
{
    if (kernel >= m_weights.size())
        throw std::logic_error("ParzenEstimator::sampleKernel: no such kernel");
    std::vector<double> out(m_dims.size());
    for (std::size_t p = 0; p < m_dims.size(); ++p)
        out[p] = draw(p, kernel, widthFactor, rng);
    return out;
}

double ParzenEstimator::draw(std::size_t p, std::size_t i, double widthFactor, Rng& rng) const
{
    const Dimension& d = m_dims[p];
    const Distribution& dist = m_space[p];
    if (d.categorical) {
        const double u = rng.uniform();
        double sum = 0.0;
        std::size_t index = 0;
        for (double w : d.categoricalWeights[i]) {
            sum += w;
            if (sum < u)
                ++index;
        }
        return static_cast<double>(std::min(index, dist.choices.size() - 1));
    }
    const double mu = d.mus[i], sigma = d.sigmas[i] * widthFactor;
    const double x = truncnormPpf(rng.uniform(), (d.low - mu) / sigma, (d.high - mu) / sigma) * sigma + mu;
    double value = d.log ? std::exp(x) : x;
    if (d.step > 0.0)
        value = roundHalfEven((value - dist.low) / d.step) * d.step + dist.low;
    else if (dist.kind == Distribution::Kind::Int)
        value = roundHalfEven(value);
    return std::clamp(value, dist.low, dist.high);
}

std::vector<double> ParzenEstimator::logPdf(const std::vector<std::vector<double>>& samples) const
{
    const std::size_t count = samples.empty() ? 0 : samples.front().size();
    const std::size_t kernels = m_weights.size();
    // component[k * kernels + i] = log density of sample k under kernel i, summed over dimensions.
    std::vector<double> component(count * kernels, 0.0);
    for (std::size_t p = 0; p < m_dims.size(); ++p) {
        const Dimension& d = m_dims[p];
        if (d.categorical) {
            for (std::size_t k = 0; k < count; ++k)
                for (std::size_t i = 0; i < kernels; ++i)
                    component[k * kernels + i] +=
                        std::log(d.categoricalWeights[i][static_cast<std::size_t>(samples[p][k])]);
            continue;
        }
        // Per kernel: the log mass inside the bounds, shared by every sample.
        std::vector<double> logAccept(kernels);
        for (std::size_t i = 0; i < kernels; ++i)
            logAccept[i] = logGaussMass((d.low - d.mus[i]) / d.sigmas[i], (d.high - d.mus[i]) / d.sigmas[i]);
        for (std::size_t k = 0; k < count; ++k) {
            const double x = toModel(d, samples[p][k]);
            for (std::size_t i = 0; i < kernels; ++i) {
                const double mu = d.mus[i], sigma = d.sigmas[i];
                double value;
                if (d.step > 0.0) {
                    // A step's mass: [v - step/2, v + step/2] in the modelled space (for log integers the log of
                    // those bounds; the bounds' own margins make the clip a no-op there).
                    const double v = samples[p][k];
                    const double upper = d.log ? std::log(v + 0.5 * d.step) : std::min(x + 0.5 * d.step, d.high);
                    const double lower = d.log ? std::log(v - 0.5 * d.step) : std::max(x - 0.5 * d.step, d.low);
                    value = logGaussMass((lower - mu) / sigma, (upper - mu) / sigma) - logAccept[i];
                } else {
                    const double z = (x - mu) / sigma;
                    value = (z < (d.low - mu) / sigma || z > (d.high - mu) / sigma)
                                ? -std::numeric_limits<double>::infinity()
                                : -0.5 * z * z - 0.91893853320467274178 - logAccept[i];
                    if (!m_optuna31Density)
                        value -= std::log(sigma);
                }
                component[k * kernels + i] += value;
            }
        }
    }
    std::vector<double> out(count);
    for (std::size_t k = 0; k < count; ++k) {
        double high = -std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < kernels; ++i) {
            component[k * kernels + i] += std::log(m_weights[i]);
            high = std::max(high, component[k * kernels + i]);
        }
        if (high == -std::numeric_limits<double>::infinity()) {
            out[k] = high;
            continue;
        }
        double sum = 0.0;
        for (std::size_t i = 0; i < kernels; ++i)
            sum += std::exp(component[k * kernels + i] - high);
        out[k] = std::log(sum) + high;
    }
    return out;
}

} // namespace pitwall::hpo_internal
