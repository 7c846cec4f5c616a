#include "core/config/workload.h"

#include "core/util/printf.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pitwall {

bool isWorkloadKey(const std::string& key)
{
    if (key == "experiment.model")
        return true;
    for (const char* prefix : {"experiment.", "device.", "hpo.", "data.hpo_", "training.stages."})
        if (startsWith(key, prefix))
            return false;
    const std::size_t dot = key.rfind('.');
    const std::string last = dot == std::string::npos ? key : key.substr(dot + 1);
    for (const char* name : {"batch_size", "val_batch_size", "epochs", "warmup_epochs"})
        if (last == name)
            return false;
    return true;
}

std::string workloadKey(const ResolvedConfig& config)
{
    std::vector<std::string> lines;
    for (const ConfigEntry& e : config.entries())
        if (isWorkloadKey(e.spec.key))
            lines.push_back(e.spec.key + "=" + e.value.toText());
    std::sort(lines.begin(), lines.end());
    std::uint64_t hash = 14695981039346656037ull;
    for (const std::string& line : lines)
        for (const char c : line + "\n") {
            hash ^= static_cast<unsigned char>(c);
            hash *= 1099511628211ull;
        }
    return stringPrintf("%016llx", static_cast<unsigned long long>(hash));
}

} // namespace pitwall
