#pragma once
// `pitwall bench variants` between its command line and its printing: the spec it builds from its words, and what
// it reports (--check and the finished table) as JSON and as text. Plain C++ (no torch); the benchmark itself is
// variantsbench.h.

#include "core/engine/train/variantsbench.h"
#include "core/jobs/benchjobs.h"
#include "core/util/cmdline.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pitwall::engine {

using pitwall::parseSeeds; // core/jobs/benchjobs.h

// The job's variants file and overrides, --seeds and --only applied, every variant resolved (the schema's warnings
// on stderr), the results at --db. InputError for a bad word. The second reads the job from a parsed command line.
VariantsBenchSpec variantsBenchSpecFromJob(const VariantsBenchJob& job);
VariantsBenchSpec variantsBenchSpec(const cmdline::Args& args);

// --check: {"ok", "name", "variants": [{"name", "study", "seeds"}], "runs", "driving"}
nlohmann::json variantsCheckJson(const VariantsBenchSpec& spec, const std::vector<VariantCheck>& checks);
// --check: "ok: variant 'NAME': study 'STUDY', N seed(s)" per variant, then "ok: would train ...".
std::string variantsCheckText(const VariantsBenchSpec& spec, const std::vector<VariantCheck>& checks);

// {"name", "seeds", "variants": [{"name", "study", "pretrain_seconds", "posttrain_seconds", "total_seconds",
// "compute_fps", "full_fps", "quality_metric", "quality_mean", "quality_std", "seeds"}]}, with
// "driving_score_mean", "driving_score_std" and "driving_score_stderr" per variant when the file drives.
nlohmann::json variantsResultJson(const VariantsFile& variants, const std::vector<VariantResult>& results);
// The same with "machine": {"load_before", "load_after", "other_cores_busy", "cores", "busy"} when it was measured.
nlohmann::json variantsResultJson(const VariantsFile& variants, const VariantsBenchResult& result);
// The table (Markdown or text), its legend, where the studies are, the paired driving differences, and the machine's
// load while it ran (MachineLoad::text: a WARNING line when other processes kept it busy).
std::string variantsResultText(const VariantsBenchSpec& spec, const VariantsBenchResult& result, bool markdown);

} // namespace pitwall::engine
