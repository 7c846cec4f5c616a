#include "core/hpo/pruner.h"

#include "core/store/pareto.h"

#include "core/hpo/internal/pruners.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pitwall {

std::string_view prunerKindName(PrunerKind kind)
{
    switch (kind) {
    case PrunerKind::None:
        return "none";
    case PrunerKind::Median:
        return "median";
    case PrunerKind::SuccessiveHalving:
        return "sha";
    case PrunerKind::Hyperband:
        return "hyperband";
    }
    return "?";
}

std::optional<PrunerKind> parsePrunerKind(std::string_view name)
{
    for (PrunerKind kind : {PrunerKind::None, PrunerKind::Median, PrunerKind::SuccessiveHalving, PrunerKind::Hyperband})
        if (name == prunerKindName(kind))
            return kind;
    return std::nullopt;
}

PrunerSettings PrunerSettings::defaults(PrunerKind kind)
{
    PrunerSettings settings;
    settings.kind = kind;
    if (kind == PrunerKind::Hyperband) {
        settings.minResource = 1;
        settings.reductionFactor = 3;
    }
    return settings;
}

Json PrunerSettings::toJson() const
{
    Json json{{"name", prunerKindName(kind)}};
    switch (kind) {
    case PrunerKind::None:
        break;
    case PrunerKind::Median:
        json["n_startup_trials"] = startupTrials;
        json["n_warmup_steps"] = warmupSteps;
        json["interval_steps"] = intervalSteps;
        json["n_min_trials"] = minTrials;
        break;
    case PrunerKind::SuccessiveHalving:
        json["min_resource"] = minResource ? Json(*minResource) : Json("auto");
        json["reduction_factor"] = reductionFactor;
        json["min_early_stopping_rate"] = minEarlyStoppingRate;
        json["bootstrap_count"] = bootstrapCount;
        json["halving_version"] = countJudgedTwice ? "3.1" : "5";
        break;
    case PrunerKind::Hyperband:
        json["min_resource"] = minResource.value_or(1);
        json["max_resource"] = maxResource ? Json(*maxResource) : Json("auto");
        json["reduction_factor"] = reductionFactor;
        json["bootstrap_count"] = bootstrapCount;
        json["halving_version"] = countJudgedTwice ? "3.1" : "5";
        break;
    }
    return json;
}

PrunerSettings PrunerSettings::fromJson(const Json& json)
{
    if (!json.is_object())
        throw InputError("pruner settings are not a JSON object: " + json.dump());
    const std::string name = json.value("name", "median");
    const auto kind = parsePrunerKind(name);
    if (!kind)
        throw InputError("unknown pruner '" + name + "' (known: none, median, sha, hyperband)");
    PrunerSettings s = defaults(*kind);
    try {
        s.startupTrials = json.value("n_startup_trials", s.startupTrials);
        s.warmupSteps = json.value("n_warmup_steps", s.warmupSteps);
        s.intervalSteps = json.value("interval_steps", s.intervalSteps);
        s.minTrials = json.value("n_min_trials", s.minTrials);
        auto resource = [&](const char* key, std::optional<std::int64_t>& target) {
            if (!json.contains(key))
                return;
            if (json[key].is_string() && json[key] == "auto")
                target.reset();
            else
                target = json[key].get<std::int64_t>();
        };
        resource("min_resource", s.minResource);
        resource("max_resource", s.maxResource);
        s.reductionFactor = json.value("reduction_factor", s.reductionFactor);
        s.minEarlyStoppingRate = json.value("min_early_stopping_rate", s.minEarlyStoppingRate);
        s.bootstrapCount = json.value("bootstrap_count", s.bootstrapCount);
        const std::string version = json.value("halving_version", "3.1"); // stored before it existed: 3.1's
        if (version != "3.1" && version != "5")
            throw InputError("pruner settings: halving_version '" + version + "' is neither 5 nor 3.1: " + json.dump());
        s.countJudgedTwice = version == "3.1";
    } catch (const Json::exception& error) {
        throw InputError("malformed pruner settings " + json.dump() + ": " + error.what());
    }
    if (s.startupTrials < 0 || s.warmupSteps < 0 || s.intervalSteps < 1 || s.minTrials < 1 || s.reductionFactor < 2 ||
        s.minEarlyStoppingRate < 0 || s.bootstrapCount < 0 || (s.minResource && *s.minResource < 1) ||
        (s.maxResource && s.minResource && *s.maxResource < *s.minResource))
        throw InputError("pruner settings out of range: " + json.dump());
    if (*kind == PrunerKind::Hyperband && !s.minResource)
        s.minResource = 1;
    return s;
}

