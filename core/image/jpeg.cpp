#include "core/image/jpeg.h"

#include "core/util/error.h"

#include <turbojpeg.h>

#include <cstdio> // jpeglib.h uses FILE and size_t without including their headers
#include <jpeglib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstring>

namespace pitwall::image {

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

namespace {

// libjpeg's error manager, extended: errors jump back (libjpeg's default exits the process) and the first
// warning is kept and jumps too (TurboJPEG's decode counts a warning as a failure; so does this one).
struct ErrorJump {
    jpeg_error_mgr base;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    bool warning;
};

[[noreturn]] void onJpegError(j_common_ptr cinfo)
{
    auto* e = reinterpret_cast<ErrorJump*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, e->message);
    std::longjmp(e->jump, 1);
}

void onJpegMessage(j_common_ptr cinfo, int level)
{
    if (level >= 0)
        return; // trace messages
    auto* e = reinterpret_cast<ErrorJump*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, e->message);
    e->warning = true;
    std::longjmp(e->jump, 1);
}

// Pixels decoded around the region beyond what it asks for, at the output scale: fancy upsampling of the chroma
// planes reads one neighbour on each side, which a crop or a skip replaces by edge replication.
constexpr int kRegionMargin = 16;
// Rows read per jpeg_read_scanlines call, and reported to the caller at most this far apart.
constexpr int kBandRows = 16;

enum class RegionStatus { Ok, Error, Warning, SizeMismatch, Truncated };

// The libjpeg part of decodeRegion: no C++ object with a destructor lives in this frame (longjmp skips them).
RegionStatus decodeRegionScanlines(const std::uint8_t* bytes, std::size_t size, DctScale scale, PixelRect r,
                                   std::uint8_t* rgb, int width, int height, std::ptrdiff_t stride,
                                   const std::function<void(int)>& rowsReady, char* message)
{
    jpeg_decompress_struct cinfo;
    ErrorJump err;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = onJpegError;
    err.base.emit_message = onJpegMessage;
    err.warning = false;
    err.message[0] = '\0';
    jpeg_create_decompress(&cinfo);
    if (setjmp(err.jump)) {
        std::memcpy(message, err.message, JMSG_LENGTH_MAX);
        const bool warning = err.warning;
        jpeg_destroy_decompress(&cinfo);
        return warning ? RegionStatus::Warning : RegionStatus::Error;
    }
    jpeg_mem_src(&cinfo, bytes, static_cast<unsigned long>(size));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_EXT_RGB;
    cinfo.scale_num = static_cast<unsigned>(scale.num);
    cinfo.scale_denom = static_cast<unsigned>(scale.denom);
    jpeg_start_decompress(&cinfo);
    if (static_cast<int>(cinfo.output_width) != width || static_cast<int>(cinfo.output_height) != height ||
        cinfo.output_components != 3) {
        jpeg_destroy_decompress(&cinfo);
        return RegionStatus::SizeMismatch;
    }
    const int x0 = std::max(0, r.x0 - kRegionMargin), x1 = std::min(width, r.x1 + kRegionMargin);
    JDIMENSION xoffset = static_cast<JDIMENSION>(x0), cropWidth = static_cast<JDIMENSION>(x1 - x0);
    if (x0 > 0 || x1 < width)
        jpeg_crop_scanline(&cinfo, &xoffset, &cropWidth); // widened to whole iMCUs
    const int first = std::max(0, r.y0 - kRegionMargin);
    if (first > 0)
        jpeg_skip_scanlines(&cinfo, static_cast<JDIMENSION>(first));
    const int end = std::min(height, r.y1);
    std::uint8_t* base = rgb + static_cast<std::ptrdiff_t>(xoffset) * 3;
    int reported = first;
    while (static_cast<int>(cinfo.output_scanline) < end) {
        const int at = static_cast<int>(cinfo.output_scanline);
        JSAMPROW rows[kBandRows];
        const int n = std::min(kBandRows, end - at);
        for (int i = 0; i < n; ++i)
            rows[i] = base + static_cast<std::ptrdiff_t>(at + i) * stride;
        if (jpeg_read_scanlines(&cinfo, rows, static_cast<JDIMENSION>(n)) == 0) {
            std::snprintf(message, JMSG_LENGTH_MAX, "the decoder stopped at row %d of %d", at, height);
            jpeg_destroy_decompress(&cinfo);
            return RegionStatus::Error;
        }
        const int done = static_cast<int>(cinfo.output_scanline);
        if (rowsReady && (done - reported >= kBandRows || done >= end)) {
            rowsReady(std::min(done, r.y1));
            reported = done;
        }
    }
    RegionStatus status = RegionStatus::Ok;
    if (static_cast<int>(cinfo.output_scanline) < height) {
        // Stopped early. A single-scan file holds its end-of-image marker after the rest of the scan (0xFF is
        // always followed by 0x00 or a restart marker inside entropy-coded data); a multi-scan file was read
        // whole in jpeg_start_decompress, where a truncation is a warning.
        // When the rows read reached the end of the scan, libjpeg has already taken the marker from the input.
        if (!jpeg_has_multiple_scans(&cinfo) && cinfo.unread_marker != 0xD9) {
            const std::uint8_t* from = cinfo.src->next_input_byte;
            const std::size_t left = cinfo.src->bytes_in_buffer;
            static const std::uint8_t kEoi[2] = {0xFF, 0xD9};
            if (left < 2 || !memmem(from, left, kEoi, 2)) {
                std::snprintf(message, JMSG_LENGTH_MAX, "the file ends before its end-of-image marker (truncated)");
                status = RegionStatus::Truncated;
            }
        }
        jpeg_abort_decompress(&cinfo);
    } else {
        jpeg_finish_decompress(&cinfo);
    }
    jpeg_destroy_decompress(&cinfo);
    return status;
}

} // namespace

