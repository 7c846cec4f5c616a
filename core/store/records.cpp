#include "core/store/records.h"

#include "core/store/internal/pyjson.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <array>
#include <cmath>

namespace pitwall {

using store_internal::pythonFloatRepr;
using store_internal::pythonJsonDumps;

namespace {

template <typename Enum, std::size_t N>
std::optional<Enum> parseByName(std::string_view name, const std::array<std::string_view, N>& names)
{
    const std::string lower = toLower(name);
    for (std::size_t i = 0; i < N; ++i)
        if (toLower(names[i]) == lower)
            return static_cast<Enum>(i);
    return std::nullopt;
}

constexpr std::array<std::string_view, 5> kTrialStateNames{"RUNNING", "WAITING", "COMPLETE", "PRUNED", "FAIL"};
constexpr std::array<std::string_view, 2> kDirectionNames{"MINIMIZE", "MAXIMIZE"};
constexpr std::array<std::string_view, 4> kRunStatusNames{"running", "succeeded", "failed", "cancelled"};
constexpr std::array<std::string_view, 4> kEventLevelNames{"debug", "info", "warning", "error"};

double requireNumber(const Json& attributes, const char* key, const std::string& text)
{
    const auto it = attributes.find(key);
    if (it == attributes.end() || !it->is_number())
        throw InputError("distribution JSON lacks a number '" + std::string(key) + "': " + text);
    return it->get<double>();
}

std::optional<double> optionalNumber(const Json& attributes, const char* key)
{
    const auto it = attributes.find(key);
    if (it == attributes.end() || it->is_null() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

bool optionalBool(const Json& attributes, const char* key)
{
    const auto it = attributes.find(key);
    return it != attributes.end() && it->is_boolean() && it->get<bool>();
}

std::string integerText(double value)
{
    return std::to_string(static_cast<long long>(std::llround(value)));
}

} // namespace

Json jsonNumber(double value)
{
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    return std::isnan(value) ? Json(nullptr) : Json(value);
}

Json jsonNumber(const std::optional<double>& value) { return value ? jsonNumber(*value) : Json(nullptr); }

std::string_view trialStateName(TrialState state)
{
    return kTrialStateNames.at(static_cast<std::size_t>(state));
}
std::optional<TrialState> parseTrialState(std::string_view name)
{
    return parseByName<TrialState>(name, kTrialStateNames);
}

std::string_view studyDirectionName(StudyDirection direction)
{
    return kDirectionNames.at(static_cast<std::size_t>(direction));
}
std::optional<StudyDirection> parseStudyDirection(std::string_view name)
{
    return parseByName<StudyDirection>(name, kDirectionNames);
}

std::string_view runStatusName(RunStatus status)
{
    return kRunStatusNames.at(static_cast<std::size_t>(status));
}
std::optional<RunStatus> parseRunStatus(std::string_view name)
{
    return parseByName<RunStatus>(name, kRunStatusNames);
}

std::string_view eventLevelName(EventLevel level)
{
    return kEventLevelNames.at(static_cast<std::size_t>(level));
}
std::optional<EventLevel> parseEventLevel(std::string_view name)
{
    return parseByName<EventLevel>(name, kEventLevelNames);
}

std::string Distribution::toOptunaJson() const
{
    // Attribute order is the order of Optuna 3.1's __dict__ (see optuna/distributions.py).
    switch (kind) {
    case Kind::Float:
        return R"({"name": "FloatDistribution", "attributes": {"step": )" +
               (step ? pythonFloatRepr(*step) : std::string("null")) + R"(, "low": )" + pythonFloatRepr(low) +
               R"(, "high": )" + pythonFloatRepr(high) + R"(, "log": )" + (log ? "true" : "false") + "}}";
    case Kind::Int:
        return R"({"name": "IntDistribution", "attributes": {"log": )" + std::string(log ? "true" : "false") +
               R"(, "step": )" + integerText(step.value_or(1.0)) + R"(, "low": )" + integerText(low) + R"(, "high": )" +
               integerText(high) + "}}";
    case Kind::Categorical:
        return R"({"name": "CategoricalDistribution", "attributes": {"choices": )" + pythonJsonDumps(Json(choices)) +
               "}}";
    }
    return {};
}

Distribution Distribution::fromOptunaJson(const std::string& text)
{
    Json document;
    try {
        document = store_internal::pythonJsonLoads(text);
    } catch (const Json::exception& error) {
        throw InputError("invalid distribution JSON (" + std::string(error.what()) + "): " + text);
    }
    if (!document.is_object())
        throw InputError("distribution JSON is not an object: " + text);

    Distribution distribution;
    if (!document.contains("name")) {
        // Optuna's abbreviated form: {"type": "float"|"int"|"categorical", ...}.
        const std::string type = document.value("type", "");
        if (type == "categorical") {
            distribution.kind = Kind::Categorical;
            const auto choices = document.value("choices", Json::array());
            distribution.choices.assign(choices.begin(), choices.end());
            return distribution;
        }
        if (type != "float" && type != "int")
            throw InputError("unknown distribution type '" + type + "': " + text);
        distribution.kind = type == "float" ? Kind::Float : Kind::Int;
        distribution.low = requireNumber(document, "low", text);
        distribution.high = requireNumber(document, "high", text);
        distribution.log = optionalBool(document, "log");
        distribution.step = optionalNumber(document, "step");
        if (distribution.kind == Kind::Int && !distribution.step)
            distribution.step = 1.0;
        return distribution;
    }

    const std::string name = document["name"].is_string() ? document["name"].get<std::string>() : "";
    const Json attributes = document.value("attributes", Json::object());
    if (name == "CategoricalDistribution") {
        distribution.kind = Kind::Categorical;
        const auto it = attributes.find("choices");
        if (it == attributes.end() || !it->is_array())
            throw InputError("CategoricalDistribution without choices: " + text);
        distribution.choices.assign(it->begin(), it->end());
        return distribution;
    }
    const bool isFloat = name == "FloatDistribution" || name == "UniformDistribution" ||
                         name == "LogUniformDistribution" || name == "DiscreteUniformDistribution";
    const bool isInt =
        name == "IntDistribution" || name == "IntUniformDistribution" || name == "IntLogUniformDistribution";
    if (!isFloat && !isInt)
        throw InputError("unknown distribution class '" + name + "': " + text);
    distribution.kind = isFloat ? Kind::Float : Kind::Int;
    distribution.low = requireNumber(attributes, "low", text);
    distribution.high = requireNumber(attributes, "high", text);
    distribution.log =
        optionalBool(attributes, "log") || name == "LogUniformDistribution" || name == "IntLogUniformDistribution";
    distribution.step =
        name == "DiscreteUniformDistribution" ? optionalNumber(attributes, "q") : optionalNumber(attributes, "step");
    if (isInt && !distribution.step)
        distribution.step = 1.0;
    return distribution;
}

Json Distribution::toExternal(double internalValue) const
{
    switch (kind) {
    case Kind::Float:
        return internalValue;
    case Kind::Int:
        return static_cast<std::int64_t>(std::llround(internalValue));
    case Kind::Categorical: {
        const double index = std::round(internalValue);
        if (!(index >= 0 && index < static_cast<double>(choices.size())))
            throw InputError("categorical index " + formatDouble(internalValue) + " is out of range (" +
                             std::to_string(choices.size()) + " choices)");
        return choices[static_cast<std::size_t>(index)];
    }
    }
    return nullptr;
}

double Distribution::toInternal(const Json& externalValue) const
{
    if (kind == Kind::Categorical) {
        for (std::size_t i = 0; i < choices.size(); ++i)
            if (choices[i] == externalValue)
                return static_cast<double>(i);
        throw InputError("value " + externalValue.dump() + " is not one of the choices " + Json(choices).dump());
    }
    if (!externalValue.is_number())
        throw InputError("value " + externalValue.dump() + " is not a number");
    return externalValue.get<double>();
}

std::vector<std::string> objectiveNames(const StudyRecord& study)
{
    const std::size_t n = std::max<std::size_t>(1, study.directions.size());
    std::vector<std::string> names;
    const auto attr = study.systemAttrs.find(kMetricNamesAttr);
    if (attr != study.systemAttrs.end() && attr->is_array() && attr->size() == n)
        for (const Json& name : *attr)
            if (name.is_string() && !name.get<std::string>().empty())
                names.push_back(name.get<std::string>());
    if (names.size() == n)
        return names;
    names.clear();
    const auto hpo = study.systemAttrs.find(kHpoSettingsAttr);
    if (hpo != study.systemAttrs.end() && hpo->is_object()) {
        const auto several = hpo->find("objectives");
        if (several != hpo->end() && several->is_array() && several->size() == n)
            for (const Json& name : *several)
                if (name.is_string() && !name.get<std::string>().empty())
                    names.push_back(name.get<std::string>());
        const auto one = hpo->find("objective");
        if (names.size() != n && n == 1 && one != hpo->end() && one->is_string() && !one->get<std::string>().empty() &&
            one->get<std::string>() != "objective")
            names = {one->get<std::string>()};
        if (names.size() == n)
            return names;
        names.clear();
    }
    for (std::size_t i = 0; i < n; ++i)
        names.push_back(n == 1 ? std::string("objective") : "objective " + std::to_string(i + 1));
    return names;
}

std::string_view directionVerb(StudyDirection direction)
{
    return direction == StudyDirection::Maximize ? "maximise" : "minimise";
}

} // namespace pitwall
