#include "core/store/pareto.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pitwall {

std::optional<std::vector<double>> trialConstraints(const TrialRecord& trial)
{
    const auto it = trial.systemAttrs.find(kConstraintsAttr);
    if (it == trial.systemAttrs.end() || !it->is_array())
        return std::nullopt;
    std::vector<double> values;
    for (const Json& v : *it)
        values.push_back(v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN());
    return values;
}

bool isFeasible(const TrialRecord& trial)
{
    const auto constraints = trialConstraints(trial);
    if (!constraints)
        return true;
    return std::all_of(constraints->begin(), constraints->end(), [](double c) { return c <= 0.0; });
}

std::vector<double> minimisedValues(std::span<const double> values, std::span<const StudyDirection> directions)
{
    std::vector<double> out(values.begin(), values.end());
    for (std::size_t i = 0; i < out.size() && i < directions.size(); ++i)
        if (directions[i] == StudyDirection::Maximize)
            out[i] = -out[i];
    return out;
}

bool dominates(std::span<const double> a, std::span<const double> b, std::span<const StudyDirection> directions)
{
    bool differs = false;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const bool maximize = i < directions.size() && directions[i] == StudyDirection::Maximize;
        const double x = maximize ? -a[i] : a[i];
        const double y = maximize ? -b[i] : b[i];
        if (x > y)
            return false;
        if (x != y)
            differs = true;
    }
    return differs;
}

bool countsForFront(const TrialRecord& trial, std::size_t objectives)
{
    if (trial.state != TrialState::Complete || trial.values.size() != objectives)
        return false;
    return std::none_of(trial.values.begin(), trial.values.end(), [](double v) { return std::isnan(v); });
}

std::vector<std::size_t> paretoFrontIndices(std::span<const TrialRecord> trials,
                                            std::span<const StudyDirection> directions, bool considerConstraints)
{
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < trials.size(); ++i)
        if (countsForFront(trials[i], directions.size()) && (!considerConstraints || isFeasible(trials[i])))
            candidates.push_back(i);
    // Sorted by the minimised values (lexicographically), a trial can only be dominated by one before it, and a
    // dominated trial's dominator is itself dominated by, or on, the front found so far: compare with the front only.
    std::vector<std::vector<double>> keys(trials.size());
    for (std::size_t i : candidates)
        keys[i] = minimisedValues(trials[i].values, directions);
    std::vector<std::size_t> order = candidates;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    const std::vector<StudyDirection> minimise(directions.size(), StudyDirection::Minimize);
    std::vector<std::size_t> front;
    for (std::size_t i : order) {
        const bool dominated = std::any_of(front.begin(), front.end(),
                                           [&](std::size_t f) { return dominates(keys[f], keys[i], minimise); });
        if (!dominated)
            front.push_back(i);
    }
    std::sort(front.begin(), front.end());
    return front;
}

std::optional<std::size_t> kneeIndex(std::span<const std::vector<double>> front)
{
    if (front.size() < 3)
        return std::nullopt;
    const std::size_t dims = front.front().size();
    std::vector<double> lo(dims, std::numeric_limits<double>::infinity());
    std::vector<double> hi(dims, -std::numeric_limits<double>::infinity());
    for (const std::vector<double>& p : front)
        for (std::size_t d = 0; d < dims && d < p.size(); ++d) {
            lo[d] = std::min(lo[d], p[d]);
            hi[d] = std::max(hi[d], p[d]);
        }
    std::optional<std::size_t> best;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < front.size(); ++i) {
        double sum = 0.0;
        for (std::size_t d = 0; d < dims && d < front[i].size(); ++d) {
            const double range = hi[d] - lo[d];
            const double scaled = range > 0 && std::isfinite(range) ? (front[i][d] - lo[d]) / range : 0.0;
            sum += scaled * scaled;
        }
        if (sum < bestDistance) {
            bestDistance = sum;
            best = i;
        }
    }
    return best;
}

} // namespace pitwall
