#pragma once
// Per-sample augmentation drawn from a counter-based hash of (seed, epoch, sample index, rank): no generator is
// shared between threads, so a sample's augmentation (and bytes) never depend on thread count or order.
// No torch.
//
// Geometry: the output shows a window of the source image. At zoom 1 the window is the largest one with the
// output's aspect that fits the image ("cover" fit); a zoom z drawn from [scaleMin, scaleMax] (DALI's resize_lim)
// shrinks it by z (z > 1 zooms in, z < 1 shows more than the image, padded black). The window is then placed
// uniformly inside the zoomed image (DALI / mmdet3d random crop) or centred with a random shift of up to
// `translate` of its size (AutoSpeed / YOLO). Colour: AutoSpeed's HSV gains as ultralytics draws them,
// u ~ U(-1, 1) per channel: hue += u_h * hsvH turns, saturation *= 1 + u_s * hsvS, value *= 1 + u_v * hsvV.

#include <cstdint>
#include <vector>

namespace pitwall::engine::data {

enum class CropPlacement { Uniform, Translate };

struct AugmentOptions {
    bool enabled = true;  // false: cover fit, centred, no flip, no colour change
    double scaleMin = 0.86; // zoom range (resize_lim)
    double scaleMax = 1.25;
    CropPlacement placement = CropPlacement::Uniform;
    double translate = 0.1; // Translate placement: shift of the centre, fraction of the window size
    double flipProbability = 0.5;
    double hsvH = 0.015;
    double hsvS = 0.7;
    double hsvV = 0.4;
};

// Per-channel mean and standard deviation in 0..255 units (ImageNet's by default, as DALI's StreamPETR config).
struct Normalization {
    float mean[3] = {123.675f, 116.28f, 103.53f};
    float std[3] = {58.395f, 57.12f, 57.375f};
};

struct SampleKey {
    std::uint64_t seed = 0;
    std::int64_t epoch = 0;
    std::int64_t index = 0; // dataset index of the sample
    int rank = 0;
};

// Uniform in [0, 1) from the key and a stream number (one stream per random quantity). Pure function.
double counterUniform(const SampleKey& key, std::uint32_t stream);
// A 64-bit mix of several words (splitmix64 finaliser chain); used by the sampler's permutations too.
std::uint64_t mixWords(std::initializer_list<std::uint64_t> words);

// A rectangle in some image's pixel coordinates (x right, y down; may reach outside the image).
struct Window {
    double x = 0, y = 0, width = 0, height = 0;
};

struct ColorJitter {
    float hueShiftTurns = 0;  // added to the hue (1 = a full turn)
    float saturationGain = 1; // result clamped to saturation 1
    float valueGain = 1;      // result clamped to 255
    bool identity() const { return hueShiftTurns == 0 && saturationGain == 1 && valueGain == 1; }
};

struct SampleAugment {
    Window window; // in source pixels
    bool flip = false;
    ColorJitter color;
};

// Draws a sample's augmentation for a source of sourceWidth x sourceHeight and an output of outputWidth x
// outputHeight. Same key and options give the same result.
SampleAugment drawAugment(const SampleKey& key, const AugmentOptions& options, int sourceWidth, int sourceHeight,
                          int outputWidth, int outputHeight);

// A labelled box: class and corners in pixels (x0 <= x1, y0 <= y1).
struct BoxLabel {
    int classId = 0;
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Maps boxes from source pixels into the output through the window and flip, clips them to the output and drops
// the ones left narrower or lower than minSizePx.
std::vector<BoxLabel> transformBoxes(const std::vector<BoxLabel>& boxes, const SampleAugment& augment,
                                     int outputWidth, int outputHeight, float minSizePx = 1.0f);

} // namespace pitwall::engine::data
