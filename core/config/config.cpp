#include "core/config/config.h"

#include "core/config/internal/yamlvalue.h"
#include "core/config/yamlload.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace pitwall {

namespace fs = std::filesystem;

std::string ValueOrigin::toString() const
{
    switch (kind) {
    case OriginKind::Default:
        return "default";
    case OriginKind::File:
        return where.toString();
    case OriginKind::Override:
        return "override '" + text + "'";
    case OriginKind::Program:
        return text;
    }
    return {};
}

ResolvedConfig::ResolvedConfig(const Schema& schema)
{
    for (const KeySpec& spec : schema.keys()) {
        m_index[spec.key] = m_entries.size();
        m_entries.push_back(ConfigEntry{spec, spec.defaultValue, ValueOrigin{}});
    }
}

ConfigEntry* ResolvedConfig::find(const std::string& key)
{
    auto it = m_index.find(key);
    return it == m_index.end() ? nullptr : &m_entries[it->second];
}

bool ResolvedConfig::contains(const std::string& key) const { return m_index.count(key) != 0; }

const ConfigEntry& ResolvedConfig::entry(const std::string& key) const
{
    auto it = m_index.find(key);
    if (it == m_index.end())
        throw RuntimeError("internal error: config key '" + key + "' is not in the schema");
    return m_entries[it->second];
}

bool ResolvedConfig::getBool(const std::string& key) const { return value(key).asBool(); }
long long ResolvedConfig::getInt(const std::string& key) const { return value(key).asInt(); }
double ResolvedConfig::getDouble(const std::string& key) const { return value(key).asDouble(); }
const std::string& ResolvedConfig::getString(const std::string& key) const { return value(key).asString(); }

void ResolvedConfig::set(const std::string& key, const ConfigValue& value, const ValueOrigin& origin)
{
    ConfigEntry* target = find(key);
    if (!target)
        throw InputError("unknown config key '" + key + "'");
    if (value.data().index() != target->spec.defaultValue.data().index() &&
        !(target->spec.type == ValueType::Float && std::holds_alternative<long long>(value.data())))
        throw InputError("'" + key + "': expected " + target->spec.expectation() + ", got " + value.toText());
    ConfigValue stored = target->spec.type == ValueType::Float ? ConfigValue(value.asDouble()) : value;
    if (std::string problem = target->spec.check(stored); !problem.empty())
        throw InputError("'" + key + "': " + problem + " (expected " + target->spec.expectation() + ")");
    target->value = std::move(stored);
    target->origin = origin;
}

void ResolvedConfig::setFromText(const std::string& key, const std::string& text, const ValueOrigin& origin)
{
    ConfigEntry* target = find(key);
    if (!target)
        throw InputError("unknown config key '" + key + "'");
    std::string problem;
    ConfigValue value = internal::convertText(target->spec, text, problem);
    if (!problem.empty())
        throw InputError("'" + key + "': " + problem);
    set(key, value, origin);
}

std::vector<const ConfigEntry*> ResolvedConfig::changedEntries() const
{
    std::vector<const ConfigEntry*> out;
    for (const ConfigEntry& e : m_entries)
        if (!(e.value == e.spec.defaultValue))
            out.push_back(&e);
    return out;
}

namespace {

// A tree of key segments that keeps first-appearance order, so output follows the schema's order. Names and
// subtrees are parallel vectors: a vector of an incomplete type is standard, a vector of pair<string, KeyTree>
// inside KeyTree is not (clang with libstdc++ rejects it).
struct KeyTree {
    std::vector<std::string> names;
    std::vector<KeyTree> children;
    const ConfigEntry* leaf = nullptr;

    KeyTree& child(const std::string& name)
    {
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == name)
                return children[i];
        names.push_back(name);
        return children.emplace_back();
    }
};

void printTree(const KeyTree& tree, int indent, bool withOrigins, std::string& out)
{
    for (std::size_t i = 0; i < tree.children.size(); ++i) {
        const KeyTree& child = tree.children[i];
        out.append(indent, ' ');
        out += tree.names[i] + ":";
        if (child.leaf) {
            out += " " + child.leaf->value.toText();
            if (withOrigins)
                out += "  # " + child.leaf->origin.toString();
            out += "\n";
        } else {
            out += "\n";
            printTree(child, indent + 2, withOrigins, out);
        }
    }
}

} // namespace

