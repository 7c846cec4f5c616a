#pragma once
// printf into a std::string: for the text reports that core renders and the front ends print as they are.

#include <string>

namespace pitwall {

// The text std::printf(format, ...) would print (C locale conventions of printf; any length).
std::string stringPrintf(const char* format, ...) __attribute__((format(printf, 1, 2)));

} // namespace pitwall
