#include "core/pool/cpuload.h"

#include <fstream>
#include <sstream>

namespace pitwall {

CpuTimes parseProcStat(const std::string& text)
{
    CpuTimes times;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9')
            continue;
        std::istringstream fields(line.substr(3));
        int core = 0;
        std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
        fields >> core >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
        if (!fields && !fields.eof())
            continue;
        CoreTimes t;
        t.busy = user + nice + system + irq + softirq + steal;
        t.total = t.busy + idle + iowait;
        times[core] = t;
    }
    return times;
}

CpuTimes readCpuTimes()
{
    std::ifstream in("/proc/stat");
    if (!in)
        return {};
    std::stringstream text;
    text << in.rdbuf();
    return parseProcStat(text.str());
}

std::optional<double> busyFraction(const CpuTimes& before, const CpuTimes& after, const std::vector<int>& cores)
{
    std::vector<int> which = cores;
    if (which.empty())
        for (const auto& [core, t] : after)
            which.push_back(core);
    std::uint64_t busy = 0, total = 0;
    for (int core : which) {
        const auto a = before.find(core), b = after.find(core);
        if (a == before.end() || b == after.end())
            return std::nullopt;
        if (b->second.total < a->second.total || b->second.busy < a->second.busy)
            return std::nullopt; // counters went backwards (a core came back online)
        busy += b->second.busy - a->second.busy;
        total += b->second.total - a->second.total;
    }
    if (total == 0)
        return std::nullopt;
    return static_cast<double>(busy) / static_cast<double>(total);
}

} // namespace pitwall
