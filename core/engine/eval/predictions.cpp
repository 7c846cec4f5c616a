#include "core/engine/eval/predictions.h"

#include "core/engine/data/dataset.h"
#include "core/image/jpeg.h"
#include "core/util/error.h"
#include "core/util/floatrange.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

namespace pitwall::engine::eval {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxDiagnostics = 20; // bad entries named before "N more"
constexpr std::size_t kMaxWarnings = 5;     // dataset problems shown
constexpr int kMaxSuggestionDistance = 3;   // edits between an unknown image and a "did you mean" image
constexpr std::size_t kHeaderPrefixBytes = 256 * 1024; // enough for a JPEG's markers up to SOF, nearly always
// A predictions file read whole: COCO's val2017 with 100 detections per image is about 50 MB of JSON.
constexpr std::size_t kMaxPredictionsFileBytes = std::size_t(512) << 20;

// The classes predictions may use: the dataset's named classes, else 0..the highest class in its labels.
struct ClassSet {
    std::vector<std::string> names; // index = class id
    bool named = false;

    std::string describe() const
    {
        if (names.empty())
            return "none: the labels hold no box";
        std::string text = "0.." + std::to_string(names.size() - 1);
        if (named) {
            std::vector<std::string> parts;
            for (std::size_t i = 0; i < names.size(); ++i)
                parts.push_back(std::to_string(i) + " " + names[i]);
            text += ": " + join(parts, ", ");
        } else {
            text += ", from the labels";
        }
        return text;
    }
};

ClassSet classSetOf(const data::DatasetIndex& index)
{
    ClassSet set;
    if (!index.classNames.empty()) {
        set.names = index.classNames;
        set.named = true;
        return set;
    }
    int highest = -1;
    for (const auto& sample : index.samples)
        for (const auto& box : sample.boxes)
            highest = std::max(highest, box.classId);
    for (int c = 0; c <= highest; ++c)
        set.names.push_back(std::to_string(c));
    return set;
}

std::string normalizedKey(const fs::path& path)
{
    std::string key = path.lexically_normal().generic_string();
    while (startsWith(key, "./"))
        key = key.substr(2);
    return key;
}

// Finds a sample from the `image` of a prediction: its path relative to the images folder (or to the dataset
// folder), its full path, or, for a bare name, its file name or stem when only one sample has it.
class ImageLookup {
public:
    ImageLookup(const data::DatasetIndex& index, const std::string& split)
    {
        const fs::path root = fs::path(index.root).lexically_normal();
        std::vector<fs::path> bases;
        if (index.kind == data::DatasetKind::Synth)
            bases.push_back(root / "rgb");
        else if (index.kind != data::DatasetKind::ImageFolder)
            bases.push_back(split.empty() ? root / "images" : root / "images" / split);
        bases.push_back(root / "images");
        bases.push_back(root);
        m_imagesDir = bases.front().string();
        for (std::size_t i = 0; i < index.samples.size(); ++i) {
            const fs::path image = fs::path(index.samples[i].imagePath).lexically_normal();
            add(m_paths, normalizedKey(image), i);
            for (const fs::path& base : bases) {
                const fs::path relative = image.lexically_relative(base);
                if (!relative.empty() && *relative.begin() != "..")
                    add(m_paths, normalizedKey(relative), i);
            }
            if (m_examples.size() < 2000)
                m_examples.push_back(normalizedKey(image.lexically_relative(bases.front())));
            m_byName[image.filename().string()].push_back(i);
            m_byStem[image.stem().string()].push_back(i);
        }
    }

    const std::string& imagesDir() const { return m_imagesDir; }

    // The sample's index; throws a message (no location) when there is none or several.
    std::size_t find(const std::string& image, const data::DatasetIndex& index) const
    {
        const std::string key = normalizedKey(image);
        if (auto it = m_paths.find(key); it != m_paths.end()) {
            if (it->second != kAmbiguous)
                return it->second;
            throw std::invalid_argument("image '" + image + "' names several samples; give the full path");
        }
        if (key.find('/') == std::string::npos) {
            for (const auto* map : {&m_byName, &m_byStem}) {
                const auto it = map->find(key);
                if (it == map->end())
                    continue;
                if (it->second.size() == 1)
                    return it->second.front();
                throw std::invalid_argument("image '" + image + "' is ambiguous: " +
                                            std::to_string(it->second.size()) + " samples have that name (e.g. " +
                                            index.samples[it->second[0]].imagePath + " and " +
                                            index.samples[it->second[1]].imagePath +
                                            "); give the path relative to " + m_imagesDir);
            }
        }
        std::vector<std::string> near = nearestNames(key, m_examples, 1);
        if (!near.empty() && editDistance(key, near.front()) > kMaxSuggestionDistance)
            near.clear(); // e.g. "nope.jpg" is not a typo of "000000.jpg"
        throw std::invalid_argument("image '" + image + "' is not in the dataset (" +
                                    std::to_string(index.samples.size()) + " images under " + m_imagesDir + ")" +
                                    (near.empty() ? "" : "; did you mean '" + near.front() + "'?"));
    }

private:
    static constexpr std::size_t kAmbiguous = static_cast<std::size_t>(-1);

