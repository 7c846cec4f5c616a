#pragma once
// What `pitwall engine info` reports about the linked LibTorch, as JSON and as text (plain C++: no torch).

#include "core/engine/engineinfo.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pitwall {

// {"torch_version", "gpu_available", "gpu_count", "hip_build", "intra_op_threads", "inter_op_threads"}
nlohmann::json engineInfoJson(const EngineInfo& engine);
// "engine: LibTorch V[ (ROCm)], N GPU(s) visible", the thread counts and the backend's parallel summary.
std::string engineInfoText(const EngineInfo& engine);

} // namespace pitwall
