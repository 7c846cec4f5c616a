#pragma once
// A rectangle of whole pixels: the region a JPEG decode reads (core/image/jpeg.h) and the footprint of the data
// pipeline's resize window in its source image.

namespace pitwall::image {

// A rectangle of whole pixels, half-open: [x0, x1) x [y0, y1).
struct PixelRect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool empty() const { return x1 <= x0 || y1 <= y0; }
};

} // namespace pitwall::image
