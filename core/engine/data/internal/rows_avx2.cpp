// The row stages built with -mavx2 -mfma (core/engine/data/CMakeLists.txt). See rows.h.
#define PITWALL_ROWS_NAMESPACE avx2
#define PITWALL_ROWS_NAME "avx2"
#include "core/engine/data/internal/rows.inc"

namespace pitwall::engine::data::internal {

const RowKernels& rowKernelsAvx2()
{
#if defined(__AVX2__)
    return avx2::kKernels;
#else
    return rowKernelsGeneric(); // not an x86 build
#endif
}

} // namespace pitwall::engine::data::internal
