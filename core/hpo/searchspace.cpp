#include "core/hpo/searchspace.h"

#include "core/config/config.h"
#include "core/config/yamlload.h"
#include "core/util/paths.h"
#include "core/util/printable.h"
#include "core/util/strings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace pitwall {

namespace {

const std::vector<std::string> kTypeNames = {"uniform", "loguniform", "int", "categorical"};
const std::vector<std::string> kRangeFields = {"type", "min", "max", "step", "values"};

SourceLocation at(const std::string& file, const YAML::Node& node)
{
    const YAML::Mark mark = node.Mark();
    if (mark.is_null())
        return {file, 0, 0};
    return {file, mark.line + 1, mark.column + 1};
}

// A YAML scalar as PyYAML's safe_load would type it (more leniently: 1e-6 is a number here).
Json scalarToJson(const YAML::Node& node)
{
    const std::string& text = node.Scalar();
    if (node.Tag() == "!")
        return text;
    const std::string lower = toLower(text);
    if (text.empty() || text == "~" || lower == "null")
        return nullptr;
    if (lower == "true" || lower == "yes" || lower == "on")
        return true;
    if (lower == "false" || lower == "no" || lower == "off")
        return false;
    if (auto i = parseInteger(text))
        return *i;
    if (lower == ".inf" || lower == "+.inf")
        return std::numeric_limits<double>::infinity();
    if (lower == "-.inf")
        return -std::numeric_limits<double>::infinity();
    if (auto d = parseDouble(text))
        return *d;
    return text;
}

Json nodeToJson(const YAML::Node& node)
{
    if (node.IsSequence()) {
        Json out = Json::array();
        for (const auto& item : node)
            out.push_back(nodeToJson(item));
        return out;
    }
    if (node.IsMap()) {
        Json out = Json::object();
        for (const auto& item : node)
            out[item.first.Scalar()] = nodeToJson(item.second);
        return out;
    }
    if (!node || node.IsNull())
        return nullptr;
    return scalarToJson(node);
}

std::string flowText(const YAML::Node& node)
{
    if (node.IsScalar())
        return node.Scalar();
    YAML::Emitter emitter;
    emitter << YAML::Flow << node;
    return emitter.c_str();
}

// A JSON value of a categorical choice as a config value of the key's type; problem says why not.
ConfigValue toConfigValue(const KeySpec& spec, const Json& value, std::string& problem)
{
    switch (spec.type) {
    case ValueType::Bool:
        if (value.is_boolean())
            return ConfigValue(value.get<bool>());
        problem = value.dump() + " is not true or false";
        return {};
    case ValueType::Int:
        if (value.is_number_integer())
            return ConfigValue(static_cast<long long>(value.get<std::int64_t>()));
        problem = value.dump() + " is not an integer";
        return {};
    case ValueType::Float:
        if (value.is_number())
            return ConfigValue(value.get<double>());
        problem = value.dump() + " is not a number";
        return {};
    case ValueType::String:
    case ValueType::Choice:
        if (value.is_string())
            return ConfigValue(value.get<std::string>());
        problem = value.dump() + " is not a string";
        return {};
    default:
        problem = "list keys cannot be searched; give the key a fixed value";
        return {};
    }
}

class Parser {
public:
    Parser(const std::string& source, const Schema& schema, const std::vector<std::string>& sections, SpaceNames names)
        : m_source(source), m_schema(schema), m_sections(sections), m_names(names), m_scratch(schema)
    {
        m_keyNames = schema.keyNames();
    }

