#pragma once
// Plugins are MODULE libraries found on the plugin search path (core/util/paths.h). Each exports one C
// function, `pitwall_plugin_info`, returning a PluginInfo with the ABI version it was built against; a
// library with the wrong ABI, no such symbol, or that fails to load is reported, never loaded half-way.
// The kind-specific entry points (a model factory, a dataset reader, a runner) are further exported
// symbols, declared by the layer that uses them (models by core/engine).
//
// A plugin's config keys live in `<name>.schema.yaml` beside the library (see core/config/schema.h), and a
// plugin built with pitwall_add_plugin(... KIND DESCRIPTION) has a manifest `<name>.plugin.json` beside it too:
// its name, kind, description, schema file and build id, so that listing plugins loads no library (and no
// LibTorch). Only PluginLibrary::open, and so scanPlugins, loads them.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace pitwall {

// Bumped whenever PluginInfo or an entry point's signature changes.
constexpr int kPluginAbiVersion = 2;

enum class PluginKind : int { Model = 1, Dataset = 2, Runner = 3 };
const char* pluginKindName(PluginKind kind);

// Plain C layout so that it crosses the library boundary safely.
struct PluginInfo {
    int abiVersion;
    const char* name;        // also the schema file's base name
    PluginKind kind;
    const char* description; // one line for `pitwall plugins` and the GUI
    // The build the plugin belongs to: Pitwall version, compiler and LibTorch version (PITWALL_BUILD_ID, set
    // by pitwall_add_plugin). The plugin interface is C++ (models are torch modules), so a plugin of another
    // build is refused rather than loaded into a crash.
    const char* buildId;
};

extern "C" {
using PluginInfoFunction = const PluginInfo* (*)();
}

#define PITWALL_PLUGIN_INFO_SYMBOL "pitwall_plugin_info"

// Declares the info function in a plugin source file:
//   PITWALL_DECLARE_PLUGIN("transfuser", pitwall::PluginKind::Model, "TransFuser-lite driving model")
#define PITWALL_DECLARE_PLUGIN(NAME, KIND, DESCRIPTION)                                                        \
    extern "C" __attribute__((visibility("default"))) const pitwall::PluginInfo* pitwall_plugin_info()           \
    {                                                                                                          \
        static const pitwall::PluginInfo info{pitwall::kPluginAbiVersion, NAME, KIND, DESCRIPTION,               \
                                              PITWALL_BUILD_ID};                                               \
        return &info;                                                                                          \
    }

// In a plugin built with pitwall_add_plugin(<name> ... KIND k DESCRIPTION "..."): the info from those
// arguments, the same values CMake writes into the manifest.
#define PITWALL_DECLARE_PLUGIN_FROM_BUILD()                                                                    \
    PITWALL_DECLARE_PLUGIN(PITWALL_PLUGIN_NAME, PITWALL_PLUGIN_KIND, PITWALL_PLUGIN_DESCRIPTION)

// The build id of this Pitwall, which plugins must match.
const char* pitwallBuildId();

// An opened plugin library. Closing happens when the last copy is destroyed.
class PluginLibrary {
public:
    // Opens and checks a library; throws InputError naming the file and what is wrong.
    static PluginLibrary open(const std::filesystem::path& file);

    const std::filesystem::path& file() const { return m_file; }
    const PluginInfo& info() const { return *m_info; }
    // Address of an exported symbol, or nullptr.
    void* symbol(const char* name) const;

private:
    std::filesystem::path m_file;
    std::shared_ptr<void> m_handle;
    const PluginInfo* m_info = nullptr;
};

struct PluginScan {
    std::vector<PluginLibrary> plugins;
    std::vector<std::string> problems; // "file: why it was left out"
};

// Opens every *.so on the search path (first of a name wins).
PluginScan scanPlugins(const std::vector<std::filesystem::path>& folders);

// What a plugin's manifest says about it, read without loading the library (or, from checkPlugins, what the
// loaded library says).
struct PluginManifest {
    std::string name;
    PluginKind kind = PluginKind::Model;
    std::string description;
    std::string buildId;
    std::filesystem::path library; // the .so the manifest sits beside
    std::filesystem::path schema;  // its schema file, empty when it declares none
};

struct PluginListing {
    std::vector<PluginManifest> plugins;
    std::vector<std::string> problems; // "file: why it was left out", as in PluginScan
};

// The plugins on the search path from their manifests, in scanPlugins' order and with its rule that the first
// of a name wins. Opens no library: a .so without a manifest, or whose manifest names another build, is a
// problem (scanPlugins loads it and says more).
PluginListing listPluginManifests(const std::vector<std::filesystem::path>& folders);

// The manifest of the library at `file` in a listing, or nullptr.
const PluginManifest* findManifest(const PluginListing& listing, const std::filesystem::path& file);

// Where a loaded plugin and its manifest disagree (name, kind, description, build id): one "file: what differs"
// per difference. A loaded plugin without a manifest is not a mismatch (the listing reports it already).
std::vector<std::string> manifestMismatches(const PluginScan& scan, const PluginListing& listing);

// `pitwall plugins --check`: loads every plugin (scanPlugins) and describes what the loaded libraries say, in the
// listing's shape (the schema file from the manifest), with the scan's problems and then the mismatches.
PluginListing checkPlugins(const std::vector<std::filesystem::path>& folders);

// The plugin of a name and kind from a scan, or InputError listing the ones available.
const PluginLibrary& requirePlugin(const PluginScan& scan, const std::string& name, PluginKind kind);

} // namespace pitwall
