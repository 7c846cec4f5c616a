#include "core/pool/commandline.h"

#include "core/config/yamlload.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <cstdlib>

namespace pitwall {

std::vector<std::string> splitCommandLine(const std::string& text)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote) {
            if (c == quote)
                quote = 0;
            else if (c == '\\' && quote == '"' && i + 1 < text.size())
                word += text[++i];
            else
                word += c;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            word += text[++i];
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord)
                words.push_back(word);
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (quote)
        throw InputError(std::string("the command has an unbalanced ") + quote + " quote: " + text);
    if (inWord)
        words.push_back(word);
    if (words.empty())
        throw InputError("the command is empty");
    return words;
}

namespace {

// Calls onText for literal text and onName for each {name}; throws InputError for a malformed brace.
template <typename Text, typename Name> void scanWord(const std::string& word, Text onText, Name onName)
{
    for (std::size_t i = 0; i < word.size(); ++i) {
        const char c = word[i];
        if ((c == '{' || c == '}') && i + 1 < word.size() && word[i + 1] == c) {
            onText(c);
            ++i;
        } else if (c == '{') {
            const std::size_t close = word.find('}', i);
            if (close == std::string::npos)
                throw InputError("the command word '" + word + "' has an unclosed '{' (write {{ for a literal brace)");
            const std::string name = word.substr(i + 1, close - i - 1);
            if (name.empty() || name.find('{') != std::string::npos)
                throw InputError("the command word '" + word +
                                 "' has an empty or nested {} (write {{ for a literal brace)");
            onName(name);
            i = close;
        } else if (c == '}') {
            throw InputError("the command word '" + word + "' has a '}' without '{' (write }} for a literal brace)");
        } else {
            onText(c);
        }
    }
}

std::string unknownMessage(const std::vector<std::string>& unknown, const std::vector<std::string>& known)
{
    std::string message = "the command uses unknown placeholder" + std::string(unknown.size() > 1 ? "s " : " ");
    for (std::size_t i = 0; i < unknown.size(); ++i) {
        message += (i ? ", {" : "{") + unknown[i] + "}";
        const auto near = nearestNames(unknown[i], known, 1);
        if (!near.empty())
            message += " (did you mean {" + near[0] + "}?)";
    }
    return message + "; known: " + join(known, ", ");
}

} // namespace

std::set<std::string> commandPlaceholders(const std::vector<std::string>& words)
{
    std::set<std::string> names;
    for (const std::string& word : words)
        scanWord(
            word, [](char) {}, [&](const std::string& name) { names.insert(name); });
    return names;
}

void checkCommandPlaceholders(const std::vector<std::string>& words, const std::set<std::string>& known)
{
    std::vector<std::string> unknown;
    for (const std::string& name : commandPlaceholders(words))
        if (!known.count(name))
            unknown.push_back(name);
    if (!unknown.empty())
        throw InputError(unknownMessage(unknown, std::vector<std::string>(known.begin(), known.end())));
}

std::vector<std::string> expandCommand(const std::vector<std::string>& words,
                                       const std::map<std::string, std::string>& values)
{
    std::vector<std::string> out;
    std::vector<std::string> unknown;
    for (const std::string& word : words) {
        std::string expanded;
        scanWord(
            word, [&](char c) { expanded += c; },
            [&](const std::string& name) {
                const auto it = values.find(name);
                if (it == values.end())
                    unknown.push_back(name);
                else
                    expanded += it->second;
            });
        out.push_back(expanded);
    }
    if (!unknown.empty()) {
        std::vector<std::string> known;
        for (const auto& [name, value] : values)
            known.push_back(name);
        throw InputError(unknownMessage(unknown, known));
    }
    return out;
}

std::string findExecutable(const std::string& program)
{
    if (program.find('/') != std::string::npos) {
        if (::access(program.c_str(), X_OK) != 0)
            throw InputError("the command's program '" + program + "' is not an executable file");
        return program;
    }
    const char* path = std::getenv("PATH");
    for (const std::string& dir : split(path ? path : "/usr/bin:/bin", ':')) {
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    throw InputError("the command's program '" + program + "' is not on PATH (give its path)");
}

Schema freeSpaceSchema(const std::string& yamlText, const std::string& sourceName)
{
    const YAML::Node root = loadYaml(yamlText, sourceName, "not valid YAML");
    Schema schema;
    if (!root || !root.IsMap())
        return schema; // SearchSpace::parse reports it with its position
    // The type of a scalar as the config would read it.
    auto scalarType = [](const YAML::Node& node) {
        if (!node.IsScalar())
            return ValueType::String;
        const std::string text = node.Scalar();
        if (node.Tag() != "!" && parseInteger(text))
            return ValueType::Int;
        if (node.Tag() != "!" && parseDouble(text))
            return ValueType::Float;
        if (node.Tag() != "!" && (text == "true" || text == "false"))
            return ValueType::Bool;
        return ValueType::String;
    };
    for (const auto& item : root) {
        KeySpec spec;
        spec.key = item.first.Scalar();
        spec.owner = "command";
        const YAML::Node& value = item.second;
        if (value.IsMap() && value["type"]) {
            const std::string type = value["type"].Scalar();
            if (type == "int") {
                spec.type = ValueType::Int;
            } else if (type == "categorical" && value["values"] && value["values"].IsSequence() &&
                       value["values"].size() > 0) {
                // One type for all choices: ints, numbers, booleans, else strings.
                bool allInt = true, allNumber = true, allBool = true;
                for (const auto& v : value["values"]) {
                    const ValueType t = scalarType(v);
                    allInt = allInt && t == ValueType::Int;
                    allNumber = allNumber && (t == ValueType::Int || t == ValueType::Float);
                    allBool = allBool && t == ValueType::Bool;
                }
                const ValueType common = allInt      ? ValueType::Int
                                         : allNumber ? ValueType::Float
                                         : allBool   ? ValueType::Bool
                                                     : ValueType::String;
                spec.type = common;
            } else {
                spec.type = ValueType::Float;
            }
        } else {
            spec.type = scalarType(value);
        }
        spec.defaultValue = spec.type == ValueType::Int     ? ConfigValue(0LL)
                            : spec.type == ValueType::Float ? ConfigValue(0.0)
                            : spec.type == ValueType::Bool  ? ConfigValue(false)
                                                            : ConfigValue(std::string());
        if (!schema.find(spec.key))
            schema.add(spec);
    }
    return schema;
}

} // namespace pitwall
