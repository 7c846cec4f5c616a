#pragma once
// Wall-clock helpers. Timestamps in the store use Optuna's text form, UTC: "YYYY-MM-DD HH:MM:SS.ffffff".

#include <optional>
#include <string>

namespace pitwall {

// Seconds since the Unix epoch, with microseconds.
double nowSeconds();

// Optuna's DATETIME text for a Unix time (UTC).
std::string formatTimestamp(double unixSeconds);
std::string nowTimestamp();

// A length of time for people: "45 s", "3 min 07 s", "2 h 05 min" (rounded to the second; "" when negative).
std::string formatDuration(double seconds);

// Parses formatTimestamp's output (fraction optional, also accepts a 'T' separator). nullopt if malformed.
std::optional<double> parseTimestamp(const std::string& text);

} // namespace pitwall