    static void add(std::map<std::string, std::size_t>& map, const std::string& key, std::size_t sample)
    {
        const auto [it, inserted] = map.emplace(key, sample);
        if (!inserted && it->second != sample)
            it->second = kAmbiguous;
    }

    std::string m_imagesDir;
    std::map<std::string, std::size_t> m_paths;
    std::map<std::string, std::vector<std::size_t>> m_byName, m_byStem;
    std::vector<std::string> m_examples; // for "did you mean"
};

// Collects bad-input diagnostics and throws them together.
class Problems {
public:
    explicit Problems(std::string file) : m_file(std::move(file)) {}
    void add(const std::string& message)
    {
        if (m_diagnostics.size() < kMaxDiagnostics)
            m_diagnostics.push_back({SourceLocation{m_file}, message});
        ++m_count;
    }
    void throwIfAny()
    {
        if (m_count == 0)
            return;
        if (m_count > m_diagnostics.size())
            m_diagnostics.push_back({{}, std::to_string(m_count - m_diagnostics.size()) + " more problems"});
        throw InputError(m_diagnostics);
    }

private:
    std::string m_file;
    std::vector<Diagnostic> m_diagnostics;
    std::size_t m_count = 0;
};

nlohmann::json readJsonFile(const std::string& path)
{
    std::error_code ec;
    if (fs::is_directory(path, ec))
        throw InputError(SourceLocation{path}, "is a folder; give the predictions JSON file");
    if (!fs::exists(path, ec))
        throw InputError(SourceLocation{path}, "no such file");
    const std::string text = readTextFile(path, kMaxPredictionsFileBytes); // a regular file, bounded
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte: 1-based position of the character where parsing stopped.
        const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(end), '\n'));
        const std::size_t lineStart = text.rfind('\n', end == 0 ? 0 : end - 1);
        const int column = static_cast<int>(end - (lineStart == std::string::npos || end == 0 ? 0 : lineStart + 1)) + 1;
        throw InputError(SourceLocation{path, line, column},
                         "not valid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
    } catch (const nlohmann::json::out_of_range& e) {
        // A number beyond a double's range (444444444E4444; found by fuzz_predictions): the parser names the
        // number but not its place.
        throw InputError(SourceLocation{path}, std::string("a number beyond the range of a double: ") + e.what());
    }
}

const char* jsonTypeName(const nlohmann::json& value)
{
    return value.is_number() ? "a number" : value.is_string() ? "a string" : value.is_boolean() ? "a boolean"
         : value.is_null()   ? "null"     : value.is_array()  ? "a list"   : "an object";
}

struct ReadPredictions {
    std::vector<std::vector<Detection>> perSample;
    std::int64_t count = 0;
};

// The fields of one entry of the predictions file; each one missing or of the wrong kind adds a problem.
class EntryFields {
public:
    EntryFields(const nlohmann::json& entry, const std::string& where, Problems& problems)
        : m_entry(entry), m_where(where), m_problems(problems)
    {
    }

    const nlohmann::json* field(const char* key)
    {
        const auto it = m_entry.find(key);
        if (it == m_entry.end()) {
            fail(std::string("key '") + key + "' is missing");
            return nullptr;
        }
        return &*it;
    }

    double number(const char* key)
    {
        const nlohmann::json* value = field(key);
        if (!value)
            return 0;
        if (!value->is_number() || !finiteAsFloat(value->get<double>())) {
            fail(std::string("key '") + key + "' must be a finite number (within float range), found " +
                 jsonTypeName(*value) + " (" + value->dump() + ")");
            return 0;
        }
        return value->get<double>();
    }

    void fail(const std::string& message)
    {
        m_problems.add(m_where + ": " + message);
        m_ok = false;
    }

    bool ok() const { return m_ok; }

private:
    const nlohmann::json& m_entry;
    const std::string& m_where;
    Problems& m_problems;
    bool m_ok = true;
};

