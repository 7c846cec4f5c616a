#include "core/engine/data/augment.h"

#include <algorithm>
#include <cmath>

namespace pitwall::engine::data {

namespace {

std::uint64_t splitmix(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

enum Stream : std::uint32_t { kZoom = 1, kPlaceX, kPlaceY, kFlip, kHue, kSaturation, kValue };

} // namespace

std::uint64_t mixWords(std::initializer_list<std::uint64_t> words)
{
    std::uint64_t h = 0x243F6A8885A308D3ull;
    for (std::uint64_t w : words)
        h = splitmix(h ^ splitmix(w));
    return h;
}

double counterUniform(const SampleKey& key, std::uint32_t stream)
{
    const std::uint64_t h = mixWords({key.seed, static_cast<std::uint64_t>(key.epoch),
                                      static_cast<std::uint64_t>(key.index), static_cast<std::uint64_t>(key.rank),
                                      stream});
    return static_cast<double>(h >> 11) * 0x1.0p-53;
}

SampleAugment drawAugment(const SampleKey& key, const AugmentOptions& options, int sourceWidth, int sourceHeight,
                          int outputWidth, int outputHeight)
{
    SampleAugment a;
    // Cover fit: the largest window with the output's aspect inside the source.
    const double cover = std::max(static_cast<double>(outputWidth) / sourceWidth,
                                  static_cast<double>(outputHeight) / sourceHeight);
    double width = outputWidth / cover, height = outputHeight / cover;
    if (!options.enabled) {
        a.window = {(sourceWidth - width) / 2, (sourceHeight - height) / 2, width, height};
        return a;
    }
    const auto u = [&](Stream s) { return counterUniform(key, s); };
    const double zoom = options.scaleMin + (options.scaleMax - options.scaleMin) * u(kZoom);
    width /= zoom;
    height /= zoom;
    if (options.placement == CropPlacement::Uniform) {
        // Offsets between "window flush left/top" and "flush right/bottom"; when the window is larger than the
        // image the range runs the other way (the image sits somewhere inside the window).
        const double spanX = sourceWidth - width, spanY = sourceHeight - height;
        a.window = {spanX * u(kPlaceX), spanY * u(kPlaceY), width, height};
    } else {
        const double dx = (2 * u(kPlaceX) - 1) * options.translate * width;
        const double dy = (2 * u(kPlaceY) - 1) * options.translate * height;
        a.window = {(sourceWidth - width) / 2 + dx, (sourceHeight - height) / 2 + dy, width, height};
    }
    a.flip = u(kFlip) < options.flipProbability;
    a.color.hueShiftTurns = static_cast<float>((2 * u(kHue) - 1) * options.hsvH);
    a.color.saturationGain = static_cast<float>(1 + (2 * u(kSaturation) - 1) * options.hsvS);
    a.color.valueGain = static_cast<float>(1 + (2 * u(kValue) - 1) * options.hsvV);
    return a;
}

std::vector<BoxLabel> transformBoxes(const std::vector<BoxLabel>& boxes, const SampleAugment& augment,
                                     int outputWidth, int outputHeight, float minSizePx)
{
    std::vector<BoxLabel> out;
    const Window& w = augment.window;
    const double sx = outputWidth / w.width, sy = outputHeight / w.height;
    for (const BoxLabel& b : boxes) {
        double x0 = (b.x0 - w.x) * sx, x1 = (b.x1 - w.x) * sx;
        const double y0 = std::clamp((b.y0 - w.y) * sy, 0.0, static_cast<double>(outputHeight));
        const double y1 = std::clamp((b.y1 - w.y) * sy, 0.0, static_cast<double>(outputHeight));
        if (augment.flip) {
            const double f0 = outputWidth - x1, f1 = outputWidth - x0;
            x0 = f0;
            x1 = f1;
        }
        x0 = std::clamp(x0, 0.0, static_cast<double>(outputWidth));
        x1 = std::clamp(x1, 0.0, static_cast<double>(outputWidth));
        if (x1 - x0 < minSizePx || y1 - y0 < minSizePx)
            continue;
        out.push_back({b.classId, static_cast<float>(x0), static_cast<float>(y0), static_cast<float>(x1),
                       static_cast<float>(y1)});
    }
    return out;
}

} // namespace pitwall::engine::data
