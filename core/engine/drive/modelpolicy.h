#pragma once
// The trained-model driving policy: a run's model, loaded from its last checkpoint, drives through the
// simulator. Each plan renders the camera and the LiDAR raster from the simulator state at the sensor
// configuration the model was trained with (data.synthetic.* of the run's config; synth::renderSensors, no
// labels), builds the same input tensors as training (train/framebatch.h, planTensors; the navigation command
// comes from routeCommand()), and runs Model::plan, one batch for every route the simulator drives side by side.
// This is the only torch user of drive/, and only in its .cpp: the header is plain C++.

#include "core/drive/policy.h"
#include "core/store/store.h"
#include "core/synth/render.h"

#include <cstdint>
#include <memory>
#include <string>

namespace pitwall::drive {

struct ModelPolicyOptions {
    double planIntervalS = 0.1; // the model runs at 10 Hz; the simulator holds the plan in between
    // Torch intra-op threads (process-wide; 0 = keep the current setting). The float reductions, and so the
    // closed-loop trajectories, depend on it: the default pins one thread so scores are the same everywhere.
    int threads = 1;
};

// What was loaded, for messages and replays.
struct RunModelInfo {
    std::int64_t runId = 0;
    std::string model;      // experiment.model
    std::string checkpoint; // .model.pt file
    synth::SensorConfig sensors;
    synth::WorldOptions world; // traffic / pedestrian density of the training data
};

// Loads the model of run `runId` from its last post-train checkpoint (the last checkpoint of any stage when
// there is none) on the CPU, in eval mode. InputError when the run does not exist, has no checkpoint, its
// config no longer resolves, or its model cannot drive (Model::plan gives nothing).
std::unique_ptr<DrivingPolicy> loadRunPolicy(Store& store, std::int64_t runId, const ModelPolicyOptions& options = {},
                                             RunModelInfo* info = nullptr);

} // namespace pitwall::drive
