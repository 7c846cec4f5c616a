#include "core/engine/data/cache.h"

#include "core/devices/devices.h"
#include "core/image/jpeg.h"
#include "core/util/error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

namespace pitwall::engine::data {

using image::chooseDctScale;
using image::DctScale;
using image::JpegDecoder;
using image::JpegHeader;
using image::kMaxJpegSide;
using image::readWholeFile;
using image::ScaleChoice;

namespace {

constexpr char kMagic[8] = {'P', 'W', 'P', 'R', 'E', 'P', '0', '1'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint64_t kAlign = 64;

struct Header {
    char magic[8];
    std::uint32_t version;
    std::uint32_t count;
    std::int32_t outputWidth;
    std::int32_t outputHeight;
    std::uint64_t pathsOffset;
    std::uint64_t dataOffset;
    std::uint64_t reasonsOffset;
    std::uint64_t fileBytes;
    std::uint64_t reserved;
};
static_assert(sizeof(Header) == 64);

struct Entry {
    std::uint64_t offset;
    std::int64_t sourceBytes;
    std::int64_t sourceMtimeNs;
    std::int32_t width, height;
    std::int32_t sourceWidth, sourceHeight;
    std::uint32_t ok;
    std::uint32_t reserved;
};
static_assert(sizeof(Entry) == 48);

std::uint64_t alignUp(std::uint64_t x)
{
    return (x + kAlign - 1) / kAlign * kAlign;
}

bool statSource(const std::string& path, std::int64_t& bytes, std::int64_t& mtimeNs)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return false;
    bytes = st.st_size;
    mtimeNs = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return true;
}

void writeAt(int fd, const void* data, std::size_t size, std::uint64_t offset, const std::string& file)
{
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (size > 0) {
        const ssize_t n = ::pwrite(fd, p, size, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw RuntimeError(file + ": cannot write the pre-processed cache: " + std::strerror(errno));
        p += n;
        size -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
}

// Reads the whole file (header, entries, paths) for validation; empty when it cannot.
bool readIndex(const std::string& file, Header& header, std::vector<Entry>& entries, std::vector<char>& paths)
{
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = ::pread(fd, &header, sizeof header, 0) == static_cast<ssize_t>(sizeof header) &&
              std::memcmp(header.magic, kMagic, sizeof kMagic) == 0 && header.version == kVersion &&
              header.pathsOffset == sizeof(Header) + header.count * sizeof(Entry) &&
              header.dataOffset >= header.pathsOffset && header.reasonsOffset >= header.dataOffset &&
              header.fileBytes >= header.reasonsOffset;
    struct stat st {};
    ok = ok && ::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) == header.fileBytes;
    if (ok) {
        entries.resize(header.count);
        paths.resize(header.dataOffset - header.pathsOffset);
        const auto entryBytes = static_cast<ssize_t>(entries.size() * sizeof(Entry));
        ok = ::pread(fd, entries.data(), entryBytes, sizeof(Header)) == entryBytes &&
             ::pread(fd, paths.data(), paths.size(), static_cast<off_t>(header.pathsOffset)) ==
                 static_cast<ssize_t>(paths.size());
    }
    ::close(fd);
    return ok;
}

// Why an entry cannot be served from a file with this header: its pixels must lie in the data section (so inside
// the file) and its sizes be those of a real image, cached at the size this output asks of it. Empty when it can
// (or is an unavailable entry).
std::string entryProblem(const Header& header, const Entry& e)
{
    if (!e.ok)
        return {};
    if (e.width <= 0 || e.height <= 0 || e.width > kMaxJpegSide || e.height > kMaxJpegSide || e.sourceWidth <= 0 ||
        e.sourceHeight <= 0 || e.sourceWidth > kMaxJpegSide || e.sourceHeight > kMaxJpegSide)
        return "implausible image size " + std::to_string(e.width) + "x" + std::to_string(e.height);
    int width = 0;
    int height = 0;
    PreprocessedCache::cachedSize(e.sourceWidth, e.sourceHeight, header.outputWidth, header.outputHeight, width,
                                  height);
    if (e.width != width || e.height != height)
        return "image size " + std::to_string(e.width) + "x" + std::to_string(e.height) + " where a " +
               std::to_string(e.sourceWidth) + "x" + std::to_string(e.sourceHeight) + " source is cached at " +
               std::to_string(width) + "x" + std::to_string(height);
    const std::uint64_t bytes = static_cast<std::uint64_t>(e.width) * static_cast<std::uint64_t>(e.height) * 3;
    if (e.offset < header.dataOffset || e.offset > header.reasonsOffset || bytes > header.reasonsOffset - e.offset)
        return "pixels at offset " + std::to_string(e.offset) + " (" + std::to_string(bytes) +
               " bytes) outside the data section";
    return {};
}

// What the threads that build a cache file share: the file, the entries and reasons they fill in, the next source
// to take and the end of the data written so far.
struct CacheBuild {
    int fd = -1;
    const std::string& file;
    const std::vector<std::string>& sources;
    int outputWidth = 0;
    int outputHeight = 0;
    std::vector<Entry> entries{};
    std::vector<std::string> reasons{};
    std::atomic<std::size_t> next{0};
    std::uint64_t dataEnd = 0;
    std::mutex mutex{};
    std::exception_ptr error{};
};

// The header of a new cache file for `sources` (reasonsOffset and fileBytes are set once the pixels are written)
// and the paths section it describes.
Header newHeader(const std::vector<std::string>& sources, int outputWidth, int outputHeight, std::vector<char>& paths)
{
    for (const std::string& s : sources)
        paths.insert(paths.end(), s.c_str(), s.c_str() + s.size() + 1);
    Header header{};
    std::memcpy(header.magic, kMagic, sizeof kMagic);
    header.version = kVersion;
    header.count = static_cast<std::uint32_t>(sources.size());
    header.outputWidth = outputWidth;
    header.outputHeight = outputHeight;
    header.pathsOffset = sizeof(Header) + sources.size() * sizeof(Entry);
    header.dataOffset = alignUp(header.pathsOffset + paths.size());
    return header;
}

// One build thread: takes the next source until none is left, decodes it at the smallest DCT scale that covers its
// cached size, resizes it and writes the pixels at the end of the data. A source that cannot be read gets its
// reason; the first write error stops the thread and is kept for the caller.
void cacheImages(CacheBuild& build)
{
    JpegDecoder decoder;
    KernelScratch scratch;
    std::vector<std::uint8_t> bytes, decoded, resized;
    for (std::size_t i = build.next++; i < build.sources.size(); i = build.next++) {
        Entry& e = build.entries[i];
        std::string problem;
        JpegHeader jh;
        int dw = 0, dh = 0;
        if (!statSource(build.sources[i], e.sourceBytes, e.sourceMtimeNs))
            e.sourceBytes = e.sourceMtimeNs = -1;
        if (!readWholeFile(build.sources[i], bytes, problem) ||
            !decoder.readHeader(bytes.data(), bytes.size(), jh, problem)) {
            build.reasons[i] = problem;
            continue;
        }
        PreprocessedCache::cachedSize(jh.width, jh.height, build.outputWidth, build.outputHeight, e.width, e.height);
        const DctScale scale = chooseDctScale(jh.width, jh.height, e.width, e.height, ScaleChoice::AnyEighth);
        if (!decoder.decode(bytes.data(), bytes.size(), scale, decoded, dw, dh, problem)) {
            build.reasons[i] = problem;
            continue;
        }
        resized.resize(static_cast<std::size_t>(e.width) * e.height * 3);
        resizeImage({decoded.data(), dw, dh, static_cast<std::ptrdiff_t>(dw) * 3}, resized.data(), e.width, e.height,
                    scratch);
        e.sourceWidth = jh.width;
        e.sourceHeight = jh.height;
        {
            std::lock_guard lock(build.mutex);
            e.offset = build.dataEnd;
            build.dataEnd = alignUp(build.dataEnd + resized.size());
        }
        try {
            writeAt(build.fd, resized.data(), resized.size(), e.offset, build.file);
        } catch (...) {
            std::lock_guard lock(build.mutex);
            build.error = std::current_exception();
            return;
        }
        e.ok = 1;
    }
}

// Writes the sections after the pixels (entries, paths, reasons) and the header last, so that a torn file fails
// validation.
void writeIndex(CacheBuild& build, Header& header, const std::vector<char>& paths)
{
    std::vector<char> reasonBlob;
    for (const std::string& r : build.reasons)
        reasonBlob.insert(reasonBlob.end(), r.c_str(), r.c_str() + r.size() + 1);
    header.reasonsOffset = build.dataEnd;
    header.fileBytes = build.dataEnd + reasonBlob.size();
    writeAt(build.fd, build.entries.data(), build.entries.size() * sizeof(Entry), sizeof(Header), build.file);
    writeAt(build.fd, paths.data(), paths.size(), header.pathsOffset, build.file);
    writeAt(build.fd, reasonBlob.data(), reasonBlob.size(), header.reasonsOffset, build.file);
    writeAt(build.fd, &header, sizeof header, 0, build.file); // last: a torn file fails validation
    if (::ftruncate(build.fd, static_cast<off_t>(header.fileBytes)) != 0)
        throw RuntimeError(build.file + ": cannot size the pre-processed cache: " + std::strerror(errno));
}

// Builds the cache file for `sources` under a temporary name on `threads` threads (0: one per core of the process)
// and moves it into place; a failure removes the temporary file.
void buildCacheFile(const std::string& file, const std::vector<std::string>& sources, int outputWidth, int outputHeight,
                    int threads)
{
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(file).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    const std::string temporary = file + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(temporary.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw RuntimeError(file + ": cannot create the pre-processed cache: " + std::strerror(errno));

    std::vector<char> paths;
    Header header = newHeader(sources, outputWidth, outputHeight, paths);
    CacheBuild build{
        .fd = fd, .file = file, .sources = sources, .outputWidth = outputWidth, .outputHeight = outputHeight};
    build.entries.assign(sources.size(), Entry{});
    build.reasons.resize(sources.size());
    build.dataEnd = header.dataOffset;
    const int n = std::max(1, std::min<int>(threads > 0 ? threads : static_cast<int>(processCores().size()),
                                            static_cast<int>(sources.size())));
    std::vector<std::thread> pool;
    for (int t = 0; t < n; ++t)
        pool.emplace_back([&build] { cacheImages(build); });
    for (std::thread& t : pool)
        t.join();
    if (build.error) {
        ::close(fd);
        ::unlink(temporary.c_str());
        std::rethrow_exception(build.error);
    }
    try {
        writeIndex(build, header, paths);
    } catch (...) {
        ::close(fd);
        ::unlink(temporary.c_str());
        throw;
    }
    ::close(fd);
    if (::rename(temporary.c_str(), file.c_str()) != 0) {
        ::unlink(temporary.c_str());
        throw RuntimeError(file + ": cannot move the pre-processed cache into place: " + std::strerror(errno));
    }
}

} // namespace

void PreprocessedCache::cachedSize(int sourceWidth, int sourceHeight, int outputWidth, int outputHeight, int& width,
                                   int& height)
{
    const double cover = std::min(1.0, std::max(static_cast<double>(outputWidth) / sourceWidth,
                                                static_cast<double>(outputHeight) / sourceHeight));
    width = std::max(1, static_cast<int>(std::lround(sourceWidth * cover)));
    height = std::max(1, static_cast<int>(std::lround(sourceHeight * cover)));
}

std::string PreprocessedCache::staleReason(const std::string& file, const std::vector<std::string>& sources,
                                           int outputWidth, int outputHeight)
{
    Header header{};
    std::vector<Entry> entries;
    std::vector<char> paths;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        return "no cache file";
    if (!readIndex(file, header, entries, paths))
        return "not a cache of this version, or damaged";
    if (header.outputWidth != outputWidth || header.outputHeight != outputHeight)
        return "output size changed (" + std::to_string(header.outputWidth) + "x" +
               std::to_string(header.outputHeight) + " cached)";
    if (header.count != sources.size())
        return "the number of source images changed";
    std::size_t at = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const std::size_t end = std::find(paths.begin() + static_cast<std::ptrdiff_t>(at), paths.end(), '\0') -
                                paths.begin();
        if (end >= paths.size() || std::string(paths.data() + at, end - at) != sources[i])
            return "the list of source images changed";
        if (const std::string problem = entryProblem(header, entries[i]); !problem.empty())
            return "damaged: entry " + std::to_string(i) + " (" + sources[i] + "): " + problem;
        at = end + 1;
        std::int64_t bytes = -1, mtime = -1;
        if (!statSource(sources[i], bytes, mtime))
            bytes = mtime = -1;
        if (bytes != entries[i].sourceBytes || mtime != entries[i].sourceMtimeNs)
            return sources[i] + " changed (size or modification time)";
    }
    return {};
}

std::unique_ptr<PreprocessedCache> PreprocessedCache::openOrBuild(const std::string& file,
                                                                  const std::vector<std::string>& sources,
                                                                  int outputWidth, int outputHeight, int threads,
                                                                  std::vector<DataProblem>& problems)
{
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<PreprocessedCache> cache(new PreprocessedCache);
    const std::string why = staleReason(file, sources, outputWidth, outputHeight);
    if (!why.empty()) {
        cache->m_status.rebuilt = true;
        cache->m_status.why = why;
        buildCacheFile(file, sources, outputWidth, outputHeight, threads);
    }
    cache->map(file);
    // Failure reasons of the sources that could not be cached.
    const auto* header = reinterpret_cast<const Header*>(cache->m_base);
    const char* reason = reinterpret_cast<const char*>(cache->m_base + header->reasonsOffset);
    const char* end = reinterpret_cast<const char*>(cache->m_base + header->fileBytes);
    for (std::int64_t i = 0; i < cache->m_count && reason < end; ++i) {
        const std::size_t length = strnlen(reason, static_cast<std::size_t>(end - reason));
        if (!cache->available(i))
            problems.push_back({sources[static_cast<std::size_t>(i)],
                                std::string(reason, length) + " (left out of the pre-processed cache)"});
        reason += length + 1;
    }
    cache->m_status.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cache->m_status.bytes = cache->m_length;
    return cache;
}

void PreprocessedCache::map(const std::string& file)
{
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw RuntimeError(file + ": cannot open the pre-processed cache: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Header))) {
        ::close(fd);
        throw RuntimeError(file + ": the pre-processed cache is truncated");
    }
    void* base = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (base == MAP_FAILED)
        throw RuntimeError(file + ": cannot map the pre-processed cache: " + std::strerror(errno));
    m_base = static_cast<const std::uint8_t*>(base);
    m_length = static_cast<std::size_t>(st.st_size);
    const auto* header = reinterpret_cast<const Header*>(m_base);
    if (std::memcmp(header->magic, kMagic, sizeof kMagic) != 0 || header->fileBytes != m_length)
        throw RuntimeError(file + ": the pre-processed cache is damaged");
    m_count = header->count;
}

PreprocessedCache::~PreprocessedCache()
{
    if (m_base)
        ::munmap(const_cast<std::uint8_t*>(m_base), m_length);
}

bool PreprocessedCache::available(std::int64_t i) const
{
    return reinterpret_cast<const Entry*>(m_base + sizeof(Header))[i].ok != 0;
}

ImageView PreprocessedCache::image(std::int64_t i) const
{
    const Entry& e = reinterpret_cast<const Entry*>(m_base + sizeof(Header))[i];
    if (!e.ok)
        return {};
    return {m_base + e.offset, e.width, e.height, static_cast<std::ptrdiff_t>(e.width) * 3};
}

int PreprocessedCache::sourceWidth(std::int64_t i) const
{
    return reinterpret_cast<const Entry*>(m_base + sizeof(Header))[i].sourceWidth;
}

int PreprocessedCache::sourceHeight(std::int64_t i) const
{
    return reinterpret_cast<const Entry*>(m_base + sizeof(Header))[i].sourceHeight;
}

} // namespace pitwall::engine::data