std::string ResolvedConfig::toYaml(bool withOrigins, bool changedOnly) const
{
    KeyTree root;
    for (const ConfigEntry& e : m_entries) {
        if (changedOnly && e.value == e.spec.defaultValue)
            continue;
        KeyTree* node = &root;
        for (const std::string& segment : split(e.spec.key, '.'))
            node = &node->child(segment);
        node->leaf = &e;
    }
    std::string out;
    printTree(root, 0, withOrigins, out);
    return out;
}

nlohmann::json ResolvedConfig::toJson() const
{
    nlohmann::json root = nlohmann::json::object();
    for (const ConfigEntry& e : m_entries) {
        nlohmann::json* node = &root;
        for (const std::string& segment : split(e.spec.key, '.'))
            node = &(*node)[segment];
        *node = e.value.toJson();
    }
    return root;
}

nlohmann::json ResolvedConfig::originsJson() const
{
    nlohmann::json out = nlohmann::json::object();
    for (const ConfigEntry& e : m_entries)
        out[e.spec.key] = e.origin.toString();
    return out;
}

namespace {

constexpr std::size_t kMaxQuotedKeyBytes = 64; // a dotted key quoted whole in a message
constexpr std::size_t kKeyExcerptBytes = 8;    // what is quoted of a key that does not look like one

bool keyByte(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
}

// Whether `key` looks like a config key (what the schema's keys are made of, of a sane length) and may be quoted.
bool keyShaped(const std::string& key)
{
    return !key.empty() && key.size() <= kMaxQuotedKeyBytes && std::all_of(key.begin(), key.end(), keyByte);
}

// The start of a key that is not quoted whole: its leading key characters, at most kKeyExcerptBytes, then "…".
std::string keyExcerpt(const std::string& key)
{
    std::size_t n = 0;
    while (n < key.size() && n < kKeyExcerptBytes && keyByte(key[n]))
        ++n;
    return n == 0 ? std::string("(a text)") : "'" + key.substr(0, n) + "…'";
}

} // namespace

// Applies YAML documents and overrides to a ResolvedConfig, collecting every problem.
class ConfigResolver {
public:
    ConfigResolver(const Schema& schema, ResolvedConfig& config) : m_schema(schema), m_config(config) {}

    void applyFile(const std::string& path, const SourceLocation& includedFrom)
    {
        std::error_code ec;
        const fs::path canonical = fs::weakly_canonical(path, ec);
        if (!fs::is_regular_file(path, ec)) {
            const std::string why = fs::is_directory(path, ec) ? "' is a directory, not a YAML file"
                                    : fs::exists(path, ec)     ? "' is not a regular file"
                                                               : "' not found";
            const std::string what = (includedFrom.known() ? "included file '" : "config file '") + path + why;
            problem(includedFrom.known() ? includedFrom : SourceLocation{path}, what);
            return;
        }
        for (const fs::path& open : m_stack)
            if (open == canonical) {
                problem(includedFrom, "include cycle: '" + path + "' includes itself (directly or indirectly)");
                return;
            }
        std::string text;
        try {
            text = readTextFile(path);
        } catch (const InputError& e) {
            m_problems.insert(m_problems.end(), e.diagnostics().begin(), e.diagnostics().end());
            return;
        }
        m_stack.push_back(canonical);
        applyText(text, path, fs::path(path).parent_path().string());
        m_stack.pop_back();
    }

    void applyText(const std::string& text, const std::string& sourceName, const std::string& baseDir)
    {
        std::vector<YAML::Node> documents;
        try {
            documents = loadYamlDocuments(text, sourceName);
        } catch (const InputError& e) {
            m_problems.insert(m_problems.end(), e.diagnostics().begin(), e.diagnostics().end());
            return;
        }
        for (const YAML::Node& document : documents) {
            if (document.IsNull())
                continue;
            if (!document.IsMap()) {
                problem(internal::locationOf(sourceName, document.Mark()),
                        "a config document must be a mapping of keys, got " +
                            std::string(document.IsSequence() ? "a list" : "a scalar"));
                continue;
            }
            applyIncludes(document, sourceName, baseDir);
            std::map<std::string, SourceLocation> seen;
            applyMapping(document, "", sourceName, seen);
        }
    }

