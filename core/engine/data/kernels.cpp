// The fused per-sample kernel: geometry here, the row stages (blend, gather, colour) in internal/rows.inc, built
// for baseline x86-64 and for AVX2 + FMA and picked at start-up.
#include "core/engine/data/kernels.h"

#include "core/engine/data/internal/rows.h"

#include <algorithm>
#include <cmath>

namespace pitwall::engine::data {

using image::PixelRect;

namespace {

using internal::ColorConstants;
using internal::ColumnTable;

ColorConstants colorConstants(const ColorJitter& color, const Normalization& normalization)
{
    ColorConstants k;
    k.valueGain = color.valueGain;
    k.saturationGain = color.saturationGain;
    k.hueShiftSextants = 6.0f * (color.hueShiftTurns - std::floor(color.hueShiftTurns));
    k.kind = color.identity()              ? ColorConstants::Kind::Identity
             : color.hueShiftTurns == 0.0f ? ColorConstants::Kind::NoHue
                                           : ColorConstants::Kind::Full;
    for (int c = 0; c < 3; ++c) {
        k.mean[c] = normalization.mean[c];
        k.invStd[c] = 1.0f / normalization.std[c];
    }
    return k;
}

// Source rows (y0, y1) and weight of y1 for output row v; false when the row lies outside the image.
bool sourceRow(const ImageView& src, const Window& window, int v, int outHeight, int& y0, int& y1, float& fy)
{
    const double y = window.y + (v + 0.5) * window.height / outHeight - 0.5;
    if (y < -0.5 || y > src.height - 0.5)
        return false;
    y0 = std::clamp(static_cast<int>(std::floor(y)), 0, src.height - 1);
    y1 = std::min(y0 + 1, src.height - 1);
    fy = y0 == src.height - 1 ? 0.0f : static_cast<float>(std::clamp(y - y0, 0.0, 1.0));
    return true;
}

// Geometry of one output row, shared by every row of a sample.
struct Columns {
    ColumnTable table;
    int sourceMin = 0;   // first source column read (the blended row starts there)
    int sourceCount = 0; // source columns blended per row (one extra for the right neighbour)
};

Columns prepareColumns(const ImageView& src, const Window& window, bool flip, int outWidth, KernelScratch& s)
{
    s.columnIndex.assign(outWidth, 0);
    s.columnWeight.assign(outWidth, 0.0f);
    int first = outWidth, last = 0, sourceMin = src.width, sourceMax = 0;
    for (int d = 0; d < outWidth; ++d) {
        const int u = flip ? outWidth - 1 - d : d;
        const double x = window.x + (u + 0.5) * window.width / outWidth - 0.5;
        if (x < -0.5 || x > src.width - 0.5)
            continue;
        const int x0 = std::clamp(static_cast<int>(std::floor(x)), 0, src.width - 1);
        s.columnIndex[d] = x0;
        s.columnWeight[d] = x0 == src.width - 1 ? 0.0f : static_cast<float>(std::clamp(x - x0, 0.0, 1.0));
        first = std::min(first, d);
        last = std::max(last, d + 1);
        sourceMin = std::min(sourceMin, x0);
        sourceMax = std::max(sourceMax, x0);
    }
    Columns c;
    c.table = {s.columnIndex.data(), s.columnWeight.data(), 0, 0};
    if (first >= last)
        return c; // the window misses the image: every row is black
    for (int d = first; d < last; ++d)
        s.columnIndex[d] = 3 * (s.columnIndex[d] - sourceMin);
    c.table.first = first;
    c.table.last = last;
    c.sourceMin = sourceMin;
    c.sourceCount = std::min(sourceMax + 1, src.width - 1) - sourceMin + 1;
    return c;
}

} // namespace

// One sample's resampling state: the column table (shared by every row), the blended-row cache and the next
// output row. Rows are produced in order, each as planar floats in the scratch's red, green and blue.
struct RowResampler {
    RowResampler(const ImageView& src, const Window& window, bool flip, int outWidth, int outHeight, KernelScratch& s)
        : src(src), window(window), outWidth(outWidth), outHeight(outHeight), s(s),
          columns(prepareColumns(src, window, flip, outWidth, s))
    {
        s.row.resize(static_cast<std::size_t>(columns.sourceCount + 2) * 3); // + the right neighbour + load slack
        s.red.resize(outWidth);
        s.green.resize(outWidth);
        s.blue.resize(outWidth);
        float* rowEnd = s.row.data() + static_cast<std::size_t>(columns.sourceCount) * 3;
        std::fill(rowEnd, rowEnd + 6, 0.0f); // right neighbour of the last column (read with weight 0) and slack
    }

    bool blackRow(int v, int& y0, int& y1, float& fy) const
    {
        return columns.table.first >= columns.table.last || !sourceRow(src, window, v, outHeight, y0, y1, fy);
    }

    // The source rows and columns the rows read; empty when every row is black.
    PixelRect footprint() const
    {
        PixelRect r{columns.sourceMin, src.height, columns.sourceMin + columns.sourceCount, 0};
        for (int v = 0; v < outHeight; ++v) {
            int y0 = 0, y1 = 0;
            float fy = 0;
            if (blackRow(v, y0, y1, fy))
                continue;
            r.y0 = std::min(r.y0, y0);
            r.y1 = std::max(r.y1, y1 + 1);
        }
        return r.empty() ? PixelRect{} : r;
    }

