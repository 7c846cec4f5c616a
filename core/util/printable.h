#pragma once
// Text from outside (study and trial names, a command's output) made safe to print in a table or to store
// as a message: valid UTF-8, no control characters, bounded length.

#include <cstddef>
#include <string>
#include <string_view>

namespace pitwall {

enum class LineBreaks { Escape, Keep };

// Control characters become escapes ("\n", "\t", "\x1b"), bytes that are not valid UTF-8 become "\xHH";
// with LineBreaks::Keep, '\n' stays a line break. Longer than `maxBytes`: the head and the tail are kept
// with "… [N bytes left out] …" between them (a log's end is usually what explains a failure).
// The offset of the first byte that is not valid UTF-8 (overlong forms, surrogates and code points beyond
// U+10FFFF are not), or std::string_view::npos when the whole text is valid.
std::size_t invalidUtf8At(std::string_view text);

std::string printable(std::string_view text, LineBreaks lineBreaks = LineBreaks::Escape,
                      std::size_t maxBytes = std::string::npos);

} // namespace pitwall
