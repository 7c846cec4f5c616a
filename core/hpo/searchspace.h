#pragma once
// A hyperparameter search space in AutoSpeed's YAML format (Models/tutorials/auto_speed_hpo_amd/
// hpo_config/*.yaml), unchanged:
//
//   box: {type: uniform, min: 5, max: 10}          # also: step
//   min_lr: {type: loguniform, min: 1.0e-6, max: 1.0e-4}
//   warmup_epochs: {type: int, min: 0, max: 4}     # step defaults to 1
//   optimizer: {type: categorical, values: [sgd, adamw]}
//   batch_size: 32                                 # a fixed value (not a trial parameter)
//
// Every name maps onto a config key of the schema: a dotted name is the key itself; a bare name such as
// `box` is looked up as `<section>.box` in the sections the caller gives (the model plugin's sections,
// e.g. "autospeed"). Every problem is reported at once with file:line:column: a bad range, an unknown
// type, a missing field, a name that maps to no key or to several, a range or value the schema rejects.
//
// With SpaceNames::FreeAllowed (`study ask` without --model: a black-box objective), a name that maps to no key
// is a free parameter: sampled and stored under its name, with no config key and no override. A name one edit
// from a key (or from a key's last segment) is still refused with "did you mean", since it is more likely a typo.

#include "core/config/schema.h"
#include "core/hpo/sampler.h"
#include "core/store/records.h"

#include <string>
#include <vector>

namespace pitwall {

enum class SpaceParamType { Uniform, LogUniform, Int, Categorical, Fixed };

// Whether a name that maps to no config key is an error (the default: a training trial needs an override for
// every name) or a free parameter.
enum class SpaceNames { ConfigKeysOnly, FreeAllowed };

struct SpaceParam {
    std::string name;      // as written in the file; trial parameters use this name (as AutoSpeed's script)
    std::string configKey; // the schema key it sets, e.g. "autospeed.box"; empty for a free parameter
    SpaceParamType type = SpaceParamType::Fixed;
    double low = 0.0; // Uniform, LogUniform, Int: inclusive bounds
    double high = 0.0;
    std::optional<double> step; // Uniform, Int (Int: 1 when not given)
    std::vector<Json> values;   // Categorical: the choices in file order
    Json fixedValue;            // Fixed: the value
    std::string fixedText;      // Fixed: the value as YAML flow text
    SourceLocation where;       // the name in the file

    bool searched() const { return type != SpaceParamType::Fixed; }
    // A name of no config key (SpaceNames::FreeAllowed): sampled or fixed, but it overrides nothing.
    bool free() const { return configKey.empty(); }
    // Optuna's distribution of a searched parameter: uniform -> Float, loguniform -> Float(log),
    // int -> Int (step 1 by default), categorical -> Categorical. A high that is not on the step grid is
    // lowered onto it, as Optuna does.
    Distribution distribution() const;
};

class SearchSpace {
public:
    // Parses and checks against the schema. `sections` are the dotted prefixes where bare names resolve;
    // when empty, a bare name must match the last segment of exactly one schema key. `names` says whether a
    // name of no key is refused or a free parameter. Throws InputError with every problem.
    static SearchSpace parse(const std::string& yamlText, const std::string& sourceName, const Schema& schema,
                             const std::vector<std::string>& sections, SpaceNames names = SpaceNames::ConfigKeysOnly);
    static SearchSpace load(const std::string& path, const Schema& schema, const std::vector<std::string>& sections,
                            SpaceNames names = SpaceNames::ConfigKeysOnly);

    const std::string& source() const { return m_source; }
    // In file order.
    const std::vector<SpaceParam>& params() const { return m_params; }
    const SpaceParam* find(const std::string& name) const;
    // The searched parameters as sampler requests, in file order.
    std::vector<ParamRequest> requests() const;
    // "configKey=value" for every parameter but the free ones: the sampled ones from `sampled` ({name: external
    // value}), the fixed ones from the file. ResolvedConfig::setFromText accepts each.
    std::vector<std::string> overrides(const Json& sampled) const;

private:
    std::string m_source;
    std::vector<SpaceParam> m_params;
};

// The sections of the keys an owner (a plugin such as "autospeed") declares: "autospeed" for autospeed.*.
// Empty when the owner declares no keys.
std::vector<std::string> ownerSections(const Schema& schema, const std::string& owner);

// Text of a JSON scalar as an override value: 7.5, 32, true, sgd.
std::string overrideText(const Json& value);

} // namespace pitwall
