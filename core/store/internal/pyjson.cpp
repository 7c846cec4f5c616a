#include "core/store/internal/pyjson.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pitwall::store_internal {

namespace {

// Markers that stand in for Python's non-standard tokens while nlohmann parses the text.
const char* const kNanMarker = "\x01pitwall-nan";
const char* const kInfMarker = "\x01pitwall-inf";
const char* const kNegInfMarker = "\x01pitwall-neg-inf";

void appendEscapedString(std::string& out, const std::string& text)
{
    out += '"';
    char buffer[16];
    auto appendUnit = [&](unsigned unit) {
        std::snprintf(buffer, sizeof buffer, "\\u%04x", unit);
        out += buffer;
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == '"' || byte == '\\') {
            out += '\\';
            out += static_cast<char>(byte);
            ++i;
            continue;
        }
        if (byte >= 0x20 && byte < 0x7f) {
            out += static_cast<char>(byte);
            ++i;
            continue;
        }
        switch (byte) {
        case '\n':
            out += "\\n";
            ++i;
            continue;
        case '\r':
            out += "\\r";
            ++i;
            continue;
        case '\t':
            out += "\\t";
            ++i;
            continue;
        case '\b':
            out += "\\b";
            ++i;
            continue;
        case '\f':
            out += "\\f";
            ++i;
            continue;
        default:
            break;
        }
        // Decode one UTF-8 sequence (nlohmann only holds valid UTF-8 from parsing; be lenient otherwise).
        unsigned codePoint = byte;
        int extra = 0;
        if (byte >= 0xf0)
            codePoint = byte & 0x07, extra = 3;
        else if (byte >= 0xe0)
            codePoint = byte & 0x0f, extra = 2;
        else if (byte >= 0xc0)
            codePoint = byte & 0x1f, extra = 1;
        ++i;
        for (int k = 0; k < extra && i < text.size(); ++k, ++i)
            codePoint = (codePoint << 6) | (static_cast<unsigned char>(text[i]) & 0x3f);
        if (codePoint > 0xffff) {
            codePoint -= 0x10000;
            appendUnit(0xd800 + (codePoint >> 10));
            appendUnit(0xdc00 + (codePoint & 0x3ff));
        } else {
            appendUnit(codePoint);
        }
    }
    out += '"';
}

void dumpTo(std::string& out, const nlohmann::json& value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::null:
        out += "null";
        break;
    case nlohmann::json::value_t::boolean:
        out += value.get<bool>() ? "true" : "false";
        break;
    case nlohmann::json::value_t::number_integer:
        out += std::to_string(value.get<std::int64_t>());
        break;
    case nlohmann::json::value_t::number_unsigned:
        out += std::to_string(value.get<std::uint64_t>());
        break;
    case nlohmann::json::value_t::number_float: {
        const double number = value.get<double>();
        if (std::isnan(number))
            out += "NaN";
        else if (std::isinf(number))
            out += number > 0 ? "Infinity" : "-Infinity";
        else
            out += pythonFloatRepr(number);
        break;
    }
    case nlohmann::json::value_t::string:
        appendEscapedString(out, value.get_ref<const std::string&>());
        break;
    case nlohmann::json::value_t::array: {
        out += '[';
        bool first = true;
        for (const auto& element : value) {
            if (!first)
                out += ", ";
            first = false;
            dumpTo(out, element);
        }
        out += ']';
        break;
    }
    case nlohmann::json::value_t::object: {
        out += '{';
        bool first = true;
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (!first)
                out += ", ";
            first = false;
            appendEscapedString(out, it.key());
            out += ": ";
            dumpTo(out, it.value());
        }
        out += '}';
        break;
    }
    case nlohmann::json::value_t::binary:
    case nlohmann::json::value_t::discarded:
        out += "null";
        break;
    }
}

// Replaces NaN / Infinity / -Infinity outside strings by marker strings.
std::string markNonStandardTokens(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            out += c;
            continue;
        }
        auto matches = [&](std::string_view token) { return text.compare(i, token.size(), token) == 0; };
        // The markers start with U+0001, which JSON text must spell as an escape.
        auto appendMarker = [&](const char* marker) { out += "\"\\u0001", out += marker + 1, out += '"'; };
        if (matches("NaN")) {
            appendMarker(kNanMarker);
            i += 2;
        } else if (matches("Infinity")) {
            appendMarker(kInfMarker);
            i += 7;
        } else if (matches("-Infinity")) {
            appendMarker(kNegInfMarker);
            i += 8;
        } else {
            out += c;
        }
    }
    return out;
}

void restoreNonStandardTokens(nlohmann::json& value)
{
    if (value.is_string()) {
        const auto& text = value.get_ref<const std::string&>();
        if (text == kNanMarker)
            value = std::nan("");
        else if (text == kInfMarker)
            value = HUGE_VAL;
        else if (text == kNegInfMarker)
            value = -HUGE_VAL;
    } else if (value.is_structured()) {
        for (auto& element : value)
            restoreNonStandardTokens(element);
    }
}

} // namespace

std::string pythonFloatRepr(double value)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    std::string sign = std::signbit(value) ? "-" : "";
    char buffer[64];
    // Shortest round-trip digits in scientific form: "d[.ddd]e±XX".
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value), std::chars_format::scientific);
    const std::string scientific(buffer, result.ptr);
    const auto ePos = scientific.find('e');
    std::string digits;
    for (std::size_t i = 0; i < ePos; ++i)
        if (scientific[i] != '.')
            digits += scientific[i];
    const int exponent = std::atoi(scientific.c_str() + ePos + 1);
    const int decimalPoint = exponent + 1; // value = 0.digits * 10^decimalPoint
    const int digitCount = static_cast<int>(digits.size());

    if (decimalPoint <= -4 || decimalPoint > 16) {
        std::string mantissa = digits.substr(0, 1);
        if (digitCount > 1)
            mantissa += "." + digits.substr(1);
        char exponentText[16];
        std::snprintf(exponentText, sizeof exponentText, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        return sign + mantissa + exponentText;
    }
    if (decimalPoint <= 0)
        return sign + "0." + std::string(static_cast<std::size_t>(-decimalPoint), '0') + digits;
    if (decimalPoint >= digitCount)
        return sign + digits + std::string(static_cast<std::size_t>(decimalPoint - digitCount), '0') + ".0";
    return sign + digits.substr(0, decimalPoint) + "." + digits.substr(decimalPoint);
}

std::string pythonJsonDumps(const nlohmann::json& value)
{
    std::string out;
    dumpTo(out, value);
    return out;
}

nlohmann::json pythonJsonLoads(const std::string& text)
{
    if (text.find("NaN") == std::string::npos && text.find("Infinity") == std::string::npos)
        return nlohmann::json::parse(text);
    auto value = nlohmann::json::parse(markNonStandardTokens(text));
    restoreNonStandardTokens(value);
    return value;
}

} // namespace pitwall::store_internal
