#include "core/hpo/triallabels.h"

#include "core/config/internal/yamlvalue.h"
#include "core/config/yamlload.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <set>

namespace pitwall {

namespace {

// The value `text` names for `p`, or a problem.
Json valueFor(const SpaceParam& p, const std::string& text, std::string& problem)
{
    switch (p.type) {
    case SpaceParamType::Categorical: {
        std::vector<std::string> choices;
        for (const Json& choice : p.values) {
            if (overrideText(choice) == text)
                return choice;
            choices.push_back(overrideText(choice));
        }
        problem = "'" + text + "' is not one of " + p.name + "'s values (" + join(choices, ", ") + ")";
        return {};
    }
    case SpaceParamType::Fixed:
        if (overrideText(p.fixedValue) == text)
            return p.fixedValue;
        problem = p.name + " is fixed at " + overrideText(p.fixedValue) + ", not '" + text + "'";
        return {};
    default: {
        const auto number = parseDouble(text);
        if (!number || *number < p.low || *number > p.high) {
            problem = "'" + text + "' is not a number in " + p.name + "'s range [" + formatDouble(p.low) + ", " +
                      formatDouble(p.high) + "]";
            return {};
        }
        if (p.type == SpaceParamType::Int)
            return static_cast<long long>(std::llround(*number));
        return *number;
    }
    }
}

bool sameValue(const Json& a, const Json& b)
{
    if (a.is_number() && b.is_number()) {
        const double x = a.get<double>(), y = b.get<double>();
        return std::abs(x - y) <= 1e-9 * std::max(1.0, std::abs(x));
    }
    return a == b;
}

} // namespace

std::vector<TrialLabel> parseTrialLabels(const std::string& yamlText, const std::string& sourceName,
                                         const SearchSpace& space)
{
    const YAML::Node root = loadYaml(yamlText, sourceName);
    if (!root.IsMap() || root.size() == 0)
        throw InputError(internal::locationOf(sourceName, root.Mark()),
                         "a labels file maps each name to parameter values: NAME: {param: value, ...}");
    std::vector<std::string> names;
    for (const SpaceParam& p : space.params())
        names.push_back(p.name);
    std::vector<Diagnostic> problems;
    std::vector<TrialLabel> labels;
    std::set<std::string> seen;
    for (const auto& item : root) {
        const SourceLocation at = internal::locationOf(sourceName, item.first.Mark());
        if (!item.first.IsScalar()) {
            problems.push_back({at, "a label's name must be text"});
            continue;
        }
        TrialLabel label;
        label.name = item.first.Scalar();
        if (!seen.insert(label.name).second)
            problems.push_back({at, "label '" + label.name + "' is given twice"});
        if (!item.second.IsMap() || item.second.size() == 0) {
            problems.push_back({at, "label '" + label.name + "' needs parameter values: {param: value, ...}"});
            continue;
        }
        for (const auto& value : item.second) {
            const SourceLocation where = internal::locationOf(sourceName, value.first.Mark());
            if (!value.first.IsScalar() || !value.second.IsScalar()) {
                problems.push_back({where, "label '" + label.name + "': give each parameter one plain value"});
                continue;
            }
            const std::string name = value.first.Scalar();
            const SpaceParam* p = space.find(name);
            if (!p) {
                std::string message = "label '" + label.name + "': '" + name + "' is not a parameter of " +
                                      space.source();
                if (const auto near = nearestNames(name, names, 1); !near.empty())
                    message += " (did you mean " + near.front() + "?)";
                problems.push_back({where, message});
                continue;
            }
            std::string problem;
            const Json v = valueFor(*p, value.second.Scalar(), problem);
            if (!problem.empty())
                problems.push_back({internal::locationOf(sourceName, value.second.Mark()),
                                    "label '" + label.name + "': " + problem});
            else
                label.params[name] = v;
        }
        labels.push_back(std::move(label));
    }
    if (!problems.empty())
        throw InputError(std::move(problems));
    return labels;
}

Json trialLabelsJson(const std::vector<TrialLabel>& labels)
{
    Json out = Json::array();
    for (const TrialLabel& l : labels)
        out.push_back({{"name", l.name}, {"params", l.params}});
    return out;
}

std::vector<TrialLabel> trialLabelsFromJson(const Json& json)
{
    std::vector<TrialLabel> labels;
    if (!json.is_array())
        return labels;
    for (const Json& entry : json)
        if (entry.is_object() && entry.contains("name") && entry["name"].is_string() && entry.contains("params") &&
            entry["params"].is_object() && !entry["params"].empty())
            labels.push_back({entry["name"].get<std::string>(), entry["params"]});
    return labels;
}

std::vector<std::string> labelsOf(const TrialRecord& trial, const std::vector<TrialLabel>& labels)
{
    std::vector<std::string> names;
    for (const TrialLabel& label : labels) {
        bool all = true;
        for (auto it = label.params.begin(); all && it != label.params.end(); ++it) {
            bool found = false;
            for (const TrialParam& p : trial.params)
                if (p.name == it.key()) {
                    found = sameValue(p.value(), it.value());
                    break;
                }
            all = found;
        }
        if (all)
            names.push_back(label.name);
    }
    return names;
}

} // namespace pitwall
