#include "core/config/schema.h"

#include "core/config/internal/yamlvalue.h"
#include "core/config/yamlload.h"
#include "core/util/paths.h"
#include "core/util/printable.h"
#include "core/util/strings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace pitwall {

extern const char* const kBuiltinSchemaYaml; // generated from core/config/core.schema.yaml

namespace {

std::string rangeText(const KeySpec& spec)
{
    if (!spec.minimum && !spec.maximum)
        return {};
    const std::string low = spec.minimum ? formatDouble(*spec.minimum) : "-inf";
    const std::string high = spec.maximum ? formatDouble(*spec.maximum) : "inf";
    return std::string(spec.minimumExclusive ? " in (" : " in [") + low + ", " + high + "]";
}

// Text must be UTF-8, as YAML is: bytes that are not would be changed (to U+FFFD) when the config is written back
// (run records, `config show`), so the value read later would not be the value given.
std::string checkText(const std::string& text)
{
    if (invalidUtf8At(text) == std::string_view::npos)
        return {};
    return "'" + printable(text, LineBreaks::Escape, 80) + "' is not valid UTF-8 text";
}

// NaN is no number of any range (every comparison with it is false, so it must be refused first); ±inf is
// refused by a key that declares a range, whose values are finite by intent, even on its unbounded side.
std::string checkNumber(const KeySpec& spec, double value)
{
    if (std::isnan(value))
        return "nan is not a number";
    if (std::isinf(value) && (spec.minimum || spec.maximum))
        return formatDouble(value) + " is not a finite number";
    if (spec.minimum && (value < *spec.minimum || (spec.minimumExclusive && value == *spec.minimum)))
        return formatDouble(value) + (spec.minimumExclusive ? " is not above the minimum " : " is below the minimum ") +
               formatDouble(*spec.minimum);
    if (spec.maximum && value > *spec.maximum)
        return formatDouble(value) + " is above the maximum " + formatDouble(*spec.maximum);
    return {};
}

} // namespace

std::string KeySpec::expectation() const
{
    switch (type) {
    case ValueType::Choice:
        return "one of: " + join(choices, ", ");
    case ValueType::Int:
    case ValueType::Float:
    case ValueType::IntList:
    case ValueType::FloatList:
        return valueTypeExpectation(type) + rangeText(*this);
    default:
        return valueTypeExpectation(type);
    }
}

std::string KeySpec::check(const ConfigValue& value) const
{
    switch (type) {
    case ValueType::Choice:
        if (std::find(choices.begin(), choices.end(), value.asString()) == choices.end())
            return "'" + value.asString() + "' is not one of: " + join(choices, ", ");
        return {};
    case ValueType::Int:
        return checkNumber(*this, static_cast<double>(value.asInt()));
    case ValueType::Float:
        return checkNumber(*this, value.asDouble());
    case ValueType::IntList:
        for (long long v : value.asIntList())
            if (std::string problem = checkNumber(*this, static_cast<double>(v)); !problem.empty())
                return problem;
        return {};
    case ValueType::FloatList:
        for (double v : value.asFloatList())
            if (std::string problem = checkNumber(*this, v); !problem.empty())
                return problem;
        return {};
    case ValueType::String:
        return checkText(value.asString());
    case ValueType::StringList:
        for (const std::string& v : value.asStringList())
            if (std::string problem = checkText(v); !problem.empty())
                return problem;
        return {};
    default:
        return {};
    }
}

nlohmann::json KeySpec::toJson() const
{
    nlohmann::json j;
    j["key"] = key;
    j["type"] = valueTypeName(type);
    j["default"] = defaultValue.toJson();
    j["doc"] = doc;
    if (!choices.empty())
        j["choices"] = choices;
    if (minimum)
        j["min"] = *minimum;
    if (maximum)
        j["max"] = *maximum;
    if (minimumExclusive)
        j["min_exclusive"] = true;
    j["group"] = group;
    j["speed"] = speed;
    j["owner"] = owner;
    return j;
}

void Schema::add(KeySpec spec)
{
    if (const KeySpec* existing = find(spec.key)) {
        throw InputError(spec.declaredAt, "key '" + spec.key + "' is already declared by '" + existing->owner +
                                              "' at " + existing->declaredAt.toString());
    }
    m_index[spec.key] = m_keys.size();
    m_keys.push_back(std::move(spec));
}

