#include "core/store/besttrial.h"

#include "core/store/pareto.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace pitwall {

bool betterValue(double a, double b, StudyDirection direction)
{
    if (std::isnan(a))
        return false;
    if (std::isnan(b))
        return true;
    return direction == StudyDirection::Minimize ? a < b : a > b;
}

std::optional<double> rankedValue(const TrialRecord& trial)
{
    if (trial.state != TrialState::Complete || trial.values.empty() || std::isnan(trial.values.front()) ||
        !isFeasible(trial))
        return std::nullopt;
    return trial.values.front();
}

bool ranksBefore(double aValue, int aNumber, double bValue, int bNumber, StudyDirection direction)
{
    if (betterValue(aValue, bValue, direction))
        return true;
    return !betterValue(bValue, aValue, direction) && aNumber < bNumber;
}

bool BestTracker::offer(int number, double value)
{
    if (std::isnan(value) || (m_value && !ranksBefore(value, number, *m_value, *m_number, m_direction)))
        return false;
    m_value = value;
    m_number = number;
    return true;
}

bool BestTracker::offer(const TrialRecord& trial)
{
    const std::optional<double> value = rankedValue(trial);
    return value && offer(trial.number, *value);
}

std::optional<std::size_t> bestTrialIndex(const std::vector<TrialRecord>& trials, StudyDirection direction)
{
    BestTracker best(direction);
    std::optional<std::size_t> index;
    for (std::size_t i = 0; i < trials.size(); ++i)
        if (best.offer(trials[i]))
            index = i;
    return index;
}

std::vector<int> rankedTrialNumbers(const std::vector<TrialRecord>& trials, StudyDirection direction, int limit)
{
    std::vector<std::pair<double, int>> ranked;
    for (const TrialRecord& t : trials)
        if (const std::optional<double> value = rankedValue(t))
            ranked.emplace_back(*value, t.number);
    std::sort(ranked.begin(), ranked.end(), [direction](const auto& a, const auto& b) {
        return ranksBefore(a.first, a.second, b.first, b.second, direction);
    });
    if (limit > 0 && ranked.size() > static_cast<std::size_t>(limit))
        ranked.resize(static_cast<std::size_t>(limit));
    std::vector<int> numbers;
    numbers.reserve(ranked.size());
    for (const auto& entry : ranked)
        numbers.push_back(entry.second);
    return numbers;
}

} // namespace pitwall
