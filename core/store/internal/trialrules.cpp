#include "core/store/internal/trialrules.h"

#include "core/store/internal/pyjson.h"
#include "core/store/pareto.h"
#include "core/util/error.h"

#include <cmath>
#include <unordered_map>

namespace pitwall::store_internal {

namespace {

std::string quoted(const std::string& text)
{
    return "'" + text + "'";
}

bool sameKind(const Distribution& a, const Distribution& b)
{
    return a.kind == b.kind && a.log == b.log && (a.kind != Distribution::Kind::Categorical || a.choices == b.choices);
}

} // namespace

std::pair<std::optional<double>, const char*> storedValue(double value)
{
    if (std::isnan(value))
        return {std::nullopt, "NAN"};
    if (std::isinf(value))
        return {std::nullopt, value > 0 ? "INF_POS" : "INF_NEG"};
    return {value, "FINITE"};
}

double valueOfType(std::optional<double> value, std::string_view type)
{
    if (type == "INF_POS")
        return HUGE_VAL;
    if (type == "INF_NEG")
        return -HUGE_VAL;
    if (type == "NAN" || !value)
        return std::nan("");
    return *value;
}

bool isFinished(TrialState state)
{
    return state == TrialState::Complete || state == TrialState::Pruned || state == TrialState::Fail;
}

Json decodeStoredJson(const std::string& text)
{
    try {
        return pythonJsonLoads(text);
    } catch (const Json::exception&) {
        return text;
    }
}

void addStateCount(StudySummary& summary, std::string_view stateName, int count)
{
    switch (parseTrialState(stateName).value_or(TrialState::Fail)) {
    case TrialState::Running:
        summary.running += count;
        break;
    case TrialState::Waiting:
        summary.waiting += count;
        break;
    case TrialState::Complete:
        summary.complete += count;
        break;
    case TrialState::Pruned:
        summary.pruned += count;
        break;
    case TrialState::Fail:
        summary.failed += count;
        break;
    }
}

void offerBestTrial(BestTracker& best, int number, double value, const std::optional<std::string>& constraintsJson)
{
    if (constraintsJson) { // an infeasible trial is never best
        TrialRecord constrained;
        constrained.systemAttrs[kConstraintsAttr] = decodeStoredJson(*constraintsJson);
        if (!isFeasible(constrained))
            return;
    }
    best.offer(number, value);
}

std::vector<BestTracker> bestTrackersFor(const std::vector<StudySummary>& summaries)
{
    std::vector<BestTracker> best;
    best.reserve(summaries.size());
    for (const auto& summary : summaries)
        best.emplace_back(summary.study.directions.empty() ? StudyDirection::Minimize : summary.study.directions[0]);
    return best;
}

void finishSummaries(std::vector<StudySummary>& summaries, const std::vector<BestTracker>& best,
                     const std::function<int(const StudyRecord&)>& paretoFrontSize)
{
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        summaries[i].bestValue = best[i].value();
        summaries[i].bestTrialNumber = best[i].number();
        if (summaries[i].study.directions.size() > 1)
            summaries[i].paretoSize = paretoFrontSize(summaries[i].study);
    }
}

void requireSameParameterKind(const std::string& where, const std::string& name, const std::string& recordedJson,
                              const Distribution& distribution)
{
    if (!sameKind(Distribution::fromOptunaJson(recordedJson), distribution))
        throw InputError(where + ": parameter " + quoted(name) + " was recorded with " + recordedJson +
                         " in this study; it cannot change to " + distribution.toOptunaJson());
}

void checkCompleteValues(const std::string& where, int trialNumber, std::size_t objectives,
                         const std::vector<double>& values)
{
    if (values.size() != objectives)
        throw InputError(where + ": trial " + std::to_string(trialNumber) + " needs " + std::to_string(objectives) +
                         " value(s) to complete, got " + std::to_string(values.size()));
    for (double value : values)
        if (std::isnan(value))
            throw InputError(where + ": trial " + std::to_string(trialNumber) + " cannot complete with NaN");
}

void checkTrialsToAdd(const std::string& where, std::size_t objectives, std::span<const TrialRecord> trials,
                      const std::function<void(const std::string&, const Distribution&)>& requireRecordedKind)
{
    std::unordered_map<std::string, const Distribution*> checked; // parameter -> the first distribution seen
    for (std::size_t i = 0; i < trials.size(); ++i) {
        const TrialRecord& trial = trials[i];
        const std::string which =
            where + ": trial " + std::to_string(i) + " of the " + std::to_string(trials.size()) + " to add";
        if (trial.state == TrialState::Complete && trial.values.size() != objectives)
            throw InputError(which + " is COMPLETE with " + std::to_string(trial.values.size()) +
                             " value(s); the study has " + std::to_string(objectives) + " objective(s)");
        if (trial.state == TrialState::Complete)
            for (double value : trial.values)
                if (std::isnan(value))
                    throw InputError(which + " cannot complete with NaN");
        for (const TrialParam& param : trial.params) {
            if (param.distribution.kind == Distribution::Kind::Categorical)
                param.distribution.toExternal(param.internalValue); // InputError outside the choices
            const auto [seen, added] = checked.try_emplace(param.name, &param.distribution);
            if (added) {
                requireRecordedKind(param.name, param.distribution);
                continue;
            }
            const Distribution& first = *seen->second;
            if (!sameKind(first, param.distribution))
                throw InputError(which + ": parameter " + quoted(param.name) + " has " +
                                 param.distribution.toOptunaJson() + " where an earlier one has " +
                                 first.toOptunaJson());
        }
    }
}

} // namespace pitwall::store_internal