// The sample an entry names and its detection; nothing when any field is bad (each one is a problem).
std::optional<std::pair<std::size_t, Detection>> readEntry(const nlohmann::json& entry, const std::string& where,
                                                           Problems& problems, const data::DatasetIndex& index,
                                                           const ClassSet& classes, const ImageLookup& lookup)
{
    if (!entry.is_object()) {
        problems.add(where + ": expected an object {image, class, x, y, width, height, score}, found " +
                     jsonTypeName(entry));
        return std::nullopt;
    }
    EntryFields f(entry, where, problems);
    std::string image;
    if (const nlohmann::json* value = f.field("image")) {
        if (value->is_string() && !value->get<std::string>().empty())
            image = value->get<std::string>();
        else
            f.fail("key 'image' must be a non-empty string, found " + value->dump());
    }
    long long classId = 0;
    if (const nlohmann::json* value = f.field("class")) {
        if (!value->is_number_integer()) {
            f.fail("key 'class' must be a whole number, found " + value->dump());
        } else {
            classId = value->get<long long>();
            if (classId < 0 || classId >= static_cast<long long>(classes.names.size()))
                f.fail("class " + std::to_string(classId) + " is outside the dataset's classes (" + classes.describe() +
                       ")");
        }
    }
    const double x = f.number("x"), y = f.number("y"), width = f.number("width"), height = f.number("height");
    const double score = f.number("score");
    if (f.ok() && (!finiteAsFloat(x + width) || !finiteAsFloat(y + height)))
        f.fail("the box's far corner (x + width, y + height) is beyond float range");
    if (width < 0 || height < 0)
        f.fail("negative " + (width < 0 ? "width " + formatDouble(width) : "height " + formatDouble(height)));
    if (score < 0 || score > 1)
        f.fail("score " + formatDouble(score) + " is outside 0..1");
    std::size_t sample = 0;
    if (!image.empty()) {
        try {
            sample = lookup.find(image, index);
        } catch (const std::invalid_argument& e) {
            f.fail(e.what());
        }
    }
    if (!f.ok())
        return std::nullopt;
    Detection d;
    d.box = {static_cast<float>(x), static_cast<float>(y), static_cast<float>(x + width),
             static_cast<float>(y + height)};
    d.classId = static_cast<int>(classId);
    d.score = static_cast<float>(score);
    return std::pair{sample, d};
}

// Validates every entry; bad ones are all named (up to kMaxDiagnostics) in one InputError.
ReadPredictions readPredictions(const std::string& path, const data::DatasetIndex& index,
                                const ClassSet& classes, const ImageLookup& lookup)
{
    const nlohmann::json json = readJsonFile(path);
    if (!json.is_array())
        throw InputError(SourceLocation{path}, std::string("expected a list of {image, class, x, y, width, height, "
                                                           "score} objects, found ") +
                                                   jsonTypeName(json));
    ReadPredictions out;
    out.perSample.resize(index.samples.size());
    Problems problems(path);
    for (std::size_t i = 0; i < json.size(); ++i) {
        const std::string where = "predictions[" + std::to_string(i) + "]";
        if (auto read = readEntry(json[i], where, problems, index, classes, lookup)) {
            out.perSample[read->first].push_back(read->second);
            ++out.count;
        }
    }
    problems.throwIfAny();
    return out;
}

// The size of a JPEG from the start of the file (the whole file only when its header reaches further).
bool readJpegHeader(image::JpegDecoder& decoder, const std::string& path, std::vector<std::uint8_t>& bytes,
                    image::JpegHeader& header, std::string& error)
{
    std::ifstream in(path, std::ios::binary);
    if (in) {
        bytes.resize(kHeaderPrefixBytes);
        in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        bytes.resize(static_cast<std::size_t>(in.gcount()));
        if (decoder.readHeader(bytes.data(), bytes.size(), header, error))
            return true;
    }
    return image::readWholeFile(path, bytes, error) && decoder.readHeader(bytes.data(), bytes.size(), header, error);
}