    std::vector<SpaceParam> run(const std::string& yamlText)
    {
        const YAML::Node root = loadYaml(yamlText, m_source, "not valid YAML");
        if (!root || root.IsNull())
            throw InputError(SourceLocation{m_source, 1, 1}, "the search space is empty");
        if (!root.IsMap())
            throw InputError(at(m_source, root), "a search space is a mapping of names to ranges or fixed values");
        std::vector<SpaceParam> params;
        std::map<std::string, std::string> keyToName; // config key -> first name that set it
        std::set<std::string> freeNames;
        for (const auto& item : root) {
            SpaceParam param;
            param.name = item.first.Scalar();
            param.where = at(m_source, item.first);
            const std::size_t before = m_problems.size();
            const KeySpec* spec = resolve(param);
            bool ok = m_problems.size() == before; // no key and no problem: a free parameter
            if (ok && !spec && !freeNames.insert(param.name).second) {
                problem(param.where, "'" + param.name + "' is given twice");
                ok = false;
            }
            if (item.second.IsMap())
                ok = parseRange(param, item.second, spec) && ok;
            else
                ok = parseFixed(param, item.second, spec) && ok;
            if (spec) {
                auto [it, inserted] = keyToName.emplace(spec->key, param.name);
                if (!inserted) {
                    problem(param.where,
                            "'" + param.name + "' sets " + spec->key + ", which '" + it->second + "' already sets");
                    ok = false;
                }
            }
            if (ok)
                params.push_back(std::move(param));
        }
        if (!m_problems.empty())
            throw InputError(m_problems);
        return params;
    }

private:
    void problem(const SourceLocation& where, const std::string& message) { m_problems.push_back({where, message}); }

    // The schema key of a name, or nullptr after reporting why there is none.
    const KeySpec* resolve(SpaceParam& param)
    {
        const std::string& name = param.name;
        if (name.find('.') != std::string::npos) {
            if (const KeySpec* spec = m_schema.find(name)) {
                param.configKey = spec->key;
                return spec;
            }
            if (m_names == SpaceNames::FreeAllowed) {
                acceptFree(param);
                return nullptr;
            }
            std::string message = "'" + name + "' is not a config key";
            const auto near = nearestNames(name, m_keyNames);
            if (!near.empty())
                message += "; did you mean '" + near.front() + "'?";
            problem(param.where, message);
            return nullptr;
        }
        std::vector<std::string> matches;
        if (!m_sections.empty()) {
            for (const std::string& section : m_sections)
                if (m_schema.find(section + "." + name))
                    matches.push_back(section + "." + name);
        } else {
            for (const std::string& key : m_keyNames)
                if (key == name || endsWith(key, "." + name))
                    matches.push_back(key);
        }
        if (matches.size() == 1) {
            param.configKey = matches.front();
            return m_schema.find(matches.front());
        }
        const std::string where =
            m_sections.empty() ? std::string("the schema")
                               : "section" + std::string(m_sections.size() > 1 ? "s " : " ") + join(m_sections, ", ");
        if (matches.size() > 1) {
            problem(param.where,
                    "'" + name + "' is ambiguous in " + where + ": it could be " + join(matches, ", ") +
                        "; write the full key" +
                        (m_sections.empty() ? ", or name the model whose keys bare names mean (--model NAME)" : ""));
            return nullptr;
        }
        if (m_names == SpaceNames::FreeAllowed) {
            acceptFree(param);
            return nullptr;
        }
        std::string message = "'" + name + "' is not a key of " + where;
        std::vector<std::string> elsewhere;
        for (const std::string& key : m_keyNames)
            if (endsWith(key, "." + name))
                elsewhere.push_back(key);
        if (!elsewhere.empty()) { // the name exists, in another section: say where instead of guessing
            problem(param.where, message + " (keys elsewhere with that name: " + join(elsewhere, ", ") + ")");
            return nullptr;
        }
        std::vector<std::string> local;
        for (const std::string& key : m_keyNames)
            for (const std::string& section : m_sections)
                if (startsWith(key, section + ".") && key.find('.', section.size() + 1) == std::string::npos)
                    local.push_back(key.substr(section.size() + 1));
        const auto near = nearestNames(name, m_sections.empty() ? std::vector<std::string>{} : local);
        if (!near.empty())
            message += "; did you mean '" + near.front() + "'?";
        problem(param.where, message);
        return nullptr;
    }

    // A name that maps to no key, with free names allowed: a free parameter, unless it is one edit from a key or
    // from a key's last segment (a typo is likelier than a parameter named so close to a key), or a dotted name
    // in a config section (it reads as a key, and a free parameter would silently set nothing). Reports why not.
    void acceptFree(const SpaceParam& param)
    {
        const std::string& name = param.name;
        const auto leafOf = [](const std::string& key) {
            const auto dot = key.rfind('.');
            return dot == std::string::npos ? key : key.substr(dot + 1);
        };
        std::vector<std::pair<int, std::string>> near;
        for (const std::string& key : m_keyNames)
            if (const int d = std::min(editDistance(name, key), editDistance(name, leafOf(key))); d <= 1)
                near.emplace_back(d, key);
        if (!near.empty()) {
            std::sort(near.begin(), near.end());
            problem(param.where, "'" + name + "' is not a config key; did you mean '" + near.front().second +
                                     "'? (a free parameter, one that sets no config key, needs a name more than "
                                     "one edit away from every config key)");
            return;
        }
        const auto dot = name.find('.');
        if (dot == std::string::npos)
            return;
        const std::string section = name.substr(0, dot + 1);
        for (const std::string& key : m_keyNames)
            if (startsWith(key, section)) {
                problem(param.where, "'" + name +
                                         "' is not a config key (a free parameter, one that sets no config "
                                         "key, cannot be named in the config section '" +
                                         name.substr(0, dot) + "')");
                return;
            }
    }

