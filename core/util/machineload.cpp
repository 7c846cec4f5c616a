#include "core/util/machineload.h"

#include "core/util/printf.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace pitwall {

namespace {

double cpuSecondsOf(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) / 1e6 +
           static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) / 1e6;
}

// Busy seconds of all cores since boot: the first line of /proc/stat ("cpu user nice system idle iowait irq
// softirq steal guest guest_nice", in clock ticks) less idle and iowait (guest time is already in user). -1 when
// it cannot be read.
double machineBusySeconds()
{
    std::ifstream in("/proc/stat");
    std::string line;
    if (!std::getline(in, line) || line.rfind("cpu ", 0) != 0)
        return -1;
    std::istringstream fields(line.substr(4));
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq))
        return -1;
    fields >> steal; // absent on old kernels
    const long ticks = sysconf(_SC_CLK_TCK);
    return ticks > 0 ? (user + nice + system + irq + softirq + steal) / static_cast<double>(ticks) : -1;
}

double wallSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

double processTreeCpuSeconds()
{
    return cpuSecondsOf(RUSAGE_SELF) + cpuSecondsOf(RUSAGE_CHILDREN);
}

double loadAverage1()
{
    std::ifstream in("/proc/loadavg");
    double load = 0;
    return (in >> load) ? load : 0;
}

std::string MachineLoad::text() const
{
    if (!measured)
        return {};
    std::string out = stringPrintf(
        "Machine: load average %.2f before, %.2f after; other processes kept %.2f of %d cores busy on average while "
        "it ran.\n",
        loadBefore, loadAfter, otherCores, cores);
    if (busy())
        out += stringPrintf("WARNING: the machine was busy (other processes kept %.2f of %d cores busy): times and "
                            "FPS are lower and their ratios noisier than on a quiet machine; rerun on an idle machine "
                            "before reading effects from this table.\n",
                            otherCores, cores);
    return out;
}

MachineLoadMeter::MachineLoadMeter()
    : m_loadBefore(loadAverage1()), m_busyBefore(machineBusySeconds()), m_ownBefore(processTreeCpuSeconds()),
      m_wallBefore(wallSeconds())
{
}

MachineLoad MachineLoadMeter::finish() const
{
    MachineLoad load;
    const double busy = machineBusySeconds();
    load.seconds = wallSeconds() - m_wallBefore;
    if (m_busyBefore < 0 || busy < 0 || load.seconds <= 0)
        return load;
    load.measured = true;
    load.loadBefore = m_loadBefore;
    load.loadAfter = loadAverage1();
    load.cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    const double own = processTreeCpuSeconds() - m_ownBefore;
    load.otherCores = std::max(0.0, (busy - m_busyBefore - own) / load.seconds);
    return load;
}

} // namespace pitwall
