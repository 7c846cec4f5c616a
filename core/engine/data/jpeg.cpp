#include "core/engine/data/jpeg.h"

#include "core/util/error.h"

#include <turbojpeg.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pitwall::engine::data {

int scaledSize(int size, DctScale scale)
{
    return static_cast<int>((static_cast<long long>(size) * scale.num + scale.denom - 1) / scale.denom);
}

int scaleEighths(DctScale scale)
{
    return scale.num * 8 / scale.denom;
}

DctScale chooseDctScale(int width, int height, double neededWidth, double neededHeight, ScaleChoice choice)
{
    if (choice == ScaleChoice::FullOnly)
        return {1, 1};
    const bool up = choice == ScaleChoice::AnyEighthUp;
    DctScale best = up ? DctScale{2, 1} : DctScale{1, 1}; // what is left when no scale covers
    int count = 0;
    const tjscalingfactor* factors = tjGetScalingFactors(&count);
    for (int i = 0; i < count; ++i) {
        const DctScale s{factors[i].num, factors[i].denom};
        if (s.num * 8 % s.denom != 0 || (s.num > s.denom && !up) || s.num > 2 * s.denom)
            continue; // not an eighth, or an up-scale not asked for
        const int eighths = s.num * 8 / s.denom;
        if (choice == ScaleChoice::FastEighths && eighths != 1 && eighths != 2 && eighths != 4 && eighths != 8)
            continue;
        if (scaledSize(width, s) < neededWidth || scaledSize(height, s) < neededHeight)
            continue;
        if (s.num * best.denom < best.num * s.denom)
            best = s;
    }
    return best;
}

JpegDecoder::JpegDecoder() : m_handle(tjInitDecompress())
{
    if (!m_handle)
        throw RuntimeError(std::string("TurboJPEG: cannot create a decompressor: ") + tjGetErrorStr2(nullptr));
}

JpegDecoder::~JpegDecoder()
{
    tjDestroy(m_handle);
}

void JpegDecoder::reset()
{
    // libjpeg-turbo 2.1 can keep state from a failed decode (the next header then reads as "Bogus Huffman table
    // definition"): start over with a fresh handle.
    tjDestroy(m_handle);
    m_handle = tjInitDecompress();
    if (!m_handle)
        throw RuntimeError(std::string("TurboJPEG: cannot create a decompressor: ") + tjGetErrorStr2(nullptr));
}

bool JpegDecoder::readHeader(const std::uint8_t* bytes, std::size_t size, JpegHeader& header, std::string& error)
{
    int colorspace = 0;
    if (size == 0) {
        error = "empty file";
        return false;
    }
    if (tjDecompressHeader3(m_handle, bytes, static_cast<unsigned long>(size), &header.width, &header.height,
                            &header.subsampling, &colorspace) != 0) {
        error = std::string("not a JPEG: ") + tjGetErrorStr2(m_handle);
        reset();
        return false;
    }
    if (header.width <= 0 || header.height <= 0) {
        error = "JPEG with no pixels";
        return false;
    }
    if (header.width > kMaxJpegSide || header.height > kMaxJpegSide ||
        static_cast<long long>(header.width) * header.height > kMaxJpegPixels) {
        error = "JPEG of " + std::to_string(header.width) + "x" + std::to_string(header.height) +
                " is too large (at most " + std::to_string(kMaxJpegSide) + " pixels per side and " +
                std::to_string(kMaxJpegPixels / (1024 * 1024)) + " Mpixel)";
        return false;
    }
    return true;
}

bool JpegDecoder::decode(const std::uint8_t* bytes, std::size_t size, DctScale scale, std::vector<std::uint8_t>& rgb,
                         int& width, int& height, std::string& error)
{
    JpegHeader header;
    if (!readHeader(bytes, size, header, error))
        return false;
    width = scaledSize(header.width, scale);
    height = scaledSize(header.height, scale);
    const std::size_t needed = static_cast<std::size_t>(width) * height * 3;
    if (rgb.size() < needed)
        rgb.resize(needed);
    if (tjDecompress2(m_handle, bytes, static_cast<unsigned long>(size), rgb.data(), width, width * 3, height, TJPF_RGB,
                      0) != 0) {
        const bool warning = tjGetErrorCode(m_handle) == TJERR_WARNING;
        error = std::string(warning ? "damaged JPEG: " : "cannot decode JPEG: ") + tjGetErrorStr2(m_handle);
        reset();
        return false;
    }
    return true;
}

std::vector<std::uint8_t> encodeJpeg(const std::uint8_t* rgb, int width, int height, int quality, bool subsample420)
{
    tjhandle handle = tjInitCompress();
    if (!handle)
        throw RuntimeError("TurboJPEG: cannot create a compressor");
    unsigned char* out = nullptr;
    unsigned long outSize = 0;
    const int rc = tjCompress2(handle, rgb, width, width * 3, height, TJPF_RGB, &out, &outSize,
                               subsample420 ? TJSAMP_420 : TJSAMP_444, quality, 0);
    std::vector<std::uint8_t> bytes;
    if (rc == 0)
        bytes.assign(out, out + outSize);
    const std::string why = rc == 0 ? "" : tjGetErrorStr2(handle);
    tjFree(out);
    tjDestroy(handle);
    if (rc != 0)
        throw RuntimeError("TurboJPEG: cannot encode: " + why);
    return bytes;
}

bool readWholeFile(const std::string& path, std::vector<std::uint8_t>& bytes, std::string& error)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = std::string("cannot open: ") + std::strerror(errno);
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = "not a regular file";
        ::close(fd);
        return false;
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (bytes.capacity() < size)
        bytes.reserve(size + size / 4);
    bytes.resize(size);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::read(fd, bytes.data() + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = n < 0 ? std::string("cannot read: ") + std::strerror(errno) : "file shrank while reading";
            ::close(fd);
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return true;
}

} // namespace pitwall::engine::data
