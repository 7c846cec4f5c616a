#include "core/plugin/pluginreport.h"

#include "core/util/printf.h"

namespace pitwall {

nlohmann::json pluginListingJson(const PluginListing& listing, const std::vector<std::filesystem::path>& searchPath,
                                 bool checked)
{
    nlohmann::json out{{"search_path", nlohmann::json::array()},
                       {"plugins", nlohmann::json::array()},
                       {"problems", listing.problems},
                       {"checked", checked}};
    for (const auto& folder : searchPath)
        out["search_path"].push_back(folder.string());
    for (const PluginManifest& p : listing.plugins)
        out["plugins"].push_back({{"name", p.name},
                                  {"kind", pluginKindName(p.kind)},
                                  {"description", p.description},
                                  {"file", p.library.string()},
                                  {"schema", p.schema.string()}});
    return out;
}

std::string pluginListingText(const PluginListing& listing, const std::vector<std::filesystem::path>& searchPath)
{
    std::string text = "plugin search path:\n";
    for (const auto& folder : searchPath)
        text += "  " + folder.string() + "\n";
    text += "plugins:\n";
    if (listing.plugins.empty())
        text += "  (none)\n";
    for (const PluginManifest& p : listing.plugins)
        text += stringPrintf("  %-12s %-8s %s\n", p.name.c_str(), pluginKindName(p.kind), p.description.c_str());
    return text;
}

} // namespace pitwall
