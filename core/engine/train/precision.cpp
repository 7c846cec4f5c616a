#include "core/engine/train/precision.h"

#include "core/util/error.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace pitwall::engine {

namespace {
// LibTorch 2.4 moved autocast to device-type arguments; 1.13 has per-device functions.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
void setCpuAutocast(bool on, at::ScalarType type)
{
    at::autocast::set_autocast_dtype(at::kCPU, type);
    at::autocast::set_autocast_enabled(at::kCPU, on);
}
void setGpuAutocast(bool on, at::ScalarType type)
{
    at::autocast::set_autocast_dtype(at::kCUDA, type);
    at::autocast::set_autocast_enabled(at::kCUDA, on);
}
bool autocastOn(at::DeviceType type) { return at::autocast::is_autocast_enabled(type); }
at::ScalarType autocastType(at::DeviceType type) { return at::autocast::get_autocast_dtype(type); }
#else
void setCpuAutocast(bool on, at::ScalarType type)
{
    at::autocast::set_autocast_cpu_dtype(type);
    at::autocast::set_cpu_enabled(on);
}
void setGpuAutocast(bool on, at::ScalarType type)
{
    at::autocast::set_autocast_gpu_dtype(type);
    at::autocast::set_enabled(on);
}
bool autocastOn(at::DeviceType type)
{
    return type == at::kCPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
}
at::ScalarType autocastType(at::DeviceType type)
{
    return type == at::kCPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
}
#endif
} // namespace

torch::Device deviceFor(const ResolvedConfig& config, const LogicalDevice& logical)
{
    const std::string backend = config.getString("device.backend");
    const bool gpu = torch::cuda::is_available();
    if (backend == "cpu" || (backend == "auto" && (!gpu || logical.backend == "cpu")))
        return torch::kCPU;
    if (!gpu)
        throw InputError("device.backend=" + backend +
                         " but the linked LibTorch has no CUDA/HIP support or no GPU is visible; use device.backend=cpu");
    return torch::Device(torch::kCUDA, 0); // the worker's visible-devices environment selects the partition
}

Precision precisionFor(const ResolvedConfig& config, const torch::Device& device)
{
    const std::string precision = config.getString("training.optimization.precision");
    if (precision == "bf16")
        return Precision::Bf16;
    if (precision == "fp16") {
        if (device.is_cpu())
            throw InputError("training.optimization.precision=fp16 needs a CUDA/HIP device; use fp32 or bf16 on CPU");
        return Precision::Fp16;
    }
    return Precision::Fp32;
}

std::vector<std::string> precisionNotices(const ResolvedConfig& config, const torch::Device& device)
{
    std::vector<std::string> notes;
    if (config.getBool("training.optimization.use_torch_compile") && device.is_cpu())
        notes.push_back("training.optimization.use_torch_compile: whole-step capture needs a CUDA/HIP device; "
                        "on CPU it does nothing (torch_compile_mode=" +
                        config.getString("training.optimization.torch_compile_mode") + " ignored)");
    if (config.getString("training.optimization.precision") == "fp16")
        notes.push_back("precision fp16: autocast to float16 with dynamic loss scaling (initial scale 65536; a step "
                        "whose gradients overflow is skipped and the scale halved; logged as loss_scale)");
    if (config.getString("training.optimization.precision") == "bf16" && device.is_cpu())
        notes.push_back("precision bf16 on CPU: autocast to bfloat16; losses are computed in fp32");
    return notes;
}

bool cudnnAutotune(const ResolvedConfig& config, const torch::Device& device)
{
    return !device.is_cpu() && config.getBool("training.optimization.use_torch_compile") &&
           config.getString("training.optimization.torch_compile_mode") == "max-autotune";
}

void synchronize(const torch::Device& device)
{
    if (device.is_cuda())
        torch::cuda::synchronize();
}

AutocastGuard::AutocastGuard(Precision precision, const torch::Device& device)
{
    if (precision == Precision::Fp32)
        return;
    const at::ScalarType type = precision == Precision::Bf16 ? at::kBFloat16 : at::kHalf;
    if (device.is_cpu()) {
        setCpuAutocast(true, type);
        m_cpu = true;
    } else {
        setGpuAutocast(true, type);
        m_gpu = true;
    }
}

bool AutocastGuard::enabled(const torch::Device& device)
{
    return autocastOn(device.is_cpu() ? at::kCPU : at::kCUDA);
}

at::ScalarType AutocastGuard::type(const torch::Device& device)
{
    return autocastType(device.is_cpu() ? at::kCPU : at::kCUDA);
}

AutocastGuard::~AutocastGuard()
{
    if (m_cpu)
        setCpuAutocast(false, at::kBFloat16);
    if (m_gpu)
        setGpuAutocast(false, at::kHalf);
    if (m_cpu || m_gpu)
        at::autocast::clear_cache();
}

} // namespace pitwall::engine
