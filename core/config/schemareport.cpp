#include "core/config/schemareport.h"

#include "core/util/strings.h"

namespace pitwall {

std::vector<const KeySpec*> selectKeys(const Schema& schema, bool speedOnly, const std::string& groupPrefix)
{
    std::vector<const KeySpec*> shown;
    for (const KeySpec& spec : schema.keys()) {
        if (speedOnly && !spec.speed)
            continue;
        if (!groupPrefix.empty() && !startsWith(toLower(spec.group), toLower(groupPrefix)))
            continue;
        shown.push_back(&spec);
    }
    return shown;
}

nlohmann::json schemaListingJson(const Schema& schema, const std::vector<const KeySpec*>& keys)
{
    nlohmann::json list = nlohmann::json::array();
    for (const KeySpec* spec : keys)
        list.push_back(spec->toJson());
    return {{"owners", schema.owners()}, {"keys", list}};
}

std::string schemaListingText(const std::vector<const KeySpec*>& keys)
{
    std::string text;
    std::string currentGroup;
    for (const KeySpec* spec : keys) {
        if (spec->group != currentGroup) {
            currentGroup = spec->group;
            text += "\n[" + currentGroup + "]\n";
        }
        text += "  " + spec->key + " = " + spec->defaultValue.toText() + "   (" + spec->expectation() +
                (spec->speed ? "; speed option" : "") + (spec->owner != "core" ? "; from " + spec->owner : "") +
                ")\n      " + spec->doc + "\n";
    }
    return text;
}

} // namespace pitwall
