#pragma once
// What the linked LibTorch can do on this machine. Plain values: callers need no torch headers.

#include <string>

namespace pitwall {

struct EngineInfo {
    std::string torchVersion;   // "1.13.1"
    bool cudaAvailable = false; // CUDA or HIP build with at least one visible device
    int gpuCount = 0;
    bool hipBuild = false;      // LibTorch built for ROCm
    int interOpThreads = 0;
    int intraOpThreads = 0;     // LibTorch's current intra-op thread count
    std::string parallelInfo;   // the backend's own summary (OpenMP, MKL, ...), one line
};

EngineInfo engineInfo();

} // namespace pitwall
