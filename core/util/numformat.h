#pragma once
// Numbers as text in the C locale whatever the process's locale (the window runs under the desktop's): printf's
// "%.*f" and "%.*g" without printf, so a German desktop still reads "0.50", not "0,50".

#include <string>

namespace pitwall {

std::string formatFixedPoint(double value, int decimals);   // "%.*f"
std::string formatGeneral(double value, int significantDigits); // "%.*g"

} // namespace pitwall
