#pragma once
// Process meters: CPU use between two points in time and peak resident memory.

#include <cstdint>

namespace pitwall::engine {

class CpuMeter {
public:
    CpuMeter();
    // Process CPU time over wall time since construction or the last call, in percent of one core
    // (200 = two cores busy), then restarts the interval.
    double percentAndRestart();

private:
    double m_cpuSeconds;
    double m_wallSeconds;
};

// Peak resident set size of this process so far, in bytes.
std::int64_t peakResidentBytes();

} // namespace pitwall::engine
