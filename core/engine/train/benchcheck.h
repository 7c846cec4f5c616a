#pragma once
// What the benchmarks that train (`bench variants`, `bench partitions`) check of every configuration before
// anything runs, as their `--check` and their real start do. Plain values only: no torch in this header.

#include "core/config/config.h"

#include <string>

namespace pitwall::engine {

// data.root is a folder when set (else the synthetic world is generated under experiment.output_dir),
// experiment.output_dir can be created, and so can the results file of `storeLocation`. Creates nothing;
// InputError naming the key or path otherwise.
void checkTrainingPaths(const ResolvedConfig& config, const std::string& storeLocation);

} // namespace pitwall::engine
