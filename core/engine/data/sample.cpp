#include "core/engine/data/sample.h"

#include "core/engine/data/cache.h"

#include <algorithm>
#include <cstring>

namespace pitwall::engine::data {

using image::chooseDctScale;
using image::JpegHeader;
using image::readWholeFile;
using image::scaledSize;

std::vector<BoxLabel> boxesInPixels(const SampleRecord& record, int sourceWidth, int sourceHeight)
{
    if (record.units == BoxUnits::Pixels)
        return record.boxes;
    std::vector<BoxLabel> boxes = record.boxes;
    for (BoxLabel& b : boxes) {
        b.x0 *= static_cast<float>(sourceWidth);
        b.x1 *= static_cast<float>(sourceWidth);
        b.y0 *= static_cast<float>(sourceHeight);
        b.y1 *= static_cast<float>(sourceHeight);
    }
    return boxes;
}

SampleRenderer::SampleRenderer(SampleOptions options, const PreprocessedCache* cache)
    : m_options(options), m_cache(cache)
{
}

SampleResult SampleRenderer::render(const SampleRecord& record, const SampleKey& key, float* dst)
{
    SampleResult result;
    const int outW = m_options.outputWidth, outH = m_options.outputHeight;
    const std::size_t slot = sizeof(float) * 3 * static_cast<std::size_t>(outW) * outH;
    ImageView view;
    int sourceWidth = 0, sourceHeight = 0;
    double toViewX = 1, toViewY = 1; // source pixels -> view pixels
    if (m_cache) {
        view = m_cache->image(key.index);
        if (!view.pixels) {
            result.error = "not in the pre-processed cache (it could not be read when the cache was built)";
        } else {
            sourceWidth = m_cache->sourceWidth(key.index);
            sourceHeight = m_cache->sourceHeight(key.index);
            toViewX = static_cast<double>(view.width) / sourceWidth;
            toViewY = static_cast<double>(view.height) / sourceHeight;
        }
    } else {
        JpegHeader header;
        if (readWholeFile(record.imagePath, m_bytes, result.error) &&
            m_decoder.readHeader(m_bytes.data(), m_bytes.size(), header, result.error)) {
            sourceWidth = header.width;
            sourceHeight = header.height;
        }
    }
    if (sourceWidth <= 0) {
        std::memset(dst, 0, slot);
        return result;
    }
    result.augment = drawAugment(key, m_options.augment, sourceWidth, sourceHeight, outW, outH);
    const Window& w = result.augment.window;
    bool decoded = true;
    if (!m_cache) {
        // Decoded pixels needed at full scale: the output's size over the fraction of the image it shows.
        result.scale = chooseDctScale(sourceWidth, sourceHeight, outW * sourceWidth / w.width,
                                      outH * sourceHeight / w.height, m_options.scaleChoice);
        toViewX = toViewY = static_cast<double>(result.scale.num) / result.scale.denom;
        if (m_options.regionDecode) {
            const int dw = scaledSize(sourceWidth, result.scale), dh = scaledSize(sourceHeight, result.scale);
            const std::size_t bytes = static_cast<std::size_t>(dw) * dh * 3;
            if (m_pixels.size() < bytes)
                m_pixels.resize(bytes);
            view = {m_pixels.data(), dw, dh, static_cast<std::ptrdiff_t>(dw) * 3};
        } else {
            int dw = 0, dh = 0;
            decoded = m_decoder.decode(m_bytes.data(), m_bytes.size(), result.scale, m_pixels, dw, dh, result.error);
            view = {m_pixels.data(), dw, dh, static_cast<std::ptrdiff_t>(dw) * 3};
        }
    }
    const Window inView{w.x * toViewX, w.y * toViewY, w.width * toViewX, w.height * toViewY};
    if (decoded) {
        WindowRenderer renderer(view, inView, result.augment.flip, result.augment.color, m_options.normalization,
                                dst, outW, outH, m_scratch);
        if (!m_cache && m_options.regionDecode) {
            // Decode only the pixels the window reads, and render each band of output rows as soon as its source
            // rows are in (while they are still in cache).
            decoded = m_decoder.decodeRegion(m_bytes.data(), m_bytes.size(), result.scale, renderer.footprint(),
                                             m_pixels.data(), view.width, view.height, view.stride,
                                             [&](int rows) { renderer.renderReady(rows); }, result.error);
        }
        if (decoded)
            renderer.finish();
    }
    if (!decoded) {
        std::memset(dst, 0, slot);
        return result;
    }
    result.boxes = transformBoxes(boxesInPixels(record, sourceWidth, sourceHeight), result.augment, outW, outH);
    result.ok = true;
    return result;
}

} // namespace pitwall::engine::data
