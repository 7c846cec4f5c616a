#pragma once
// Which trials of a multi-objective study are best: the Pareto front, the one home of this rule (as besttrial.h is
// for one objective). `pitwall study best`, the study list, NSGA-II's selection and the window use it. Optuna's
// meaning (optuna/study/_multi_objective.py, Study.best_trials):
//
// - Trial a dominates trial b when a is no worse in every objective and the two are not equal (maximised objectives
//   compare negated). Equal trials do not dominate each other, so both can be on the front.
// - The front holds the COMPLETE trials that no other COMPLETE trial dominates, in trial number order.
// - Constraints are stored as Optuna stores them: the trial system attribute "constraints", a list of numbers, and a
//   trial is feasible when every one is <= 0 (a trial without the attribute is feasible; a NaN constraint is not).
//   Infeasible trials are never on the front (the newest Optuna's best_trials; Optuna 3.1 ignored constraints there).
// - A COMPLETE trial whose value count differs from the study's objectives or that holds a NaN only comes from a
//   damaged or foreign file: it is left out, never best.
//
// Pure functions, no state: any thread.

#include "core/store/records.h"

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace pitwall {

inline constexpr const char* kConstraintsAttr = "constraints";

// The trial's constraint values, nullopt when it has none (or they are not a list of numbers: null counts as NaN).
std::optional<std::vector<double>> trialConstraints(const TrialRecord& trial);
// Feasible: no constraints stored, or every one <= 0.
bool isFeasible(const TrialRecord& trial);

// True when `a` dominates `b` (values in the objectives' order, each compared under its direction).
bool dominates(std::span<const double> a, std::span<const double> b, std::span<const StudyDirection> directions);

// True when the trial may be on the front: COMPLETE, one value per objective, no NaN.
bool countsForFront(const TrialRecord& trial, std::size_t objectives);

// Indices into `trials` of the Pareto front, in the trials' order. With considerConstraints, infeasible trials are
// left out first (so they neither sit on the front nor push anyone off it).
std::vector<std::size_t> paretoFrontIndices(std::span<const TrialRecord> trials,
                                            std::span<const StudyDirection> directions,
                                            bool considerConstraints = true);

// The knee of a front: the point closest (Euclidean) to the ideal point once every objective is scaled to [0, 1]
// over the front's own range (an objective with no range counts 0), so the trade-off is balanced whatever the units.
// `front` holds minimised values (minimisedValues), one vector per point; ties go to the first. nullopt below 3
// points: a front of 1 or 2 has no bend to pick.
std::optional<std::size_t> kneeIndex(std::span<const std::vector<double>> front);

// The values with every maximised objective negated, so that smaller is better in all.
std::vector<double> minimisedValues(std::span<const double> values, std::span<const StudyDirection> directions);

} // namespace pitwall
