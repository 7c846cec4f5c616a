#pragma once
// TPE's Parzen estimator: a mixture with one truncated-normal (numbers) or smoothed one-hot (categorical)
// kernel per observation plus a prior kernel, after optuna/samplers/_tpe/parzen_estimator.py. The options'
// defaults are Optuna 3.1's; ParzenOptions::optuna5() gives the newest Optuna's (5.x) estimator.
// Numbers are modelled in log space for log distributions and with half-step margins for discrete ones.
// Internal to core/hpo.

#include "core/hpo/internal/rng.h"
#include "core/store/records.h"

#include <cmath>
#include <optional>
#include <vector>

namespace pitwall::hpo_internal {

struct ParzenOptions {
    bool considerPrior = true;
    double priorWeight = 1.0;
    bool considerMagicClip = true;
    bool considerEndpoints = false;
    // Optuna 3.1's multivariate estimator: Scott's-rule bandwidths shared by all kernels, instead of neighbour gaps
    // (Optuna 4 and later use neighbour gaps for both).
    bool scottBandwidths = false;
    // Optuna 3.1's truncated-normal log density leaves out the -log(sigma) of the change of variables
    // (_truncnorm.logpdf); true reproduces that, false uses the exact density (Optuna 4 and later).
    bool optuna31Density = true;
    // A log-scaled integer: Optuna 3.1 models it as a continuous density in log space; Optuna 4 and later as a
    // discrete one (the mass between log(v - step/2) and log(v + step/2)).
    bool logIntsAsSteps = false;
    // Optuna 3.1 sorts the prior kernel's centre in with the observations when it measures neighbour gaps; Optuna 4
    // and later measure the observations' gaps alone.
    bool priorInGaps = true;
    // One weight per observation instead of defaultWeights() (multi-objective TPE's l(x)); the prior's weight is
    // added and all are normalised to sum 1.
    std::optional<std::vector<double>> observationWeights;
};

// The newest Optuna's estimator (5.x): neighbour-gap bandwidths, exact densities, log integers as steps.
ParzenOptions optuna5ParzenOptions();

// Optuna's default_weights(n): 1 for the newest 25 observations, a ramp from 1/n up to 1 before them.
std::vector<double> defaultWeights(std::size_t count);

class ParzenEstimator {
public:
    // observations[p][i]: internal value of parameter p in observation i (oldest first); every parameter
    // has the same number of observations. Categorical values are choice indices.
    ParzenEstimator(const std::vector<std::vector<double>>& observations, const std::vector<Distribution>& space,
                    const ParzenOptions& options);

    // `count` joint samples: result[p][k] is parameter p of sample k, in internal representation (rounded
    // to the step and clipped to the bounds, as a trial would store it).
    std::vector<std::vector<double>> sample(Rng& rng, int count) const;
    // One joint sample from kernel `kernel` alone (an observation's index), its widths times `widthFactor`;
    // categoricals draw from the kernel's choice weights.
    std::vector<double> sampleKernel(Rng& rng, std::size_t kernel, double widthFactor) const;
    // log density of each joint sample.
    std::vector<double> logPdf(const std::vector<std::vector<double>>& samples) const;

private:
    struct Dimension {
        bool categorical = false;
        bool log = false;
        double low = 0.0, high = 0.0;                        // modelled bounds (log space, half-step margins)
        double step = 0.0;                                   // 0: continuous
        std::vector<double> mus, sigmas;                     // per kernel
        std::vector<std::vector<double>> categoricalWeights; // per kernel, per choice
    };
    double toModel(const Dimension& d, double value) const { return d.log ? std::log(value) : value; }
    // A draw from kernel i of parameter p, widths times widthFactor, in internal representation.
    double draw(std::size_t p, std::size_t i, double widthFactor, Rng& rng) const;

    std::vector<Distribution> m_space;
    std::vector<double> m_weights; // kernel weights, sum 1
    std::vector<Dimension> m_dims;
    bool m_optuna31Density = true;
};

} // namespace pitwall::hpo_internal
