// Fuzz target: JPEG bytes through Pitwall's one TurboJPEG wrapper (core/image/jpeg.cpp, plain C++ with
// no torch, so it builds without LibTorch). Header, then a decode at full and at a reduced DCT scale, and the
// region decode. Promises checked: a decode fills width x height x 3 bytes at the scaled size; the region decode of a
// file that decodes whole succeeds with the same bytes in its region, and of any other file does not crash; a
// failed decode leaves the decoder able to decode a good JPEG next (one corrupt file must not fail the files after
// it).
#include "fuzztarget.h"

#include "core/image/jpeg.h"

#include <vector>

using namespace pitwall;
using namespace pitwall::image;

namespace {

const std::vector<std::uint8_t>& goodJpeg()
{
    static const std::vector<std::uint8_t> bytes = [] {
        std::vector<std::uint8_t> rgb(16 * 8 * 3);
        for (std::size_t i = 0; i < rgb.size(); ++i)
            rgb[i] = static_cast<std::uint8_t>(i * 7);
        return encodeJpeg(rgb.data(), 16, 8, 90, true);
    }();
    return bytes;
}

} // namespace

PITWALL_FUZZ_TARGET
{
    static JpegDecoder decoder;
    return fuzz::runInput([&] {
        std::vector<std::uint8_t> rgb;
        std::string error;
        JpegHeader header;
        if (!decoder.readHeader(data, size, header, error))
            return;
        PITWALL_FUZZ_CHECK(header.width > 0 && header.height > 0 && header.width <= kMaxJpegSide &&
                               header.height <= kMaxJpegSide,
                           std::to_string(header.width) + "x" + std::to_string(header.height));
        for (const DctScale scale : {DctScale{1, 8}, DctScale{1, 1}}) {
            int width = 0;
            int height = 0;
            if (decoder.decode(data, size, scale, rgb, width, height, error)) {
                PITWALL_FUZZ_CHECK(width == scaledSize(header.width, scale) && height == scaledSize(header.height, scale),
                                   std::to_string(width) + "x" + std::to_string(height));
                PITWALL_FUZZ_CHECK(rgb.size() >= static_cast<std::size_t>(width) * height * 3, "");
                // The region decode of a file that decodes whole succeeds too, with the same bytes inside.
                const PixelRect r{width / 4, height / 4, width - width / 4, height - height / 4};
                std::vector<std::uint8_t> part(static_cast<std::size_t>(width) * height * 3);
                const bool ok =
                    decoder.decodeRegion(data, size, scale, r, part.data(), width, height, width * 3, {}, error);
                PITWALL_FUZZ_CHECK(ok, "region decode failed where the whole decode did not: " + error);
                for (int y = r.y0; y < r.y1; ++y)
                    for (int x = r.x0 * 3; x < r.x1 * 3; ++x) {
                        const std::size_t i = static_cast<std::size_t>(y) * width * 3 + x;
                        PITWALL_FUZZ_CHECK(part[i] == rgb[i], "region byte differs at row " + std::to_string(y));
                    }
                continue;
            }
            // A file that does not decode whole may or may not decode in part, but never crashes or overruns.
            {
                const int w = scaledSize(header.width, scale), h = scaledSize(header.height, scale);
                std::vector<std::uint8_t> part(static_cast<std::size_t>(w) * h * 3);
                decoder.decodeRegion(data, size, scale, {0, 0, w, h / 2 + 1}, part.data(), w, h, w * 3, {}, error);
            }
            const bool recovered = decoder.decode(goodJpeg().data(), goodJpeg().size(), DctScale{1, 1}, rgb, width,
                                                  height, error);
            PITWALL_FUZZ_CHECK(recovered && width == 16 && height == 8, "after a failed decode: " + error);
        }
    });
}
