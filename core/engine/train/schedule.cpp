#include "core/engine/train/schedule.h"

#include <algorithm>
#include <cmath>

namespace pitwall::engine {

double cosineWarmRestartsLr(std::int64_t step, std::int64_t firstCycleSteps, double baseLr, double minLr, int cycleGrowth)
{
    std::int64_t cycle = std::max<std::int64_t>(1, firstCycleSteps);
    std::int64_t inCycle = std::max<std::int64_t>(0, step);
    while (inCycle >= cycle) {
        inCycle -= cycle;
        cycle *= std::max(1, cycleGrowth);
    }
    return minLr + (baseLr - minLr) * (1.0 + std::cos(M_PI * static_cast<double>(inCycle) / static_cast<double>(cycle))) / 2.0;
}

} // namespace pitwall::engine
