#pragma once
// Per-epoch checkpoints of one run: <dir>/<stage>/epoch_NNNN.{model.pt,optim.pt,json}. Files are written
// under a temporary name, flushed (fsync) and renamed, and the folder flushed, so an interrupted write never
// leaves a checkpoint that looks whole; the JSON (written last) marks the epoch as finished. It holds the epoch, the
// stage's step count and its StageMeters under "meters" with their units in the key names (samples, step_seconds,
// wall_seconds, wait_ms, steps, last_loss, validation, loss_scale) and "format": kCheckpointFormat. Markers without
// "format" (written before it existed) hold the same keys, any of them missing (loss_scale only under fp16); they read
// with the missing ones 0. In a marker of the current format every key is required: one without them, or one of a newer
// format, counts as an unfinished epoch.

#include "core/engine/model/modelapi.h"
#include "core/engine/train/meters.h"

#include <filesystem>
#include <optional>

namespace pitwall::engine {

// Test hook: with this environment variable set to "STAGE:EPOCH" (e.g. "pretrain:1", 0-based epoch), save() of that
// checkpoint writes the model file, leaves the optimiser file's temporary half written and SIGKILLs the process:
// a deterministic crash in the middle of a checkpoint write (tests/engine/tst_resume_exact.cpp).
inline constexpr const char* kCrashInCheckpointVariable = "PITWALL_TEST_CRASH_IN_CHECKPOINT";

constexpr int kCheckpointFormat = 2; // 1: no "format" key, loose meter keys each optional

struct CheckpointInfo {
    int epoch = 0;               // 0-based epoch that finished
    std::int64_t globalStep = 0; // optimiser steps taken in the stage
    StageMeters meters;          // figures of the finished epochs (for the final summary after a resume)
};

class CheckpointStore {
public:
    explicit CheckpointStore(std::filesystem::path dir) : m_dir(std::move(dir)) {}

    void save(Stage stage, const CheckpointInfo& info, Model& model, torch::optim::Optimizer& optimizer) const;
    // The last finished epoch of a stage, if any.
    std::optional<CheckpointInfo> latest(Stage stage) const;
    void loadModel(Stage stage, int epoch, Model& model) const;
    void loadOptimizer(Stage stage, int epoch, torch::optim::Optimizer& optimizer) const;
    std::filesystem::path modelFile(Stage stage, int epoch) const;

private:
    std::filesystem::path file(Stage stage, int epoch, const char* suffix) const;
    std::filesystem::path m_dir;
};

} // namespace pitwall::engine
