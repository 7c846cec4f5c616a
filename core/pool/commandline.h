#pragma once
// External-command templates for trials, run without a shell:
//
//   "python3 train.py --lr {max_lr} --box {box} --out '{trial_dir}/out'"
//
// The template is split into words once (single and double quotes group words, a backslash escapes the next
// character; nothing else is special: no globbing, no variables, no pipes), then `{name}` in any word is
// replaced by the trial's value of that search-space parameter (sampled or fixed), or by one of the built-in
// names below. `{{` and `}}` are literal braces.
//
// Built-in names: trial (number), trial_dir, study, device (logical device id), threads, and, when given,
// epochs and config (the trial's resolved config written as YAML).

#include "core/config/schema.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace pitwall {

// The words of a command template. InputError for an unbalanced quote or an empty template.
std::vector<std::string> splitCommandLine(const std::string& text);

// Names used as {name} in the words. InputError for an unclosed or empty brace.
std::set<std::string> commandPlaceholders(const std::vector<std::string>& words);

// The words with every {name} replaced. InputError naming the unknown names (with "did you mean").
std::vector<std::string> expandCommand(const std::vector<std::string>& words,
                                       const std::map<std::string, std::string>& values);

// Checks before anything runs that every placeholder is known. InputError listing the unknown ones.
void checkCommandPlaceholders(const std::vector<std::string>& words, const std::set<std::string>& known);

// `program` as a path: as given when it contains '/', else the first executable match on $PATH.
// InputError when there is none.
std::string findExecutable(const std::string& program);

// A schema that declares each top-level name of a search-space YAML as a key of its own (float for
// uniform/loguniform, int for int, the values' type for categorical and fixed values), so that a space for
// an external command need not name config keys. InputError when the YAML is not a mapping.
Schema freeSpaceSchema(const std::string& yamlText, const std::string& sourceName);

} // namespace pitwall
