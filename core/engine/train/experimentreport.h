#pragma once
// What `pitwall train` reports when an experiment ends, as JSON and as text (plain C++: no torch).

#include "core/engine/train/experiment.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pitwall::engine {

// {"study", "data_dir", "runs": [{seed, trial, run_id, total_seconds, cancelled, notices, metrics}]}; metrics per
// stage as stage_seconds/<stage>, compute_fps/<stage>, full_fps/<stage>, data_wait_ms/<stage>, loss/<stage>, and
// the final validation metrics as val/<key>.
nlohmann::json experimentResultJson(const ExperimentResult& result);

// A blank line, "study 'S' in STORE (data: DIR)", a table of seed, trial, stage, seconds, compute FPS, full FPS and
// validation loss, then per seed its final validation metrics and notes.
std::string experimentResultText(const ExperimentResult& result, const std::string& storeLocation);

// A training progress event in words: the label "seed S STAGE epoch E/N"; at an epoch's end the line
// "LABEL done: train loss L, val KEY V..." (text), otherwise the step detail "loss L  F samples/s" (detail).
struct TrainProgressText {
    std::string label;
    std::string text;   // set when the epoch is done
    std::string detail; // set while it runs
};
TrainProgressText trainProgressText(std::int64_t seed, const TrainProgress& progress);

// The same event as progress of the whole stage, so that a bar or a job's fraction never goes back at an epoch's
// start and a log gets a line per tenth of a stage rather than per epoch: label "seed S STAGE", done/total the
// stage's steps (epochs x steps per epoch), detail "epoch E/N  loss L  F samples/s".
ProgressReport trainProgressReport(std::int64_t seed, const TrainProgress& progress);
// Hands the event to `reporter`: an epoch's end as the line of trainProgressText, a step as trainProgressReport.
void reportTrainProgress(const ProgressReporter& reporter, std::int64_t seed, const TrainProgress& progress);

} // namespace pitwall::engine
