#pragma once
// Multi-objective TPE (MOTPE) after the newest Optuna's TPESampler (optuna/samplers/_tpe/sampler.py, 5.0.0-rc1):
// how the finished trials of a study with several objectives are split into the good ones, which form l(x), and
// the rest, which form g(x). The Parzen estimators, candidates and acquisition l(x)/g(x) are single-objective TPE's.
//
// Split rules (_split_trials, _split_complete_trials_multi_objective, _solve_hssp):
// - running trials (constant liar) are always above; an infeasible trial (core/store/pareto.h's isFeasible) goes to
//   a third group whatever its state;
// - of the feasible COMPLETE trials, whole non-domination ranks go below while they fit in belowCount; the first
//   rank that does not fit is cut by greedy hypervolume subset selection (HSSP) against referencePoint() of that
//   rank's values; then the feasible PRUNED trials (furthest step first, then the non-domination rank of their
//   intermediate vectors at that step, then the first objective's value there), then the infeasible ones (smallest
//   total violation first) fill what is left of belowCount.
// - belowCount is multiObjectiveGamma(n) of the n complete and pruned trials: ceil(0.1 n) with no cap (Optuna 5.0
//   lifted the cap of 25 that single-objective TPE keeps).
// Internal to core/hpo. Pure functions: any thread.

#include "core/hpo/sampler.h"

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace pitwall::hpo_internal {

// How the trials of l(x) are weighted in a study with several objectives.
enum class MotpeBelowWeights {
    Uniform,                 // Optuna 5.0 (commit "Make the weights of good trials uniform"): every trial weighs 1
    HypervolumeContribution, // Optuna 4.0-4.9 (_calculate_weights_below_for_multi_objective): see contributionWeights
};

// A finished trial's place in TPE's order, smaller first (Optuna's _get_pruned_trial_score with complete trials
// ahead): complete trials {-inf, value}; pruned ones {-last step, last intermediate value}, NaN as +inf, or {1, 0}
// without intermediate values. Values carry the sign that makes smaller better under `direction`.
struct TpeRankKey {
    double stepKey = 0.0;
    double score = 0.0;
};
TpeRankKey tpeRankKey(const TrialRecord& trial, StudyDirection direction);

// Optuna's default_gamma_multiobjective: ceil(0.1 n).
std::size_t multiObjectiveGamma(std::size_t finishedTrials);

// Optuna's _get_reference_point, per objective of minimised values: max(1.1 w, 0.9 w) of the worst value w, and
// 1e-12 where that is 0. `points` is not empty.
std::vector<double> referencePoint(std::span<const std::vector<double>> points);

// Greedy hypervolume subset selection (Optuna's _solve_hssp): `count` indices into `points` (minimised values),
// each step taking the point that adds the most hypervolume to those already taken (ties: the lexicographically
// smallest point). Duplicated points count once until every distinct point is taken; a non-finite reference takes
// the lexicographically first distinct points. count <= points.size().
std::vector<std::size_t> greedyHypervolumeSubset(std::span<const std::vector<double>> points, std::size_t count,
                                                 std::span<const double> reference);

// The split above: one flag per trial (1: below, l(x)), for the trials the sampler learns from, in number order.
std::vector<char> splitMultiObjective(std::span<const TrialRecord* const> trials,
                                      std::span<const StudyDirection> directions, std::size_t belowCount);

// Optuna 4.x's weights of the below trials, one per trial: the exclusive hypervolume contribution of each feasible
// complete trial to the Pareto front of the feasible complete below trials (reference: referencePoint() of all their
// values), divided by the largest contribution, floored at 1e-12; 1e-12 for a dominated one and for the others
// (infeasible, pruned). When at most one trial is feasible, or the hypervolume is infinite, feasible trials weigh 1.
std::vector<double> contributionWeights(std::span<const TrialRecord* const> below,
                                        std::span<const StudyDirection> directions);

// TPE with a choice of below weights for several objectives (makeSampler's TPE uses Uniform, the newest rule).
std::unique_ptr<Sampler> makeTpeSampler(const TpeOptions& options, MotpeBelowWeights belowWeights);

} // namespace pitwall::hpo_internal
