#pragma once
// Shared by the job specs of core/jobs: a job's words parsed with its command's options, and options written back.

#include "core/jobs/jobproblems.h"
#include "core/util/cmdline.h"

#include <optional>
#include <string>
#include <vector>

namespace pitwall::jobs {

// `words` (after "pitwall") parsed as the command at `path` ("bench variants") parses them: `options` plus --db,
// --json, --detach and --check (what every job command takes). InputError when the words are another command's.
cmdline::Args parseJobWords(const std::string& path, std::vector<cmdline::OptionSpec> options,
                            const std::vector<std::string>& words);

// A field per option (its name with '_' for '-': "final_epochs" for --final-epochs; --config's is "configs"), and
// `positionalField` for the positionals when not "".
JobFields jobFieldsOf(const std::vector<cmdline::OptionSpec>& options, const std::string& positionalField,
                      const std::string& fallbackField);

// --NAME as an int >= minimum, nullopt when absent; InputError naming the option otherwise.
std::optional<int> countOption(const cmdline::Args& args, const std::string& name, int minimum);

// The words of a command's path: {"bench", "variants"} for "bench variants".
std::vector<std::string> commandWords(const std::string& path);

// Appends "--NAME VALUE" (for an optional: only when set).
void addOption(std::vector<std::string>& words, const std::string& name, const std::string& value);
void addOption(std::vector<std::string>& words, const std::string& name, const std::optional<std::string>& value);
void addOption(std::vector<std::string>& words, const std::string& name, const std::optional<int>& value);
void addOption(std::vector<std::string>& words, const std::string& name, const std::optional<double>& value);
void addFlag(std::vector<std::string>& words, const std::string& name, bool on);

} // namespace pitwall::jobs
