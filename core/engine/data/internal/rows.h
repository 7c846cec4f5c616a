#pragma once
// The row stages of the fused kernel (kernels.cpp), compiled twice: rows_generic.cpp for baseline x86-64 (SSE2)
// or any other CPU, and rows_avx2.cpp with -mavx2 -mfma. rowKernels() picks one at start-up from the CPU. The two
// may differ in the last bits of a float (FMA), never on one machine. Internal to core/engine/data.

#include <cstdint>

namespace pitwall::engine::data::internal {

// Colour constants of one sample: the jitter and the normalisation folded together.
struct ColorConstants {
    float valueGain = 1, saturationGain = 1, hueShiftSextants = 0; // hue shift in [0, 6)
    float mean[3] = {0, 0, 0}, invStd[3] = {1, 1, 1};
    enum class Kind { Identity, NoHue, Full } kind = Kind::Identity;
};

// Per output row: which source columns each destination column interpolates.
struct ColumnTable {
    const int* index = nullptr;    // 3 * (source column - first source column) per destination column
    const float* weight = nullptr; // weight of the right neighbour
    int first = 0, last = 0;       // destination columns [first, last) read the image; the rest are black
};

struct RowKernels {
    // a, b: `count` bytes of two source rows; out = (1 - fy) * a + fy * b as floats.
    void (*blend)(const std::uint8_t* a, const std::uint8_t* b, float fy, int count, float* out);
    // row: blended RGB floats, with 6 readable floats after the last indexed pixel; writes planar r, g, b of
    // outWidth floats (black outside the table's range).
    void (*gather)(const float* row, const ColumnTable& table, int outWidth, float* r, float* g, float* b);
    // HSV jitter + normalisation of n pixels into outR/G/B.
    void (*color)(const float* r, const float* g, const float* b, int n, const ColorConstants& k, float* outR,
                  float* outG, float* outB);
    const char* name;
};

const RowKernels& rowKernelsGeneric();
const RowKernels& rowKernelsAvx2(); // only to be called when the CPU has AVX2 and FMA
const RowKernels& rowKernels();     // the best for this CPU

} // namespace pitwall::engine::data::internal
