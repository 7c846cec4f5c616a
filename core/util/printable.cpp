#include "core/util/printable.h"

#include <cstdio>

namespace pitwall {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one.
std::size_t utf8Length(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b = byte(i);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > text.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((byte(i + k) & 0xc0) != 0x80)
            return 0;
    if ((n == 2 && b < 0xc2) || (n == 3 && b == 0xe0 && byte(i + 1) < 0xa0) || (n == 4 && (b > 0xf4 || (b == 0xf0 && byte(i + 1) < 0x90))))
        return 0; // overlong or beyond U+10FFFF
    if ((n == 3 && b == 0xed && byte(i + 1) >= 0xa0) || (n == 4 && b == 0xf4 && byte(i + 1) > 0x8f))
        return 0; // a UTF-16 surrogate, or beyond U+10FFFF
    return n;
}

std::string hexEscape(unsigned char c)
{
    char text[8];
    std::snprintf(text, sizeof text, "\\x%02x", c);
    return text;
}

std::string escape(std::string_view text, LineBreaks lineBreaks)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const std::size_t n = utf8Length(text, i);
        if (n == 0) {
            out += hexEscape(c);
            ++i;
            continue;
        }
        if (n == 1 && (c < 0x20 || c == 0x7f)) {
            if (c == '\n')
                out += lineBreaks == LineBreaks::Keep ? "\n" : "\\n";
            else if (c == '\t')
                out += "\\t";
            else if (c == '\r')
                out += "\\r";
            else
                out += hexEscape(c);
        } else {
            out.append(text.substr(i, n));
        }
        i += n;
    }
    return out;
}

// The largest index <= i that does not cut a UTF-8 sequence of `text` (valid after escaping).
std::size_t boundary(const std::string& text, std::size_t i)
{
    while (i > 0 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80)
        --i;
    return i;
}

} // namespace

std::size_t invalidUtf8At(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8Length(text, i);
        if (n == 0)
            return i;
        i += n;
    }
    return std::string_view::npos;
}

std::string printable(std::string_view text, LineBreaks lineBreaks, std::size_t maxBytes)
{
    std::string out = escape(text, lineBreaks);
    if (out.size() <= maxBytes)
        return out;
    const std::size_t head = boundary(out, maxBytes / 4);
    const std::size_t tail = boundary(out, out.size() - (maxBytes - maxBytes / 4));
    return out.substr(0, head) + " … [" + std::to_string(tail - head) + " bytes left out] … " + out.substr(tail);
}

} // namespace pitwall
