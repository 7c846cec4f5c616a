#include "core/engine/engineinforeport.h"

#include "core/util/printf.h"

namespace pitwall {

nlohmann::json engineInfoJson(const EngineInfo& engine)
{
    return {{"torch_version", engine.torchVersion},
            {"gpu_available", engine.cudaAvailable},
            {"gpu_count", engine.gpuCount},
            {"hip_build", engine.hipBuild},
            {"intra_op_threads", engine.intraOpThreads},
            {"inter_op_threads", engine.interOpThreads}};
}

std::string engineInfoText(const EngineInfo& engine)
{
    std::string text =
        stringPrintf("engine: LibTorch %s%s, %s\n", engine.torchVersion.c_str(), engine.hipBuild ? " (ROCm)" : "",
                     engine.cudaAvailable ? (std::to_string(engine.gpuCount) + " GPU(s) visible").c_str()
                                          : "no GPU backend in this LibTorch or no GPU visible");
    text += stringPrintf("threads: %d intra-op, %d inter-op\n%s\n", engine.intraOpThreads, engine.interOpThreads,
                         engine.parallelInfo.c_str());
    return text;
}

} // namespace pitwall
