#include "core/hpo/internal/motpe.h"

#include "core/hpo/hypervolume.h"
#include "core/store/pareto.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace pitwall::hpo_internal {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-12; // Optuna's EPS in _tpe/sampler.py

// Total violation of an infeasible trial (Optuna's _get_infeasible_trial_score); a NaN constraint counts as +inf.
double violation(const TrialRecord& trial)
{
    double total = 0.0;
    for (double c : trialConstraints(trial).value_or(std::vector<double>{}))
        total += std::isnan(c) ? kInf : std::max(c, 0.0);
    return total;
}

// Non-domination rank of each point (0: the front), correct up to the rank that holds the `needed`-th point;
// every later point gets one rank beyond it (as Optuna's _calculate_nondomination_rank with n_below).
std::vector<int> nonDominationRanks(const std::vector<std::vector<double>>& points, std::size_t needed)
{
    const std::vector<StudyDirection> minimise(points.empty() ? 0 : points.front().size(), StudyDirection::Minimize);
    std::vector<int> ranks(points.size(), -1);
    std::vector<std::size_t> remaining(points.size());
    std::iota(remaining.begin(), remaining.end(), 0);
    std::size_t ranked = 0;
    int rank = 0;
    while (ranked < needed && !remaining.empty()) {
        std::vector<std::size_t> front, rest;
        for (std::size_t i : remaining) {
            const bool dominated = std::any_of(remaining.begin(), remaining.end(), [&](std::size_t j) {
                return dominates(points[j], points[i], minimise);
            });
            (dominated ? rest : front).push_back(i);
        }
        for (std::size_t i : front)
            ranks[i] = rank;
        ranked += front.size();
        remaining = std::move(rest);
        ++rank;
    }
    for (std::size_t i : remaining)
        ranks[i] = rank;
    return ranks;
}

// The complete trials' split: indices into `points` (minimised values) that go below.
std::vector<std::size_t> splitComplete(const std::vector<std::vector<double>>& points, std::size_t belowCount)
{
    std::vector<std::size_t> below;
    if (belowCount == 0)
        return below;
    if (belowCount >= points.size()) {
        below.resize(points.size());
        std::iota(below.begin(), below.end(), 0);
        return below;
    }
    const std::vector<int> ranks = nonDominationRanks(points, belowCount);
    // Whole ranks while they fit; the first rank that does not fit is cut by HSSP.
    int cutRank = 0;
    for (;; ++cutRank) {
        const auto inRank = static_cast<std::size_t>(std::count(ranks.begin(), ranks.end(), cutRank));
        if (below.size() + inRank > belowCount)
            break;
        for (std::size_t i = 0; i < points.size(); ++i)
            if (ranks[i] == cutRank)
                below.push_back(i);
    }
    if (below.size() < belowCount) {
        std::vector<std::size_t> members;
        std::vector<std::vector<double>> tied;
        for (std::size_t i = 0; i < points.size(); ++i)
            if (ranks[i] == cutRank) {
                members.push_back(i);
                tied.push_back(points[i]);
            }
        const std::vector<double> reference = referencePoint(tied);
        for (std::size_t k : greedyHypervolumeSubset(tied, belowCount - below.size(), reference))
            below.push_back(members[k]);
    }
    return below;
}

} // namespace

TpeRankKey tpeRankKey(const TrialRecord& trial, StudyDirection direction)
{
    const double sign = direction == StudyDirection::Minimize ? 1.0 : -1.0;
    if (trial.state == TrialState::Complete)
        return {-kInf, sign * trial.values.front()};
    if (trial.intermediateValues.empty())
        return {1.0, 0.0};
    const auto& [step, value] = *trial.intermediateValues.rbegin();
    return {-static_cast<double>(step), std::isnan(value) ? kInf : sign * value};
}

std::size_t multiObjectiveGamma(std::size_t finishedTrials)
{
    return static_cast<std::size_t>(std::ceil(0.1 * static_cast<double>(finishedTrials)));
}

std::vector<double> referencePoint(std::span<const std::vector<double>> points)
{
    std::vector<double> reference(points.front().size(), -kInf);
    for (const std::vector<double>& p : points)
        for (std::size_t k = 0; k < reference.size(); ++k)
            reference[k] = std::max(reference[k], p[k]);
    for (double& r : reference) {
        r = std::max(1.1 * r, 0.9 * r);
        if (r == 0.0)
            r = kEps;
    }
    return reference;
}

