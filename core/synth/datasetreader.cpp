// Reading a dataset folder back: dataset.json validated on open, frames decoded on demand.
#include "core/synth/dataset.h"

#include "core/synth/internal/imageio.h"
#include "core/util/error.h"

#include <cstdio>
#include <filesystem>

namespace pitwall::synth {

namespace {

using internal::readFile;

std::vector<std::uint8_t> load(const std::string& path)
{
    std::vector<std::uint8_t> bytes;
    if (!readFile(path, bytes))
        throw InputError(SourceLocation{path}, "missing or unreadable");
    return bytes;
}

void checkSize(const std::string& path, int width, int height, int wantWidth, int wantHeight)
{
    if (width != wantWidth || height != wantHeight)
        throw InputError(SourceLocation{path}, "is " + std::to_string(width) + "x" + std::to_string(height) +
                                                   ", dataset.json says " + std::to_string(wantWidth) + "x" +
                                                   std::to_string(wantHeight));
}

internal::DecodedPng loadPng(const std::string& path, int bitDepth, int wantWidth, int wantHeight)
{
    internal::DecodedPng png;
    std::string why;
    if (!internal::decodePng(load(path), png, why))
        throw InputError(SourceLocation{path}, "corrupt PNG: " + why);
    if (png.channels != 1 || png.bitDepth != bitDepth)
        throw InputError(SourceLocation{path}, "expected a " + std::to_string(bitDepth) + "-bit grey PNG");
    checkSize(path, png.width, png.height, wantWidth, wantHeight);
    return png;
}

} // namespace

SynthDataset SynthDataset::open(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(SourceLocation{dir}, "no such dataset folder");
    const std::string path = (fs::path(dir) / "dataset.json").string();
    std::vector<std::uint8_t> bytes;
    if (!readFile(path, bytes))
        throw InputError(SourceLocation{path}, "missing: not a synthetic dataset, or its generation did not finish");
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::exception& e) {
        throw InputError(SourceLocation{path}, std::string("not valid JSON: ") + e.what());
    }
    SynthDataset dataset;
    dataset.m_dir = dir;
    dataset.m_info = datasetInfoFromJson(json, path);
    return dataset;
}

bool isCompleteDataset(const std::string& dir)
{
    try {
        SynthDataset::open(dir);
        return true;
    } catch (const InputError&) {
        return false;
    }
}

std::string SynthDataset::framePath(const std::string& kind, int index) const
{
    char name[16];
    std::snprintf(name, sizeof name, "%06d", index);
    const char* extension = kind == "rgb" ? ".jpg" : (kind == "meta" ? ".json" : ".png");
    return m_dir + "/" + kind + "/" + name + extension;
}

Frame SynthDataset::readFrame(int index) const
{
    if (index < 0 || index >= m_info.frames)
        throw InputError(SourceLocation{m_dir}, "frame " + std::to_string(index) +
                                                    " is out of range (the dataset has " +
                                                    std::to_string(m_info.frames) + " frames)");
    const CameraConfig& camera = m_info.sensors.camera;
    const BevConfig& bev = m_info.sensors.bev;
    Frame frame;

    const std::string rgbPath = framePath("rgb", index);
    std::string why;
    frame.rgb.channels = 3;
    if (!internal::decodeJpeg(load(rgbPath), frame.rgb.pixels, frame.rgb.width, frame.rgb.height, why))
        throw InputError(SourceLocation{rgbPath}, "corrupt JPEG: " + why);
    checkSize(rgbPath, frame.rgb.width, frame.rgb.height, camera.width, camera.height);

    internal::DecodedPng semantic = loadPng(framePath("semantic", index), 8, camera.width, camera.height);
    frame.semantic = {camera.width, camera.height, 1, std::move(semantic.bytes8)};

    const internal::DecodedPng depth = loadPng(framePath("depth", index), 16, camera.width, camera.height);
    frame.depth = {camera.width, camera.height, std::vector<float>(depth.bytes16.size())};
    for (std::size_t i = 0; i < depth.bytes16.size(); ++i)
        frame.depth.pixels[i] = static_cast<float>(depth.bytes16[i] / kDepthPngScale);

    internal::DecodedPng bevSemantic = loadPng(framePath("bev_semantic", index), 8, bev.width, bev.height);
    frame.bevSemantic = {bev.width, bev.height, 1, std::move(bevSemantic.bytes8)};

    internal::DecodedPng lidar = loadPng(framePath("lidar", index), 16, bev.width, bev.height);
    frame.lidarCounts = {bev.width, bev.height, std::move(lidar.bytes16)};
    frame.lidar = {bev.width, bev.height, std::vector<float>(frame.lidarCounts.pixels.size())};
    const double cap = m_info.sensors.lidar.histogramMaxPerCell;
    for (std::size_t i = 0; i < frame.lidar.pixels.size(); ++i)
        frame.lidar.pixels[i] = static_cast<float>(std::min<double>(frame.lidarCounts.pixels[i], cap) / cap);

    const std::string metaPath = framePath("meta", index);
    const std::vector<std::uint8_t> meta = load(metaPath);
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(meta.begin(), meta.end());
    } catch (const nlohmann::json::exception& e) {
        throw InputError(SourceLocation{metaPath}, std::string("not valid JSON: ") + e.what());
    }
    frame.labels = frameLabelsFromJson(json, metaPath);
    return frame;
}

} // namespace pitwall::synth
