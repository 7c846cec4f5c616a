#pragma once
// Which training workload a config describes, for matching throughput measurements to a later run: a measurement
// of partition modes (`pitwall bench partitions`) counts for a search (`pitwall hpo --partition auto`) when both
// train the same workload on the same machine and backend.
//
// The key is a digest of every resolved value except those a measurement or a search sets for itself, or that do
// not change the work per sample: experiment.* other than experiment.model (name, seeds, output folder), device.*,
// hpo.*, data.hpo_*, training.stages.* (how many epochs), and every key named batch_size, val_batch_size, epochs or
// warmup_epochs (the measurement tries batch sizes of its own). Any other change (the model, its layers, the data,
// the loader, precision, speed options) is another workload.
//
// Pure: any thread.

#include "core/config/config.h"

#include <string>

namespace pitwall {

// Whether `key` takes part in the workload key.
bool isWorkloadKey(const std::string& key);

// 16 hex digits (a 64-bit FNV-1a digest of "key=value" lines over the keys that take part, in key order).
std::string workloadKey(const ResolvedConfig& config);

} // namespace pitwall