    std::optional<double> number(const YAML::Node& range, const char* field, bool integer)
    {
        const YAML::Node node = range[field];
        const Json value = node.IsScalar() ? scalarToJson(node) : Json(nullptr);
        if (value.is_number() && (!integer || value.is_number_integer())) {
            if (std::isfinite(value.get<double>()))
                return value.get<double>();
            problem(at(m_source, node), std::string("'") + field + "' must be a finite number, got '" +
                                            node.Scalar() + "'");
            return std::nullopt;
        }
        problem(at(m_source, node), std::string("'") + field + "' must be " + (integer ? "an integer" : "a number") +
                                        ", got " + (node.IsScalar() ? "'" + node.Scalar() + "'" : "a non-scalar"));
        return std::nullopt;
    }

    // A range mapping ({type, min, max, step} or {type: categorical, values}); false after reporting why it is
    // not a valid range for the key.
    bool parseRange(SpaceParam& param, const YAML::Node& range, const KeySpec* spec)
    {
        const std::size_t before = m_problems.size();
        reportUnknownRangeFields(param, range);
        if (!parseRangeType(param, range))
            return false;
        if (param.type == SpaceParamType::Categorical)
            return parseCategorical(param, range, spec, before);
        return parseBounds(param, range, spec, before);
    }

    void reportUnknownRangeFields(const SpaceParam& param, const YAML::Node& range)
    {
        for (const auto& field : range) {
            const std::string name = field.first.Scalar();
            if (std::find(kRangeFields.begin(), kRangeFields.end(), name) == kRangeFields.end()) {
                const auto near = nearestNames(name, kRangeFields);
                problem(at(m_source, field.first), "unknown field '" + name + "' in '" + param.name + "'" +
                                                       (near.empty() ? "" : "; did you mean '" + near.front() + "'?"));
            }
        }
    }

    // Sets param.type from the range's 'type'; false after reporting a missing or unknown one.
    bool parseRangeType(SpaceParam& param, const YAML::Node& range)
    {
        if (!range["type"]) {
            problem(at(m_source, range),
                    "'" + param.name + "' needs a 'type' (uniform, loguniform, int or categorical)");
            return false;
        }
        const std::string type = range["type"].Scalar();
        const auto known = std::find(kTypeNames.begin(), kTypeNames.end(), type);
        if (known == kTypeNames.end()) {
            const auto near = nearestNames(type, kTypeNames);
            problem(at(m_source, range["type"]), "unknown type '" + type +
                                                     "'; expected uniform, loguniform, int or categorical" +
                                                     (near.empty() ? "" : " (did you mean '" + near.front() + "'?)"));
            return false;
        }
        param.type = static_cast<SpaceParamType>(known - kTypeNames.begin());
        return true;
    }

    // A categorical range's 'values': scalars, none twice, each one the key accepts. `before`: the problem
    // count when the range's parsing began.
    bool parseCategorical(SpaceParam& param, const YAML::Node& range, const KeySpec* spec, std::size_t before)
    {
        const YAML::Node values = range["values"];
        if (!values || !values.IsSequence() || values.size() == 0) {
            problem(at(m_source, values ? values : range),
                    "categorical '" + param.name + "' needs a non-empty list 'values'");
            return false;
        }
        for (const auto& value : values) {
            if (!value.IsScalar()) {
                problem(at(m_source, value), "categorical values must be scalars (numbers, strings, booleans)");
                continue;
            }
            const Json json = scalarToJson(value);
            if (std::find(param.values.begin(), param.values.end(), json) != param.values.end())
                problem(at(m_source, value), "value " + json.dump() + " is listed twice");
            else if (spec)
                checkValue(*spec, json, at(m_source, value), param);
            param.values.push_back(json);
        }
        for (const char* field : {"min", "max", "step"})
            if (range[field])
                problem(at(m_source, range[field]), std::string("categorical takes 'values', not '") + field + "'");
        return m_problems.size() == before;
    }

