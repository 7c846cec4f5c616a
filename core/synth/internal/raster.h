#pragma once
// Scan conversion of triangles over pixel centres, with 1/z interpolated linearly in screen space
// (perspective-correct depth). Used by the camera (perspective) and the BEV grid (orthographic).

#include <algorithm>
#include <cmath>

namespace pitwall::synth::internal {

struct ScreenVertex {
    float x = 0, y = 0; // pixels; pixel (i, j) has its centre at (i + 0.5, j + 0.5)
    float inverseDepth = 0;
};

// Calls visit(index, inverseDepth) for every pixel centre inside the triangle (either winding); index is
// y * width + x.
template <typename Visit>
inline void fillTriangle(const ScreenVertex& a, const ScreenVertex& b, const ScreenVertex& c, int width, int height,
                         Visit&& visit)
{
    const float area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    if (std::abs(area) < 1e-9f)
        return;
    const int x0 = std::max(0, static_cast<int>(std::floor(std::min({a.x, b.x, c.x}) - 0.5f)));
    const int x1 = std::min(width - 1, static_cast<int>(std::ceil(std::max({a.x, b.x, c.x}) - 0.5f)));
    const int y0 = std::max(0, static_cast<int>(std::floor(std::min({a.y, b.y, c.y}) - 0.5f)));
    const int y1 = std::min(height - 1, static_cast<int>(std::ceil(std::max({a.y, b.y, c.y}) - 0.5f)));
    if (x0 > x1 || y0 > y1)
        return;
    const float inv = 1.0f / area;
    for (int y = y0; y <= y1; ++y) {
        const float py = y + 0.5f;
        for (int x = x0; x <= x1; ++x) {
            const float px = x + 0.5f;
            // Barycentric weights (a centre on an edge shared by two triangles of one quad is visited twice).
            const float w0 = ((b.x - px) * (c.y - py) - (b.y - py) * (c.x - px)) * inv;
            const float w1 = ((c.x - px) * (a.y - py) - (c.y - py) * (a.x - px)) * inv;
            const float w2 = 1.0f - w0 - w1;
            if (w0 < 0 || w1 < 0 || w2 < 0)
                continue;
            visit(y * width + x, w0 * a.inverseDepth + w1 * b.inverseDepth + w2 * c.inverseDepth);
        }
    }
}

} // namespace pitwall::synth::internal
