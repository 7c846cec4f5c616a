#include "ui/study/studymath.h"
#include "ui/wording.h"

#include "core/store/besttrial.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <type_traits>

#include <QSet>

namespace pitwall::ui {

std::optional<double> objectiveOf(const TrialRecord& trial)
{
    if ((trial.state == TrialState::Complete || trial.state == TrialState::Pruned) && !trial.values.empty() &&
        std::isfinite(trial.values[0]))
        return trial.values[0];
    return std::nullopt;
}

std::vector<TrialRecord> projectObjective(const std::vector<TrialRecord>& trials, std::size_t index)
{
    std::vector<TrialRecord> out = trials;
    if (index == 0)
        return out;
    for (TrialRecord& t : out) {
        StepValues intermediate;
        for (const auto& [step, vector] : t.intermediateVectors)
            if (index < vector.size())
                intermediate[step] = vector[index];
        if (t.state == TrialState::Complete)
            t.values = index < t.values.size() ? std::vector<double>{t.values[index]} : std::vector<double>{};
        else if (t.state == TrialState::Pruned)
            t.values = intermediate.empty() ? std::vector<double>{} : std::vector<double>{intermediate.rbegin()->second};
        t.intermediateValues = std::move(intermediate);
    }
    return out;
}

std::vector<int> topTrials(const std::vector<TrialRecord>& trials, int k, StudyDirection direction)
{
    return rankedTrialNumbers(trials, direction, k);
}

std::vector<ParamAxis> paramAxes(const std::vector<TrialRecord>& trials)
{
    return paramTable(trials).axes;
}

ParamTable paramTable(const std::vector<TrialRecord>& trials)
{
    // Names and distributions by std::string first: one QString per parameter, not per trial.
    std::map<std::string, ParamAxis> axes;
    for (const TrialRecord& t : trials)
        for (const TrialParam& p : t.params) {
            auto [it, inserted] = axes.try_emplace(p.name);
            ParamAxis& axis = it->second;
            if (inserted) {
                axis.name = QString::fromStdString(p.name);
                axis.categorical = p.distribution.kind == Distribution::Kind::Categorical;
                axis.log = p.distribution.log;
                axis.low = axis.high = p.internalValue;
                if (axis.categorical) {
                    for (const Json& c : p.distribution.choices)
                        axis.categories << QString::fromStdString(c.is_string() ? c.get<std::string>() : c.dump());
                    axis.low = 0;
                    axis.high = std::max<double>(0, axis.categories.size() - 1);
                }
            }
            if (!axis.categorical) {
                axis.low = std::min(axis.low, p.internalValue);
                axis.high = std::max(axis.high, p.internalValue);
            }
        }
    ParamTable table;
    std::map<std::string, std::size_t> index;
    for (auto& [name, axis] : axes) {
        if (axis.log && axis.low <= 0)
            axis.log = false;
        index[name] = table.axes.size();
        table.axes.push_back(axis);
    }
    table.values.assign(trials.size(), std::vector<double>(table.axes.size(), std::nan("")));
    for (std::size_t i = 0; i < trials.size(); ++i)
        for (const TrialParam& p : trials[i].params)
            table.values[i][index[p.name]] = p.internalValue;
    return table;
}

std::optional<double> paramValue(const TrialRecord& trial, const QString& name)
{
    const std::string wanted = name.toStdString();
    for (const TrialParam& p : trial.params)
        if (p.name == wanted)
            return p.internalValue;
    return std::nullopt;
}

namespace {

// Share of the objective's variance explained by the group means, bias-corrected (epsilon squared:
// (SS_between - (k - 1) MS_within) / SS_total), clamped at 0.
double epsilonSquared(const std::vector<int>& group, const std::vector<double>& y)
{
    const double n = static_cast<double>(y.size());
    const double mean = std::accumulate(y.begin(), y.end(), 0.0) / n;
    std::map<int, std::pair<double, int>> groups;
    for (std::size_t i = 0; i < y.size(); ++i) {
        auto& g = groups[group[i]];
        g.first += y[i];
        g.second += 1;
    }
    double between = 0, total = 0;
    for (const auto& [id, g] : groups) {
        const double m = g.first / g.second;
        between += g.second * (m - mean) * (m - mean);
    }
    for (double v : y)
        total += (v - mean) * (v - mean);
    const double k = static_cast<double>(groups.size());
    if (total <= 0 || k < 2 || n <= k)
        return 0.0;
    const double withinMean = (total - between) / (n - k);
    return std::max(0.0, (between - (k - 1) * withinMean) / total);
}

// Quantile bins of a numeric parameter (ties stay together).
std::vector<int> quantileBins(const std::vector<double>& x, int bins)
{
    std::vector<std::size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    std::vector<int> out(x.size());
    int bin = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const int wanted = static_cast<int>(i * static_cast<std::size_t>(bins) / order.size());
        if (i > 0 && x[order[i]] != x[order[i - 1]])
            bin = wanted;
        out[order[i]] = bin;
    }
    return out;
}

} // namespace

std::vector<std::pair<QString, double>> parameterImportance(const std::vector<TrialRecord>& trials)
{
    return parameterImportance(trials, paramTable(trials));
}

