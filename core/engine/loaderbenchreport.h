#pragma once
// `pitwall bench loader` between its command line and its printing: the options it parses into the benchmark's
// LoaderBenchOptions, and what it reports (--check and the measurement) as JSON and as text. Plain C++ (no torch);
// the benchmark itself is core/engine/data/loaderbench.h.

#include "core/engine/data/loaderbench.h"
#include "core/jobs/benchjobs.h"
#include "core/util/cmdline.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pitwall::engine {

// The job's images or dataset, split, batches, warm-up, batch size, output size, threads, prefetch, seed,
// augmentation, pre-processed cache, mode, DCT scales and decode (defaults: batch 8 at 1024x372, 1000 batches after
// 300 warm-up). The second reads the job from a parsed command line: InputError for positionals or a value out of its
// range ("--NAME TEXT: give a whole number in A..B").
data::LoaderBenchOptions loaderBenchOptionsFromJob(const LoaderBenchJob& job);
data::LoaderBenchOptions loaderBenchOptions(const cmdline::Args& args);

// --check: {"ok", "mode", "dataset_kind", "root", "images", "workers", "batch", "width", "height", "batches",
// "warmup", "cache"}
nlohmann::json loaderBenchCheckJson(const data::LoaderBenchOptions& options, const data::LoaderBenchCheck& check);
// --check: "ok: KIND dataset of N images in ROOT" and "ok: would measure ..." (two lines).
std::string loaderBenchCheckText(const data::LoaderBenchOptions& options, const data::LoaderBenchCheck& check);

// The measurement with the loader's settings: ms/batch, CPU %, the decode floors, cache, load and problems.
nlohmann::json loaderBenchResultJson(const data::LoaderBenchResult& result, const data::LoaderOptions& loader);
// The same as lines of text; at most 20 problem files are named.
std::string loaderBenchResultText(const data::LoaderBenchResult& result, const data::LoaderOptions& loader);

} // namespace pitwall::engine
