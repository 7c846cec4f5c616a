#include "core/devices/devices.h"
#include "core/devices/gpubackends.h"
#include "core/util/error.h"
#include "core/util/strings.h"

namespace pitwall {

std::unique_ptr<DeviceBackend> chooseBackend(const std::string& name)
{
    const std::string wanted = toLower(name.empty() ? std::string("auto") : name);
    if (wanted == "cpu")
        return makeCpuBackend();
    if (wanted != "auto" && wanted != "cuda" && wanted != "hip")
        throw InputError("backend '" + name + "' is not one of auto, cpu, cuda, hip");
    GpuDiscovery found = discoverGpuBackends();
    for (auto& backend : found.backends)
        if (wanted == "auto" || backend->name() == wanted)
            return std::move(backend);
    if (wanted == "auto")
        return makeCpuBackend();
    std::string why = "no " + wanted + " devices found";
    if (!found.problems.empty())
        why += ": " + join(found.problems, "; ");
    throw InputError("backend " + wanted + ": " + why + " (pitwall devices lists what is present)");
}

} // namespace pitwall
