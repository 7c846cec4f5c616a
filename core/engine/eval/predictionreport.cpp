#include "core/engine/eval/predictionreport.h"

#include "core/report/table.h"
#include "core/util/error.h"
#include "core/util/printf.h"

#include <algorithm>

namespace pitwall::engine::eval {

namespace {

nlohmann::json classJson(const ClassMetrics& c)
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

} // namespace

PredictionScoreSpec predictionScoreSpec(const DetectionEvalJob& job)
{
    if (job.dataset.empty())
        throw InputError::forOption("dataset", "give the labelled dataset with --dataset DIR");
    if (job.predictions.empty())
        throw InputError::forOption("predictions", "give the predictions with --predictions FILE (a JSON list of "
                                                   "{image, class, x, y, width, height, score})");
    return {job.dataset, job.split, job.predictions, {}, job.ap.value_or(ApMethod::AutoSpeed)};
}

nlohmann::json predictionCheckJson(const PredictionCheck& check, const PredictionScoreSpec& spec)
{
    return {{"ok", true},
            {"dataset", check.datasetRoot},
            {"dataset_kind", check.datasetKind},
            {"images_dir", check.imagesDir},
            {"images", check.images},
            {"classes", check.classes},
            {"ground_truths", check.groundTruths},
            {"predictions_read", check.predictionsRead},
            {"ap_method", std::string(apMethodName(spec.apMethod))}};
}

std::string predictionCheckText(const PredictionCheck& check, const PredictionScoreSpec& spec)
{
    return stringPrintf("would score %lld predictions on %lld images (%lld ground-truth boxes, %lld classes)\n"
                        "dataset: %s (%s), images looked up in %s\nAP: %s\n",
                        static_cast<long long>(check.predictionsRead), static_cast<long long>(check.images),
                        static_cast<long long>(check.groundTruths), static_cast<long long>(check.classes),
                        check.datasetRoot.c_str(), check.datasetKind.c_str(), check.imagesDir.c_str(),
                        std::string(apMethodLabel(spec.apMethod)).c_str());
}

nlohmann::json predictionScoreJson(const PredictionScore& score, const NmsOptions& nms)
{
    const DetectionMetrics& m = score.metrics;
    nlohmann::json out{
        {"precision", m.precision},
        {"recall", m.recall},
        {"map50", m.map50},
        {"map50_95", m.map50_95},
        {"ap_method", std::string(apMethodName(m.apMethod))},
        {"images", m.images},
        {"predictions", m.predictions},
        {"predictions_read", score.predictionsRead},
        {"ground_truths", m.groundTruths},
        {"confidence", m.bestConfidence},
        {"dataset", score.datasetRoot},
        {"dataset_kind", score.datasetKind},
        {"nms", {{"conf", nms.confThreshold}, {"iou", nms.iouThreshold}, {"max_det", nms.maxDetections}}},
        {"classes", nlohmann::json::array()}};
    for (const ClassMetrics& c : m.classes)
        out["classes"].push_back(classJson(c));
    return out;
}

std::string predictionScoreText(const PredictionScore& score)
{
    const DetectionMetrics& m = score.metrics;
    std::string text = stringPrintf("AP: %s\n", std::string(apMethodLabel(m.apMethod)).c_str());
    Table table({"Class", "ID", "GT", "Predictions", "P", "R", "mAP50", "mAP50-95"});
    table.addRow({"all", "", std::to_string(m.groundTruths), std::to_string(m.predictions), formatFixed(m.precision, 3),
                  formatFixed(m.recall, 3), formatFixed(m.map50, 3), formatFixed(m.map50_95, 3)});
    for (const ClassMetrics& c : m.classes) {
        auto value = [&](double v) { return c.evaluated ? formatFixed(v, 3) : std::string("–"); };
        table.addRow({c.name, std::to_string(c.classId), std::to_string(c.groundTruths), std::to_string(c.predictions),
                      value(c.precision), value(c.recall), value(c.ap50), value(c.ap50_95)});
    }
    text += table.toText();
    text += stringPrintf("%lld images (%s, %s), %lld predictions after NMS of %lld read; P and R at confidence %.3f\n",
                         static_cast<long long>(m.images), score.datasetKind.c_str(), score.imagesDir.c_str(),
                         static_cast<long long>(m.predictions), static_cast<long long>(score.predictionsRead),
                         m.bestConfidence);
    if (std::any_of(m.classes.begin(), m.classes.end(), [](const auto& c) { return !c.evaluated; }))
        text += "– : a class with predictions but no ground truth (not part of \"all\", the mean over classes)\n";
    return text;
}

} // namespace pitwall::engine::eval
