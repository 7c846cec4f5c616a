#pragma once
// `pitwall bench variants` between its command line and its printing: the spec it builds from its words, and what
// it reports (--check and the finished table) as JSON and as text. Plain C++ (no torch); the benchmark itself is
// variantsbench.h.

#include "core/engine/train/variantsbench.h"
#include "core/util/cmdline.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pitwall::engine {

// --seeds as a count (0..N-1, N >= 1) or a comma-separated list of seeds >= 0. InputError otherwise.
std::vector<std::int64_t> parseSeeds(const std::string& text);

// One variants file and any overrides from the positionals, --seeds and --only applied, every variant resolved
// (the schema's warnings on stderr), the results at --db. InputError for a bad word.
VariantsBenchSpec variantsBenchSpec(const cmdline::Args& args);

// --check: {"ok", "name", "variants": [{"name", "study", "seeds"}], "runs", "driving"}
nlohmann::json variantsCheckJson(const VariantsBenchSpec& spec, const std::vector<VariantCheck>& checks);
// --check: "ok: variant 'NAME': study 'STUDY', N seed(s)" per variant, then "ok: would train ...".
std::string variantsCheckText(const VariantsBenchSpec& spec, const std::vector<VariantCheck>& checks);

// {"name", "seeds", "variants": [{"name", "study", "pretrain_seconds", "posttrain_seconds", "total_seconds",
// "compute_fps", "full_fps", "quality_metric", "quality_mean", "quality_std", "seeds"}]}, with
// "driving_score_mean", "driving_score_std" and "driving_score_stderr" per variant when the file drives.
nlohmann::json variantsResultJson(const VariantsFile& variants, const std::vector<VariantResult>& results);
// The table (Markdown or text), its legend and where the studies are.
std::string variantsResultText(const VariantsBenchSpec& spec, const VariantsBenchResult& result, bool markdown);

} // namespace pitwall::engine