    // The last source row output row v reads (-1 when the row is black).
    int lastSourceRow(int v) const
    {
        int y0 = 0, y1 = 0;
        float fy = 0;
        return blackRow(v, y0, y1, fy) ? -1 : y1;
    }

    // Produces output row v (rows in increasing order) into s.red / s.green / s.blue.
    void produce(int v)
    {
        int y0 = 0, y1 = 0;
        float fy = 0;
        if (blackRow(v, y0, y1, fy)) {
            std::fill(s.red.begin(), s.red.end(), 0.0f);
            std::fill(s.green.begin(), s.green.end(), 0.0f);
            std::fill(s.blue.begin(), s.blue.end(), 0.0f);
            return;
        }
        const internal::RowKernels& kernels = internal::rowKernels();
        if (y0 != cachedY0 || y1 != cachedY1 || fy != cachedFy) {
            const std::uint8_t* base = src.pixels + static_cast<std::ptrdiff_t>(columns.sourceMin) * 3;
            kernels.blend(base + y0 * src.stride, base + y1 * src.stride, fy, columns.sourceCount * 3, s.row.data());
            cachedY0 = y0;
            cachedY1 = y1;
            cachedFy = fy;
        }
        kernels.gather(s.row.data(), columns.table, outWidth, s.red.data(), s.green.data(), s.blue.data());
    }

    const ImageView src;
    const Window window;
    const int outWidth, outHeight;
    KernelScratch& s;
    const Columns columns;
    int cachedY0 = -1, cachedY1 = -1;
    float cachedFy = -1;
};

WindowRenderer::WindowRenderer(const ImageView& source, const Window& window, bool flip, const ColorJitter& color,
                               const Normalization& normalization, float* dst, int outWidth, int outHeight,
                               KernelScratch& scratch)
    : m_rows(std::make_unique<RowResampler>(source, window, flip, outWidth, outHeight, scratch)),
      m_color(std::make_unique<internal::ColorConstants>(colorConstants(color, normalization))), m_dst(dst)
{
}

WindowRenderer::~WindowRenderer() = default;

PixelRect WindowRenderer::footprint() const
{
    return m_rows->footprint();
}

void WindowRenderer::renderReady(int sourceRows)
{
    const internal::RowKernels& kernels = internal::rowKernels();
    RowResampler& rows = *m_rows;
    const std::size_t plane = static_cast<std::size_t>(rows.outWidth) * rows.outHeight;
    for (; m_next < rows.outHeight && rows.lastSourceRow(m_next) < sourceRows; ++m_next) {
        rows.produce(m_next);
        float* out = m_dst + static_cast<std::size_t>(m_next) * rows.outWidth;
        kernels.color(rows.s.red.data(), rows.s.green.data(), rows.s.blue.data(), rows.outWidth, *m_color, out,
                      out + plane, out + 2 * plane);
    }
}

void WindowRenderer::finish()
{
    renderReady(m_rows->src.height);
}

void renderWindow(const ImageView& source, const Window& window, bool flip, const ColorJitter& color,
                  const Normalization& normalization, float* dst, int outWidth, int outHeight, KernelScratch& scratch)
{
    WindowRenderer(source, window, flip, color, normalization, dst, outWidth, outHeight, scratch).finish();
}

void resizeImage(const ImageView& source, std::uint8_t* dst, int outWidth, int outHeight, KernelScratch& scratch)
{
    const Window whole{0, 0, static_cast<double>(source.width), static_cast<double>(source.height)};
    RowResampler rows(source, whole, false, outWidth, outHeight, scratch);
    for (int v = 0; v < outHeight; ++v) {
        rows.produce(v);
        const float *r = scratch.red.data(), *g = scratch.green.data(), *b = scratch.blue.data();
        std::uint8_t* out = dst + static_cast<std::size_t>(v) * outWidth * 3;
        for (int u = 0; u < outWidth; ++u) {
            out[3 * u] = static_cast<std::uint8_t>(std::lround(std::clamp(r[u], 0.0f, 255.0f)));
            out[3 * u + 1] = static_cast<std::uint8_t>(std::lround(std::clamp(g[u], 0.0f, 255.0f)));
            out[3 * u + 2] = static_cast<std::uint8_t>(std::lround(std::clamp(b[u], 0.0f, 255.0f)));
        }
    }
}

void jitterPixel(float r, float g, float b, const ColorJitter& color, float out[3])
{
    const ColorConstants k = colorConstants(color, Normalization{{0, 0, 0}, {1, 1, 1}});
    float rr[8] = {r}, gg[8] = {g}, bb[8] = {b}, o0[8], o1[8], o2[8];
    internal::rowKernels().color(rr, gg, bb, 8, k, o0, o1, o2);
    out[0] = o0[0];
    out[1] = o1[0];
    out[2] = o2[0];
}

} // namespace pitwall::engine::data