bool JpegDecoder::decodeRegion(const std::uint8_t* bytes, std::size_t size, DctScale scale, const PixelRect& region,
                               std::uint8_t* rgb, int width, int height, std::ptrdiff_t stride,
                               const std::function<void(int rowsReady)>& rowsReady, std::string& error)
{
    if (size == 0) {
        error = "empty file";
        return false;
    }
    PixelRect r{std::clamp(region.x0, 0, width), std::clamp(region.y0, 0, height), std::clamp(region.x1, 0, width),
                std::clamp(region.y1, 0, height)};
    if (r.empty()) {
        if (rowsReady)
            rowsReady(r.y1);
        return true;
    }
    char message[JMSG_LENGTH_MAX] = {};
    switch (decodeRegionScanlines(bytes, size, scale, r, rgb, width, height, stride, rowsReady, message)) {
    case RegionStatus::Ok:
        return true;
    case RegionStatus::SizeMismatch:
        error = "cannot decode JPEG: its decoded size differs from the header's at scale " +
                std::to_string(scale.num) + "/" + std::to_string(scale.denom);
        return false;
    case RegionStatus::Error:
        error = std::string("cannot decode JPEG: ") + message;
        return false;
    case RegionStatus::Warning:
    case RegionStatus::Truncated:
        error = std::string("damaged JPEG: ") + message;
        return false;
    }
    return false;
}

bool JpegDecoder::decode(const std::uint8_t* bytes, std::size_t size, DctScale scale, std::vector<std::uint8_t>& rgb,
                         int& width, int& height, std::string& error)
{
    // The pixels through libjpeg with a fresh decompressor per image (decodeRegion over the whole image), not
    // through the TurboJPEG handle: a handle keeps the previous image's Huffman tables, so a file that relies on
    // the standard ones (no DHT marker, as Motion-JPEG frames) decoded as damaged after a progressive file.
    JpegHeader header;
    if (!readHeader(bytes, size, header, error))
        return false;
    width = scaledSize(header.width, scale);
    height = scaledSize(header.height, scale);
    const std::size_t needed = static_cast<std::size_t>(width) * height * 3;
    if (rgb.size() < needed)
        rgb.resize(needed);
    return decodeRegion(bytes, size, scale, {0, 0, width, height}, rgb.data(), width, height,
                        static_cast<std::ptrdiff_t>(width) * 3, {}, error);
}

std::vector<std::uint8_t> encodeJpeg(const std::uint8_t* rgb, int width, int height, int quality, bool subsample420,
                                     bool progressive)
{
    tjhandle handle = tjInitCompress();
    if (!handle)
        throw RuntimeError("TurboJPEG: cannot create a compressor");
    unsigned char* out = nullptr;
    unsigned long outSize = 0;
    const int rc = tjCompress2(handle, rgb, width, width * 3, height, TJPF_RGB, &out, &outSize,
                               subsample420 ? TJSAMP_420 : TJSAMP_444, quality, progressive ? TJFLAG_PROGRESSIVE : 0);
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

} // namespace pitwall::image
