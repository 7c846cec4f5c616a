#pragma once
// The passes of renderFrame, each over a built Scene.

#include "core/synth/internal/scene.h"
#include "core/synth/render.h"

namespace pitwall::synth::internal {

// RGB, semantic, depth and per-pixel instance ids (actor / light id, 0 for none).
void renderCamera(const Scene& scene, const WorldStyle& style, double timeS, const CameraConfig& config, Frame& frame,
                  std::vector<std::uint32_t>& instances);
void renderBevSemantic(const Scene& scene, const BevConfig& config, ImageU8& bev);
void renderLidar(const Scene& scene, const LidarConfig& lidar, const BevConfig& bev, ImageU16& counts,
                 ImageF32& feature);
FrameLabels makeLabels(const World& world, const SensorConfig& config, const std::vector<std::uint32_t>& instances);
// What the ego measures of itself and its route (renderSensors): speed, route target point, command and time; the
// other labels keep their defaults.
FrameLabels makeMeasurements(const World& world);

} // namespace pitwall::synth::internal
