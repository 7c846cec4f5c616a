#pragma once
// Shared fixtures of the engine tests: a resolved config with overrides, a small synthetic dataset, and a
// batch of real frames from it.

#include "core/config/config.h"
#include "core/engine/train/framebatch.h"
#include "core/synth/dataset.h"

#include <QTemporaryDir>
#include <QtTest>

#include <string>
#include <vector>

namespace enginetest {

// The sizes of configs/transfuser/smoke.yaml, small enough for many forward passes in a test.
inline std::vector<std::string> smallOverrides()
{
    return {"data.synthetic.image_width=128", "data.synthetic.image_height=48", "data.synthetic.bev_width=48",
            "data.synthetic.bev_height=40",   "data.synthetic.pixels_per_meter=1", "data.synthetic.bev_x_min_m=-8",
            "policy.transfuser.width=8",      "policy.transfuser.token_dim=32",   "policy.transfuser.planning_layers=1",
            "training.optimization.batch_size=4"};
}

inline pitwall::ResolvedConfig config(std::vector<std::string> overrides = {})
{
    std::vector<std::string> all = smallOverrides();
    all.insert(all.end(), overrides.begin(), overrides.end());
    return pitwall::resolveConfig(pitwall::loadSchema(), {}, all);
}

// Writes a dataset of `frames` frames with the sizes of `cfg` into dir/data and returns the folder.
inline std::string makeDataset(const QTemporaryDir& dir, const pitwall::ResolvedConfig& cfg, int frames)
{
    pitwall::synth::SynthOptions options = pitwall::synth::synthOptionsFromConfig(cfg);
    options.frames = frames;
    options.episodeFrames = std::min(frames, 20);
    const std::string path = dir.filePath("data").toStdString();
    pitwall::synth::writeSynthDataset(path, options);
    return path;
}

inline pitwall::engine::Batch loadBatch(const pitwall::synth::SynthDataset& data, const pitwall::engine::DataSpec& spec,
                                        int first, int count)
{
    std::vector<std::map<std::string, torch::Tensor>> samples;
    for (int i = first; i < first + count; ++i)
        samples.push_back(pitwall::engine::frameTensors(data.readFrame(i), data.sensors().bev, spec));
    return pitwall::engine::collate(samples);
}

} // namespace enginetest
