// pitwall eval detection --dataset DIR --predictions FILE: scores boxes predicted elsewhere against a labelled
// dataset with AutoSpeed's metrics (core/engine/eval/predictions.h); --ap coco for COCO's AP.
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/eval/predictionreport.h"
#include "core/util/cancel.h"
#include "core/util/error.h"

#include <iostream>

namespace pitwall::cli {

namespace {

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
    if (args.flag("json"))
        std::cout << engine::eval::predictionScoreJson(score, spec.nms).dump(2) << "\n";
    else
        std::cout << engine::eval::predictionScoreText(score);
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
