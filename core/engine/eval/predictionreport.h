#pragma once
// What `pitwall eval detection` makes of its options and reports about scored predictions, as JSON and as text
// (plain C++: no torch).

#include "core/engine/eval/predictions.h"
#include "core/jobs/evaljob.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pitwall::engine::eval {

// The job's --dataset and --predictions (both required), --split and --ap (AutoSpeed's when absent); the NMS options
// keep their defaults. InputError naming --dataset or --predictions when one is missing.
PredictionScoreSpec predictionScoreSpec(const DetectionEvalJob& job);

// `eval detection --check`: {"ok": true, "dataset", "dataset_kind", "images_dir", "images", "classes",
// "ground_truths", "predictions_read", "ap_method"}, and as text.
nlohmann::json predictionCheckJson(const PredictionCheck& check, const PredictionScoreSpec& spec);
std::string predictionCheckText(const PredictionCheck& check, const PredictionScoreSpec& spec);

// precision, recall, map50, map50_95, ap_method, counts, confidence, dataset, dataset_kind, nms (conf, iou, max_det)
// and classes (id, name, gt, predictions and the metrics, null for a class without ground truth).
nlohmann::json predictionScoreJson(const PredictionScore& score, const NmsOptions& nms);

// "AP: METHOD", the table of "all" and each class (P, R, mAP50, mAP50-95; "–" where undefined), the counts line,
// and a note when some class has no ground truth.
std::string predictionScoreText(const PredictionScore& score);

} // namespace pitwall::engine::eval