    // A number range's min, max and optional step: finite, min < max (and > 0 for loguniform), a positive step,
    // and bounds the key accepts. `before`: the problem count when the range's parsing began.
    bool parseBounds(SpaceParam& param, const YAML::Node& range, const KeySpec* spec, std::size_t before)
    {
        const std::string type = range["type"].Scalar();
        if (range["values"])
            problem(at(m_source, range["values"]),
                    "'values' belongs to type categorical; " + type + " takes min and max");
        if (!range["min"] || !range["max"]) {
            problem(at(m_source, range), type + " '" + param.name + "' needs both 'min' and 'max'");
            return false;
        }
        const bool integer = param.type == SpaceParamType::Int;
        const auto low = number(range, "min", integer);
        const auto high = number(range, "max", integer);
        if (range["step"]) {
            if (param.type == SpaceParamType::LogUniform)
                problem(at(m_source, range["step"]),
                        "loguniform takes no 'step' (Optuna's log distributions have none)");
            else if (auto step = number(range, "step", integer); step && !(*step > 0))
                problem(at(m_source, range["step"]), "'step' must be positive, got " + formatDouble(*step));
            else
                param.step = step;
        }
        if (!low || !high)
            return false;
        param.low = *low;
        param.high = *high;
        if (!(param.low < param.high))
            problem(at(m_source, range["min"]),
                    "min (" + formatDouble(param.low) + ") must be less than max (" + formatDouble(param.high) + ")");
        else if (param.type == SpaceParamType::LogUniform && param.low <= 0.0)
            problem(at(m_source, range["min"]), "loguniform needs min > 0, got " + formatDouble(param.low));
        if (spec && m_problems.size() == before)
            checkRange(*spec, param, range);
        return m_problems.size() == before;
    }

    void checkValue(const KeySpec& spec, const Json& value, const SourceLocation& where, const SpaceParam& param)
    {
        std::string why;
        const ConfigValue converted = toConfigValue(spec, value, why);
        if (why.empty())
            why = spec.check(converted);
        if (!why.empty())
            problem(where, "'" + param.name + "' (" + spec.key + "): " + why + "; expected " + spec.expectation());
    }

    void checkRange(const KeySpec& spec, const SpaceParam& param, const YAML::Node& range)
    {
        if (spec.type != ValueType::Float && spec.type != ValueType::Int) {
            problem(param.where, "'" + param.name + "' sets " + spec.key + ", a " + valueTypeName(spec.type) +
                                     " key: only categorical values or a fixed value can set it");
            return;
        }
        if (spec.type == ValueType::Int && param.type != SpaceParamType::Int) {
            problem(at(m_source, range["type"]),
                    "'" + param.name + "' sets " + spec.key + ", an integer key: use type int (or categorical)");
            return;
        }
        for (const char* field : {"min", "max"}) {
            const double value = std::string(field) == "min" ? param.low : param.high;
            const ConfigValue converted =
                spec.type == ValueType::Int ? ConfigValue(static_cast<long long>(value)) : ConfigValue(value);
            const std::string why = spec.check(converted);
            if (!why.empty())
                problem(at(m_source, range[field]), "'" + param.name + "' (" + spec.key + "): " + field + " " + why +
                                                        "; the key takes " + spec.expectation());
        }
    }

    bool parseFixed(SpaceParam& param, const YAML::Node& value, const KeySpec* spec)
    {
        param.type = SpaceParamType::Fixed;
        param.fixedValue = nodeToJson(value);
        param.fixedText = flowText(value);
        if (!spec)
            return true; // a free parameter, or a name already reported
        try {
            m_scratch.setFromText(spec->key, param.fixedText, ValueOrigin{OriginKind::Program, {}, "search space"});
        } catch (const InputError& error) {
            for (const Diagnostic& d : error.diagnostics())
                problem(at(m_source, value), "fixed value of '" + param.name + "': " + d.message);
            return false;
        }
        return true;
    }

