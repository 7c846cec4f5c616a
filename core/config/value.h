#pragma once
// A typed configuration value. The schema decides the type of every key; values are converted from YAML
// scalars/sequences or from override text by the schema, never guessed.

#include <nlohmann/json.hpp>

#include <string>
#include <variant>
#include <vector>

namespace pitwall {

enum class ValueType { Bool, Int, Float, String, Choice, IntList, FloatList, StringList };

// "bool", "int", "float", "string", "choice", "int_list", "float_list", "string_list".
std::string valueTypeName(ValueType type);
bool parseValueType(const std::string& name, ValueType& type);
// What a user must write, for error messages: "an integer", "one of ...", "a list of numbers".
std::string valueTypeExpectation(ValueType type);

class ConfigValue {
public:
    using Data = std::variant<std::monostate, bool, long long, double, std::string, std::vector<long long>,
                              std::vector<double>, std::vector<std::string>>;

    ConfigValue() = default;
    ConfigValue(bool v) : m_data(v) {}
    ConfigValue(int v) : m_data(static_cast<long long>(v)) {}
    ConfigValue(long long v) : m_data(v) {}
    ConfigValue(double v) : m_data(v) {}
    ConfigValue(std::string v) : m_data(std::move(v)) {}
    ConfigValue(const char* v) : m_data(std::string(v)) {}
    ConfigValue(std::vector<long long> v) : m_data(std::move(v)) {}
    ConfigValue(std::vector<double> v) : m_data(std::move(v)) {}
    ConfigValue(std::vector<std::string> v) : m_data(std::move(v)) {}

    bool isNull() const { return std::holds_alternative<std::monostate>(m_data); }
    const Data& data() const { return m_data; }

    // Typed access; throws std::bad_variant_access when the type differs (a programming error, since the
    // schema fixed the type). asDouble also reads integers.
    bool asBool() const { return std::get<bool>(m_data); }
    long long asInt() const { return std::get<long long>(m_data); }
    double asDouble() const;
    const std::string& asString() const { return std::get<std::string>(m_data); }
    const std::vector<long long>& asIntList() const { return std::get<std::vector<long long>>(m_data); }
    const std::vector<double>& asFloatList() const { return std::get<std::vector<double>>(m_data); }
    const std::vector<std::string>& asStringList() const { return std::get<std::vector<std::string>>(m_data); }

    // Text as it would be written in YAML flow style: true, 96, 0.0003, nearest, [1, 2].
    std::string toText() const;
    nlohmann::json toJson() const;

    bool operator==(const ConfigValue& other) const { return m_data == other.m_data; }

private:
    Data m_data;
};

} // namespace pitwall
