#pragma once
// What `pitwall data synth` and `data info` report about a synthetic dataset, as JSON and as text, and the options
// `data synth` takes.

#include "core/synth/dataset.h"
#include "core/util/cmdline.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace pitwall::synth {

// The `data synth` options that are shorthands for data.synthetic.* keys (--frames, --seed, --episode-frames,
// --width, --height, --fov, --bev-width, --bev-height, --pixels-per-meter, --threads), for its help.
std::vector<cmdline::OptionSpec> synthKeyOptions();
// The positionals (config files and dotted.key=value overrides, as for `pitwall config`) with those options as
// data.synthetic.* overrides after them, resolved (the schema's warnings on stderr). InputError when invalid.
SynthOptions synthOptionsFromArgs(const cmdline::Args& args);

// {"dir", "frames", "episodes", "seconds", "frames_per_second", "bytes", "complete"} of a dataset written to `dir`.
nlohmann::json generationJson(const std::string& dir, const GenerationStats& stats);
// "wrote N frames in E episodes to DIR: S s, F frames/s, SIZE"
std::string generationText(const std::string& dir, const GenerationStats& stats);

// A progress reporter for writeSynthDataset that hands `line` one "  [ P%] done/total frames, F frames/s" line
// per tenth of `frames` (and at the end), timed from when it is made.
ProgressReporter decileProgress(int frames, std::function<void(const std::string&)> line);

// The dataset's description; `framesChecked` is how many frames were decoded (0: not checked).
nlohmann::json datasetInfoJson(const SynthDataset& dataset, int framesChecked);
// Two lines (frames, seed and version; camera and BEV geometry), and "  all N frames decode" when `checked`.
std::string datasetInfoText(const SynthDataset& dataset, bool checked, int framesChecked);

} // namespace pitwall::synth
