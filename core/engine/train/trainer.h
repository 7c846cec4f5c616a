#pragma once
// The training engine: one run = one seed of one trial on one logical device. Stages (pretrain, then
// post-train loading the pretrain weights), AdamW with cosine warm restarts stepped per iteration (LEAD's
// recipe) unless the model brings its own optimisation (Model::makeOptimization), live meters into the results
// store, a checkpoint per epoch and resume after interruption. Models declare their batches (ModelPlan): synthetic
// driving frames, or detection images from core/engine/data's loader.
// Plain values only: callers need no torch headers.

#include "core/config/config.h"
#include "core/devices/devices.h"
#include "core/util/cancel.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pitwall::engine {

// What a progress callback sees; called on the training thread after every step and at epoch ends.
struct TrainProgress {
    std::string stage;        // "pretrain" / "posttrain"
    int epoch = 0;            // 0-based
    int epochs = 0;
    std::int64_t step = 0;    // within the epoch, 1-based
    std::int64_t stepsPerEpoch = 0;
    double loss = 0.0;
    double computeFps = 0.0;  // so far in this epoch, warm-up excluded
    bool epochDone = false;
    bool lastEpoch = false; // the run's final epoch (of its last stage with epochs): training is paid for
    std::map<std::string, double> validation; // at epoch ends
};

struct StageResult {
    std::string stage;
    int epochs = 0;
    double seconds = 0.0;      // wall time of the stage
    double computeFps = 0.0;   // samples / summed step time after the batch arrived (warm-up excluded)
    double fullFps = 0.0;      // samples / epoch wall time (warm-up epoch steps included in wall time)
    double dataWaitMs = 0.0;   // mean wait for the next batch per step
    double finalLoss = 0.0;    // mean training loss of the last epoch
    std::map<std::string, double> validation; // last epoch
    int resumedFromEpoch = 0;  // epochs found finished in checkpoints
    double msPerIteration = 0; // wall time per training step over the stage's epochs (loading included)
};

struct TrainResult {
    std::int64_t runId = 0;
    std::vector<StageResult> stages;
    double totalSeconds = 0.0;
    std::map<std::string, double> finalMetrics; // validation metrics of the last stage
    std::vector<std::string> notices;          // one-time notes (e.g. compile does nothing on CPU)
    bool cancelled = false;
};

struct TrainRequest {
    const ResolvedConfig* config = nullptr;
    std::string storeLocation;             // results database
    std::optional<std::int64_t> trialId;   // the run belongs to this trial
    std::int64_t seed = 0;
    LogicalDevice device;                  // where to run (CPU threads, cores)
    std::string dataDir;                   // a synthetic-world dataset folder; detection models: any folder
                                           // core/engine/data reads (synthetic world, YOLO, OpenLane CIPO)
    std::string checkpointDir;             // per-run folder; resume looks here
    bool resume = false;                   // continue from the checkpoints in checkpointDir
    // Data parallel: this process is `rank` of `worldSize` (one per logical device); training.optimization.
    // batch_size is split across the ranks and gradients are averaged. Only rank 0 writes to the store and
    // the checkpoints. `rendezvous` is a file path all ranks share.
    int rank = 0;
    int worldSize = 1;
    std::string rendezvous;
    std::function<void(const TrainProgress&)> progress;
    const CancelToken* cancel = nullptr; // checked between steps
};

// Trains; records the run, metrics and events in the store. Throws InputError for bad configuration or
// data (before anything is written to the store) and RuntimeError for failures while training (the run
// is then marked failed with the reason).
TrainResult train(const TrainRequest& request);

} // namespace pitwall::engine