namespace hpo_internal {

std::optional<std::int64_t> lastStep(const TrialRecord& trial)
{
    if (trial.intermediateValues.empty())
        return std::nullopt;
    return trial.intermediateValues.rbegin()->first;
}

namespace {

// numpy.nanpercentile with linear interpolation; NaN when every value is NaN.
double nanPercentile(std::vector<double> values, double percentile)
{
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    const double rank = percentile / 100.0 * static_cast<double>(values.size() - 1);
    const auto low = static_cast<std::size_t>(std::floor(rank));
    const std::size_t high = std::min(low + 1, values.size() - 1);
    const double fraction = rank - static_cast<double>(low);
    return values[low] + (values[high] - values[low]) * fraction;
}

// Optuna's _is_first_in_interval_step.
bool firstInIntervalStep(std::int64_t step, const TrialRecord& trial, std::int64_t warmup, std::int64_t interval)
{
    const std::int64_t nearestLower = (step - warmup) / interval * interval + warmup;
    std::int64_t secondLast = -1;
    for (const auto& [s, value] : trial.intermediateValues)
        if (s > secondLast && s != step)
            secondLast = s;
    return secondLast < nearestLower;
}

class NoPruner final : public Pruner {
public:
    PruneDecision decide(const StudyRecord&, const std::vector<TrialRecord>&, const TrialRecord&) const override
    {
        return {};
    }
};

// Optuna's PercentilePruner at the 50th percentile.
class MedianPruner final : public Pruner {
public:
    explicit MedianPruner(const PrunerSettings& settings) : m_settings(settings) {}

    PruneDecision decide(const StudyRecord& study, const std::vector<TrialRecord>& trials,
                         const TrialRecord& trial) const override
    {
        PruneDecision decision;
        std::vector<const TrialRecord*> completed;
        for (const TrialRecord& t : trials)
            if (t.state == TrialState::Complete)
                completed.push_back(&t);
        if (completed.empty() || static_cast<int>(completed.size()) < m_settings.startupTrials)
            return decision;
        const auto step = lastStep(trial);
        if (!step || *step < m_settings.warmupSteps)
            return decision;
        if (!firstInIntervalStep(*step, trial, m_settings.warmupSteps, m_settings.intervalSteps))
            return decision;
        if (study.directions.size() > 1)
            return decideSeveral(study, completed, trial, *step);
        const bool maximize = !study.directions.empty() && study.directions.front() == StudyDirection::Maximize;
        double best = std::numeric_limits<double>::quiet_NaN();
        for (const auto& [s, value] : trial.intermediateValues)
            if (!std::isnan(value) && (std::isnan(best) || (maximize ? value > best : value < best)))
                best = value;
        if (std::isnan(best)) {
            decision.prune = true;
            return decision;
        }
        std::vector<double> atStep;
        for (const TrialRecord* t : completed) {
            const auto it = t->intermediateValues.find(*step);
            if (it != t->intermediateValues.end())
                atStep.push_back(it->second);
        }
        if (static_cast<int>(atStep.size()) < m_settings.minTrials)
            return decision;
        const double median = nanPercentile(atStep, maximize ? 100.0 - 50.0 : 50.0);
        if (std::isnan(median))
            return decision;
        decision.prune = maximize ? best < median : best > median;
        return decision;
    }

private:
    // Several objectives (what no single-objective pruner can judge): the trial's vector at the step is pruned when
    // more than half of the completed trials that reported a vector at that step dominate it, the median rule
    // read as "worse than the typical completed trial in every objective at once". A vector with a NaN is pruned,
    // as a NaN best value is; a step reported without a vector is not judged.
    PruneDecision decideSeveral(const StudyRecord& study, const std::vector<const TrialRecord*>& completed,
                                const TrialRecord& trial, std::int64_t step) const
    {
        PruneDecision decision;
        const auto own = trial.intermediateVectors.find(step);
        if (own == trial.intermediateVectors.end())
            return decision;
        if (std::any_of(own->second.begin(), own->second.end(), [](double v) { return std::isnan(v); })) {
            decision.prune = true;
            return decision;
        }
        int reported = 0, dominating = 0;
        for (const TrialRecord* t : completed) {
            const auto it = t->intermediateVectors.find(step);
            if (it == t->intermediateVectors.end() || it->second.size() != own->second.size())
                continue;
            ++reported;
            dominating += dominates(it->second, own->second, study.directions);
        }
        if (reported < m_settings.minTrials)
            return decision;
        decision.prune = 2 * dominating > reported;
        return decision;
    }

    PrunerSettings m_settings;
};

} // namespace

} // namespace hpo_internal

std::unique_ptr<Pruner> makePruner(const PrunerSettings& settings)
{
    switch (settings.kind) {
    case PrunerKind::None:
        return std::make_unique<hpo_internal::NoPruner>();
    case PrunerKind::Median:
        return std::make_unique<hpo_internal::MedianPruner>(settings);
    case PrunerKind::SuccessiveHalving:
        return hpo_internal::makeSuccessiveHalvingPruner(settings);
    case PrunerKind::Hyperband:
        return hpo_internal::makeHyperbandPruner(settings);
    }
    return nullptr;
}

} // namespace pitwall
