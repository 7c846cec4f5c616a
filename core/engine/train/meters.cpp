#include "core/engine/train/meters.h"

#include <sys/resource.h>

#include <chrono>

namespace pitwall::engine {

namespace {
double cpuSecondsOf(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

double processCpuSeconds()
{
    return cpuSecondsOf(RUSAGE_SELF);
}

double wallSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
} // namespace

CpuMeter::CpuMeter() : m_cpuSeconds(processCpuSeconds()), m_wallSeconds(wallSeconds()) {}

double CpuMeter::percentAndRestart()
{
    const double cpu = processCpuSeconds(), wall = wallSeconds();
    const double percent = wall > m_wallSeconds ? 100.0 * (cpu - m_cpuSeconds) / (wall - m_wallSeconds) : 0.0;
    m_cpuSeconds = cpu;
    m_wallSeconds = wall;
    return percent;
}

std::int64_t peakResidentBytes()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
}

void StageMeters::add(const EpochMeters& epoch)
{
    samples += epoch.samples;
    stepSeconds += epoch.stepSeconds;
    wallSeconds += epoch.wallSeconds;
    waitMs += epoch.waitMs;
    steps += epoch.steps;
    lastLoss = epoch.meanLoss();
}

} // namespace pitwall::engine
