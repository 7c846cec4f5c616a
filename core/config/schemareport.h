#pragma once
// What `pitwall config schema` lists: the schema's keys chosen by speed flag and group, as JSON and as text.

#include "core/config/schema.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pitwall {

// The keys in schema order: only speed options when `speedOnly`, only those whose group starts with `groupPrefix`
// (case-insensitive; empty: every group). The pointers point into `schema`.
std::vector<const KeySpec*> selectKeys(const Schema& schema, bool speedOnly, const std::string& groupPrefix);

// {"owners": [...], "keys": [KeySpec::toJson()...]}
nlohmann::json schemaListingJson(const Schema& schema, const std::vector<const KeySpec*>& keys);

// Per group a "[Group]" line, then per key "  key = default   (expectation; speed option; from owner)" and its doc.
std::string schemaListingText(const std::vector<const KeySpec*>& keys);

} // namespace pitwall
