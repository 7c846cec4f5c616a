#pragma once
// Which trial of a study is the best: the one home of this rule. `pitwall study best` (Study::bestTrial), the
// study list (Store::listStudies), a search's progress line (countTrials) and the window's views all use it,
// so they never disagree. Optuna's semantics (storages/_rdb/models.py find_max_value_trial_id /
// find_min_value_trial_id, storages/_in_memory.py _update_cache):
//
// - Only COMPLETE and feasible trials count (constraints as core/store/pareto.h reads them: an infeasible trial is
//   never best, as in the newest Optuna's best_trial). Pruned trials (which carry their last intermediate value), failed, running
//   and waiting trials never do, whatever values they hold.
// - The first objective decides (a multi-objective study has no single best in Optuna; Pitwall's lists show
//   the first objective's).
// - Infinities rank like numbers: +inf is the best possible value when maximising and the worst when
//   minimising, -inf the other way round (Optuna stores them as value_type INF_POS / INF_NEG and orders by
//   that type before the value since 3.1.1 / 3.2, optuna#4422; 3.1.0's RDB storage, Debian's, ordered by the
//   NULL it stores for an infinity and got them wrong, optuna#4420; its in-memory storage always ranked them so).
// - NaN never counts: Optuna fails a trial whose objective returned NaN (and so does Study::tell), so a
//   COMPLETE trial with NaN only comes from a damaged or foreign file; it is skipped, never best.
// - Ties: the lowest trial number wins. Optuna's in-memory storage keeps the first trial to complete with
//   the best value and its RDB storage leaves equals in whatever order the database returns; Pitwall fixes
//   the order so that every reader, in any order it meets the trials, names the same trial.
//
// Pure functions, no state: any thread.

#include "core/store/records.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace pitwall {

// True when value `a` is strictly better than `b` under `direction`. A NaN is never better than anything, and
// anything else is better than a NaN.
bool betterValue(double a, double b, StudyDirection direction);

// The value a trial competes with: the first value of a COMPLETE trial, unless it is NaN. nullopt for every
// trial that does not count.
std::optional<double> rankedValue(const TrialRecord& trial);

// Strict order of competing trials: (aValue, aNumber) ranks before (bValue, bNumber) when its value is
// better, or equal with a lower trial number.
bool ranksBefore(double aValue, int aNumber, double bValue, int bNumber, StudyDirection direction);

// The best of the trials offered so far, in any order. Offer only values from trials that count (use
// offer(const TrialRecord&) or rankedValue); a NaN value is refused.
class BestTracker {
public:
    explicit BestTracker(StudyDirection direction) : m_direction(direction) {}
    // Returns true when trial `number` with `value` becomes the best.
    bool offer(int number, double value);
    // Offers the trial when it counts (rankedValue).
    bool offer(const TrialRecord& trial);
    std::optional<double> value() const { return m_value; }
    std::optional<int> number() const { return m_number; }

private:
    StudyDirection m_direction;
    std::optional<double> m_value;
    std::optional<int> m_number;
};

// The index into `trials` of the best trial, or nullopt when no trial counts (an empty study included).
std::optional<std::size_t> bestTrialIndex(const std::vector<TrialRecord>& trials, StudyDirection direction);

// The numbers of the trials that count, best first (ties by number); the `limit` best when limit > 0.
std::vector<int> rankedTrialNumbers(const std::vector<TrialRecord>& trials, StudyDirection direction, int limit = 0);

} // namespace pitwall
