#pragma once
// JPEG for Pitwall (the data pipeline, the synthetic world, the prediction scorer): libjpeg-turbo's TurboJPEG
// API, decoding at a reduced DCT scale (M/8) when the output needs fewer pixels than the file holds, and its
// libjpeg scanline API for decoding only a region (the pixels a crop reads), row band by row band. No torch.
//
// Measured with libjpeg-turbo 2.1.5 on a 1600x900 4:4:4 JPEG (one core): 1/1 7.0 ms, 7/8 15.4 ms,
// 3/4 11.3 ms, 5/8 9.7 ms, 1/2 5.6 ms, 3/8 6.3 ms, 1/4 5.1 ms, 1/8 4.6 ms. Only 1/8, 1/4, 1/2 and 1/1 have
// SIMD inverse DCTs; the other eighths are slower than a full-scale decode, and entropy decoding (which no
// scale avoids) is most of the cost. Hence ScaleChoice::FastEighths is the pipeline's default. Measured again
// (2 shared cores, synthetic 1600x900 4:4:4 frames, two rounds): 1/8 4.4-5.1, 1/4 5.3, 3/8 5.9-6.5, 1/2 5.7,
// 5/8 6.6-8.7, 3/4 7.2-9.4, 7/8 9.4-13.6, 1/1 4.8-7.5, 3/2 16-23, 2/1 29-51 ms: the same ordering.

#include "core/image/pixelrect.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pitwall::image {

// A decoded size is ceil(size * num / denom) (TJSCALED).
struct DctScale {
    int num = 1;
    int denom = 1;
    bool operator==(const DctScale&) const = default;
};
int scaledSize(int size, DctScale scale);
// The scale as M/8 (M = 1..16), the form the benchmark reports it in.
int scaleEighths(DctScale scale);

enum class ScaleChoice {
    AnyEighth,   // every M/8 scale (M = 1..8) libjpeg-turbo offers
    AnyEighthUp, // every M/8 scale, M = 1..16: above 8/8 when the output needs more pixels than the file has
    FastEighths, // 1/8, 2/8, 4/8 and 8/8 only (the SIMD-accelerated ones)
    FullOnly,    // always 1/1
};

// The smallest scale M/8 <= 1 of `choice` whose decoded size still covers `neededWidth` x `neededHeight`
// (both decoded dimensions >= the needed ones); 1/1 when no smaller one does. Needed sizes are in decoded
// pixels at full scale, e.g. the output size divided by the fraction of the image the output shows. With
// AnyEighthUp the scale may exceed 1 (up to 16/8, the largest one when none covers).
DctScale chooseDctScale(int width, int height, double neededWidth, double neededHeight, ScaleChoice choice);

// The largest JPEG the decoder accepts: a header asking for more is refused before any pixel buffer is
// allocated (a crafted header can ask for 60000 x 60000, 10 GB of RGB).
constexpr int kMaxJpegSide = 16384;                      // pixels per side
constexpr long long kMaxJpegPixels = 64LL * 1024 * 1024; // width x height (64 Mpixel, 192 MiB of RGB)

struct JpegHeader {
    int width = 0;
    int height = 0;
    int subsampling = 0; // TJSAMP_*
};

// Pitwall's one JPEG decoder (the data pipeline, the prediction scorer and the synthetic world's reader all use
// it): headers through a TurboJPEG handle, pixels through libjpeg with a fresh decompressor per image (a reused
// one keeps the previous image's tables). Not thread-safe: one per thread. Never throws on bad bytes: returns
// false and says why, and a failure leaves the decoder usable for the next file (the handle is re-created).
// Images beyond kMaxJpegSide / kMaxJpegPixels fail in readHeader, before decode allocates.
class JpegDecoder {
public:
    JpegDecoder();
    ~JpegDecoder();
    JpegDecoder(const JpegDecoder&) = delete;
    JpegDecoder& operator=(const JpegDecoder&) = delete;

    bool readHeader(const std::uint8_t* bytes, std::size_t size, JpegHeader& header, std::string& error);
    // Decodes to RGB, 3 bytes per pixel, rows packed (stride width * 3), at `scale`. `rgb` keeps its capacity
    // between calls. A libjpeg warning (e.g. a truncated file) counts as a failure.
    bool decode(const std::uint8_t* bytes, std::size_t size, DctScale scale, std::vector<std::uint8_t>& rgb,
                int& width, int& height, std::string& error);

    // Decodes only the pixels inside `region` (decoded pixels at `scale`, half-open [x0, x1) x [y0, y1)) into
    // `rgb`, laid out as the whole decoded image (`width` x `height` at `scale`, as readHeader and scaledSize give
    // them; rows `stride` bytes apart); pixels outside the region keep what they held. Through libjpeg's scanline
    // API: the columns outside are cropped (no inverse DCT, upsampling or colour conversion for them), the rows
    // above are skipped (entropy decoding only) and decoding stops after the last row needed, so the rows below
    // are never decoded. The region's pixels are the same bytes decode() gives (a margin around it absorbs the
    // upsampling at crop edges). `rowsReady(n)` is called as rows come in: rows [0, n) needed from the region
    // are final, so the caller can consume them while they are still in cache (the last call has n = y1).
    // Damage inside the decoded rows fails as in decode(); when decoding stops early, a file whose scan does not
    // reach its end-of-image marker (a truncated file) fails too, damage past the region goes unnoticed.
    bool decodeRegion(const std::uint8_t* bytes, std::size_t size, DctScale scale, const PixelRect& region,
                      std::uint8_t* rgb, int width, int height, std::ptrdiff_t stride,
                      const std::function<void(int rowsReady)>& rowsReady, std::string& error);

private:
    void reset(); // after a failure

    void* m_handle = nullptr;
};

// RGB to JPEG (quality 1..100); chroma 4:2:0 when `subsample420`, else 4:4:4; progressive (several scans, each
// with its own Huffman tables) when `progressive`. For fixtures and tools.
std::vector<std::uint8_t> encodeJpeg(const std::uint8_t* rgb, int width, int height, int quality,
                                     bool subsample420 = false, bool progressive = false);

// Reads a whole file into `bytes` (capacity reused). False with `error` set when it cannot be read.
bool readWholeFile(const std::string& path, std::vector<std::uint8_t>& bytes, std::string& error);

} // namespace pitwall::image
