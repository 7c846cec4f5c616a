// Image-folder, YOLO and synthetic-world readers, and the layout detection (OpenLane CIPO is in cipo.cpp).
#include "core/engine/data/dataset.h"

#include "core/synth/dataset.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pitwall::engine::data {

namespace fs = std::filesystem;

namespace {

bool isJpegName(const fs::path& path)
{
    const std::string ext = toLower(path.extension().string());
    return ext == ".jpg" || ext == ".jpeg";
}

// Sorted JPEG files under dir (recursive); folders that cannot be read are reported.
std::vector<fs::path> jpegFiles(const fs::path& dir, std::vector<DataProblem>& problems)
{
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) {
        problems.push_back({dir.string(), "cannot list: " + ec.message()});
        return files;
    }
    for (; it != end; it.increment(ec)) {
        if (ec) {
            problems.push_back({dir.string(), "cannot list: " + ec.message()});
            break;
        }
        if (it->is_regular_file(ec) && isJpegName(it->path()))
            files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

void requireFolder(const std::string& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(SourceLocation{dir}, fs::exists(dir, ec) ? "is not a folder" : "no such folder");
}

// YOLO coordinates are fractions of the image's size; beyond this many image sizes a value is not a box of it
// (and no longer a float once scaled to pixels).
constexpr double kMaxYoloCoordinate = 100.0;

int cipoClass(int level)
{
    return level == 4 ? 3 : level;
}

// Parses one YOLO label file; bad lines are reported and skipped.
std::vector<BoxLabel> readYoloLabels(const fs::path& file, std::vector<DataProblem>& problems)
{
    std::vector<BoxLabel> boxes;
    std::istringstream in;
    try {
        in.str(readTextFile(file)); // a regular file of at most 16 MiB: a label file that is /dev/zero ends here
    } catch (const InputError& e) {
        problems.push_back({file.string(), "cannot read the label file (" + e.diagnostics().front().message + ")"});
        return boxes;
    }
    std::string line;
    int lineNumber = 0;
    while (std::getline(in, line)) {
        ++lineNumber;
        const std::string text = trim(line);
        if (text.empty())
            continue;
        std::vector<std::string> words;
        for (const std::string& w : split(text, ' '))
            for (const std::string& part : split(w, '\t'))
                if (!part.empty())
                    words.push_back(part);
        const std::string where = file.string() + ":" + std::to_string(lineNumber);
        if (words.size() != 5) {
            problems.push_back({where, "expected 'cls xc yc w h' (5 numbers), found " + std::to_string(words.size()) +
                                           " fields; line skipped"});
            continue;
        }
        const auto cls = parseInteger(words[0]);
        double v[4];
        bool numbers = cls.has_value() && *cls >= 0;
        for (int i = 0; i < 4 && numbers; ++i) {
            const auto d = parseDouble(words[i + 1]);
            numbers = d.has_value() && std::isfinite(*d);
            v[i] = numbers ? *d : 0;
        }
        if (!numbers) {
            problems.push_back({where, "'" + text + "' is not 'cls xc yc w h' (class a whole number >= 0); line "
                                                    "skipped"});
            continue;
        }
        if (*cls >= kMaxYoloClasses) {
            problems.push_back({where, "class id " + words[0] + " is beyond the classes a YOLO label may use (0.." +
                                           std::to_string(kMaxYoloClasses - 1) + "); line skipped"});
            continue;
        }
        if (std::any_of(v, v + 4, [](double x) { return std::fabs(x) > kMaxYoloCoordinate; })) {
            problems.push_back({where, "'" + text + "': a value beyond +-" + formatDouble(kMaxYoloCoordinate) +
                                           " image sizes is not a box of this image; line skipped"});
            continue;
        }
        const BoxLabel box{static_cast<int>(*cls), static_cast<float>(v[0] - v[2] / 2),
                           static_cast<float>(v[1] - v[3] / 2), static_cast<float>(v[0] + v[2] / 2),
                           static_cast<float>(v[1] + v[3] / 2)};
        if (v[2] <= 0 || v[3] <= 0 || !(box.x1 > box.x0 && box.y1 > box.y0)) {
            problems.push_back({where, "box with no area (w or h <= 0, or too small to tell its corners apart); "
                                       "line skipped"});
            continue;
        }
        boxes.push_back(box);
    }
    return boxes;
}

} // namespace

const char* datasetKindName(DatasetKind kind)
{
    switch (kind) {
    case DatasetKind::ImageFolder:
        return "images";
    case DatasetKind::Yolo:
        return "yolo";
    case DatasetKind::OpenLaneCipo:
        return "openlane-cipo";
    case DatasetKind::Synth:
        return "synth";
    }
    return "?";
}

void requireSamples(const DatasetIndex& index)
{
    if (!index.samples.empty())
        return;
    std::vector<Diagnostic> diagnostics{
        {SourceLocation{index.root}, std::string("no usable sample (read as ") + datasetKindName(index.kind) + ")"}};
    for (std::size_t i = 0; i < index.problems.size() && i < 10; ++i)
        diagnostics.push_back({SourceLocation{index.problems[i].file}, index.problems[i].reason});
    if (index.problems.size() > 10)
        diagnostics.push_back({{}, std::to_string(index.problems.size() - 10) + " more problems"});
    throw InputError(diagnostics);
}

DatasetIndex indexImageFolder(const std::string& dir)
{
    requireFolder(dir);
    DatasetIndex index;
    index.kind = DatasetKind::ImageFolder;
    index.root = dir;
    for (const fs::path& file : jpegFiles(dir, index.problems))
        index.samples.push_back({file.string(), {}, BoxUnits::Pixels});
    requireSamples(index);
    return index;
}

DatasetIndex indexYolo(const std::string& dir, const std::string& split)
{
    requireFolder(dir);
    DatasetIndex index;
    index.kind = DatasetKind::Yolo;
    index.root = dir;
    const fs::path images = split.empty() ? fs::path(dir) / "images" : fs::path(dir) / "images" / split;
    const fs::path labels = split.empty() ? fs::path(dir) / "labels" : fs::path(dir) / "labels" / split;
    requireFolder(images.string());
    for (const fs::path& file : jpegFiles(images, index.problems)) {
        fs::path label = labels / fs::relative(file, images);
        label.replace_extension(".txt");
        SampleRecord record{file.string(), {}, BoxUnits::Normalized};
        std::error_code ec;
        if (fs::exists(label, ec))
            record.boxes = readYoloLabels(label, index.problems);
        index.samples.push_back(std::move(record));
    }
    requireSamples(index);
    return index;
}

DatasetIndex indexSynth(const std::string& dir)
{
    const synth::SynthDataset dataset = synth::SynthDataset::open(dir);
    DatasetIndex index;
    index.kind = DatasetKind::Synth;
    index.root = dir;
    index.classNames = {"NA", "CIPO-1", "CIPO-2", "CIPO-3"};
    for (int i = 0; i < dataset.frameCount(); ++i) {
        const std::string image = dataset.framePath("rgb", i);
        const std::string meta = dataset.framePath("meta", i);
        std::error_code ec;
        if (!fs::is_regular_file(image, ec)) {
            index.problems.push_back({image, "missing image; frame left out"});
            continue;
        }
        SampleRecord record{image, {}, BoxUnits::Pixels};
        try {
            std::ifstream in(meta);
            if (!in)
                throw InputError(SourceLocation{meta}, "cannot open");
            nlohmann::json json;
            try {
                json = nlohmann::json::parse(in);
            } catch (const nlohmann::json::exception& e) {
                throw InputError(SourceLocation{meta}, std::string("not valid JSON: ") + e.what());
            }
            for (const synth::ObjectLabel& object : synth::frameLabelsFromJson(json, meta).objects) {
                if (!object.image)
                    continue;
                const synth::ImageBox& b = *object.image;
                record.boxes.push_back({cipoClass(static_cast<int>(object.cipo)), static_cast<float>(b.x),
                                        static_cast<float>(b.y), static_cast<float>(b.x + b.width),
                                        static_cast<float>(b.y + b.height)});
            }
        } catch (const InputError& e) {
            index.problems.push_back({meta, std::string(e.what()) + "; frame left out"});
            continue;
        }
        index.samples.push_back(std::move(record));
    }
    requireSamples(index);
    return index;
}

namespace {

enum class Layout { Synth, OpenLaneCipo, Yolo, ImageFolder };

Layout layoutOf(const fs::path& root)
{
    std::error_code ec;
    if (fs::exists(root / "dataset.json", ec))
        return Layout::Synth;
    if (fs::is_directory(root / "cipo", ec))
        return Layout::OpenLaneCipo;
    if (fs::is_directory(root / "images", ec) && fs::is_directory(root / "labels", ec))
        return Layout::Yolo;
    return Layout::ImageFolder;
}

} // namespace

std::vector<std::string> datasetSplits(const std::string& dir)
{
    const fs::path root(dir);
    const Layout layout = layoutOf(root);
    std::vector<std::string> splits;
    if (layout != Layout::OpenLaneCipo && layout != Layout::Yolo)
        return splits;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root / (layout == Layout::Yolo ? "images" : "cipo"), ec))
        if (entry.is_directory(ec))
            splits.push_back(entry.path().filename().string());
    std::sort(splits.begin(), splits.end());
    return splits;
}

DatasetIndex indexDataset(const std::string& dir, const std::string& split)
{
    requireFolder(dir);
    if (!split.empty()) {
        const std::vector<std::string> splits = datasetSplits(dir);
        if (std::find(splits.begin(), splits.end(), split) == splits.end())
            throw InputError(SourceLocation{dir},
                             "has no split '" + split + "' (" +
                                 (splits.empty() ? std::string("it has no splits; leave out the split")
                                                 : "its splits: " + join(splits, ", ")) +
                                 ")");
    }
    switch (layoutOf(dir)) {
    case Layout::Synth:
        return indexSynth(dir);
    case Layout::OpenLaneCipo:
        return indexOpenLaneCipo(dir, split);
    case Layout::Yolo:
        return indexYolo(dir, split);
    case Layout::ImageFolder:
        break;
    }
    return indexImageFolder(dir);
}

} // namespace pitwall::engine::data
