#include "core/engine/engineinfo.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <sstream>

namespace pitwall {

EngineInfo engineInfo()
{
    EngineInfo info;
    info.torchVersion = TORCH_VERSION;
    info.cudaAvailable = torch::cuda::is_available();
    info.gpuCount = info.cudaAvailable ? static_cast<int>(torch::cuda::device_count()) : 0;
#if defined(USE_ROCM)
    info.hipBuild = true;
#endif
    info.interOpThreads = at::get_num_interop_threads();
    info.intraOpThreads = at::get_num_threads();
    std::istringstream lines(at::get_parallel_info());
    std::string line;
    std::string summary;
    while (std::getline(lines, line))
        if (line.find("parallel backend") != std::string::npos || line.find("ATen/Parallel") != std::string::npos)
            summary = line;
    info.parallelInfo = summary;
    return info;
}

} // namespace pitwall
