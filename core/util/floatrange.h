#pragma once
// Coordinates read as doubles (label and predictions files) and kept as floats: a value that is finite as a double
// but beyond float's range becomes inf, and NaN in what is computed from it. No Qt, no torch.

#include <cmath>
#include <limits>

namespace pitwall {

// Whether `value` is finite and stays finite as a float (|value| <= FLT_MAX).
inline bool finiteAsFloat(double value)
{
    return std::isfinite(value) && std::fabs(value) <= static_cast<double>(std::numeric_limits<float>::max());
}

} // namespace pitwall
