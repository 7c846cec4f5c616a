#pragma once
// Conversion of YAML nodes and override text into typed values, shared by the schema reader and the
// config resolver. Internal to core/config.

#include "core/config/schema.h"

#include <yaml-cpp/yaml.h>

namespace pitwall::internal {

SourceLocation locationOf(const std::string& file, const YAML::Mark& mark);

// Converts `node` to spec.type. On failure returns a null value and sets `problem` to what was expected
// and what was found ("expected an integer, got '96.5'"). Does not check range or choices.
ConfigValue convertNode(const KeySpec& spec, const YAML::Node& node, std::string& problem);

// Override text ("96", "nearest", "[8, 16]") read as a YAML value, then converted as above.
ConfigValue convertText(const KeySpec& spec, const std::string& text, std::string& problem);

} // namespace pitwall::internal
