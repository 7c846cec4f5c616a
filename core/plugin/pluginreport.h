#pragma once
// What `pitwall plugins` reports about a listing (listPluginManifests or checkPlugins), as JSON and as text.

#include "core/plugin/plugin.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace pitwall {

// {"search_path": [...], "plugins": [{name, kind, description, file, schema}], "problems": [...], "checked": B}
nlohmann::json pluginListingJson(const PluginListing& listing, const std::vector<std::filesystem::path>& searchPath,
                                 bool checked);

// "plugin search path:" with one folder a line, then "plugins:" with one plugin a line (name, kind,
// description), or "  (none)". The problems are left to the caller (warnings or errors).
std::string pluginListingText(const PluginListing& listing, const std::vector<std::filesystem::path>& searchPath);

} // namespace pitwall
