#pragma once
// What `pitwall eval detection` makes of its options and reports about scored predictions, as JSON and as text
// (plain C++: no torch).

#include "core/engine/eval/predictions.h"
#include "core/util/cmdline.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pitwall::engine::eval {

// --dataset DIR and --predictions FILE (both required), --split, --ap (autospeed, the default, or coco); the NMS
// options keep their defaults. InputError naming the option for a missing or bad value.
PredictionScoreSpec predictionScoreSpec(const cmdline::Args& args);
std::vector<cmdline::OptionSpec> predictionScoreOptionSpecs(); // the options it reads, for the command's help

// precision, recall, map50, map50_95, ap_method, counts, confidence, dataset, dataset_kind, nms (conf, iou, max_det)
// and classes (id, name, gt, predictions and the metrics, null for a class without ground truth).
nlohmann::json predictionScoreJson(const PredictionScore& score, const NmsOptions& nms);

// "AP: METHOD", the table of "all" and each class (P, R, mAP50, mAP50-95; "–" where undefined), the counts line,
// and a note when some class has no ground truth.
std::string predictionScoreText(const PredictionScore& score);

} // namespace pitwall::engine::eval
