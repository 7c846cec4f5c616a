#pragma once
// The per-sample pixel work of the pipeline, fused: one pass over the output reads the decoded image through a
// window (bilinear), flips, applies the HSV jitter, normalises and writes the float planes of the sample's slot
// in the batch. Intermediates are two rows of floats, kept in a per-thread scratch. No torch.

#include "core/engine/data/augment.h"
#include "core/image/pixelrect.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pitwall::engine::data {

// RGB, 3 bytes per pixel, `stride` bytes between rows. Does not own the pixels.
struct ImageView {
    const std::uint8_t* pixels = nullptr;
    int width = 0;
    int height = 0;
    std::ptrdiff_t stride = 0;
};

// Reusable buffers of one thread (grow to the largest image seen, then stay).
struct KernelScratch {
    std::vector<float> row;                // vertically blended source row, RGB interleaved
    std::vector<float> red, green, blue;   // one output row, planar
    std::vector<int> columnIndex;          // per output column: 3 * source column, -1 outside the image
    std::vector<float> columnWeight;       // per output column: weight of the next source column
};

// Renders `window` (in `source` pixels; may reach outside, padded black) into `outWidth` x `outHeight` float planes
// at dst (plane c at dst + c * outWidth * outHeight): bilinear (pixel centres aligned), mirrored when `flip`, colour
// jitter, then (value - mean) / std. Samples are taken at pixel centres: output pixel u reads source
// x = window.x + (u + 0.5) * window.width / outWidth - 0.5. Meant for resampling factors near 1 (the decoder's DCT
// scale does the large reductions); it does not low-pass.
void renderWindow(const ImageView& source, const Window& window, bool flip, const ColorJitter& color,
                  const Normalization& normalization, float* dst, int outWidth, int outHeight, KernelScratch& scratch);

namespace internal {
struct ColorConstants;
}
struct RowResampler;

// renderWindow in steps, for a source that arrives row by row (a JPEG decoded in bands): footprint() says which
// source pixels the output reads; renderReady(n) renders the output rows that read only source rows below n
// (rows in order, each once); finish() renders the rest. The output is the same as renderWindow's. `source`
// must point at the whole image's buffer from the start; only the footprint has to hold its pixels, and only the
// rows below n when renderReady(n) is called.
class WindowRenderer {
public:
    WindowRenderer(const ImageView& source, const Window& window, bool flip, const ColorJitter& color,
                   const Normalization& normalization, float* dst, int outWidth, int outHeight, KernelScratch& scratch);
    ~WindowRenderer();
    WindowRenderer(const WindowRenderer&) = delete;
    WindowRenderer& operator=(const WindowRenderer&) = delete;

    image::PixelRect footprint() const; // in source pixels; empty when the window misses the image
    void renderReady(int sourceRows);
    void finish();

private:
    std::unique_ptr<RowResampler> m_rows;
    std::unique_ptr<internal::ColorConstants> m_color;
    float* m_dst;
    int m_next = 0; // the next output row
};

// Resizes the whole image to outWidth x outHeight RGB bytes (packed rows), bilinear, rounded. Used to fill the
// pre-processed cache.
void resizeImage(const ImageView& source, std::uint8_t* dst, int outWidth, int outHeight, KernelScratch& scratch);

// The HSV jitter of one pixel (0..255 in and out, not normalised) through the kernel's own code, for tests.
void jitterPixel(float r, float g, float b, const ColorJitter& color, float out[3]);

} // namespace pitwall::engine::data