    void applyOverride(const std::string& text)
    {
        const SourceLocation where{"command line"};
        const std::size_t eq = text.find('=');
        if (eq == std::string::npos || eq == 0) {
            problem(where, "override '" + text + "' is not of the form dotted.key=value");
            return;
        }
        const std::string key = trim(text.substr(0, eq));
        const std::string valueText = trim(text.substr(eq + 1));
        const KeySpec* spec = m_schema.find(key);
        if (!spec) {
            unknownKey(where, key);
            return;
        }
        if (valueText.empty() && spec->type != ValueType::String) {
            problem(where, "override '" + text + "' has no value (expected " + spec->expectation() + ")");
            return;
        }
        std::string issue;
        ConfigValue value = internal::convertText(*spec, valueText, issue);
        if (issue.empty())
            issue = spec->check(value);
        if (!issue.empty()) {
            problem(where, "'" + key + "' in override '" + text + "': " + issue);
            return;
        }
        ConfigEntry* entry = m_config.find(key);
        entry->value = std::move(value);
        entry->origin = ValueOrigin{OriginKind::Override, where, text};
    }

    std::vector<Diagnostic> takeProblems() { return std::move(m_problems); }

private:
    void problem(const SourceLocation& where, std::string message)
    {
        m_problems.push_back(Diagnostic{where, std::move(message)});
    }

    void unknownKey(const SourceLocation& where, const std::string& key)
    {
        if (where.file != "command line" && !keyShaped(key)) {
            // Not a config file's key: a line of another file (an include of a password or shadow file reads as
            // one key "user:hash:...:"). Quoting it whole would copy that file into messages and job logs.
            problem(where, "unknown key " + keyExcerpt(key) + " (" + std::to_string(key.size()) +
                               " bytes with characters no config key has, not shown in full: is this a config file?)");
            return;
        }
        std::vector<std::string> candidates = m_schema.keyNames();
        if (key.find('.') == std::string::npos) {
            const std::vector<std::string> sections = m_schema.sectionNames();
            candidates.insert(candidates.end(), sections.begin(), sections.end());
        }
        const std::vector<std::string> near = nearestNames(key, candidates);
        std::string message = "unknown key '" + key + "'";
        if (!near.empty())
            message += "; did you mean " + join([&] {
                std::vector<std::string> quoted;
                for (const std::string& n : near)
                    quoted.push_back("'" + n + "'");
                return quoted;
            }(), " or ") + "?";
        else
            message += " (see `pitwall config schema` for the known keys)";
        problem(where, message);
    }

    void applyIncludes(const YAML::Node& document, const std::string& sourceName, const std::string& baseDir)
    {
        const YAML::Node include = document["include"];
        if (!include)
            return;
        const SourceLocation where = internal::locationOf(sourceName, include.Mark());
        std::vector<std::string> files;
        if (include.IsScalar())
            files.push_back(include.Scalar());
        else if (include.IsSequence())
            for (const YAML::Node& item : include)
                if (item.IsScalar())
                    files.push_back(item.Scalar());
                else
                    problem(internal::locationOf(sourceName, item.Mark()), "'include' entries must be file names");
        else
            problem(where, "'include' must be a file name or a list of file names");
        for (const std::string& file : files) {
            const fs::path resolved = fs::path(file).is_absolute() ? fs::path(file) : fs::path(baseDir) / file;
            applyFile(resolved.lexically_normal().string(), where);
        }
    }

    void applyMapping(const YAML::Node& mapping, const std::string& prefix, const std::string& sourceName,
                      std::map<std::string, SourceLocation>& seen)
    {
        for (const auto& item : mapping) {
            const SourceLocation where = internal::locationOf(sourceName, item.first.Mark());
            if (!item.first.IsScalar()) {
                problem(where, "keys must be plain names");
                continue;
            }
            const std::string name = item.first.Scalar();
            if (prefix.empty() && name == "include")
                continue; // handled before the other keys
            const std::string key = prefix.empty() ? name : prefix + "." + name;
            const YAML::Node& node = item.second;
            if (const KeySpec* spec = m_schema.find(key)) {
                if (auto previous = seen.find(key); previous != seen.end()) {
                    problem(where, "key '" + key + "' is set twice in one document (first at " +
                                       previous->second.toString() + ")");
                    continue;
                }
                seen[key] = where;
                std::string issue;
                ConfigValue value = internal::convertNode(*spec, node, issue);
                if (issue.empty())
                    issue = spec->check(value);
                if (!issue.empty()) {
                    problem(internal::locationOf(sourceName, node.Mark().is_null() ? item.first.Mark() : node.Mark()),
                            "'" + key + "': " + issue);
                    continue;
                }
                ConfigEntry* entry = m_config.find(key);
                entry->value = std::move(value);
                entry->origin = ValueOrigin{OriginKind::File, where, {}};
            } else if (m_schema.hasSection(key)) {
                if (node.IsMap())
                    applyMapping(node, key, sourceName, seen);
                else if (!node.IsNull())
                    problem(where, "'" + key + "' is a section; expected a mapping of its keys, got " +
                                       (node.IsSequence() ? std::string("a list") : "'" + node.Scalar() + "'"));
            } else {
                unknownKey(where, key);
            }
        }
    }

