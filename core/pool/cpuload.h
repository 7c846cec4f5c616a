#pragma once
// How busy the CPU cores are, from /proc/stat: the pool samples it to warn when workers are host-bound
// (every core they run on saturated, so a faster accelerator or more partitions would not help).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct CoreTimes {
    std::uint64_t busy = 0;  // user + nice + system + irq + softirq + steal, in clock ticks
    std::uint64_t total = 0; // busy + idle + iowait
};

// Per-core cumulative times, by core number.
using CpuTimes = std::map<int, CoreTimes>;

// Parses the "cpuN ..." lines of /proc/stat text (the aggregate "cpu" line is left out).
CpuTimes parseProcStat(const std::string& text);
// Reads /proc/stat; empty when it cannot be read.
CpuTimes readCpuTimes();

// Busy share (0..1) of `cores` (all cores when empty) between two samples; nullopt when no tick passed or a
// core is missing from a sample.
std::optional<double> busyFraction(const CpuTimes& before, const CpuTimes& after, const std::vector<int>& cores = {});

} // namespace pitwall
