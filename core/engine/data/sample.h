#pragma once
// One sample, start to finish, on the calling thread: read the file, decode at the DCT scale the window needs,
// then the fused kernel (window resize, flip, HSV, normalise) writes the sample's slot of the batch, and the boxes
// follow the same geometry. With a pre-processed cache the first two steps become a look-up. No torch: the slot
// is a plain float pointer.

#include "core/engine/data/augment.h"
#include "core/engine/data/dataset.h"
#include "core/engine/data/kernels.h"
#include "core/image/jpeg.h"

#include <string>
#include <vector>

namespace pitwall::engine::data {

class PreprocessedCache;

struct SampleOptions {
    int outputWidth = 1024;
    int outputHeight = 372;
    AugmentOptions augment;
    Normalization normalization;
    image::ScaleChoice scaleChoice = image::ScaleChoice::FastEighths;
    // Decode only the pixels the window reads, in bands consumed by the kernel as they arrive
    // (JpegDecoder::decodeRegion); false: decode the whole image, then render (the output bytes are the same).
    bool regionDecode = true;
};

struct SampleResult {
    bool ok = false;
    std::vector<BoxLabel> boxes; // output pixels, after the augmentation, clipped
    SampleAugment augment;       // what was applied (window in source pixels)
    image::DctScale scale;       // the decode scale used (1/1 from the cache)
    std::string error;           // when !ok: why the image could not be used
};

// Per-thread state: the decoder, the file and pixel buffers and the kernel scratch. Not thread-safe; one per
// worker thread. The dataset and the cache must outlive it.
class SampleRenderer {
public:
    explicit SampleRenderer(SampleOptions options, const PreprocessedCache* cache = nullptr);

    // Renders sample `key.index` of `record` into dst (3 planes of outputWidth x outputHeight floats). When the
    // image cannot be read the slot is filled with zeros (the mean colour after normalisation) and ok is false.
    SampleResult render(const SampleRecord& record, const SampleKey& key, float* dst);

    const SampleOptions& options() const { return m_options; }

private:
    SampleOptions m_options;
    const PreprocessedCache* m_cache;
    image::JpegDecoder m_decoder;
    std::vector<std::uint8_t> m_bytes, m_pixels;
    KernelScratch m_scratch;
};

// Boxes of `record` in pixels of a sourceWidth x sourceHeight image (YOLO's normalised boxes scaled).
std::vector<BoxLabel> boxesInPixels(const SampleRecord& record, int sourceWidth, int sourceHeight);

} // namespace pitwall::engine::data
