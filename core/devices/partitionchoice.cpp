#include "core/devices/partitionchoice.h"

#include "core/util/numformat.h"


#include <algorithm>
#include <cmath>

namespace pitwall {

namespace {

// In the C locale: the window reads these under the desktop's.
std::string fps(double v)
{
    return formatFixedPoint(v, 1);
}

std::string ratio(double a, double b)
{
    return formatFixedPoint(a / b, 2) + "x";
}

} // namespace

PartitionChoice choosePartition(std::span<const PartitionMeasurement> cells, double margin)
{
    PartitionChoice choice;
    for (const PartitionMeasurement& cell : cells) {
        auto it = std::find_if(choice.modes.begin(), choice.modes.end(),
                               [&](const PartitionModeSummary& m) { return m.mode == cell.mode; });
        if (it == choice.modes.end()) {
            choice.modes.push_back({cell.mode, cell.devices, std::nullopt, -1, -1, cell.memoryBytes});
            it = std::prev(choice.modes.end());
        }
        if (cell.memoryBytes > 0)
            it->memoryBytes = cell.memoryBytes;
        if (cell.fullFps > 0 && std::isfinite(cell.fullFps) && cell.fullFps > it->fullFps) {
            it->batchSize = cell.batchSize;
            it->fullFps = cell.fullFps;
            it->computeFps = cell.computeFps;
        }
    }
    const PartitionModeSummary* best = nullptr;
    for (const PartitionModeSummary& m : choice.modes)
        if (m.fits() && (!best || m.fullFps > best->fullFps))
            best = &m;
    if (!best) {
        choice.reason = "no mode ran: every measured cell failed or ran out of memory";
        return choice;
    }
    // The modes within the margin of the best: the fewest logical devices among them.
    const PartitionModeSummary* chosen = best;
    for (const PartitionModeSummary& m : choice.modes)
        if (m.fits() && m.fullFps >= best->fullFps * (1.0 - margin) && m.devices < chosen->devices)
            chosen = &m;
    const PartitionModeSummary* runnerUp = nullptr;
    for (const PartitionModeSummary& m : choice.modes)
        if (&m != chosen && m.fits() && (!runnerUp || m.fullFps > runnerUp->fullFps))
            runnerUp = &m;
    choice.recommended = chosen->mode;
    const std::string own = chosen->mode + " (batch " + std::to_string(*chosen->batchSize) + "): " +
                            fps(chosen->fullFps) + " samples/s full FPS";
    const int percent = static_cast<int>(std::lround(margin * 100));
    if (!runnerUp)
        choice.reason = own + ", the only mode that ran";
    else if (chosen == best)
        choice.reason = own + ", " + ratio(chosen->fullFps, runnerUp->fullFps) + " the next best, " + runnerUp->mode +
                        " (" + fps(runnerUp->fullFps) + ")";
    else
        choice.reason = own + ", within " + std::to_string(percent) + " % of " + best->mode + " (" +
                        fps(best->fullFps) + ") with fewer logical devices (" + std::to_string(chosen->devices) +
                        " against " + std::to_string(best->devices) + "): more memory per trainer, fewer processes";
    return choice;
}

} // namespace pitwall
