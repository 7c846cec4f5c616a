// OpenLane CIPO reader (REFERENCE-WORKLOADS 2.7): cipo/<split>/segment-*/<ts>.jpg.json beside
// images/<split>/segment-*/<ts>.jpg.
#include "core/engine/data/dataset.h"

#include "core/util/error.h"
#include "core/util/floatrange.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

namespace pitwall::engine::data {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A number, or a string holding one (some converters write "12.5").
std::optional<double> numberOf(const json& object, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end())
        return std::nullopt;
    if (it->is_number())
        return it->get<double>();
    if (it->is_string())
        return parseDouble(it->get<std::string>());
    return std::nullopt;
}

// The CIPO level 1..4 from "id" (string or number), else "attribute".
std::optional<int> levelOf(const json& object)
{
    for (const char* key : {"id", "attribute"}) {
        const auto value = numberOf(object, key);
        if (!value)
            continue;
        const double level = *value;
        if (level == std::floor(level) && level >= 1 && level <= 4)
            return static_cast<int>(level);
        return std::nullopt;
    }
    return std::nullopt;
}

// Reads one label file; false (with a problem) when the frame must be left out.
bool readCipoFile(const fs::path& file, SampleRecord& record, std::vector<DataProblem>& problems)
{
    std::string text;
    try {
        text = readTextFile(file); // a regular file of at most 16 MiB
    } catch (const InputError& e) {
        problems.push_back({file.string(), "cannot read (" + e.diagnostics().front().message + "); frame left out"});
        return false;
    }
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::exception& e) {
        problems.push_back({file.string(), std::string("not valid JSON (") + e.what() + "); frame left out"});
        return false;
    }
    const json* list = nullptr;
    if (doc.is_object()) {
        for (const char* key : {"results", "result"})
            if (auto it = doc.find(key); it != doc.end()) {
                list = &*it;
                break;
            }
    }
    if (!list || !(list->is_array() || list->is_null())) {
        problems.push_back({file.string(), "no \"results\" (or \"result\") list; frame left out"});
        return false;
    }
    if (list->is_null())
        return true; // a frame with nothing labelled
    int n = 0;
    for (const json& object : *list) {
        ++n;
        const std::string which = "object " + std::to_string(n);
        if (!object.is_object()) {
            problems.push_back({file.string(), which + " is not an object; skipped"});
            continue;
        }
        const auto x = numberOf(object, "x"), y = numberOf(object, "y");
        const auto w = numberOf(object, "width"), h = numberOf(object, "height");
        if (!x || !y || !w || !h || !finiteAsFloat(*x) || !finiteAsFloat(*y) || !finiteAsFloat(*x + *w) ||
            !finiteAsFloat(*y + *h)) {
            problems.push_back({file.string(), which + ": x, y, width and height must be numbers (pixels, within "
                                                       "float range); skipped"});
            continue;
        }
        const auto level = levelOf(object);
        if (!level) {
            problems.push_back({file.string(), which + ": id (CIPO level) must be 1..4; skipped"});
            continue;
        }
        const BoxLabel box{*level == 4 ? 3 : *level, static_cast<float>(*x), static_cast<float>(*y),
                           static_cast<float>(*x + *w), static_cast<float>(*y + *h)};
        if (*w <= 0 || *h <= 0 || !(box.x1 > box.x0 && box.y1 > box.y0)) {
            problems.push_back({file.string(), which + ": box with no area; skipped"});
            continue;
        }
        record.boxes.push_back(box);
    }
    return true;
}

} // namespace

DatasetIndex indexOpenLaneCipo(const std::string& root, const std::string& split)
{
    DatasetIndex index;
    index.kind = DatasetKind::OpenLaneCipo;
    index.root = root;
    index.classNames = {"NA", "CIPO-1", "CIPO-2", "CIPO-3"};
    const fs::path labels = fs::path(root) / "cipo";
    std::error_code ec;
    if (!fs::is_directory(labels, ec))
        throw InputError(SourceLocation{labels.string()}, "no such folder (OpenLane CIPO labels)");
    std::vector<std::string> splits;
    if (!split.empty()) {
        splits.push_back(split);
    } else {
        for (const auto& entry : fs::directory_iterator(labels, ec))
            if (entry.is_directory())
                splits.push_back(entry.path().filename().string());
        std::sort(splits.begin(), splits.end());
    }
    for (const std::string& s : splits) {
        const fs::path dir = labels / s;
        if (!fs::is_directory(dir, ec)) {
            index.problems.push_back({dir.string(), "no such split folder"});
            continue;
        }
        std::vector<fs::path> files;
        for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec))
            if (it->is_regular_file() && endsWith(it->path().filename().string(), ".jpg.json"))
                files.push_back(it->path());
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files) {
            fs::path image = fs::path(root) / "images" / s / fs::relative(file, dir);
            image.replace_extension(); // drop ".json"
            if (!fs::is_regular_file(image, ec)) {
                index.problems.push_back({file.string(), "its image " + image.string() + " is missing; frame left out"});
                continue;
            }
            SampleRecord record{image.string(), {}, BoxUnits::Pixels};
            if (readCipoFile(file, record, index.problems))
                index.samples.push_back(std::move(record));
        }
    }
    requireSamples(index);
    return index;
}

} // namespace pitwall::engine::data
