#pragma once
// Scoring boxes predicted elsewhere against a labelled dataset (`pitwall eval detection`): the predictions file
// is read and every entry checked, ground truth comes from the dataset as the training readers read it, and the
// metrics are core/eval/detection.h's (AutoSpeed's NMS and matching; AP by spec.apMethod, AutoSpeed's unless told).
// It stays in the engine because it reads the dataset with the data pipeline's readers (core/engine/data).

#include "core/eval/detection.h"
#include "core/util/cancel.h"
#include "core/util/progress.h"

#include <cstdint>
#include <string>

namespace pitwall::engine::eval {

using namespace pitwall::eval; // the metrics' types (Detection, NmsOptions, ApMethod, DetectionMetrics, ...)

struct PredictionScoreSpec {
    std::string datasetDir;      // YOLO (images/ + labels/), OpenLane CIPO (cipo/ + images/) or synthetic
    std::string split;           // the dataset's split; empty: the whole folder
    std::string predictionsFile; // a JSON list of {image, class, x, y, width, height, score}, boxes in pixels
    NmsOptions nms;
    ApMethod apMethod = ApMethod::AutoSpeed;
};

struct PredictionScore {
    DetectionMetrics metrics;
    std::int64_t predictionsRead = 0; // valid entries of the file, before NMS
    std::string datasetRoot;
    std::string datasetKind;          // datasetKindName()
    std::string imagesDir;            // where image names are looked up first
};

// What `eval detection --check` found: everything scoring reads was read and checked; nothing was scored.
struct PredictionCheck {
    std::string datasetRoot;
    std::string datasetKind; // datasetKindName()
    std::string imagesDir;   // where image names are looked up first
    std::int64_t images = 0, classes = 0, groundTruths = 0;
    std::int64_t predictionsRead = 0; // valid entries of the file
};

// Reads the dataset, its ground truth and the predictions as scorePredictions does, with the same warnings and
// InputErrors, and stops before scoring.
PredictionCheck checkPredictions(const PredictionScoreSpec& spec, const ProgressReporter& reporter);

// Reads and scores the predictions. Files of the dataset left out or partly read are reported as one warning
// and up to five message lines ("  FILE: REASON") before the predictions are read. InputError naming every bad
// entry (up to 20, then "N more problems"), a dataset without labels, or images whose size cannot be read.
// Progress is per scored image; `cancel` stops the scoring early (the metrics then cover the images scored).
PredictionScore scorePredictions(const PredictionScoreSpec& spec, CancelToken& cancel,
                                 const ProgressReporter& reporter);

} // namespace pitwall::engine::eval
