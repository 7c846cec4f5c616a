#pragma once
// The sampler implementations behind makeSampler(). Internal to core/hpo.

#include "core/hpo/internal/rng.h"
#include "core/hpo/sampler.h"

namespace pitwall::hpo_internal {

// A value drawn uniformly from the distribution as Optuna's RandomSampler does (log ranges uniform in
// log space, discrete values with equal half-step margins), in internal representation.
double sampleUniformly(const Distribution& distribution, Rng& rng);
// The value of a single-valued distribution.
double singleValue(const Distribution& distribution);

std::unique_ptr<Sampler> makeRandomSampler();
std::unique_ptr<Sampler> makeGridSampler();
std::unique_ptr<Sampler> makeTpeSampler(const TpeOptions& options);
std::unique_ptr<Sampler> makeNsga2Sampler(const Nsga2Options& options);

} // namespace pitwall::hpo_internal
