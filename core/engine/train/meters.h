#pragma once
// Process meters (CPU use between two points in time, peak resident memory) and the trainer's throughput
// meters of an epoch and of a stage.

#include <cstdint>
#include <map>
#include <string>

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

// The figures of one training epoch on one rank. Samples count all ranks (batch × world size).
struct EpochMeters {
    double samples = 0;               // trained samples
    double stepSeconds = 0;           // summed step time after the batch arrived, warm-up steps excluded
    std::int64_t measuredSamples = 0; // samples of the steps in stepSeconds
    double lossSum = 0;               // sum of the steps' training losses
    double waitMs = 0;                // summed wait for the next batch
    std::int64_t steps = 0;           // the epoch's planned steps (an epoch cut short by cancel counts whole)
    double wallSeconds = 0;           // wall time of the steps
    double cpuPercent = 0;            // process CPU over wallSeconds, percent of one core
    bool interrupted = false;         // cancelled before its last step: not an epoch (not validated or saved)

    // Samples per second of step time so far (0 before the first measured step).
    double computeFps() const { return stepSeconds > 0 ? static_cast<double>(measuredSamples) / stepSeconds : 0.0; }
    // Mean training loss over the planned steps.
    double meanLoss() const { return steps > 0 ? lossSum / static_cast<double>(steps) : 0.0; }
};

// The running totals of a stage over its finished epochs. Saved with every epoch's checkpoint (checkpoint.h),
// so that a resumed stage ends with the same summary as one that was never interrupted.
struct StageMeters {
    double samples = 0;                       // trained samples, all ranks
    double stepSeconds = 0;                   // summed step time, warm-up steps excluded
    double wallSeconds = 0;                   // summed epoch wall time
    double waitMs = 0;                        // summed wait for batches
    std::int64_t steps = 0;                   // steps of the finished epochs
    double lastLoss = 0;                      // mean training loss of the last finished epoch
    std::map<std::string, double> validation; // the last finished epoch's validation metrics, "loss" included
    double lossScale = 0;                     // fp16 loss scale after the last finished epoch; 0 without fp16

    // Adds a finished epoch.
    void add(const EpochMeters& epoch);
};

} // namespace pitwall::engine
