#pragma once
// An experiment as `pitwall train` runs it: the data (a dataset folder, or the built-in synthetic world
// generated on first use), a study named after the experiment, and one trial — one run — per training seed.
// Plain values only: no torch in this header.

#include "core/engine/train/trainer.h"
#include "core/util/progress.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace pitwall::engine {

struct ExperimentOptions {
    std::string storeLocation;
    std::vector<std::int64_t> seeds;     // empty: experiment.seeds
    bool resume = false;                 // continue unfinished trials of the study (same seed) from checkpoints
    LogicalDevice device;                // empty id: the whole CPU
    // What the user sees, on the calling thread: lines (a trial starts, an epoch ends with its losses, a trial
    // fails), the phase "synthesising frames" when the data is generated, and per stage of each seed the steps
    // done of the stage's steps (label "seed S STAGE", detail "epoch E/N loss L  F samples/s"; trainProgressReport).
    ProgressReporter reporter;
    const CancelToken* cancel = nullptr; // checked between steps
    // Trains one seed's request instead of train() (or trainDataParallel over the config's logical devices): how a
    // Slurm run's rank 0 hands each seed to the other ranks (slurmtraining.h).
    std::function<TrainResult(const TrainRequest&)> trainSeed;
};

struct SeedResult {
    std::int64_t seed = 0;
    int trialNumber = 0;
    std::string checkpointDir;
    TrainResult train;
};

struct ExperimentResult {
    std::string study;
    std::string dataDir;
    std::vector<SeedResult> seeds;
};

// The dataset folder of a config: data.root, or the synthetic world for data.synthetic.* cached under
// <experiment.output_dir>/synthetic/<key>, generated when missing.
std::string ensureDataset(const ResolvedConfig& config, const ProgressReporter& reporter = {});

// TrainResult as JSON (what a rank process hands back to the process that started it).
nlohmann::json trainResultToJson(const TrainResult& result);
TrainResult trainResultFromJson(const nlohmann::json& json);

// Trains one run over several logical devices: starts `pitwall train-rank` once per logical device (bound to
// its cores and environment), waits for all, and returns rank 0's result. A failing rank stops the others and
// its log tail is in the RuntimeError.
TrainResult trainDataParallel(const TrainRequest& request, const std::vector<LogicalDevice>& devices);

// The logical devices a run spans (training.distribution.logical_devices of device.partition_mode on
// device.backend's devices); empty for a one-device run. InputError when the mode has too few.
std::vector<LogicalDevice> runDevices(const ResolvedConfig& config);
// Checks what can be checked of a run before any data or store is touched: its logical devices, the torch
// device and precision it asks for on `device` (the first of them for a multi-device run) and the process
// group. InputError with the key and the fix otherwise.
void checkRunnable(const ResolvedConfig& config, const LogicalDevice& device = {});

// Runs every seed; each trial ends COMPLETE with the final validation loss as its value (its metrics are
// trial user attributes), or FAIL with the reason, and the error is rethrown.
ExperimentResult runExperiment(const ResolvedConfig& config, const ExperimentOptions& options);

} // namespace pitwall::engine
