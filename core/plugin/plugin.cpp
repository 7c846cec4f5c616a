#include "core/plugin/plugin.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <fstream>

namespace pitwall {

namespace {

// A plugin of another build would crash on its C++ interface: refused, by the loader and by the listing.
void checkBuildId(const SourceLocation& where, const std::string& name, const char* buildId)
{
    if (!buildId || std::string(buildId) != PITWALL_BUILD_ID)
        throw InputError(where, "plugin '" + name + "' was built by another build (" + (buildId ? buildId : "none") +
                                    ") than this Pitwall (" + PITWALL_BUILD_ID +
                                    "); its C++ interface must match: rebuild the plugin against this Pitwall");
}

// Goes through every *.so of the folders in order (within a folder by name); `read` turns one into an item or
// throws InputError. The first item of a name is kept, later ones and failures become problems.
template <typename Item, typename Read, typename NameOf>
void collectPlugins(const std::vector<std::filesystem::path>& folders, std::vector<Item>& items,
                    std::vector<std::string>& problems, Read read, NameOf nameOf)
{
    for (const std::filesystem::path& folder : folders) {
        std::error_code ec;
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
            if (entry.path().extension() == ".so")
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const std::filesystem::path& file : files) {
            try {
                Item item = read(file);
                const std::string name = nameOf(item);
                const bool taken = std::any_of(items.begin(), items.end(),
                                               [&](const Item& other) { return nameOf(other) == name; });
                if (taken)
                    problems.push_back(file.string() + ": plugin '" + name +
                                       "' is already loaded from an earlier folder; this copy is ignored");
                else
                    items.push_back(std::move(item));
            } catch (const InputError& e) {
                problems.push_back(e.what());
            }
        }
    }
}

PluginKind kindFromName(const SourceLocation& where, const std::string& name)
{
    for (PluginKind kind : {PluginKind::Model, PluginKind::Dataset, PluginKind::Runner})
        if (name == pluginKindName(kind))
            return kind;
    throw InputError(where, "unknown plugin kind '" + name + "' (model, dataset or runner)");
}

PluginManifest readManifest(const std::filesystem::path& library)
{
    std::filesystem::path file = library;
    file.replace_extension(".plugin.json");
    std::ifstream in(file);
    if (!in)
        throw InputError(SourceLocation{library.string()},
                         "no manifest " + file.filename().string() +
                             " beside it (a plugin built without pitwall_add_plugin's KIND and DESCRIPTION); "
                             "'pitwall plugins --check' loads it");
    const SourceLocation where{file.string()};
    try {
        const nlohmann::json json = nlohmann::json::parse(in);
        PluginManifest manifest;
        manifest.name = json.at("name").get<std::string>();
        manifest.kind = kindFromName(where, json.at("kind").get<std::string>());
        manifest.description = json.at("description").get<std::string>();
        manifest.buildId = json.at("build_id").get<std::string>();
        manifest.library = library;
        if (json.contains("schema"))
            manifest.schema = library.parent_path() / json.at("schema").get<std::string>();
        if (manifest.name.empty())
            throw InputError(where, "the manifest's name is empty");
        checkBuildId(where, manifest.name, manifest.buildId.c_str());
        return manifest;
    } catch (const nlohmann::json::exception& e) {
        throw InputError(where, std::string("unreadable plugin manifest: ") + e.what());
    }
}

} // namespace

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
    checkBuildId(where, info->name, info->buildId);
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
    collectPlugins(folders, scan.plugins, scan.problems, PluginLibrary::open,
                   [](const PluginLibrary& p) { return std::string(p.info().name); });
    return scan;
}

PluginListing listPluginManifests(const std::vector<std::filesystem::path>& folders)
{
    PluginListing listing;
    collectPlugins(folders, listing.plugins, listing.problems, readManifest,
                   [](const PluginManifest& m) { return m.name; });
    return listing;
}

const PluginManifest* findManifest(const PluginListing& listing, const std::filesystem::path& file)
{
    const auto it = std::find_if(listing.plugins.begin(), listing.plugins.end(),
                                 [&](const PluginManifest& m) { return m.library == file; });
    return it == listing.plugins.end() ? nullptr : &*it;
}

std::vector<std::string> manifestMismatches(const PluginScan& scan, const PluginListing& listing)
{
    std::vector<std::string> out;
    for (const PluginLibrary& library : scan.plugins) {
        const PluginManifest* manifest = findManifest(listing, library.file());
        if (!manifest)
            continue;
        const PluginInfo& info = library.info();
        const auto differ = [&](const char* field, const std::string& inManifest, const char* inLibrary) {
            if (inManifest != (inLibrary ? inLibrary : ""))
                out.push_back(library.file().string() + ": the manifest's " + field + " is '" + inManifest +
                              "', the library's '" + (inLibrary ? inLibrary : "") + "'");
        };
        differ("name", manifest->name, info.name);
        differ("kind", pluginKindName(manifest->kind), pluginKindName(info.kind));
        differ("description", manifest->description, info.description);
        differ("build id", manifest->buildId, info.buildId);
    }
    return out;
}

PluginListing checkPlugins(const std::vector<std::filesystem::path>& folders)
{
    const PluginListing manifests = listPluginManifests(folders);
    const PluginScan scan = scanPlugins(folders);
    PluginListing loaded;
    for (const PluginLibrary& p : scan.plugins) {
        const PluginManifest* manifest = findManifest(manifests, p.file());
        const PluginInfo& info = p.info();
        loaded.plugins.push_back({info.name, info.kind, info.description ? info.description : "",
                                  info.buildId ? info.buildId : "", p.file(),
                                  manifest ? manifest->schema : std::filesystem::path()});
    }
    loaded.problems = scan.problems;
    for (std::string& mismatch : manifestMismatches(scan, manifests))
        loaded.problems.push_back(std::move(mismatch));
    return loaded;
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
