#pragma once
// The one place that fans training out to `pitwall train-rank` processes, one per logical device: a
// data-parallel run (trainDataParallel: one world of N ranks) and the partition benchmark (N worlds of one).

#include "core/devices/devices.h"
#include "core/util/cancel.h"
#include "core/util/cmdline.h"
#include "core/util/process.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pitwall::engine {

// One `pitwall train-rank` process.
struct RankLaunch {
    LogicalDevice device;       // its cores and environment bind the process; its id is --device
    int threads = 1;            // --threads
    std::string configFile;     // the resolved config as YAML
    int rank = 0;
    int worldSize = 1;
    std::string rendezvous;     // the process group's file; empty for a world of one
    std::string storeLocation;
    std::int64_t seed = 0;
    std::string dataDir;
    std::string checkpointDir;
    std::string resultFile;     // where the rank writes its TrainResult as JSON
    std::string logFile;        // its stderr
    std::string outputFile;     // its stdout
    std::optional<std::int64_t> trialId;
    bool resume = false;
};

enum class RankFailure {
    StopAll,    // the first rank that fails stops the others (one world: they would wait for it forever)
    KeepOthers, // independent worlds: the others run on
};

struct RankExits {
    std::vector<ProcessExit> exits;          // in the order of the launches
    std::optional<std::size_t> firstFailure; // the first rank seen to end with a non-zero status or a signal
};

// Starts every rank at once and waits for all. When `cancel` (may be null) is set, every rank gets one SIGTERM
// (a graceful stop: it ends its step and writes a cancelled result). RuntimeError when a process cannot start.
RankExits runTrainRanks(const std::vector<RankLaunch>& ranks, const CancelToken* cancel, RankFailure onFailure);

// The rank's side, `pitwall train-rank CONFIG --rank R ...` with the options rankArguments passes: trains the
// resolved config as one TrainRequest (stopping gracefully on SIGINT/SIGTERM) and writes its TrainResult as JSON
// to --result. Returns the exit status (1 when the result cannot be written). InputError for a missing config or
// a missing or non-integer --rank, --world-size, --seed, --threads or --trial-id.
int trainRankCommand(const cmdline::Args& args);
std::vector<cmdline::OptionSpec> trainRankOptionSpecs(); // its options, none for users (--db is the caller's)

} // namespace pitwall::engine
