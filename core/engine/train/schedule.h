#pragma once
// Learning-rate schedules stepped per iteration.

#include <cstdint>

namespace pitwall::engine {

// CosineAnnealingWarmRestarts (T_0 = firstCycleSteps, T_mult = 2, eta_min = minLr): the learning rate of
// iteration `step` (0-based). With T_0 = steps per epoch the restarts fall after epochs 1, 3, 7, 15, 31.
double cosineWarmRestartsLr(std::int64_t step, std::int64_t firstCycleSteps, double baseLr, double minLr = 0.0,
                            int cycleGrowth = 2);

} // namespace pitwall::engine
