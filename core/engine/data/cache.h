#pragma once
// The pre-processed cache (data.use_preprocessed, AutoSpeed's --use_preprocessed): every source image decoded
// and resized once into one memory-mapped file of RGB bytes, with an index. Augmentation still runs per sample,
// from the cached pixels. No torch.
//
// Each image is stored at the smallest aspect-preserving size that covers the output (never larger than the
// source), so zooming in (scale > 1) up-samples the cached pixels slightly. The cache is rebuilt when its format,
// the output size, the list of sources or any source's size or modification time (ns) differ from what it was
// built from; otherwise it is opened as is. It is written to a temporary file and renamed into place, so a
// reader never sees half a cache.
//
// File layout (little-endian): a 64-byte header ("PWPREP01", version, count, output size, section offsets),
// `count` 48-byte entries (data offset, source bytes, source mtime ns, cached and source sizes, ok flag), the
// source paths (NUL-terminated), the pixels (each image 64-byte aligned), then the failure reasons.

#include "core/engine/data/dataset.h"
#include "core/engine/data/kernels.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pitwall::engine::data {

struct CacheStatus {
    bool rebuilt = false;
    std::string why;      // why it was rebuilt ("no cache file", "output size changed", "... changed")
    double seconds = 0;   // spent opening or building
    std::uint64_t bytes = 0;
};

class PreprocessedCache {
public:
    // Opens `file` when it matches; otherwise builds it with `threads` threads (0 = one per core of this process).
    // Sources that cannot be read are kept as unavailable entries and reported in `problems` (also when the cache
    // is reused). Throws RuntimeError when the file cannot be written or mapped.
    static std::unique_ptr<PreprocessedCache> openOrBuild(const std::string& file,
                                                          const std::vector<std::string>& sources, int outputWidth,
                                                          int outputHeight, int threads,
                                                          std::vector<DataProblem>& problems);
    // Why `file` cannot serve these sources at this size; empty when it can.
    static std::string staleReason(const std::string& file, const std::vector<std::string>& sources, int outputWidth,
                                   int outputHeight);
    // The cached size of a sourceWidth x sourceHeight image for this output size.
    static void cachedSize(int sourceWidth, int sourceHeight, int outputWidth, int outputHeight, int& width,
                           int& height);

    ~PreprocessedCache();
    PreprocessedCache(const PreprocessedCache&) = delete;
    PreprocessedCache& operator=(const PreprocessedCache&) = delete;

    std::int64_t size() const { return m_count; }
    bool available(std::int64_t i) const;
    ImageView image(std::int64_t i) const; // valid while the cache lives; empty when unavailable
    int sourceWidth(std::int64_t i) const;
    int sourceHeight(std::int64_t i) const;
    const CacheStatus& status() const { return m_status; }

private:
    PreprocessedCache() = default;
    void map(const std::string& file);

    const std::uint8_t* m_base = nullptr;
    std::size_t m_length = 0;
    std::int64_t m_count = 0;
    CacheStatus m_status;
};

} // namespace pitwall::engine::data
