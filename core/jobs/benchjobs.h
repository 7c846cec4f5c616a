#pragma once
// The speed benchmarks' options as typed specs: `pitwall bench variants | partitions | loader`. The CLI parses each
// with fromArgs (the engine runs the benchmark from it); the window fills one from its fields and starts toArgs().
// Each value is checked for its own form here (InputError naming the option); files, configs and devices are
// checked by the benchmark's --check.

#include "core/jobs/jobproblems.h"
#include "core/util/cmdline.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

// --seeds as a count (0..N-1, N >= 1) or a comma-separated list of seeds >= 0. InputError naming --seeds otherwise.
std::vector<std::int64_t> parseSeeds(const std::string& text);

struct VariantsBenchJob {
    static constexpr const char* kCommand = "bench variants";

    std::string file;                               // the variants file (core/jobs/variantsfile.h), "" when not given
    std::vector<std::string> overrides;             // dotted.key=value applied to every variant
    std::optional<std::vector<std::int64_t>> seeds; // --seeds (default: the file's)
    std::vector<std::string> only;                  // --only: variant names, empty for all
    bool markdown = false;
    std::optional<std::string> database;

    std::vector<std::string> toArgs() const; // "bench", "variants", FILE, overrides, options
    // InputError for more than one file among the positionals, or a malformed --seeds.
    static VariantsBenchJob fromArgs(const cmdline::Args& args);
    static VariantsBenchJob fromArgs(const std::vector<std::string>& words);
    static std::vector<cmdline::OptionSpec> optionSpecs(); // besides --db and --json
    static const JobFields& fields(); // file (the positional; also what the file's own problems go to), seeds, ...
};

struct PartitionBenchJob {
    static constexpr const char* kCommand = "bench partitions";

    std::vector<std::string> configs;                 // the positionals' files, then --config's
    std::vector<std::string> overrides;               // dotted.key=value
    std::optional<std::vector<std::string>> modes;    // --modes, canonical (SPX, DPX, QPX, CPX); default all
    std::optional<std::vector<long long>> batchSizes; // --batch-sizes, each >= 1; default 8,16,32
    std::optional<int> epochs;                        // >= 1; default 2
    std::optional<std::string> backend, out, plot, database;
    // --recommend: a brief measurement to choose a mode (every mode, the config's batch size, 1 epoch, unless
    // --modes, --batch-sizes or --epochs say otherwise); every run prints and stores the recommendation.
    bool recommend = false;

    std::vector<std::string> toArgs() const; // "bench", "partitions", overrides, --config per file, options
    static PartitionBenchJob fromArgs(const cmdline::Args& args);
    static PartitionBenchJob fromArgs(const std::vector<std::string>& words);
    static std::vector<cmdline::OptionSpec> optionSpecs();
    static const JobFields& fields(); // configs, modes, batch_sizes, epochs, backend, out, plot, recommend
};

struct LoaderBenchJob {
    static constexpr const char* kCommand = "bench loader";

    std::string images, dataset, split;                                                // "" when not given
    std::optional<int> batches, warmup, batch, width, height, threads, prefetch, seed; // within their ranges
    std::optional<std::string> mode;                                                   // pitwall or reference
    std::optional<std::string> dctScale;                                               // fast, any, any-up or full
    std::optional<std::string> decode;                                                 // region or whole
    bool noAugment = false, preprocessed = false;
    std::string cache;
    std::optional<std::string> database;

    std::vector<std::string> toArgs() const; // "bench", "loader", options
    // InputError for a positional or a value out of its range ("--NAME TEXT: give a whole number in A..B").
    static LoaderBenchJob fromArgs(const cmdline::Args& args);
    static LoaderBenchJob fromArgs(const std::vector<std::string>& words);
    static std::vector<cmdline::OptionSpec> optionSpecs(); // besides --json
    static const JobFields& fields(); // images (also what a dataset's problems go to), batches, warmup, ...
};

} // namespace pitwall
