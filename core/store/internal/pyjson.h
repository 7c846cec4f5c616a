#pragma once
// JSON text exactly as Python's json module writes it, so that values Pitwall stores in Optuna's tables
// (attribute value_json, distribution_json) are byte-for-byte what Optuna 3.1 would have written.

#include <nlohmann/json.hpp>

#include <string>

namespace pitwall::store_internal {

// Python's repr(float): shortest round-trip digits, "1.0", "1e-05", "1e+16", "inf", "nan".
std::string pythonFloatRepr(double value);

// json.dumps(value) with Python's defaults: ", " and ": " separators, ASCII-only strings (\uXXXX escapes),
// floats as repr(), and NaN / Infinity / -Infinity for non-finite floats. Objects keep nlohmann's order.
std::string pythonJsonDumps(const nlohmann::json& value);

// json.loads(text): standard JSON plus Python's NaN, Infinity and -Infinity tokens.
// Throws nlohmann::json::parse_error on malformed text.
nlohmann::json pythonJsonLoads(const std::string& text);

} // namespace pitwall::store_internal
