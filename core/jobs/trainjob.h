#pragma once
// `pitwall train`'s options as a typed spec: the CLI reads its seed, resume and database from it, the window starts
// toArgs() for the form's config.

#include "core/jobs/jobproblems.h"
#include "core/util/cmdline.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct TrainJob {
    static constexpr const char* kCommand = "train";

    std::vector<std::string> configs;   // config files, as given
    std::vector<std::string> overrides; // dotted.key=value
    std::optional<std::int64_t> seed;   // --seed S (>= 0): only this seed instead of experiment.seeds
    bool resume = false;
    std::optional<std::string> database;

    std::vector<std::string> toArgs() const;             // "train", configs, overrides, options
    static TrainJob fromArgs(const cmdline::Args& args); // InputError naming --seed for a bad seed
    static TrainJob fromArgs(const std::vector<std::string>& words);
    static std::vector<cmdline::OptionSpec> optionSpecs(); // besides --db and --json
    static const JobFields& fields();                      // configs, seed, resume
};

} // namespace pitwall
