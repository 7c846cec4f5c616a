#pragma once
// The config schema: every key Pitwall or a plugin understands, with type, default, doc string, choices or
// numeric range, a group (for the GUI's forms) and a `speed` flag for options that trade speed for
// something. Keys are declared in schema files (YAML): core's own is compiled in, each plugin ships
// `<plugin>.schema.yaml` beside its library, so tools learn plugin keys without loading the plugin.

#include "core/config/value.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct KeySpec {
    std::string key;   // dotted, e.g. "training.optimization.batch_size"
    ValueType type = ValueType::String;
    ConfigValue defaultValue;
    std::string doc;
    std::vector<std::string> choices; // Choice only
    std::optional<double> minimum;    // Int, Float and their lists: inclusive bounds
    std::optional<double> maximum;
    bool minimumExclusive = false;    // e.g. a learning rate must be > 0
    std::string group;                // "Training / Optimization"
    bool speed = false;
    std::string owner;                // "core" or the plugin's name
    SourceLocation declaredAt;        // where the schema file declared it

    // Checks a value of the right type against choices and range; returns "" or what is wrong
    // ("96.5 is not an integer", "0 is below the minimum 1", "'linear' is not one of: bilinear, nearest").
    // A number must not be NaN ("nan is not a number"), and not ±inf when the key declares a min or a max.
    std::string check(const ConfigValue& value) const;
    // "an integer in [1, 65536]", "one of: bilinear, nearest" — for messages and tooltips.
    std::string expectation() const;
    nlohmann::json toJson() const;
};

class Schema {
public:
    // Adds the keys of one schema file. Throws InputError with file:line:column for a malformed file,
    // a bad default, or a key that another owner already declared.
    void addFromYaml(const std::string& yamlText, const std::string& sourceName);
    void add(KeySpec spec); // throws InputError on a duplicate key

    const KeySpec* find(const std::string& key) const;
    // True when some key starts with "prefix." (a section such as "training" or "policy.transfuser").
    bool hasSection(const std::string& prefix) const;
    // Keys in declaration order.
    const std::vector<KeySpec>& keys() const { return m_keys; }
    std::vector<std::string> keyNames() const;
    std::vector<std::string> sectionNames() const;
    // Names of the owners that declared keys: "core" first, then plugins in load order.
    std::vector<std::string> owners() const;
    // Validation metrics an owner's model records, as declared by the schema file's optional top-level
    // `metrics: {NAME: doc, ...}` (without the "val/" prefix; core declares the trainer's "loss"). Empty
    // when the owner declares none (then the metrics are only known after training).
    std::vector<std::string> metrics(const std::string& owner) const;
    // Whether an owner's model plans trajectories and so can drive the closed-loop evaluation (a schema file's
    // top-level `drives: true`): its runs and search trials can be scored with driving_score and its kin.
    bool drives(const std::string& owner) const;

    nlohmann::json toJson() const;

private:
    std::vector<KeySpec> m_keys;
    std::map<std::string, std::size_t> m_index;
    std::map<std::string, std::vector<std::string>> m_metrics; // owner -> metric names, in declaration order
    std::set<std::string> m_drivers;                           // owners whose models drive
};

// Core's compiled-in keys.
Schema builtinSchema();

// Core's keys plus every `*.schema.yaml` on the plugin search path. A malformed plugin schema file is
// left out and described in `problems` (if given) so one broken plugin does not stop the tool.
Schema loadSchema(std::vector<Diagnostic>* problems = nullptr);

} // namespace pitwall
