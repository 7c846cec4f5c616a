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
// `seed`: the study's sampler seed (0 without one, as Optuna's `seed or 0`), which shuffles the newest Optuna's grid.
std::unique_ptr<Sampler> makeGridSampler(const GridOptions& options, std::uint64_t seed);
// numpy's RandomState(seed).shuffle(list(range(n))) (legacy seeding with the seed's low 32 bits, Fisher-Yates
// from the end with masked rejection): the order of the newest Optuna's grid.
std::vector<std::uint32_t> numpyShuffledRange(std::uint32_t n, std::uint32_t seed);
std::unique_ptr<Sampler> makeTpeSampler(const TpeOptions& options);
std::unique_ptr<Sampler> makeNsga2Sampler(const Nsga2Options& options);

// TPE's refinement width factor for trial `trialNumber` (TpeOptions::refineEvery): 0.5, times 1.5 for each earlier
// complete refinement trial that beat every complete trial numbered before it and 1.5^(-1/4) for each that did not,
// clamped to [0.001, 1]. `trials` in number order.
double refineWidth(std::span<const TrialRecord> trials, StudyDirection direction, int trialNumber);

} // namespace pitwall::hpo_internal