    std::string m_source;
    const Schema& m_schema;
    std::vector<std::string> m_sections;
    SpaceNames m_names;
    std::vector<std::string> m_keyNames;
    ResolvedConfig m_scratch;
    std::vector<Diagnostic> m_problems;
};

} // namespace

Distribution SpaceParam::distribution() const
{
    Distribution d;
    // Optuna lowers a high that is off the step grid onto it (_adjust_discrete_uniform_high / IntDistribution).
    auto onGrid = [&](double step) {
        const double k = (high - low) / step;
        return std::abs(k - std::round(k)) < 1e-9 ? high : std::floor(k) * step + low;
    };
    switch (type) {
    case SpaceParamType::Uniform:
    case SpaceParamType::LogUniform:
        d.kind = Distribution::Kind::Float;
        d.low = low;
        d.log = type == SpaceParamType::LogUniform;
        d.step = step;
        d.high = step ? onGrid(*step) : high;
        break;
    case SpaceParamType::Int:
        d.kind = Distribution::Kind::Int;
        d.low = low;
        d.step = step.value_or(1.0);
        d.high = onGrid(*d.step);
        break;
    case SpaceParamType::Categorical:
        d.kind = Distribution::Kind::Categorical;
        d.choices = values;
        break;
    case SpaceParamType::Fixed:
        throw RuntimeError("a fixed search-space value has no distribution");
    }
    return d;
}

SearchSpace SearchSpace::parse(const std::string& yamlText, const std::string& sourceName, const Schema& schema,
                               const std::vector<std::string>& sections, SpaceNames names)
{
    // YAML is UTF-8: other bytes would reach names and choices, and JSON (the store, the sampler) refuses them.
    if (const std::size_t bad = invalidUtf8At(yamlText); bad != std::string_view::npos) {
        const std::size_t lineStart = yamlText.rfind('\n', bad); // the bad byte itself is no '\n'
        const int line = 1 + static_cast<int>(std::count(yamlText.begin(), yamlText.begin() + bad, '\n'));
        const int column = static_cast<int>(bad - (lineStart == std::string::npos ? 0 : lineStart + 1)) + 1;
        throw InputError(SourceLocation{sourceName, line, column},
                         "the file is not UTF-8 text (" + printable(yamlText.substr(bad, 1)) + ")");
    }
    SearchSpace space;
    space.m_source = sourceName;
    space.m_params = Parser(sourceName, schema, sections, names).run(yamlText);
    return space;
}

SearchSpace SearchSpace::load(const std::string& path, const Schema& schema, const std::vector<std::string>& sections,
                              SpaceNames names)
{
    return parse(readTextFile(path), path, schema, sections, names);
}

const SpaceParam* SearchSpace::find(const std::string& name) const
{
    for (const SpaceParam& p : m_params)
        if (p.name == name)
            return &p;
    return nullptr;
}

std::vector<ParamRequest> SearchSpace::requests() const
{
    std::vector<ParamRequest> out;
    for (const SpaceParam& p : m_params)
        if (p.searched())
            out.push_back({p.name, p.distribution()});
    return out;
}

std::string overrideText(const Json& value)
{
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_number_integer())
        return std::to_string(value.get<std::int64_t>());
    if (value.is_number())
        return formatDouble(value.get<double>());
    if (value.is_boolean())
        return value.get<bool>() ? "true" : "false";
    if (value.is_null())
        return "null";
    return value.dump();
}

std::vector<std::string> SearchSpace::overrides(const Json& sampled) const
{
    std::vector<std::string> out;
    for (const SpaceParam& p : m_params) {
        if (p.free())
            continue; // sampled and stored, but no config key to set
        if (!p.searched())
            out.push_back(p.configKey + "=" + p.fixedText);
        else if (sampled.contains(p.name))
            out.push_back(p.configKey + "=" + overrideText(sampled[p.name]));
    }
    return out;
}

std::vector<std::string> ownerSections(const Schema& schema, const std::string& owner)
{
    std::vector<std::string> out;
    for (const KeySpec& spec : schema.keys()) {
        if (spec.owner != owner)
            continue;
        const auto dot = spec.key.rfind('.');
        const std::string section = dot == std::string::npos ? std::string() : spec.key.substr(0, dot);
        if (!section.empty() && std::find(out.begin(), out.end(), section) == out.end())
            out.push_back(section);
    }
    return out;
}

} // namespace pitwall
