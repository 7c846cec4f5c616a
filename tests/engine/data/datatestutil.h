#pragma once
// Fixtures of the data-pipeline tests: smooth, colourful test images written as JPEG files.

#include "core/image/jpeg.h"
#include "core/synth/dataset.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace datatest {

// RGB pixels: gradients and soft waves whose phases depend on `seed` (every hue and saturation occurs).
inline std::vector<std::uint8_t> testImage(int width, int height, int seed)
{
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * height * 3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const double u = static_cast<double>(x) / width, v = static_cast<double>(y) / height;
            const double values[3] = {127.5 + 120 * std::sin(6.0 * u + 0.7 * seed),
                                      127.5 + 120 * std::sin(5.0 * v + 1.3 * seed + 2.0),
                                      127.5 + 120 * std::sin(4.0 * (u + v) + 0.4 * seed + 4.0)};
            for (int c = 0; c < 3; ++c)
                rgb[(static_cast<std::size_t>(y) * width + x) * 3 + c] = static_cast<std::uint8_t>(std::lround(values[c]));
        }
    return rgb;
}

// A synthetic-world dataset of `frames` frames (one episode) at the camera's default size, or width x height.
inline void writeSynth(const std::string& dir, int frames, std::uint64_t seed, int width = 0, int height = 0)
{
    pitwall::synth::SynthOptions options;
    options.frames = frames;
    options.episodeFrames = frames;
    options.seed = seed;
    if (width > 0) {
        options.sensors.camera.width = width;
        options.sensors.camera.height = height;
    }
    pitwall::synth::writeSynthDataset(dir, options);
}

inline void writeBytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes)
{
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline void writeText(const std::filesystem::path& path, const std::string& text)
{
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

inline void writeJpeg(const std::filesystem::path& path, int width, int height, int seed, int quality = 92)
{
    const auto rgb = testImage(width, height, seed);
    writeBytes(path, pitwall::image::encodeJpeg(rgb.data(), width, height, quality));
}

// `count` JPEGs named 000.jpg, 001.jpg, ... in dir; returns their paths.
inline std::vector<std::string> writeJpegFolder(const std::filesystem::path& dir, int count, int width, int height)
{
    std::vector<std::string> paths;
    for (int i = 0; i < count; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "%03d.jpg", i);
        writeJpeg(dir / name, width, height, i);
        paths.push_back((dir / name).string());
    }
    return paths;
}

} // namespace datatest
