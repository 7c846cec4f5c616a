// pitwall engine info: what the linked LibTorch can do (in the engine module: it loads LibTorch).
#include "app/cli/cli.h"

#include "core/engine/engineinfo.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {
int engineInfoCommand(const Args& args)
{
    const EngineInfo engine = engineInfo();
    if (args.flag("json")) {
        const nlohmann::json out{{"torch_version", engine.torchVersion},
                                 {"gpu_available", engine.cudaAvailable},
                                 {"gpu_count", engine.gpuCount},
                                 {"hip_build", engine.hipBuild},
                                 {"intra_op_threads", engine.intraOpThreads},
                                 {"inter_op_threads", engine.interOpThreads}};
        std::cout << out.dump(2) << "\n";
        return kExitOk;
    }
    std::printf("engine: LibTorch %s%s, %s\n", engine.torchVersion.c_str(), engine.hipBuild ? " (ROCm)" : "",
                engine.cudaAvailable ? (std::to_string(engine.gpuCount) + " GPU(s) visible").c_str()
                                     : "no GPU backend in this LibTorch or no GPU visible");
    std::printf("threads: %d intra-op, %d inter-op\n%s\n", engine.intraOpThreads, engine.interOpThreads,
                engine.parallelInfo.c_str());
    return kExitOk;
}
} // namespace

void addEngineInfoCommand(Cli& cli)
{
    cli.add({"engine info", "the LibTorch this Pitwall trains with: version, GPUs it sees, threads", "[--json]", "",
             {jsonOption()}, engineInfoCommand});
}

} // namespace pitwall::cli