    const Schema& m_schema;
    ResolvedConfig& m_config;
    std::vector<fs::path> m_stack;
    std::vector<Diagnostic> m_problems;
};

namespace {

// A problem with a resolved value, placed where that value came from, worded as the per-key checks word it.
Diagnostic problemWith(const ConfigEntry& entry, const std::string& issue)
{
    switch (entry.origin.kind) {
    case OriginKind::File:
        return {entry.origin.where, "'" + entry.spec.key + "': " + issue};
    case OriginKind::Override:
        return {entry.origin.where, "'" + entry.spec.key + "' in override '" + entry.origin.text + "': " + issue};
    default:
        return {{}, "'" + entry.spec.key + "' (" + entry.origin.toString() + "): " + issue};
    }
}

// Something must train: a model that counts its own epochs (`<experiment.model>.epochs`, as AutoSpeed-lite)
// ignores the stages; otherwise at least one training.stages.*.epochs must be above 0. The problem is placed
// at the stage key set last (an override before a file before a default).
void checkStages(const ResolvedConfig& config, std::vector<Diagnostic>& problems)
{
    if (config.contains("experiment.model") && config.contains(config.getString("experiment.model") + ".epochs"))
        return;
    std::vector<const ConfigEntry*> stages;
    for (const ConfigEntry& entry : config.entries())
        if (startsWith(entry.spec.key, "training.stages.") && endsWith(entry.spec.key, ".epochs")) {
            if (entry.value.asInt() > 0)
                return;
            stages.push_back(&entry);
        }
    if (stages.empty())
        return;
    const ConfigEntry* blamed = *std::max_element(stages.begin(), stages.end(), [](auto* a, auto* b) {
        return static_cast<int>(a->origin.kind) < static_cast<int>(b->origin.kind);
    });
    std::vector<std::string> keys;
    for (const ConfigEntry* stage : stages)
        keys.push_back(stage->spec.key);
    problems.push_back(problemWith(*blamed, "every training stage has 0 epochs (" + join(keys, ", ") +
                                                "), so nothing would train; give one stage at least 1 epoch"));
}

// experiment.seeds is the list of runs of a trial: at least one, each seed once.
void checkSeeds(const ResolvedConfig& config, std::vector<Diagnostic>& problems)
{
    if (!config.contains("experiment.seeds"))
        return;
    const ConfigEntry& entry = config.entry("experiment.seeds");
    const std::vector<long long>& seeds = entry.value.asIntList();
    if (seeds.empty()) {
        problems.push_back(problemWith(entry, "the list is empty; give at least one training seed"));
        return;
    }
    std::set<long long> seen;
    for (long long seed : seeds)
        if (!seen.insert(seed).second) {
            problems.push_back(problemWith(entry, "seed " + std::to_string(seed) +
                                                      " is listed twice (each seed is one run of the trial)"));
            return;
        }
}

// Throws every problem of the layers, or else every problem between keys of the resolved values.
void finish(ConfigResolver& resolver, const ResolvedConfig& config)
{
    std::vector<Diagnostic> problems = resolver.takeProblems();
    if (problems.empty()) {
        checkStages(config, problems);
        checkSeeds(config, problems);
    }
    if (!problems.empty())
        throw InputError(std::move(problems));
}

} // namespace

ResolvedConfig resolveConfig(const Schema& schema, const std::vector<std::string>& files,
                             const std::vector<std::string>& overrides)
{
    ResolvedConfig config(schema);
    ConfigResolver resolver(schema, config);
    for (const std::string& file : files)
        resolver.applyFile(file, {});
    for (const std::string& text : overrides)
        resolver.applyOverride(text);
    finish(resolver, config);
    return config;
}

ResolvedConfig resolveConfigText(const Schema& schema, const std::string& yamlText, const std::string& sourceName,
                                 const std::vector<std::string>& overrides, const std::string& baseDir)
{
    ResolvedConfig config(schema);
    ConfigResolver resolver(schema, config);
    resolver.applyText(yamlText, sourceName, baseDir);
    for (const std::string& text : overrides)
        resolver.applyOverride(text);
    finish(resolver, config);
    return config;
}

} // namespace pitwall