namespace {

// The file's root mapping; InputError for a YAML syntax error or a root without a 'keys:' mapping.
YAML::Node loadSchemaRoot(const std::string& yamlText, const std::string& sourceName)
{
    const YAML::Node root = loadYaml(yamlText, sourceName);
    const SourceLocation rootAt = internal::locationOf(sourceName, root.Mark());
    if (!root.IsMap() || !root["keys"] || !root["keys"].IsMap())
        throw InputError(rootAt, "a schema file needs 'owner: NAME' and a 'keys:' mapping");
    return root;
}

// What a schema file says besides its keys.
struct SchemaHeader {
    std::string owner;
    std::vector<std::string> metricNames;
    bool drives = false;
};

// The file's 'owner' (default "core") and 'metrics' names; a 'metrics:' that is not a mapping is added to
// `problems`, other malformed fields throw InputError.
SchemaHeader readSchemaHeader(const YAML::Node& root, const std::string& sourceName, std::vector<Diagnostic>& problems)
{
    // A field of the wrong shape (a mapping where a name belongs) is the file's problem: yaml-cpp's conversion
    // errors become diagnostics at the node, never an escaping YAML::Exception.
    SchemaHeader header;
    try {
        header.owner = root["owner"] ? root["owner"].as<std::string>() : std::string("core");
        if (const YAML::Node metrics = root["metrics"]) {
            if (!metrics.IsMap())
                problems.push_back({internal::locationOf(sourceName, metrics.Mark()),
                                    "'metrics:' must map each validation metric to its doc string"});
            else
                for (const auto& item : metrics)
                    header.metricNames.push_back(item.first.as<std::string>());
        }
    } catch (const YAML::Exception& e) {
        throw InputError(internal::locationOf(sourceName, e.mark), "malformed 'owner' or 'metrics': " + e.msg);
    }
    try {
        header.drives = root["drives"] && root["drives"].as<bool>();
    } catch (const YAML::Exception& e) {
        throw InputError(internal::locationOf(sourceName, e.mark), "'drives:' must be true or false");
    }
    return header;
}

// InputError at the first field of a key's mapping that a schema does not know.
void checkKeyFields(const YAML::Node& node, const std::string& sourceName)
{
    static const std::set<std::string> known = {"type", "default",       "doc",   "choices", "min",
                                                "max",  "min_exclusive", "group", "speed"};
    for (const auto& field : node)
        if (!known.count(field.first.as<std::string>()))
            throw InputError(internal::locationOf(sourceName, field.first.Mark()),
                             "unknown schema field '" + field.first.as<std::string>() +
                                 "' (known: " + join(std::vector<std::string>(known.begin(), known.end()), ", ") + ")");
}

// Sets the key's default from its 'default' field, which must exist and pass the key's own check.
void readKeyDefault(KeySpec& spec, const YAML::Node& node, const std::string& sourceName)
{
    if (!node["default"])
        throw InputError(spec.declaredAt, "key '" + spec.key + "' needs a 'default'");
    std::string problem;
    spec.defaultValue = internal::convertNode(spec, node["default"], problem);
    if (problem.empty())
        problem = spec.check(spec.defaultValue);
    if (!problem.empty())
        throw InputError(internal::locationOf(sourceName, node["default"].Mark()),
                         "bad default for '" + spec.key + "': " + problem);
}

// Fills `spec` (its owner and declaredAt already set) from one entry of 'keys:'. Throws InputError for a key
// the file declares wrongly, YAML::Exception for a field of the wrong shape.
void readKeySpec(KeySpec& spec, const YAML::Node& name, const YAML::Node& node, const std::string& sourceName)
{
    spec.key = name.as<std::string>();
    if (!node.IsMap() || !node["type"])
        throw InputError(spec.declaredAt, "key '" + spec.key + "' needs a mapping with at least 'type'");
    checkKeyFields(node, sourceName);
    if (!parseValueType(node["type"].as<std::string>(), spec.type))
        throw InputError(internal::locationOf(sourceName, node["type"].Mark()),
                         "unknown type '" + node["type"].as<std::string>() +
                             "' (known: bool, int, float, string, choice, int_list, float_list, string_list)");
    spec.doc = node["doc"] ? node["doc"].as<std::string>() : std::string();
    spec.group = node["group"] ? node["group"].as<std::string>() : std::string("General");
    spec.speed = node["speed"] && node["speed"].as<bool>();
    spec.minimumExclusive = node["min_exclusive"] && node["min_exclusive"].as<bool>();
    if (node["min"])
        spec.minimum = node["min"].as<double>();
    if (node["max"])
        spec.maximum = node["max"].as<double>();
    if (node["choices"])
        spec.choices = node["choices"].as<std::vector<std::string>>();
    if (spec.type == ValueType::Choice && spec.choices.empty())
        throw InputError(spec.declaredAt, "choice key '" + spec.key + "' needs 'choices'");
    readKeyDefault(spec, node, sourceName);
}

} // namespace

