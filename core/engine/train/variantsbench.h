#pragma once
// `pitwall bench variants FILE` as a function: every variant of a variants file (variants.h) trained for the
// file's seeds, each seed's run driven in closed loop when the file has a `driving` section, one benchmark record
// per variant (suite "variants"), and LEAD's speed table. Plain values only: no torch in this header.

#include "core/engine/train/variants.h"
#include "core/util/cancel.h"
#include "core/util/machineload.h"
#include "core/util/progress.h"

#include <string>
#include <vector>

namespace pitwall::engine {

// Every variant's configuration with `overrides` on top, each checked runnable (so a bad variant fails before
// anything trains). InputError "variant 'NAME': ..." otherwise.
std::vector<ResolvedConfig> resolveVariants(const Schema& schema, const VariantsFile& file,
                                            const std::vector<std::string>& overrides);

struct VariantsBenchSpec {
    VariantsFile file;                   // seeds and variants as they should run
    std::vector<ResolvedConfig> configs; // resolveVariants(), in the order of file.variants
    std::string storeLocation;
};

struct VariantsBenchResult {
    std::vector<VariantResult> results; // in the order of file.variants
    Table table{std::vector<std::string>{}}; // variantsTable()
    MachineLoad load;                        // how busy the machine was over the whole benchmark
};

// What runVariantsBench checks before it trains (`pitwall bench variants --check`), without writing anything (no
// results file, study, data or folder) beyond what resolveVariants() checked: each variant's data.root, output
// folder and results file (benchcheck.h). InputError "variant 'NAME': ..." for the first problem. Returns what
// would run, in the order of file.variants.
struct VariantCheck {
    std::string name;
    std::string study;               // "<file name>/<variant>"; an existing study gets the new trials
    std::vector<std::int64_t> seeds; // the file's (or --seeds), else the config's experiment.seeds
};
std::vector<VariantCheck> checkVariantsBench(const VariantsBenchSpec& spec);

// Runs the variants one after the other (checkVariantsBench first). Messages: "== variant I/N: NAME", then the
// experiment's lines indented by three spaces; progress: synthesising frames, per-step training and per-route
// driving progress.
VariantsBenchResult runVariantsBench(const VariantsBenchSpec& spec, CancelToken& cancel,
                                     const ProgressReporter& reporter);

} // namespace pitwall::engine
