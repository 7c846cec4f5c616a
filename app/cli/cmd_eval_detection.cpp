// pitwall eval detection --dataset DIR --predictions FILE: scores boxes predicted elsewhere against a labelled
// dataset with AutoSpeed's metrics (core/engine/eval/predictions.h); --ap coco for COCO's AP.
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/eval/predictions.h"
#include "core/report/table.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

nlohmann::json classJson(const engine::eval::ClassMetrics& c)
{
    nlohmann::json out{{"id", c.classId}, {"name", c.name}, {"gt", c.groundTruths}, {"predictions", c.predictions}};
    if (c.evaluated) {
        out["precision"] = c.precision;
        out["recall"] = c.recall;
        out["map50"] = c.ap50;
        out["map50_95"] = c.ap50_95;
    } else { // no ground truth: undefined, and not part of the means
        for (const char* key : {"precision", "recall", "map50", "map50_95"})
            out[key] = nullptr;
    }
    return out;
}

int evalDetection(const Args& args)
{
    using engine::eval::ApMethod;
    const ApMethod apMethod =
        engine::eval::parseApMethod(args.value("ap", std::string(apMethodName(ApMethod::AutoSpeed))), "--ap");
    const auto datasetDir = args.value("dataset");
    if (!datasetDir)
        throw InputError("give the labelled dataset with --dataset DIR");
    const auto predictionsFile = args.value("predictions");
    if (!predictionsFile)
        throw InputError("give the predictions with --predictions FILE (a JSON list of {image, class, x, y, width, "
                         "height, score})");
    const engine::eval::PredictionScoreSpec spec{*datasetDir, args.value("split", ""), *predictionsFile, {}, apMethod};
    ProgressLine line;
    ProgressReporter reporter = line.reporter();
    reporter.onProgress = nullptr; // scoring is quick: no progress line
    const engine::eval::PredictionScore score = engine::eval::scorePredictions(spec, processCancelToken(), reporter);
    const engine::eval::DetectionMetrics& m = score.metrics;
    const engine::eval::NmsOptions& nms = spec.nms;

    if (args.flag("json")) {
        nlohmann::json out{{"precision", m.precision},
                           {"recall", m.recall},
                           {"map50", m.map50},
                           {"map50_95", m.map50_95},
                           {"ap_method", std::string(engine::eval::apMethodName(m.apMethod))},
                           {"images", m.images},
                           {"predictions", m.predictions},
                           {"predictions_read", score.predictionsRead},
                           {"ground_truths", m.groundTruths},
                           {"confidence", m.bestConfidence},
                           {"dataset", score.datasetRoot},
                           {"dataset_kind", score.datasetKind},
                           {"nms", {{"conf", nms.confThreshold}, {"iou", nms.iouThreshold}, {"max_det", nms.maxDetections}}},
                           {"classes", nlohmann::json::array()}};
        for (const engine::eval::ClassMetrics& c : m.classes)
            out["classes"].push_back(classJson(c));
        std::cout << out.dump(2) << "\n";
        return kExitOk;
    }
    std::printf("AP: %s\n", std::string(engine::eval::apMethodLabel(m.apMethod)).c_str());
    Table table({"Class", "ID", "GT", "Predictions", "P", "R", "mAP50", "mAP50-95"});
    table.addRow({"all", "", std::to_string(m.groundTruths), std::to_string(m.predictions), formatFixed(m.precision, 3),
                  formatFixed(m.recall, 3), formatFixed(m.map50, 3), formatFixed(m.map50_95, 3)});
    for (const engine::eval::ClassMetrics& c : m.classes) {
        auto value = [&](double v) { return c.evaluated ? formatFixed(v, 3) : std::string("–"); };
        table.addRow({c.name, std::to_string(c.classId), std::to_string(c.groundTruths), std::to_string(c.predictions),
                      value(c.precision), value(c.recall), value(c.ap50), value(c.ap50_95)});
    }
    std::cout << table.toText();
    std::printf("%lld images (%s, %s), %lld predictions after NMS of %lld read; P and R at confidence %.3f\n",
                static_cast<long long>(m.images), score.datasetKind.c_str(), score.imagesDir.c_str(),
                static_cast<long long>(m.predictions), static_cast<long long>(score.predictionsRead), m.bestConfidence);
    if (std::any_of(m.classes.begin(), m.classes.end(), [](const auto& c) { return !c.evaluated; }))
        std::printf("– : a class with predictions but no ground truth (not part of \"all\", the mean over classes)\n");
    return kExitOk;
}

} // namespace

void addEvalDetectionCommand(Cli& cli)
{
    cli.add({"eval detection",
             "score predicted 2D boxes against a labelled dataset (P, R, mAP50, mAP50-95 as AutoSpeed)",
             "--dataset DIR [--split S] --predictions FILE "
             "[--ap autospeed|coco] [--json]",
             "DIR is read as the training readers read it: YOLO (images/[S/] + labels/[S/], normalised boxes scaled\n"
             "by each JPEG's size), OpenLane CIPO (cipo/S/ + images/S/; classes NA, CIPO-1..3) or a synthetic\n"
             "dataset (dataset.json). FILE is a JSON list of {\"image\", \"class\", \"x\", \"y\", \"width\", \"height\",\n"
             "\"score\"}: a box in pixels (x, y = left, top), class a whole number among the dataset's classes (YOLO\n"
             "without names: 0..the highest class in the labels), score 0..1. \"image\" is the image's path relative\n"
             "to the images folder (or the dataset folder), or its file name or stem when only one image has it.\n"
             "Every entry is checked; bad ones are all named (predictions[i]: key ...) and nothing is scored.\n"
             "As AutoSpeed's validation, per image: NMS (drop score < 0.001, suppress a box whose IoU with a\n"
             "higher-scoring box of the same class exceeds 0.65, keep the 300 best), then greedy one-to-one matching\n"
             "to same-class ground truth at IoU 0.50, 0.55 .. 0.95. Per class with ground truth, AP (--ap):\n"
             "  autospeed (default) as AutoSpeed's compute_ap: the precision / recall curve extended by (recall 0,\n"
             "    precision 1) and (recall 1, precision 0), its precision envelope sampled at recall 0, 0.01 .. 1\n"
             "    by linear interpolation and integrated with the trapezoid rule (perfect = 0.995; the end point\n"
             "    adds area beyond the last recall, usually above COCO's when recall stays below 1);\n"
             "  coco: 101-point interpolated AP as COCO defines it (mean precision envelope at recall 0, 0.01 .. 1,\n"
             "    0 beyond the last recall; perfect = 1).\n"
             "The report names the method (\"AP: ...\"; \"ap_method\" in --json).\n"
             "P and R are read at the confidence that maximises the class-mean F1 (box-filter smoothed).\n"
             "mAP50 and mAP50-95 are means over the classes that have ground truth; all values are fractions 0..1.",
             {{"dataset", "DIR", "the labelled dataset"},
              {"split", "S", "the dataset's split (e.g. val, validation); default: the whole folder"},
              {"predictions", "FILE", "JSON list of predicted boxes, in pixels"},
              {"ap", "METHOD", "autospeed (default: AutoSpeed's trapezoid over the envelope) or coco"},
              jsonOption()},
             evalDetection});
}

} // namespace pitwall::cli
