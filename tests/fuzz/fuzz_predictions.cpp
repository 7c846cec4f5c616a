// Fuzz target: a predictions file through `pitwall eval detection`'s scorer (core/engine/eval/predictions.cpp
// and detection.cpp, no torch) against a fixed two-image YOLO dataset (two classes, three boxes). The input is
// the JSON file of {image, class, x, y, width, height, score} entries. Promises checked: a file that is accepted
// gives metrics that are fractions (finite, 0..1, also per class), counts that match the dataset, and no more
// predictions than the file's entries.
#include "fuzztarget.h"

#include "core/engine/eval/predictions.h"
#include "core/image/jpeg.h"

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

using namespace pitwall;
using namespace pitwall::engine;
namespace fs = std::filesystem;

namespace {

const fs::path& datasetRoot()
{
    static const fs::path root = [] {
        const fs::path dir = fuzz::scratchDir("predictions") / "dataset";
        std::vector<std::uint8_t> rgb(64 * 48 * 3, 90);
        const std::vector<std::uint8_t> jpeg = image::encodeJpeg(rgb.data(), 64, 48, 90, true);
        const std::string labels[] = {"0 0.5 0.5 0.25 0.25\n1 0.2 0.3 0.1 0.2\n", "1 0.7 0.6 0.3 0.3\n"};
        for (int i = 0; i < 2; ++i) {
            const std::string name = i == 0 ? "a" : "b";
            fuzz::writeFile(dir / "images" / (name + ".jpg"), jpeg.data(), jpeg.size());
            fuzz::writeFile(dir / "labels" / (name + ".txt"), reinterpret_cast<const std::uint8_t*>(labels[i].data()),
                            labels[i].size());
        }
        return dir;
    }();
    return root;
}

bool fraction(double value)
{
    return std::isfinite(value) && value >= 0 && value <= 1;
}

} // namespace

PITWALL_FUZZ_TARGET
{
    return fuzz::runInput([&] {
        const fs::path file = datasetRoot().parent_path() / "predictions.json";
        fuzz::writeFile(file, data, size);
        engine::eval::PredictionScoreSpec spec;
        spec.datasetDir = datasetRoot().string();
        spec.predictionsFile = file.string();
        spec.apMethod = size % 2 == 0 ? engine::eval::ApMethod::AutoSpeed : engine::eval::ApMethod::Coco;
        CancelToken cancel;
        const engine::eval::PredictionScore score = engine::eval::scorePredictions(spec, cancel, ProgressReporter());
        const engine::eval::DetectionMetrics& m = score.metrics;
        PITWALL_FUZZ_CHECK(fraction(m.precision) && fraction(m.recall) && fraction(m.map50) && fraction(m.map50_95),
                           "P " + std::to_string(m.precision) + " R " + std::to_string(m.recall) + " mAP50 " +
                               std::to_string(m.map50) + " mAP50-95 " + std::to_string(m.map50_95));
        for (const engine::eval::ClassMetrics& c : m.classes)
            PITWALL_FUZZ_CHECK(fraction(c.precision) && fraction(c.recall) && fraction(c.ap50) && fraction(c.ap50_95),
                               "class " + std::to_string(c.classId));
        PITWALL_FUZZ_CHECK(m.images == 2 && m.groundTruths == 3, std::to_string(m.images) + " images, " +
                                                                     std::to_string(m.groundTruths) + " boxes");
        PITWALL_FUZZ_CHECK(m.predictions <= score.predictionsRead && score.predictionsRead <= static_cast<std::int64_t>(size),
                           std::to_string(m.predictions) + " of " + std::to_string(score.predictionsRead));
    });
}
