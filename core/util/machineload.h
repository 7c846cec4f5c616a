#pragma once
// How busy this machine was around a benchmark, so that a table printed on a shared machine says so: the 1-minute
// load average before and after, and the cores that other processes kept busy on average meanwhile (the busy time
// of every core in /proc/stat less this process tree's CPU time). Linux; on other systems nothing is measured.

#include <string>

namespace pitwall {

// User + system CPU seconds of this process and of its children that have been waited for (rank processes, loader
// worker processes), e.g. around a whole run.
double processTreeCpuSeconds();

// The 1-minute load average (/proc/loadavg); 0 when it cannot be read.
double loadAverage1();

struct MachineLoad {
    bool measured = false;
    double loadBefore = 0, loadAfter = 0; // 1-minute load average
    double otherCores = 0;                // cores other processes kept busy, averaged over the span (>= 0)
    int cores = 0;                        // online cores
    double seconds = 0;                   // the span's wall time

    // Other processes kept at least kBusyOtherCores busy on average: the timings are slower and noisier than on a
    // quiet machine.
    static constexpr double kBusyOtherCores = 0.25;
    bool busy() const { return measured && otherCores >= kBusyOtherCores; }
    // "Machine: load average 0.08 before, 1.93 after; other processes kept 0.02 of 2 cores busy on average while
    // it ran.", then a WARNING line when busy(); empty when not measured.
    std::string text() const;
};

// Starts measuring on construction; finish() reads the span so far.
class MachineLoadMeter {
public:
    MachineLoadMeter();
    MachineLoad finish() const;

private:
    double m_loadBefore = 0;
    double m_busyBefore = -1; // all cores' busy seconds, -1 when /proc/stat cannot be read
    double m_ownBefore = 0;
    double m_wallBefore = 0;
};

} // namespace pitwall
