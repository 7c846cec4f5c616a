#pragma once
// Exact hypervolume (the Lebesgue measure of the region a set of points dominates) for multi-objective search.
//
// Every objective is MINIMISED: callers flip the sign of maximised objectives first. The region measured is the
// union of the boxes [p, reference) over the points p. A point contributes only where it is strictly below the
// reference in every objective; a point on or beyond the reference in any objective adds nothing.
//
// Algorithms, for n points after dropping those that add nothing and those weakly dominated by another:
//   1 objective   ref - min, O(n)
//   2 objectives  a sweep over the points sorted by the first objective, O(n log n)
//   3 objectives  a sweep over the third objective keeping the 2-D front in a balanced tree, O(n log n)
//                 (Beume, Fonseca, Lopez-Ibanez, Paquete & Vahrenhold 2009)
//   4 and more    WFG (While, Bradstreet & Barone 2012): the sum of exclusive contributions, each computed
//                 from the non-dominated limit set of the later points; sorting by the last objective first
//                 lets every limit set drop that objective, so the recursion ends in the 3-objective sweep.
//                 Exponential in the number of objectives in the worst case; 2-3 ms for 100 points on a
//                 5-objective front (RelWithDebInfo build, one core of the 2-core dev machine).
//
// Errors (InputError, core/util/error.h): NaN anywhere; a point whose size differs from the reference's; an
// empty reference or one with a non-finite value. A point with -inf in an objective (and strictly below the
// reference in the others) dominates an unbounded region: the hypervolume is +inf.
//
// Pure functions with no state: safe to call from any thread.

#include "core/store/records.h"

#include <span>
#include <utility>
#include <vector>

namespace pitwall {

double hypervolume(std::span<const std::vector<double>> points, std::span<const double> reference);

// Each point's exclusive contribution, hypervolume(all) - hypervolume(all without point i), computed directly as
// the volume of its box minus the hypervolume of the others clipped to that box (no cancellation between two
// large totals). 0 for a point that adds nothing, is weakly dominated by another point, or duplicates another
// point; +inf for a non-dominated point with -inf in an objective. Same errors as hypervolume(). O(n) calls
// of the hypervolume algorithm above, one per non-dominated point. Used by multi-objective TPE to weight trials.
std::vector<double> hypervolumeContributions(std::span<const std::vector<double>> points,
                                             std::span<const double> reference);

// A study's hypervolume after each trial that can be on its front (core/store/pareto.h: COMPLETE, feasible, one value
// per objective), in trial number order: (trial number, hypervolume of the front so far). The reference is in the
// objectives' own units (for a maximised objective, the value every counted point must exceed). InputError for a
// reference of another length than the directions, or a non-finite one.
std::vector<std::pair<int, double>> hypervolumeHistory(std::span<const TrialRecord> trials,
                                                       std::span<const StudyDirection> directions,
                                                       std::span<const double> reference);

// A reference for a study with none given (the window's hypervolume chart): per objective, the worst value among the
// trials hypervolumeHistory counts, pushed 10 % of that objective's range further (10 % of |worst| when all are
// equal, 1 when that is 0 too), so every counted trial adds volume. In the objectives' own units; empty when no
// trial counts.
std::vector<double> defaultReference(std::span<const TrialRecord> trials, std::span<const StudyDirection> directions);

} // namespace pitwall
