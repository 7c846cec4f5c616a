// Fuzz target: number text (parseDouble / parseInteger, which every config value, override, search space and
// store cell goes through) and the CSV quoter. Promises checked: a number read back from formatDouble is the
// same number (also for the input's first 8 bytes as a double's bits), an integer reads back from its decimal
// text, and a CSV cell never starts a formula.
#include "fuzztarget.h"

#include "core/util/strings.h"

#include <cmath>
#include <cstring>

using namespace pitwall;

namespace {

void checkRoundTrip(double value)
{
    const std::string text = formatDouble(value);
    const auto back = parseDouble(text);
    PITWALL_FUZZ_CHECK(back.has_value(), text);
    PITWALL_FUZZ_CHECK(std::isnan(value) ? std::isnan(*back)
                                         : *back == value && std::signbit(*back) == std::signbit(value),
                       text);
}

} // namespace

PITWALL_FUZZ_TARGET
{
    const std::string text = fuzz::text(data, size);
    return fuzz::runInput([&] {
        if (const auto value = parseDouble(text))
            checkRoundTrip(*value);
        if (const auto value = parseInteger(text)) {
            PITWALL_FUZZ_CHECK(parseInteger(std::to_string(*value)) == *value, text);
            PITWALL_FUZZ_CHECK(parseDouble(text).has_value(), text);
        }
        if (size >= sizeof(double)) {
            double bits = 0;
            std::memcpy(&bits, data, sizeof bits);
            checkRoundTrip(bits);
        }
        const std::string cell = csvCell(text);
        const std::size_t first = !cell.empty() && cell.front() == '"' ? 1 : 0;
        if (cell.size() > first && std::string_view("=+-@").find(cell[first]) != std::string_view::npos)
            PITWALL_FUZZ_CHECK(parseDouble(text).has_value(), cell);
    });
}
