#pragma once
// Device choice and numeric precision of a run: which torch::Device a logical device maps to, autocast for
// bf16/fp16 where the device supports it, and the notes a user should see once (e.g. step capture does
// nothing on CPU). Engine-internal.

#include "core/config/config.h"
#include "core/devices/devices.h"

#include <torch/torch.h>

#include <string>
#include <vector>

namespace pitwall::engine {

enum class Precision { Fp32, Bf16, Fp16 };

// device.backend (auto | cpu | cuda | hip) and the logical device; InputError when a GPU backend is asked for
// but the linked LibTorch has none or no GPU is visible.
torch::Device deviceFor(const ResolvedConfig& config, const LogicalDevice& logical);
// training.optimization.precision on that device; InputError where unsupported (fp16 on CPU).
Precision precisionFor(const ResolvedConfig& config, const torch::Device& device);
std::vector<std::string> precisionNotices(const ResolvedConfig& config, const torch::Device& device);
// Whether cuDNN autotuning is turned on for the run: use_torch_compile with torch_compile_mode max-autotune on a
// GPU (each convolution shape is timed once and the fastest algorithm kept).
bool cudnnAutotune(const ResolvedConfig& config, const torch::Device& device);

// Waits for queued device work (no-op on CPU), so step times measure finished work.
void synchronize(const torch::Device& device);

// Enables autocast to bf16/fp16 for its scope (nothing for fp32): the CPU's autocast on a CPU device, the GPU's
// otherwise. Autocast state is per thread.
class AutocastGuard {
public:
    AutocastGuard(Precision precision, const torch::Device& device);
    ~AutocastGuard();
    AutocastGuard(const AutocastGuard&) = delete;
    AutocastGuard& operator=(const AutocastGuard&) = delete;
    // Whether autocast is on for `device`'s type in this thread, and to which type (the guard's, while one is on).
    static bool enabled(const torch::Device& device);
    static at::ScalarType type(const torch::Device& device);

private:
    bool m_cpu = false;
    bool m_gpu = false;
};

} // namespace pitwall::engine