void Schema::addFromYaml(const std::string& yamlText, const std::string& sourceName)
{
    const YAML::Node root = loadSchemaRoot(yamlText, sourceName);
    std::vector<Diagnostic> problems;
    const SchemaHeader header = readSchemaHeader(root, sourceName, problems);
    for (const auto& item : root["keys"]) {
        KeySpec spec;
        spec.owner = header.owner;
        spec.declaredAt = internal::locationOf(sourceName, item.first.Mark());
        try {
            readKeySpec(spec, item.first, item.second, sourceName);
            add(std::move(spec));
        } catch (const InputError& e) {
            problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
        } catch (const YAML::Exception& e) {
            problems.push_back({internal::locationOf(sourceName, e.mark), "malformed field: " + e.msg});
        }
    }
    if (!problems.empty())
        throw InputError(std::move(problems));
    if (!header.metricNames.empty()) {
        auto& names = m_metrics[header.owner];
        names.insert(names.end(), header.metricNames.begin(), header.metricNames.end());
    }
    if (header.drives)
        m_drivers.insert(header.owner);
}

bool Schema::drives(const std::string& owner) const
{
    return m_drivers.count(owner) > 0;
}

const KeySpec* Schema::find(const std::string& key) const
{
    auto it = m_index.find(key);
    return it == m_index.end() ? nullptr : &m_keys[it->second];
}

bool Schema::hasSection(const std::string& prefix) const
{
    const std::string withDot = prefix + ".";
    auto it = m_index.lower_bound(withDot);
    return it != m_index.end() && startsWith(it->first, withDot);
}

std::vector<std::string> Schema::keyNames() const
{
    std::vector<std::string> names;
    for (const KeySpec& spec : m_keys)
        names.push_back(spec.key);
    return names;
}

std::vector<std::string> Schema::sectionNames() const
{
    std::set<std::string> sections;
    for (const KeySpec& spec : m_keys) {
        std::size_t dot = spec.key.find('.');
        while (dot != std::string::npos) {
            sections.insert(spec.key.substr(0, dot));
            dot = spec.key.find('.', dot + 1);
        }
    }
    return {sections.begin(), sections.end()};
}

std::vector<std::string> Schema::owners() const
{
    std::vector<std::string> out;
    for (const KeySpec& spec : m_keys)
        if (std::find(out.begin(), out.end(), spec.owner) == out.end())
            out.push_back(spec.owner);
    return out;
}

std::vector<std::string> Schema::metrics(const std::string& owner) const
{
    const auto it = m_metrics.find(owner);
    return it == m_metrics.end() ? std::vector<std::string>{} : it->second;
}

nlohmann::json Schema::toJson() const
{
    nlohmann::json keys = nlohmann::json::array();
    for (const KeySpec& spec : m_keys)
        keys.push_back(spec.toJson());
    return {{"owners", owners()}, {"keys", keys}};
}

Schema builtinSchema()
{
    Schema schema;
    schema.addFromYaml(kBuiltinSchemaYaml, "core.schema.yaml");
    return schema;
}

Schema loadSchema(std::vector<Diagnostic>* problems)
{
    Schema schema = builtinSchema();
    for (const std::filesystem::path& folder : pluginSearchPath()) {
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(folder))
            if (endsWith(entry.path().filename().string(), ".schema.yaml"))
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const std::filesystem::path& file : files) {
            // Load into a copy so that a half-read broken file leaves no keys behind.
            Schema candidate = schema;
            try {
                candidate.addFromYaml(readTextFile(file), file.string());
                schema = std::move(candidate);
            } catch (const InputError& e) {
                if (problems)
                    problems->insert(problems->end(), e.diagnostics().begin(), e.diagnostics().end());
            }
        }
    }
    return schema;
}

} // namespace pitwall
