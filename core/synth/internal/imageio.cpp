#include "core/synth/internal/imageio.h"

#include "core/image/jpeg.h"
#include "core/util/error.h"

#include <png.h>
#include <turbojpeg.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace pitwall::synth::internal {

namespace {

constexpr int kMaxPngSide = 1 << 15;

// One compressor per thread, created on first use (decoding goes through image::JpegDecoder).
struct TurboHandles {
    tjhandle compress = nullptr;
    ~TurboHandles()
    {
        if (compress)
            tjDestroy(compress);
    }
};

TurboHandles& turbo()
{
    thread_local TurboHandles handles;
    return handles;
}

// libpng reports errors by longjmp; everything it touches lives in these heap objects so nothing on the
// stack is modified between setjmp and the jump.
struct PngWriteJob {
    std::vector<std::uint8_t> out;
    std::vector<png_bytep> rows;
};

struct PngReadJob {
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;
    std::size_t position = 0;
    std::string message;
    std::vector<png_bytep> rows;
};

void pngWrite(png_structp png, png_bytep data, png_size_t length)
{
    auto* job = static_cast<PngWriteJob*>(png_get_io_ptr(png));
    job->out.insert(job->out.end(), data, data + length);
}

void pngFlush(png_structp)
{
}

void pngRead(png_structp png, png_bytep out, png_size_t length)
{
    auto* job = static_cast<PngReadJob*>(png_get_io_ptr(png));
    if (job->position + length > job->size)
        png_error(png, "file is truncated");
    std::memcpy(out, job->data + job->position, length);
    job->position += length;
}

void pngError(png_structp png, png_const_charp message)
{
    auto* job = static_cast<PngReadJob*>(png_get_error_ptr(png));
    if (job)
        job->message = message;
    png_longjmp(png, 1);
}

void pngWarning(png_structp, png_const_charp)
{
}

} // namespace

std::vector<std::uint8_t> encodeJpeg(const std::uint8_t* rgb, int width, int height, int quality)
{
    TurboHandles& handles = turbo();
    if (!handles.compress)
        handles.compress = tjInitCompress();
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    if (tjCompress2(handles.compress, rgb, width, 0, height, TJPF_RGB, &buffer, &size, TJSAMP_444, quality,
                    TJFLAG_FASTDCT) != 0) {
        const std::string why = tjGetErrorStr2(handles.compress);
        tjFree(buffer);
        throw RuntimeError("JPEG encoding failed: " + why);
    }
    std::vector<std::uint8_t> out(buffer, buffer + size);
    tjFree(buffer);
    return out;
}

bool decodeJpeg(const std::vector<std::uint8_t>& bytes, std::vector<std::uint8_t>& rgb, int& width, int& height,
                std::string& error)
{
    thread_local image::JpegDecoder decoder;
    if (!decoder.decode(bytes.data(), bytes.size(), image::DctScale{1, 1}, rgb, width, height, error))
        return false;
    rgb.resize(static_cast<std::size_t>(width) * height * 3); // decode keeps a larger buffer's size
    return true;
}

std::vector<std::uint8_t> encodePng(const void* data, int width, int height, int channels, bool sixteenBit,
                                    int compressionLevel)
{
    auto job = std::make_unique<PngWriteJob>();
    const int bytesPerSample = sixteenBit ? 2 : 1;
    const std::size_t stride = static_cast<std::size_t>(width) * channels * bytesPerSample;
    job->rows.resize(static_cast<std::size_t>(height));
    for (int y = 0; y < height; ++y)
        job->rows[static_cast<std::size_t>(y)] =
            const_cast<png_bytep>(static_cast<const png_byte*>(data) + stride * static_cast<std::size_t>(y));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        throw RuntimeError("PNG encoder: out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw RuntimeError("PNG encoding failed");
    }
    png_set_write_fn(png, job.get(), pngWrite, pngFlush);
    png_set_compression_level(png, compressionLevel);
    png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), sixteenBit ? 16 : 8,
                 channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (sixteenBit)
        png_set_swap(png); // samples are native (little-endian) uint16; PNG stores big-endian
    png_write_image(png, job->rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return std::move(job->out);
}

bool decodePng(const std::vector<std::uint8_t>& bytes, DecodedPng& out, std::string& error)
{
    if (bytes.size() < 8 || png_sig_cmp(bytes.data(), 0, 8) != 0) {
        error = "not a PNG file";
        return false;
    }
    auto job = std::make_unique<PngReadJob>();
    job->data = bytes.data();
    job->size = bytes.size();
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, job.get(), pngError, pngWarning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, nullptr);
        error = "out of memory";
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        error = job->message.empty() ? "corrupt PNG data" : job->message;
        return false;
    }
    png_set_read_fn(png, job.get(), pngRead);
    png_read_info(png, info);
    const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    const int depth = png_get_bit_depth(png, info), type = png_get_color_type(png, info);
    if (width == 0 || height == 0 || width > kMaxPngSide || height > kMaxPngSide)
        png_error(png, "implausible image size");
    if (!((type == PNG_COLOR_TYPE_GRAY && (depth == 8 || depth == 16)) || (type == PNG_COLOR_TYPE_RGB && depth == 8)))
        png_error(png, "unsupported PNG layout (expected 8/16-bit grey or 8-bit RGB)");
    if (depth == 16)
        png_set_swap(png);
    png_read_update_info(png, info);
    out.width = static_cast<int>(width);
    out.height = static_cast<int>(height);
    out.channels = type == PNG_COLOR_TYPE_RGB ? 3 : 1;
    out.bitDepth = depth;
    const std::size_t stride = png_get_rowbytes(png, info);
    png_bytep base;
    if (depth == 16) {
        out.bytes16.resize(stride / 2 * height);
        base = reinterpret_cast<png_bytep>(out.bytes16.data());
    } else {
        out.bytes8.resize(stride * height);
        base = out.bytes8.data();
    }
    job->rows.resize(height);
    for (png_uint_32 y = 0; y < height; ++y)
        job->rows[y] = base + stride * y;
    png_read_image(png, job->rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    return true;
}

bool readFile(const std::string& path, std::vector<std::uint8_t>& bytes)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return false;
    bytes.clear();
    std::uint8_t chunk[65536];
    std::size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
        bytes.insert(bytes.end(), chunk, chunk + n);
    const bool ok = !std::ferror(f);
    std::fclose(f);
    return ok;
}

void writeFile(const std::string& path, const std::vector<std::uint8_t>& bytes)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw RuntimeError("cannot write " + path + ": " + std::strerror(errno));
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (std::fclose(f) != 0 || !ok)
        throw RuntimeError("cannot write " + path + ": " + std::strerror(errno));
}

} // namespace pitwall::synth::internal
