#include "core/plugin/plugin.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <dlfcn.h>

#include <algorithm>

namespace pitwall {

const char* pluginKindName(PluginKind kind)
{
    switch (kind) {
    case PluginKind::Model:
        return "model";
    case PluginKind::Dataset:
        return "dataset";
    case PluginKind::Runner:
        return "runner";
    }
    return "unknown";
}

PluginLibrary PluginLibrary::open(const std::filesystem::path& file)
{
    const SourceLocation where{file.string()};
    void* raw = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!raw) {
        const char* why = dlerror();
        throw InputError(where, std::string("cannot load plugin: ") + (why ? why : "unknown error"));
    }
    PluginLibrary library;
    library.m_file = file;
    library.m_handle = std::shared_ptr<void>(raw, [](void* h) { dlclose(h); });
    auto infoFunction = reinterpret_cast<PluginInfoFunction>(dlsym(raw, PITWALL_PLUGIN_INFO_SYMBOL));
    if (!infoFunction)
        throw InputError(where, "not a Pitwall plugin: it exports no '" PITWALL_PLUGIN_INFO_SYMBOL "'");
    const PluginInfo* info = infoFunction();
    if (!info || !info->name || !*info->name)
        throw InputError(where, "plugin info is empty");
    if (info->abiVersion != kPluginAbiVersion)
        throw InputError(where, "plugin '" + std::string(info->name) + "' was built for plugin ABI " +
                                    std::to_string(info->abiVersion) + ", this Pitwall has ABI " +
                                    std::to_string(kPluginAbiVersion) + "; rebuild the plugin");
    if (!info->buildId || std::string(info->buildId) != PITWALL_BUILD_ID)
        throw InputError(where, "plugin '" + std::string(info->name) + "' was built by another build (" +
                                    (info->buildId ? info->buildId : "none") + ") than this Pitwall (" +
                                    PITWALL_BUILD_ID + "); its C++ interface must match: rebuild the plugin "
                                    "against this Pitwall");
    const int kind = static_cast<int>(info->kind);
    if (kind < 1 || kind > 3)
        throw InputError(where, "plugin '" + std::string(info->name) + "' has an unknown kind " + std::to_string(kind));
    library.m_info = info;
    return library;
}

const char* pitwallBuildId() { return PITWALL_BUILD_ID; }

void* PluginLibrary::symbol(const char* name) const { return m_handle ? dlsym(m_handle.get(), name) : nullptr; }

PluginScan scanPlugins(const std::vector<std::filesystem::path>& folders)
{
    PluginScan scan;
    for (const std::filesystem::path& folder : folders) {
        std::error_code ec;
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
            if (entry.path().extension() == ".so")
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const std::filesystem::path& file : files) {
            try {
                PluginLibrary library = PluginLibrary::open(file);
                const bool taken = std::any_of(scan.plugins.begin(), scan.plugins.end(), [&](const PluginLibrary& p) {
                    return std::string(p.info().name) == library.info().name;
                });
                if (taken)
                    scan.problems.push_back(file.string() + ": plugin '" + library.info().name +
                                            "' is already loaded from an earlier folder; this copy is ignored");
                else
                    scan.plugins.push_back(std::move(library));
            } catch (const InputError& e) {
                scan.problems.push_back(e.what());
            }
        }
    }
    return scan;
}

const PluginLibrary& requirePlugin(const PluginScan& scan, const std::string& name, PluginKind kind)
{
    std::vector<std::string> available;
    for (const PluginLibrary& p : scan.plugins) {
        if (p.info().kind != kind)
            continue;
        if (name == p.info().name)
            return p;
        available.push_back(p.info().name);
    }
    std::string message = std::string("no ") + pluginKindName(kind) + " plugin named '" + name + "'";
    message += available.empty() ? std::string(" (none found on the plugin path)")
                                 : "; available: " + join(available, ", ");
    throw InputError(message);
}

} // namespace pitwall