namespace {

// Whether the distinct 2-objective points (in lexicographic order) are mutually non-dominated: x strictly rising
// and y strictly falling, as within one non-domination rank.
bool staircase(std::span<const std::vector<double>> points, const std::vector<std::size_t>& distinct)
{
    for (std::size_t k = 1; k < distinct.size(); ++k) {
        const std::vector<double>& a = points[distinct[k - 1]];
        const std::vector<double>& b = points[distinct[k]];
        if (!(a[0] < b[0] && a[1] > b[1]))
            return false;
    }
    return true;
}

// The greedy step both selections take: the candidate not used yet with the largest gain, the first one on ties.
template <class Gain>
std::size_t largestGain(const std::vector<char>& used, Gain&& gain)
{
    std::size_t best = used.size();
    double bestGain = -kInf;
    for (std::size_t c = 0; c < used.size(); ++c) {
        if (used[c])
            continue;
        const double g = gain(c);
        if (best == used.size() || g > bestGain) {
            best = c;
            bestGain = g;
        }
    }
    return best;
}

// Greedy subset selection on a 2-objective staircase, the same choices as the general loop below in far less time:
// a candidate's box minus the chosen points clipped to it is the rectangle between it and its chosen neighbours,
// (x of the next chosen point to its right, or the reference) - x times (y of the next chosen point to its left,
// or the reference) - y. Ties go to the first candidate in lexicographic order, as there.
std::vector<std::size_t> greedyStaircaseSubset(std::span<const std::vector<double>> points,
                                               const std::vector<std::size_t>& distinct, std::size_t count,
                                               std::span<const double> reference)
{
    std::map<double, double> chosenXY; // x -> y of the chosen points
    std::vector<char> used(distinct.size(), 0);
    std::vector<std::size_t> chosen;
    while (chosen.size() < count) {
        const std::size_t best = largestGain(used, [&](std::size_t c) {
            const std::vector<double>& p = points[distinct[c]];
            const auto right = chosenXY.upper_bound(p[0]);
            const double xRight = right == chosenXY.end() ? reference[0] : right->first;
            const double yLeft = right == chosenXY.begin() ? reference[1] : std::prev(right)->second;
            return std::max(xRight - p[0], 0.0) * std::max(yLeft - p[1], 0.0);
        });
        used[best] = 1;
        chosenXY.emplace(points[distinct[best]][0], points[distinct[best]][1]);
        chosen.push_back(distinct[best]);
    }
    return chosen;
}

} // namespace

std::vector<std::size_t> greedyHypervolumeSubset(std::span<const std::vector<double>> points, std::size_t count,
                                                 std::span<const double> reference)
{
    std::vector<std::size_t> all(points.size());
    std::iota(all.begin(), all.end(), 0);
    if (count >= points.size())
        return all;
    // The distinct points in lexicographic order, each by its first occurrence (numpy.unique(axis=0)).
    std::vector<std::size_t> order = all;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return points[a] < points[b]; });
    std::vector<std::size_t> distinct;
    for (std::size_t i : order)
        if (distinct.empty() || points[distinct.back()] != points[i])
            distinct.push_back(i);

    std::vector<std::size_t> chosen;
    if (distinct.size() <= count) { // every distinct point, then the first duplicates in input order
        std::vector<char> taken(points.size(), 0);
        for (std::size_t i : distinct)
            taken[i] = 1;
        std::size_t extra = count - distinct.size();
        for (std::size_t i = 0; i < points.size() && extra > 0; ++i)
            if (!taken[i]) {
                taken[i] = 1;
                --extra;
            }
        for (std::size_t i = 0; i < points.size(); ++i)
            if (taken[i])
                chosen.push_back(i);
        return chosen;
    }
    if (!std::all_of(reference.begin(), reference.end(), [](double r) { return std::isfinite(r); }))
        return {distinct.begin(), distinct.begin() + static_cast<std::ptrdiff_t>(count)};

    if (points[distinct.front()].size() == 2 && staircase(points, distinct))
        return greedyStaircaseSubset(points, distinct, count, reference);

    // Each step: the candidate whose box, minus the chosen points clipped to it, is largest.
    std::vector<std::vector<double>> selected;
    std::vector<char> used(distinct.size(), 0);
    while (chosen.size() < count) {
        const std::size_t best = largestGain(used, [&](std::size_t c) {
            const std::vector<double>& p = points[distinct[c]];
            double box = 1.0;
            for (std::size_t k = 0; k < p.size(); ++k)
                box *= std::max(reference[k] - p[k], 0.0);
            std::vector<std::vector<double>> clipped = selected;
            for (std::vector<double>& s : clipped)
                for (std::size_t k = 0; k < s.size(); ++k)
                    s[k] = std::max(s[k], p[k]);
            const double covered = clipped.empty() ? 0.0 : hypervolume(clipped, reference);
            return std::isinf(box) ? kInf : box - covered;
        });
        used[best] = 1;
        selected.push_back(points[distinct[best]]);
        chosen.push_back(distinct[best]);
    }
    return chosen;
}

