#pragma once
// Every YAML text from outside — config files and overrides, search spaces, variants files, plugin schemas, and
// the configs stored in a results file — is read here. A syntax error names the place (file:line:column), and a
// document is refused when it holds more than kMaxYamlNodes nodes counted with every alias expanded: a
// "billion laughs" file of a few hundred bytes (each anchor a list of nine aliases of the one before) stops after
// a bounded walk with a clear message, instead of expanding into gigabytes when it is read.

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <vector>

namespace pitwall {

// Far beyond any file a person writes (the largest shipped config has about 300), and a walk of 0.1 s.
inline constexpr std::size_t kMaxYamlNodes = 1'000'000;

// The one document of `text` (a null node for an empty text). `sourceName` (a file, or "command line") is what
// errors name. InputError on a syntax error ("<syntaxError>: <what the parser said>" at its line and column) or a
// document over the limit.
YAML::Node loadYaml(const std::string& text, const std::string& sourceName,
                    const std::string& syntaxError = "YAML syntax error");

// Every document of a multi-document text ("---" between them), with the same checks.
std::vector<YAML::Node> loadYamlDocuments(const std::string& text, const std::string& sourceName,
                                          const std::string& syntaxError = "YAML syntax error");

// Throws InputError when `root`, aliases expanded, has more than `limit` nodes; reads at most `limit` of them.
void checkYamlSize(const YAML::Node& root, const std::string& sourceName, std::size_t limit = kMaxYamlNodes);

} // namespace pitwall
