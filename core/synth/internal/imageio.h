#pragma once
// Encoding and decoding of the dataset's images in memory: JPEG through libjpeg-turbo (tjCompress2 /
// tjDecompress2) and PNG through libpng (8-bit grey or RGB, 16-bit grey). Decoders never crash on bad
// bytes: they return false and say why.

#include <cstdint>
#include <string>
#include <vector>

namespace pitwall::synth::internal {

// RGB (3 channels, row-major) to JPEG at quality 1..100 with 4:4:4 chroma (labels follow object edges).
std::vector<std::uint8_t> encodeJpeg(const std::uint8_t* rgb, int width, int height, int quality);
// JPEG to RGB. On failure returns false and sets `error`.
bool decodeJpeg(const std::vector<std::uint8_t>& bytes, std::vector<std::uint8_t>& rgb, int& width, int& height,
                std::string& error);

// PNG of `channels` (1 or 3) 8-bit samples, or 1 16-bit sample when `sixteenBit` (data holds native uint16).
// compressionLevel 0..9 (1 is fast and still small for label images).
std::vector<std::uint8_t> encodePng(const void* data, int width, int height, int channels, bool sixteenBit,
                                    int compressionLevel = 1);

struct DecodedPng {
    int width = 0, height = 0, channels = 0, bitDepth = 0;
    std::vector<std::uint8_t> bytes8;   // when bitDepth == 8
    std::vector<std::uint16_t> bytes16; // when bitDepth == 16 (native byte order)
};
bool decodePng(const std::vector<std::uint8_t>& bytes, DecodedPng& out, std::string& error);

// Whole-file helpers; readFile returns false when the file cannot be opened or read.
bool readFile(const std::string& path, std::vector<std::uint8_t>& bytes);
// Throws pitwall::RuntimeError naming the file when it cannot be written.
void writeFile(const std::string& path, const std::vector<std::uint8_t>& bytes);

} // namespace pitwall::synth::internal
