#include "core/config/internal/yamlvalue.h"

#include "core/config/yamlload.h"
#include "core/util/error.h"
#include "core/util/strings.h"

namespace pitwall::internal {

namespace {

std::string describe(const YAML::Node& node)
{
    if (!node || node.IsNull())
        return "an empty value";
    if (node.IsMap())
        return "a mapping";
    if (node.IsSequence())
        return "a list";
    return "'" + node.Scalar() + "'";
}

bool scalarToBool(const std::string& text, bool& out)
{
    const std::string lower = toLower(text);
    if (lower == "true" || lower == "yes" || lower == "on") {
        out = true;
        return true;
    }
    if (lower == "false" || lower == "no" || lower == "off") {
        out = false;
        return true;
    }
    return false;
}

// Converts one scalar to the element type; returns false when it does not fit.
bool convertScalar(ValueType type, const YAML::Node& node, ConfigValue& out)
{
    if (!node.IsScalar())
        return false;
    const std::string& text = node.Scalar();
    switch (type) {
    case ValueType::Bool: {
        bool value = false;
        if (!scalarToBool(text, value))
            return false;
        out = ConfigValue(value);
        return true;
    }
    case ValueType::Int:
    case ValueType::IntList: {
        auto value = parseInteger(text);
        if (!value)
            return false;
        out = ConfigValue(*value);
        return true;
    }
    case ValueType::Float:
    case ValueType::FloatList: {
        auto value = parseDouble(text);
        if (!value)
            return false;
        out = ConfigValue(*value);
        return true;
    }
    default:
        out = ConfigValue(text);
        return true;
    }
}

} // namespace

SourceLocation locationOf(const std::string& file, const YAML::Mark& mark)
{
    SourceLocation where{file};
    if (!mark.is_null()) {
        where.line = mark.line + 1;
        where.column = mark.column + 1;
    }
    return where;
}

ConfigValue convertNode(const KeySpec& spec, const YAML::Node& node, std::string& problem)
{
    const std::string expected = "expected " + valueTypeExpectation(spec.type) + ", got ";
    const bool isList = spec.type == ValueType::IntList || spec.type == ValueType::FloatList ||
                        spec.type == ValueType::StringList;
    if (!isList) {
        ConfigValue value;
        if (!node || node.IsNull() || !convertScalar(spec.type, node, value)) {
            problem = (spec.type == ValueType::Choice ? "expected " + spec.expectation() + ", got " : expected) +
                      describe(node);
            return {};
        }
        return value;
    }
    if (!node || !node.IsSequence()) {
        problem = expected + describe(node);
        return {};
    }
    std::vector<long long> ints;
    std::vector<double> floats;
    std::vector<std::string> strings;
    std::size_t index = 0;
    for (const YAML::Node& element : node) {
        ConfigValue value;
        if (!convertScalar(spec.type, element, value)) {
            problem = expected + describe(element) + " at position " + std::to_string(index + 1);
            return {};
        }
        if (spec.type == ValueType::IntList)
            ints.push_back(value.asInt());
        else if (spec.type == ValueType::FloatList)
            floats.push_back(value.asDouble());
        else
            strings.push_back(value.asString());
        ++index;
    }
    if (spec.type == ValueType::IntList)
        return ConfigValue(std::move(ints));
    if (spec.type == ValueType::FloatList)
        return ConfigValue(std::move(floats));
    return ConfigValue(std::move(strings));
}

ConfigValue convertText(const KeySpec& spec, const std::string& text, std::string& problem)
{
    if (spec.type == ValueType::String || spec.type == ValueType::Choice) {
        // Strings are taken verbatim, so "model=yes" or a path with ':' need no quoting.
        ConfigValue value(text);
        return value;
    }
    YAML::Node node;
    try {
        node = YAML::Load(text);
        checkYamlSize(node, "command line");
    } catch (const YAML::Exception& e) {
        problem = "cannot read '" + text + "' as a value: " + e.msg;
        return {};
    } catch (const InputError& e) {
        problem = "cannot read '" + text + "' as a value: " + e.diagnostics().front().message;
        return {};
    }
    return convertNode(spec, node, problem);
}

} // namespace pitwall::internal
