#pragma once
// `pitwall bench partitions` between its command line and its printing: the spec it builds from its options, and
// what it reports (--check and the measurement) as JSON and as text. Plain C++ (no torch); the benchmark itself is
// partitionbench.h.

#include "core/devices/partitionchoice.h"
#include "core/engine/train/partitionbench.h"
#include "core/jobs/benchjobs.h"
#include "core/util/cmdline.h"

#include <string>

namespace pitwall::engine {

// The config trained when none is given: looked up in the working directory, the source tree of a build, then the
// install tree.
inline constexpr const char* kPartitionBenchDefaultConfig = "configs/transfuser/smoke.yaml";

// The job's configs and overrides (kPartitionBenchDefaultConfig when no file), modes, batch sizes, epochs, backend,
// output folder, plot and database: one resolved config per batch size (the schema, with its warnings, is loaded once
// the options are checked). InputError naming the option for a bad value (a batch size the schema refuses names
// --batch-sizes). The second reads the job from a parsed command line.
PartitionBenchSpec partitionBenchSpecFromJob(const PartitionBenchJob& job);
PartitionBenchSpec partitionBenchSpec(const cmdline::Args& args);

// --check: {"ok", "backend", "modes": [{"mode", "available", "devices", "why"}], "batch_sizes", "epochs", "cells",
// "out", "plot"}
Json partitionCheckJson(const PartitionBenchSpec& spec, const PartitionBenchCheck& check);
// --check: a line per mode ("ok: MODE: N logical device(s), one trainer each" or "MODE: unavailable: WHY (left
// out)"), then "ok: would train N cell(s) ...".
std::string partitionCheckText(const PartitionBenchSpec& spec, const PartitionBenchCheck& check);

// The recommended mode (core/devices/partitionchoice.h) from the measured cells.
PartitionChoice partitionChoice(const PartitionBenchResult& result);
// A row per mode: logical devices, memory per logical device, the best batch size, its compute and full FPS, and
// whether it fits; the recommended mode is marked.
Table partitionModesTable(const PartitionChoice& choice);

// {"backend", "epochs", "plot", "rows": [{"mode", "batch_size", "compute_fps", "full_fps", "devices"}],
// "unavailable": [{"mode", "why"}], "recommended": MODE or null, "reason", "modes": [{"mode", "devices", "fits",
// "batch_size", "compute_fps", "full_fps"}] (each mode's best batch size)}
Json partitionResultJson(const PartitionBenchSpec& spec, const PartitionBenchResult& result);
// The heading, partitionTable as Markdown, the unavailable modes, the recommendation ("recommended: MODE (batch B):
// ..." with its reason), the plot and the output folder.
std::string partitionResultText(const PartitionBenchSpec& spec, const PartitionBenchResult& result);

} // namespace pitwall::engine