namespace {

// How the feasible pruned trials of a study with several objectives are ordered for l(x): the furthest step first;
// at the same step, by the non-domination rank of their vectors there (a trial without a whole finite vector at its
// last step ranks after those with one), then by the first objective's value. (Optuna's TPE orders pruned trials by
// study.direction, which a study with several objectives does not have.)
auto prunedOrder(std::span<const TrialRecord* const> trials, const std::vector<std::size_t>& pruned,
                 std::span<const StudyDirection> directions)
{
    const StudyDirection first = directions.empty() ? StudyDirection::Minimize : directions.front();
    std::map<std::size_t, TpeRankKey> keys;
    std::map<double, std::vector<std::size_t>> byStep; // stepKey -> trials with a whole vector at that step
    for (std::size_t i : pruned) {
        const TrialRecord& t = *trials[i];
        keys[i] = tpeRankKey(t, first);
        if (t.intermediateValues.empty())
            continue;
        const auto vector = t.intermediateVectors.find(t.intermediateValues.rbegin()->first);
        if (vector != t.intermediateVectors.end() && vector->second.size() == directions.size() &&
            std::all_of(vector->second.begin(), vector->second.end(), [](double v) { return std::isfinite(v); }))
            byStep[keys[i].stepKey].push_back(i);
    }
    std::map<std::size_t, int> rank;
    for (const auto& [step, group] : byStep) {
        std::vector<std::vector<double>> points;
        for (std::size_t i : group) {
            const TrialRecord& t = *trials[i];
            points.push_back(minimisedValues(t.intermediateVectors.at(t.intermediateValues.rbegin()->first), directions));
        }
        const std::vector<int> ranks = nonDominationRanks(points, points.size());
        for (std::size_t k = 0; k < group.size(); ++k)
            rank[group[k]] = ranks[k];
    }
    return [keys = std::move(keys), rank = std::move(rank)](std::size_t a, std::size_t b) {
        const TpeRankKey& x = keys.at(a);
        const TpeRankKey& y = keys.at(b);
        if (x.stepKey != y.stepKey)
            return x.stepKey < y.stepKey;
        const auto ra = rank.find(a), rb = rank.find(b);
        const int na = ra == rank.end() ? std::numeric_limits<int>::max() : ra->second;
        const int nb = rb == rank.end() ? std::numeric_limits<int>::max() : rb->second;
        return na != nb ? na < nb : x.score < y.score;
    };
}

} // namespace

std::vector<char> splitMultiObjective(std::span<const TrialRecord* const> trials,
                                      std::span<const StudyDirection> directions, std::size_t belowCount)
{
    std::vector<std::size_t> complete, pruned, infeasible;
    for (std::size_t i = 0; i < trials.size(); ++i) {
        const TrialRecord& t = *trials[i];
        if (t.state == TrialState::Running) // constraints are not set yet: always above
            continue;
        if (!isFeasible(t))
            infeasible.push_back(i);
        else if (countsForFront(t, directions.size()))
            complete.push_back(i);
        else if (t.state == TrialState::Pruned)
            pruned.push_back(i);
        // a complete trial with a wrong value count or a NaN (a damaged file) stays above
    }

    std::vector<char> below(trials.size(), 0);
    std::vector<std::vector<double>> points;
    for (std::size_t i : complete)
        points.push_back(minimisedValues(trials[i]->values, directions));
    for (std::size_t k : splitComplete(points, belowCount)) {
        below[complete[k]] = 1;
        --belowCount;
    }

    const auto fill = [&](std::vector<std::size_t>& group, const auto& less) {
        std::stable_sort(group.begin(), group.end(), less);
        for (std::size_t k = 0; k < group.size() && belowCount > 0; ++k, --belowCount)
            below[group[k]] = 1;
    };
    fill(pruned, prunedOrder(trials, pruned, directions));
    fill(infeasible, [&](std::size_t a, std::size_t b) { return violation(*trials[a]) < violation(*trials[b]); });
    return below;
}

std::vector<double> contributionWeights(std::span<const TrialRecord* const> below,
                                        std::span<const StudyDirection> directions)
{
    std::vector<double> weights(below.size(), kEps);
    std::vector<std::size_t> feasible;
    std::vector<std::vector<double>> points;
    for (std::size_t i = 0; i < below.size(); ++i)
        if (isFeasible(*below[i]) && countsForFront(*below[i], directions.size())) {
            feasible.push_back(i);
            points.push_back(minimisedValues(below[i]->values, directions));
            weights[i] = 1.0;
        }
    if (feasible.size() <= 1)
        return weights;
    const std::vector<double> reference = referencePoint(points);
    const bool finite = std::all_of(reference.begin(), reference.end(), [](double r) { return std::isfinite(r); });
    if (!finite || std::isinf(hypervolume(points, reference)))
        return weights;
    // Contributions among the front only (a dominated trial weighs 1e-12 and takes nothing from the others).
    const std::vector<StudyDirection> minimise(directions.size(), StudyDirection::Minimize);
    std::vector<std::size_t> onFront;
    std::vector<std::vector<double>> front;
    for (std::size_t k = 0; k < points.size(); ++k)
        if (std::none_of(points.begin(), points.end(),
                         [&](const auto& q) { return dominates(q, points[k], minimise); })) {
            onFront.push_back(k);
            front.push_back(points[k]);
        }
    const std::vector<double> contributions = hypervolumeContributions(front, reference);
    const double largest = std::max(*std::max_element(contributions.begin(), contributions.end()), kEps);
    for (std::size_t k = 0; k < feasible.size(); ++k)
        weights[feasible[k]] = kEps;
    for (std::size_t f = 0; f < onFront.size(); ++f)
        weights[feasible[onFront[f]]] = std::max(contributions[f] / largest, kEps);
    return weights;
}

} // namespace pitwall::hpo_internal
