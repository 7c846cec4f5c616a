#include "core/util/strings.h"
#include "core/util/numformat.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pitwall {

std::vector<std::string> split(std::string_view text, char separator)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find(separator, start);
        parts.emplace_back(text.substr(start, end - start));
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
    return parts;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator)
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i)
            out += separator;
        out += parts[i];
    }
    return out;
}

std::string trim(std::string_view text)
{
    std::size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])))
        --e;
    return std::string(text.substr(b, e - b));
}

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string toLower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

int editDistance(std::string_view a, std::string_view b)
{
    std::vector<int> previous(b.size() + 1), current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        previous[j] = static_cast<int>(j);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = static_cast<int>(i);
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const int substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::vector<std::string> nearestNames(std::string_view wanted, const std::vector<std::string>& candidates,
                                      std::size_t maxCount)
{
    // Dotted keys are compared as a whole and by their last segment, so "optimization.batchsize" finds
    // "training.optimization.batch_size" while unrelated keys of the same section stay out.
    const auto leafOf = [](std::string_view name) {
        const auto dot = name.rfind('.');
        return dot == std::string_view::npos ? name : name.substr(dot + 1);
    };
    const std::string_view wantedLeaf = leafOf(wanted);
    const int limit = std::max(2, static_cast<int>(wantedLeaf.size()) / 3);
    std::vector<std::pair<int, std::string>> scored;
    for (const std::string& candidate : candidates) {
        const int whole = editDistance(wanted, candidate);
        const int leaf = editDistance(wantedLeaf, leafOf(candidate)) + (whole == 0 ? 0 : 1);
        const int distance = std::min(whole, leaf);
        if (distance <= limit)
            scored.emplace_back(distance, candidate);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) {
        return x.first < y.first || (x.first == y.first && x.second < y.second);
    });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && out.size() < maxCount; ++i) {
        if (scored[i].first > scored[0].first)
            break; // only the closest names, not everything within reach
        if (std::find(out.begin(), out.end(), scored[i].second) == out.end())
            out.push_back(scored[i].second);
    }
    return out;
}

std::optional<long long> parseInteger(std::string_view text)
{
    std::string t = trim(text);
    if (t.empty())
        return std::nullopt;
    const char* begin = t.data();
    if (*begin == '+')
        ++begin; // one leading '+'; from_chars would read the '-' of "+-5" as a sign of its own
    if (begin != t.data() && begin != t.data() + t.size() && (*begin == '-' || *begin == '+'))
        return std::nullopt;
    long long value = 0;
    auto [ptr, ec] = std::from_chars(begin, t.data() + t.size(), value);
    if (ec != std::errc() || ptr != t.data() + t.size())
        return std::nullopt;
    return value;
}

std::optional<double> parseDouble(std::string_view text)
{
    // std::from_chars never looks at the C locale, so "0.5" reads the same under de_DE as under C (strtod
    // would stop at the '.' once QApplication has set LC_NUMERIC from the environment).
    std::string t = trim(text);
    if (t.empty())
        return std::nullopt;
    const std::string lower = toLower(t);
    if (lower == ".inf" || lower == "inf" || lower == "+inf" || lower == "+.inf")
        return HUGE_VAL;
    if (lower == "-.inf" || lower == "-inf")
        return -HUGE_VAL;
    if (lower == ".nan" || lower == "nan")
        return std::nan("");
    const char* begin = t.data();
    const char* end = t.data() + t.size();
    const bool plusSign = *begin == '+';
    if (plusSign)
        ++begin; // one leading '+' as YAML allows; "+-5" and "++5" stay errors
    if (begin == end || *begin == '+' || (plusSign && *begin == '-'))
        return std::nullopt;
    // Only decimal digits, a point and an exponent: no hex floats, "infinity", or "nan(...)" payloads.
    for (const char* c = begin; c != end; ++c)
        if (!(std::isdigit(static_cast<unsigned char>(*c)) || *c == '.' || *c == 'e' || *c == 'E' ||
              ((*c == '-' || *c == '+') && (c == begin || c[-1] == 'e' || c[-1] == 'E'))))
            return std::nullopt;
    double value = 0;
    auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::general);
    if (ptr != end)
        return std::nullopt;
    if (ec == std::errc::result_out_of_range) {
        // strtod's answer for overflow and underflow, kept: 1e999 is inf, 1e-999 is 0 (callers warn or range-check).
        const bool negative = *begin == '-';
        const auto e = t.find_first_of("eE");
        const bool tiny = e != std::string::npos && t[e + 1] == '-';
        return tiny ? (negative ? -0.0 : 0.0) : (negative ? -HUGE_VAL : HUGE_VAL);
    }
    if (ec != std::errc())
        return std::nullopt;
    return value;
}

std::string formatDouble(double value)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    // Shortest round-trip text, locale-independent; "%g"-like form (1e-05 style exponents stay short).
    char buffer[64];
    for (int precision = 6; precision <= 17; ++precision) {
        auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer - 1, value, std::chars_format::general, precision);
        *ptr = '\0';
        double back = 0;
        std::from_chars(buffer, ptr, back, std::chars_format::general);
        if (back == value)
            break;
    }
    return buffer;
}

namespace {
std::string formatWith(double value, std::chars_format format, int precision)
{
    char buffer[400]; // "%.2f" of 1e308 needs 312 characters
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, format, precision);
    return ec == std::errc() ? std::string(buffer, end) : formatDouble(value);
}
} // namespace

std::string formatFixedPoint(double value, int decimals) { return formatWith(value, std::chars_format::fixed, decimals); }

std::string formatGeneral(double value, int significantDigits)
{
    return formatWith(value, std::chars_format::general, significantDigits);
}

std::string csvCell(std::string_view text)
{
    std::string cell(text);
    if (!cell.empty() && std::string_view("=+-@\t\r").find(cell.front()) != std::string_view::npos &&
        !parseDouble(cell))
        cell.insert(0, 1, '\'');
    const bool needsQuotes = cell.find_first_of(",\"\r\n") != std::string::npos ||
                             (!cell.empty() && (cell.front() == ' ' || cell.back() == ' '));
    if (!needsQuotes)
        return cell;
    std::string quoted = "\"";
    for (char c : cell) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

std::string csvRow(const std::vector<std::string>& cells)
{
    std::string row;
    for (std::size_t i = 0; i < cells.size(); ++i)
        row += (i ? "," : "") + csvCell(cells[i]);
    return row + "\r\n";
}

std::string formatBytes(double bytes)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 4) {
        bytes /= 1024.0;
        ++unit;
    }
    return formatFixedPoint(bytes, unit == 0 ? 0 : 1) + " " + units[unit];
}

} // namespace pitwall
