#include "core/config/value.h"

#include "core/util/strings.h"

#include <yaml-cpp/yaml.h>

namespace pitwall {

namespace {
struct TypeName {
    ValueType type;
    const char* name;
    const char* expectation;
};
constexpr TypeName kTypeNames[] = {
    {ValueType::Bool, "bool", "true or false"},
    {ValueType::Int, "int", "an integer"},
    {ValueType::Float, "float", "a number"},
    {ValueType::String, "string", "a string"},
    {ValueType::Choice, "choice", "one of the choices"},
    {ValueType::IntList, "int_list", "a list of integers"},
    {ValueType::FloatList, "float_list", "a list of numbers"},
    {ValueType::StringList, "string_list", "a list of strings"},
};

// Quotes a string only when YAML would read it as something else.
std::string yamlString(const std::string& text)
{
    YAML::Emitter out;
    out << YAML::Flow << text;
    return out.c_str();
}
} // namespace

std::string valueTypeName(ValueType type)
{
    for (const TypeName& t : kTypeNames)
        if (t.type == type)
            return t.name;
    return "?";
}

bool parseValueType(const std::string& name, ValueType& type)
{
    for (const TypeName& t : kTypeNames)
        if (name == t.name) {
            type = t.type;
            return true;
        }
    return false;
}

std::string valueTypeExpectation(ValueType type)
{
    for (const TypeName& t : kTypeNames)
        if (t.type == type)
            return t.expectation;
    return "?";
}

double ConfigValue::asDouble() const
{
    if (const long long* i = std::get_if<long long>(&m_data))
        return static_cast<double>(*i);
    return std::get<double>(m_data);
}

std::string ConfigValue::toText() const
{
    struct Visitor {
        std::string operator()(std::monostate) const { return "null"; }
        std::string operator()(bool v) const { return v ? "true" : "false"; }
        std::string operator()(long long v) const { return std::to_string(v); }
        std::string operator()(double v) const { return formatDouble(v); }
        std::string operator()(const std::string& v) const { return yamlString(v); }
        std::string operator()(const std::vector<long long>& v) const
        {
            std::vector<std::string> parts;
            for (long long x : v)
                parts.push_back(std::to_string(x));
            return "[" + join(parts, ", ") + "]";
        }
        std::string operator()(const std::vector<double>& v) const
        {
            std::vector<std::string> parts;
            for (double x : v)
                parts.push_back(formatDouble(x));
            return "[" + join(parts, ", ") + "]";
        }
        std::string operator()(const std::vector<std::string>& v) const
        {
            std::vector<std::string> parts;
            for (const std::string& x : v)
                parts.push_back(yamlString(x));
            return "[" + join(parts, ", ") + "]";
        }
    };
    return std::visit(Visitor{}, m_data);
}

namespace {
struct JsonVisitor {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    template <typename T>
    nlohmann::json operator()(const T& v) const
    {
        return v;
    }
};
} // namespace

nlohmann::json ConfigValue::toJson() const { return std::visit(JsonVisitor{}, m_data); }

} // namespace pitwall
