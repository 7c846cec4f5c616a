#include "core/pool/objectives.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <cmath>

namespace pitwall {

bool isDrivingMetric(const std::string& key)
{
    for (const char* name : kDrivingMetrics)
        if (key == name)
            return true;
    return false;
}

bool needsDrivingEvaluation(const HpoSettings& settings)
{
    if (settings.objectives.empty() && isDrivingMetric(settings.objective))
        return true;
    for (const std::string& key : settings.objectives)
        if (isDrivingMetric(key))
            return true;
    for (const std::string& constraint : settings.constraints)
        if (isDrivingMetric(parseConstraint(constraint).key))
            return true;
    return false;
}

ConstraintSpec parseConstraint(const std::string& text)
{
    const auto bad = [&](const std::string& why) {
        return InputError::forOption("constraint", "--constraint '" + text + "' " + why +
                                                       ": give KEY<=X or KEY>=X, e.g. \"full_fps>=30\"");
    };
    std::size_t at = text.find("<=");
    ConstraintSpec spec;
    if (at == std::string::npos) {
        at = text.find(">=");
        spec.atMost = false;
    }
    if (at == std::string::npos)
        throw bad("has no <= or >=");
    spec.key = trim(text.substr(0, at));
    const std::string boundText = trim(text.substr(at + 2));
    if (spec.key.empty())
        throw bad("names no metric");
    const auto bound = parseDouble(boundText);
    if (!bound || !std::isfinite(*bound))
        throw bad("has no finite number after the operator");
    spec.bound = *bound;
    return spec;
}

void checkObjectiveSpecs(const std::vector<std::string>& objectives, std::size_t directions,
                         const std::vector<std::string>& constraints, bool command)
{
    for (const std::string& c : constraints)
        parseConstraint(c);
    if (objectives.size() > 1 && directions != objectives.size())
        throw InputError::forOption("direction", "--objective and --direction come in pairs, one per objective: " +
                                                     std::to_string(objectives.size()) + " objectives, " +
                                                     std::to_string(directions) + " direction" +
                                                     (directions == 1 ? "" : "s"));
    if (objectives.size() == 1 && directions > 1)
        throw InputError::forOption("objective", "--objective and --direction come in pairs, one per objective: " +
                                                     std::to_string(directions) + " directions, 1 objective");
    if (directions > 1 && objectives.empty() && !command)
        throw InputError::forOption("objective", "several --direction need one --objective each (the metric each "
                                                 "optimises, e.g. --objective val/loss --direction minimize "
                                                 "--objective full_fps --direction maximize)");
}

namespace {

std::string knownKeys(const TrialOutcome& outcome)
{
    std::vector<std::string> keys;
    for (const auto& [key, value] : outcome.metrics)
        keys.push_back(key);
    return keys.empty() ? "none" : join(keys, ", ");
}

// The metric `key` names, or nullopt (then `problem` says why).
std::optional<double> metric(const TrialOutcome& outcome, const std::string& key, std::string& problem)
{
    auto it = outcome.metrics.find(key);
    if (it == outcome.metrics.end())
        it = outcome.metrics.find("val/" + key);
    if (it == outcome.metrics.end()) {
        problem = "the trial recorded no '" + key + "' (it recorded: " + knownKeys(outcome) + ")";
        return std::nullopt;
    }
    if (std::isnan(it->second)) {
        problem = "the trial's '" + it->first + "' is NaN";
        return std::nullopt;
    }
    return it->second;
}

} // namespace

TrialValues trialValues(const HpoSettings& settings, std::size_t objectiveCount, const TrialOutcome& outcome)
{
    TrialValues out;
    if (settings.objectives.empty() && objectiveCount <= 1) {
        if (outcome.value)
            out.values.push_back(*outcome.value);
        else if (outcome.objectives.size() == 1)
            out.values.push_back(outcome.objectives.front());
        else
            out.problem = outcome.objectives.empty()
                              ? "the runner completed the trial without a value"
                              : "the command printed " + std::to_string(outcome.objectives.size()) +
                                    " objectives; the study has 1";
    } else if (settings.objectives.size() != objectiveCount) {
        out.problem = "the study has " + std::to_string(objectiveCount) + " objectives but its search names " +
                      std::to_string(settings.objectives.size());
    } else {
        for (std::size_t i = 0; i < objectiveCount && out.problem.empty(); ++i) {
            const std::string& key = settings.objectives[i];
            if (!key.empty()) {
                if (const auto v = metric(outcome, key, out.problem))
                    out.values.push_back(*v);
            } else if (outcome.objectives.size() != objectiveCount) {
                out.problem = outcome.objectives.empty()
                                  ? "the command printed no {\"objectives\": [...]} line with its " +
                                        std::to_string(objectiveCount) + " values"
                                  : "the command printed " + std::to_string(outcome.objectives.size()) +
                                        " objectives; the study has " + std::to_string(objectiveCount);
            } else {
                out.values.push_back(outcome.objectives[i]);
            }
        }
    }
    for (const std::string& text : settings.constraints) {
        if (!out.problem.empty())
            break;
        const ConstraintSpec c = parseConstraint(text);
        if (const auto v = metric(outcome, c.key, out.problem))
            out.constraints.push_back(c.atMost ? *v - c.bound : c.bound - *v);
    }
    if (!out.problem.empty()) {
        out.values.clear();
        out.constraints.clear();
    }
    return out;
}

} // namespace pitwall
