#pragma once
// Small string helpers shared by every core module.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pitwall {

std::vector<std::string> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string trim(std::string_view text);
bool startsWith(std::string_view text, std::string_view prefix);
bool endsWith(std::string_view text, std::string_view suffix);
std::string toLower(std::string_view text);

// Edit distance (insertions, deletions, substitutions), for "did you mean" suggestions.
int editDistance(std::string_view a, std::string_view b);

// Up to maxCount candidates closest to `wanted`, best first, within a distance that scales with the
// length of `wanted` (so "batchsize" finds "batch_size" but "x" does not find everything).
std::vector<std::string> nearestNames(std::string_view wanted, const std::vector<std::string>& candidates,
                                      std::size_t maxCount = 3);

// Strict number parsing: the whole text must be the number. std::nullopt otherwise.
std::optional<long long> parseInteger(std::string_view text);
std::optional<double> parseDouble(std::string_view text);

// Shortest text that reads back as the same double ("0.1", "3e-05", "inf", "nan").
std::string formatDouble(double value);

// One CSV cell, the one quoter of every CSV Pitwall writes: RFC 4180 quotes when the text holds a comma, a
// quote or a line break, or starts or ends with a space. Text a spreadsheet would run as a formula (starting
// with =, +, -, @, a tab or a carriage return) gets a leading single quote first, unless the whole text is
// a number ("-1.5", "+3", "-inf" stay numbers).
std::string csvCell(std::string_view text);
// The cells as one CSV record, each through csvCell, ended by CRLF.
std::string csvRow(const std::vector<std::string>& cells);

// A human size such as "23.4 GiB".
std::string formatBytes(double bytes);

} // namespace pitwall
