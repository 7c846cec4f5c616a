// Fuzz target: one label file through the dataset readers (core/engine/data/readers.cpp and cipo.cpp, no torch).
// The first byte picks the format (even: a YOLO label file, "cls xc yc w h" lines; odd: an OpenLane CIPO JSON
// file); the rest is the file, read as the only label of a one-image dataset. Promises checked: the image stays
// a sample (a bad label costs its boxes, never the frame or the run), every box kept has a class the format
// allows, finite corners and a positive area, and every problem names the label file.
#include "fuzztarget.h"

#include "core/engine/data/dataset.h"
#include "core/image/jpeg.h"

#include <cmath>
#include <filesystem>
#include <vector>

using namespace pitwall;
using namespace pitwall::engine::data;
using namespace pitwall::image;
namespace fs = std::filesystem;

namespace {

struct Layout {
    fs::path yoloRoot, yoloLabel, cipoRoot, cipoLabel;
};

const Layout& layout()
{
    static const Layout layout = [] {
        const fs::path root = fuzz::scratchDir("labels");
        std::vector<std::uint8_t> rgb(16 * 8 * 3, 128);
        const std::vector<std::uint8_t> jpeg = encodeJpeg(rgb.data(), 16, 8, 90, true);
        Layout l{root / "yolo", root / "yolo/labels/train/a.txt", root / "cipo",
                 root / "cipo/cipo/train/segment-1/100.jpg.json"};
        fuzz::writeFile(l.yoloRoot / "images/train/a.jpg", jpeg.data(), jpeg.size());
        fuzz::writeFile(l.cipoRoot / "images/train/segment-1/100.jpg", jpeg.data(), jpeg.size());
        return l;
    }();
    return layout;
}

} // namespace

PITWALL_FUZZ_TARGET
{
    if (size == 0)
        return 0;
    const bool yolo = data[0] % 2 == 0;
    return fuzz::runInput([&] {
        const Layout& l = layout();
        const fs::path& label = yolo ? l.yoloLabel : l.cipoLabel;
        fuzz::writeFile(label, data + 1, size - 1);
        DatasetIndex index;
        try {
            index = yolo ? indexYolo(l.yoloRoot.string(), "train") : indexOpenLaneCipo(l.cipoRoot.string(), "train");
        } catch (const InputError&) {
            // OpenLane leaves out a frame whose file is not a CIPO document at all: then no sample is left.
            PITWALL_FUZZ_CHECK(!yolo, "a YOLO image with a bad label file must stay a sample");
            return;
        }
        PITWALL_FUZZ_CHECK(index.samples.size() == 1, std::to_string(index.samples.size()) + " samples");
        for (const BoxLabel& b : index.samples[0].boxes) {
            const int maxClass = yolo ? kMaxYoloClasses - 1 : 3;
            PITWALL_FUZZ_CHECK(b.classId >= (yolo ? 0 : 1) && b.classId <= maxClass, std::to_string(b.classId));
            PITWALL_FUZZ_CHECK(std::isfinite(b.x0) && std::isfinite(b.y0) && std::isfinite(b.x1) && std::isfinite(b.y1),
                               "a box corner is not finite");
            PITWALL_FUZZ_CHECK(b.x1 > b.x0 && b.y1 > b.y0, "a box without area was kept");
        }
        for (const DataProblem& p : index.problems)
            PITWALL_FUZZ_CHECK(p.file.rfind(label.string(), 0) == 0 && !p.reason.empty(), p.file + ": " + p.reason);
    });
}
