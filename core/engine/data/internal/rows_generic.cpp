// The row stages for any CPU (baseline x86-64: SSE2). See rows.h.
#define PITWALL_ROWS_NAMESPACE generic
#define PITWALL_ROWS_NAME "generic"
#include "core/engine/data/internal/rows.inc"

namespace pitwall::engine::data::internal {

const RowKernels& rowKernelsGeneric()
{
    return generic::kKernels;
}

const RowKernels& rowKernels()
{
#if defined(__x86_64__)
    static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (avx2)
        return rowKernelsAvx2();
#endif
    return generic::kKernels;
}

} // namespace pitwall::engine::data::internal
