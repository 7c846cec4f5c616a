// Fuzz target: the pre-processed cache file (core/engine/data/cache.cpp, no torch). The input is the cache file
// itself, opened for two fixed sources (one 40x30 JPEG, one missing file) at a 32x24 output. The sources keep a
// fixed path and modification time, so a cache this target wrote once (the seed in corpus/cache/) matches and
// mutations of it reach the reader. Promises checked: the cache opened (or rebuilt) serves both entries, the
// JPEG at its cached size with every pixel readable, the missing file as unavailable; a damaged file is
// rebuilt, never read out of bounds.
#include "fuzztarget.h"

#include "core/engine/data/cache.h"
#include "core/image/jpeg.h"

#include <filesystem>
#include <string>
#include <vector>

using namespace pitwall;
using namespace pitwall::engine::data;
using namespace pitwall::image;
namespace fs = std::filesystem;

namespace {

constexpr int kOutputWidth = 32;
constexpr int kOutputHeight = 24;

const std::vector<std::string>& sources()
{
    static const std::vector<std::string> list = [] {
        const fs::path dir = fuzz::scratchDir("cache");
        std::vector<std::uint8_t> rgb(40 * 30 * 3);
        for (std::size_t i = 0; i < rgb.size(); ++i)
            rgb[i] = static_cast<std::uint8_t>(i * 13);
        const std::vector<std::uint8_t> jpeg = encodeJpeg(rgb.data(), 40, 30, 90, true);
        const fs::path image = dir / "source.jpg";
        fuzz::writeFile(image, jpeg.data(), jpeg.size());
        // 2026-01-01 00:00:00 UTC: the modification time the committed seed recorded.
        fs::last_write_time(image, fs::file_time_type::clock::from_sys(std::chrono::sys_seconds{std::chrono::seconds{1767225600}}));
        return std::vector<std::string>{image.string(), (dir / "missing.jpg").string()};
    }();
    return list;
}

} // namespace

PITWALL_FUZZ_TARGET
{
    return fuzz::runInput([&] {
        const std::vector<std::string>& src = sources();
        const fs::path file = fs::path(src[0]).parent_path() / "cache.bin";
        if (std::getenv("PITWALL_FUZZ_KEEP_CACHE") == nullptr) // set: build the seed (the cache as written)
            fuzz::writeFile(file, data, size);
        std::vector<DataProblem> problems;
        const auto cache = PreprocessedCache::openOrBuild(file.string(), src, kOutputWidth, kOutputHeight, 1, problems);
        PITWALL_FUZZ_CHECK(cache->size() == 2, std::to_string(cache->size()) + " entries");
        PITWALL_FUZZ_CHECK(cache->available(0) && !cache->available(1), cache->status().why);
        PITWALL_FUZZ_CHECK(cache->sourceWidth(0) == 40 && cache->sourceHeight(0) == 30,
                           std::to_string(cache->sourceWidth(0)) + "x" + std::to_string(cache->sourceHeight(0)));
        int width = 0;
        int height = 0;
        PreprocessedCache::cachedSize(40, 30, kOutputWidth, kOutputHeight, width, height);
        const ImageView view = cache->image(0);
        PITWALL_FUZZ_CHECK(view.pixels != nullptr && view.width == width && view.height == height,
                           std::to_string(view.width) + "x" + std::to_string(view.height) + " cached");
        unsigned sum = 0;
        for (int y = 0; y < view.height; ++y)
            for (std::ptrdiff_t x = 0; x < static_cast<std::ptrdiff_t>(view.width) * 3; ++x)
                sum += view.pixels[y * view.stride + x];
        PITWALL_FUZZ_CHECK(sum > 0, "the cached image is black");
        PITWALL_FUZZ_CHECK(cache->image(1).pixels == nullptr, "the missing source has pixels");
    });
}