// Ground truth in pixels; YOLO's normalised boxes are scaled by the size in the JPEG header.
std::vector<std::vector<Detection>> groundTruthInPixels(const data::DatasetIndex& index)
{
    std::vector<std::vector<Detection>> out(index.samples.size());
    image::JpegDecoder decoder;
    std::vector<std::uint8_t> bytes;
    std::vector<Diagnostic> problems;
    for (std::size_t i = 0; i < index.samples.size(); ++i) {
        const data::SampleRecord& sample = index.samples[i];
        double scaleX = 1, scaleY = 1;
        if (sample.units == data::BoxUnits::Normalized && !sample.boxes.empty()) {
            std::string error;
            image::JpegHeader header;
            if (!readJpegHeader(decoder, sample.imagePath, bytes, header, error)) {
                if (problems.size() < kMaxDiagnostics)
                    problems.push_back({SourceLocation{sample.imagePath},
                                        "cannot read the image size to scale its normalised boxes: " + error});
                continue;
            }
            scaleX = header.width;
            scaleY = header.height;
        }
        for (const data::BoxLabel& b : sample.boxes) {
            Detection d;
            d.box = {static_cast<float>(b.x0 * scaleX), static_cast<float>(b.y0 * scaleY),
                     static_cast<float>(b.x1 * scaleX), static_cast<float>(b.y1 * scaleY)};
            d.classId = b.classId;
            d.score = 1;
            out[i].push_back(d);
        }
    }
    if (!problems.empty())
        throw InputError(problems);
    return out;
}

// Files of the dataset left out or partly read: one warning, then the first few.
void warnAboutDataset(const data::DatasetIndex& index, const ProgressReporter& reporter)
{
    if (index.problems.empty())
        return;
    reporter.warning(std::to_string(index.problems.size()) +
                     " file(s) of the dataset left out or partly read (their labels do not count):");
    for (std::size_t i = 0; i < index.problems.size() && i < kMaxWarnings; ++i)
        reporter.message("  " + index.problems[i].file + ": " + index.problems[i].reason);
    if (index.problems.size() > kMaxWarnings)
        reporter.message("  ... and " + std::to_string(index.problems.size() - kMaxWarnings) + " more");
}

// The dataset indexed, its ground truth in pixels and the predictions read and checked: all that scoring needs.
struct ScoringInput {
    data::DatasetIndex index;
    ClassSet classes;
    std::string imagesDir;
    ReadPredictions predictions;
    std::vector<std::vector<Detection>> truths;
};

ScoringInput readScoringInput(const PredictionScoreSpec& spec, const ProgressReporter& reporter)
{
    ScoringInput in;
    in.index = data::indexDataset(spec.datasetDir, spec.split);
    if (in.index.kind == data::DatasetKind::ImageFolder)
        throw InputError(SourceLocation{spec.datasetDir},
                         "has no labels: expected a YOLO (images/ + labels/), OpenLane "
                         "CIPO (cipo/ + images/) or synthetic (dataset.json) dataset");
    warnAboutDataset(in.index, reporter);
    in.classes = classSetOf(in.index);
    const ImageLookup lookup(in.index, spec.split);
    in.imagesDir = lookup.imagesDir();
    in.predictions = readPredictions(spec.predictionsFile, in.index, in.classes, lookup);
    in.truths = groundTruthInPixels(in.index);
    return in;
}

} // namespace

PredictionCheck checkPredictions(const PredictionScoreSpec& spec, const ProgressReporter& reporter)
{
    const ScoringInput in = readScoringInput(spec, reporter);
    PredictionCheck check;
    check.datasetRoot = in.index.root;
    check.datasetKind = data::datasetKindName(in.index.kind);
    check.imagesDir = in.imagesDir;
    check.images = static_cast<std::int64_t>(in.index.samples.size());
    check.classes = static_cast<std::int64_t>(in.classes.names.size());
    check.predictionsRead = in.predictions.count;
    for (const auto& boxes : in.truths)
        check.groundTruths += static_cast<std::int64_t>(boxes.size());
    return check;
}

PredictionScore scorePredictions(const PredictionScoreSpec& spec, CancelToken& cancel,
                                 const ProgressReporter& reporter)
{
    const ScoringInput in = readScoringInput(spec, reporter);
    DetectionEvaluator evaluator(in.classes.names, spec.apMethod);
    for (std::size_t i = 0; i < in.index.samples.size() && !cancel.requested(); ++i) {
        evaluator.addImage(nonMaxSuppression(in.predictions.perSample[i], spec.nms), in.truths[i]);
        reporter.progress(
            {"scoring images", static_cast<double>(i + 1), static_cast<double>(in.index.samples.size()), ""});
    }
    PredictionScore score;
    score.metrics = evaluator.finish();
    score.predictionsRead = in.predictions.count;
    score.datasetRoot = in.index.root;
    score.datasetKind = data::datasetKindName(in.index.kind);
    score.imagesDir = in.imagesDir;
    return score;
}

} // namespace pitwall::engine::eval
