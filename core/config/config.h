#pragma once
// Resolving an experiment's configuration: schema defaults, then YAML documents layered in order (files,
// the documents inside each file, and their `include:`s first), then `dotted.key=value` overrides from the
// command line. Every value is checked against the schema, and the resolved values against the rules between
// keys (some training stage has epochs, unless the model counts its own; experiment.seeds is non-empty and has
// no repeats); all problems are reported together in one InputError, each with file:line:column or the
// override that caused it. Nothing is partially applied.

#include "core/config/schema.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pitwall {

enum class OriginKind { Default, File, Override, Program };

struct ValueOrigin {
    OriginKind kind = OriginKind::Default;
    SourceLocation where;  // File: where the value was written
    std::string text;      // Override: the "key=value" text; Program: who set it (e.g. "search space")
    // "default", "configs/x.yaml:3:5", "override 'a.b=3'", "search space"
    std::string toString() const;
};

struct ConfigEntry {
    KeySpec spec;
    ConfigValue value;
    ValueOrigin origin;
};

class ResolvedConfig {
public:
    explicit ResolvedConfig(const Schema& schema);

    // Typed getters; an unknown key or a type mismatch is a programming error (RuntimeError).
    const ConfigEntry& entry(const std::string& key) const;
    const ConfigValue& value(const std::string& key) const { return entry(key).value; }
    bool getBool(const std::string& key) const;
    long long getInt(const std::string& key) const;
    double getDouble(const std::string& key) const;
    const std::string& getString(const std::string& key) const;
    bool contains(const std::string& key) const;

    // Sets a value after validating it against the schema (InputError naming the key otherwise).
    void set(const std::string& key, const ConfigValue& value, const ValueOrigin& origin);
    // Sets from text as an override would ("key=value" semantics); InputError on bad text.
    void setFromText(const std::string& key, const std::string& text, const ValueOrigin& origin);

    const std::vector<ConfigEntry>& entries() const { return m_entries; }
    // Entries whose value differs from the default.
    std::vector<const ConfigEntry*> changedEntries() const;

    // Nested YAML of every key (or only changed ones); with origins as end-of-line comments.
    std::string toYaml(bool withOrigins = false, bool changedOnly = false) const;
    // Nested values; resolveConfig(toYaml()) gives the same values back.
    nlohmann::json toJson() const;
    // {"dotted.key": "origin"} for every key.
    nlohmann::json originsJson() const;

private:
    friend class ConfigResolver;
    ConfigEntry* find(const std::string& key);
    std::vector<ConfigEntry> m_entries;
    std::map<std::string, std::size_t> m_index;
};

// Resolves files (in order) then overrides ("dotted.key=value"). Throws InputError with every problem.
ResolvedConfig resolveConfig(const Schema& schema, const std::vector<std::string>& files,
                             const std::vector<std::string>& overrides);

// Same, for YAML given as text (sourceName is used in messages; includes resolve against baseDir).
ResolvedConfig resolveConfigText(const Schema& schema, const std::string& yamlText, const std::string& sourceName,
                                 const std::vector<std::string>& overrides = {}, const std::string& baseDir = ".");

} // namespace pitwall
