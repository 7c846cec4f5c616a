#include "core/config/yamlload.h"

#include "core/config/internal/yamlvalue.h"
#include "core/util/error.h"

namespace pitwall {

namespace {

[[noreturn]] void throwSyntaxError(const std::string& sourceName, const std::string& what, const YAML::Exception& e)
{
    throw InputError(internal::locationOf(sourceName, e.mark), what + ": " + e.msg);
}

} // namespace

void checkYamlSize(const YAML::Node& root, const std::string& sourceName, std::size_t limit)
{
    // Depth first with a stack of its own (no recursion: nesting depth is input too). An alias is a second
    // reference to its anchor's node, so it is walked again each time it occurs: that is the expansion counted.
    std::vector<YAML::Node> pending{root};
    std::size_t seen = 0;
    while (!pending.empty()) {
        const YAML::Node node = pending.back();
        pending.pop_back();
        if (++seen > limit)
            throw InputError(SourceLocation{sourceName},
                             "the YAML has more than " + std::to_string(limit) +
                                 " nodes with its aliases expanded (Pitwall reads at most that many; an alias bomb?)");
        if (node.IsSequence()) {
            for (const YAML::Node& child : node)
                pending.push_back(child);
        } else if (node.IsMap()) {
            for (const auto& item : node) {
                pending.push_back(item.first);
                pending.push_back(item.second);
            }
        }
    }
}

YAML::Node loadYaml(const std::string& text, const std::string& sourceName, const std::string& syntaxError)
{
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throwSyntaxError(sourceName, syntaxError, e);
    }
    checkYamlSize(root, sourceName);
    return root;
}

std::vector<YAML::Node> loadYamlDocuments(const std::string& text, const std::string& sourceName,
                                          const std::string& syntaxError)
{
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text);
    } catch (const YAML::Exception& e) {
        throwSyntaxError(sourceName, syntaxError, e);
    }
    for (const YAML::Node& document : documents)
        checkYamlSize(document, sourceName);
    return documents;
}

} // namespace pitwall