std::vector<std::pair<QString, double>> parameterImportance(const std::vector<TrialRecord>& trials,
                                                            const ParamTable& table)
{
    std::vector<std::pair<QString, double>> out;
    double sum = 0;
    for (std::size_t a = 0; a < table.axes.size(); ++a) {
        const ParamAxis& axis = table.axes[a];
        std::vector<double> x, y;
        for (std::size_t i = 0; i < trials.size(); ++i) {
            if (trials[i].state != TrialState::Complete)
                continue;
            const auto v = objectiveOf(trials[i]);
            const double p = table.values[i][a];
            if (v && !std::isnan(p)) {
                x.push_back(axis.log ? std::log(p) : p);
                y.push_back(*v);
            }
        }
        double score = 0;
        if (x.size() >= 3) {
            std::vector<int> groups;
            if (axis.categorical) {
                for (double v : x)
                    groups.push_back(static_cast<int>(v));
            } else {
                groups = quantileBins(x, std::clamp(static_cast<int>(x.size()) / 5, 2, 10));
            }
            score = epsilonSquared(groups, y);
        }
        out.emplace_back(axis.name, score);
        sum += score;
    }
    if (sum > 0)
        for (auto& [name, score] : out)
            score /= sum;
    return out;
}

StudyParams studyParams(const std::vector<TrialRecord>& trials)
{
    StudyParams params;
    params.table = paramTable(trials);
    params.importance = parameterImportance(trials, params.table);
    params.byImportance.resize(params.importance.size());
    std::iota(params.byImportance.begin(), params.byImportance.end(), std::size_t(0));
    std::stable_sort(params.byImportance.begin(), params.byImportance.end(), [&](std::size_t a, std::size_t b) {
        return params.importance[a].second > params.importance[b].second;
    });
    return params;
}

std::vector<std::size_t> drawnParams(const StudyParams& params, std::size_t cap,
                                     const std::optional<QStringList>& picked)
{
    const std::size_t count = params.table.axes.size();
    const bool capped = count > cap;
    std::vector<std::size_t> out;
    if (!picked) {
        if (!capped) {
            out.resize(count);
            std::iota(out.begin(), out.end(), std::size_t(0));
            return out;
        }
        return {params.byImportance.begin(), params.byImportance.begin() + static_cast<std::ptrdiff_t>(cap)};
    }
    const QSet<QString> wanted(picked->begin(), picked->end());
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t axis = capped ? params.byImportance[i] : i;
        if (wanted.contains(params.table.axes[axis].name))
            out.push_back(axis);
    }
    return out;
}

namespace {
// FNV-1a over 64-bit words rather than bytes (a field at a time: 100,000 trials hash in about a millisecond), with
// the high bits folded back so that every bit of a word reaches the low bits.
struct Fnv {
    std::uint64_t hash = 1469598103934665603ull;
    template <typename T> void add(const T& value)
    {
        static_assert(sizeof(T) <= sizeof(std::uint64_t) && std::is_trivially_copyable_v<T>);
        std::uint64_t word = 0;
        std::memcpy(&word, &value, sizeof value);
        hash = (hash ^ word) * 1099511628211ull;
        hash ^= hash >> 32;
    }
};
} // namespace

std::uint64_t trialsSignature(const std::vector<TrialRecord>& trials)
{
    Fnv f;
    for (const TrialRecord& t : trials) {
        f.add(t.id);
        f.add(static_cast<int>(t.state));
        for (double v : t.values)
            f.add(v);
        f.add(t.intermediateValues.size());
        if (!t.intermediateValues.empty())
            f.add(t.intermediateValues.rbegin()->second);
        f.add(t.startTime.value_or(-1));
        f.add(t.completeTime.value_or(-1));
        f.add(t.params.size());
        f.add(t.systemAttrs.size());
        f.add(t.userAttrs.size());
    }
    return f.hash;
}

std::uint64_t runsSignature(const std::vector<RunRecord>& runs)
{
    Fnv f;
    for (const RunRecord& r : runs) {
        f.add(r.id);
        f.add(static_cast<int>(r.status));
        f.add(r.endTime.value_or(-1));
    }
    return f.hash;
}

std::uint64_t runsSignature(const std::vector<RunRecord>& runs, const std::unordered_set<std::int64_t>& trialIds)
{
    Fnv f;
    for (const RunRecord& r : runs) {
        if (!r.trialId || !trialIds.count(*r.trialId))
            continue;
        f.add(r.id);
        f.add(static_cast<int>(r.status));
        f.add(r.endTime.value_or(-1));
    }
    return f.hash;
}

QString describeObjectives(const std::vector<StudyDirection>& directions, const std::vector<std::string>& names,
                           std::optional<int> paretoSize)
{
    QStringList parts;
    for (std::size_t i = 0; i < directions.size(); ++i) {
        const QString verb = QString::fromUtf8(directionVerb(directions[i]).data());
        const QString name = i < names.size() ? QString::fromStdString(names[i]) : QString();
        parts << (name.isEmpty() || (directions.size() == 1 && name == QLatin1String("objective"))
                      ? verb
                      : verb + QLatin1Char(' ') + name);
    }
    if (directions.size() <= 1)
        return parts.value(0, QStringLiteral("minimise"));
    QString text = QStringLiteral("%1 objectives: %2").arg(directions.size()).arg(parts.join(QStringLiteral(", ")));
    if (paretoSize)
        text += QStringLiteral(" · ") + counted(*paretoSize, "trial", "trials") + QStringLiteral(" on the Pareto front");
    return text;
}

} // namespace pitwall::ui
