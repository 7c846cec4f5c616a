#pragma once
// Sensors and labels rendered from a world state: exactly what TransFuser trains on.
//
// - Front camera: RGB (8-bit, row-major, interleaved), perspective semantic classes (SemanticClass) and
//   planar depth (metres along the optical axis; sky and anything beyond kSkyDepthM is kSkyDepthM), from a
//   pinhole camera at CameraConfig's pose in the ego frame.
// - LiDAR: a spinning LiDAR ray-cast against the ground and every solid object, accumulated into a bird's-eye
//   histogram on the BEV grid: counts per cell, and the network input min(count, 5) / 5 as LEAD does.
// - BEV semantic classes (BevClass) on the same grid.
// - Labels: BEV boxes and image boxes with CIPO levels, the expert's future waypoints, target speed, route
//   target point, current speed and the route command.
//
// BEV grid: column c covers x (forward) in [xMin + c/ppm, xMin + (c+1)/ppm); row r covers y (left) in
// [yMax - (r+1)/ppm, yMax - r/ppm) with yMax = height / (2 ppm): forward is to the right, left is up.

#include "core/synth/expert.h"
#include "core/synth/world.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace pitwall::synth {

struct CameraConfig {
    int width = 256;
    int height = 96;
    double horizontalFovDeg = 90;
    double forwardM = 0.8; // camera position in the ego frame
    double heightM = 1.5;
    double pitchDownDeg = 4; // positive looks down

    double focalPx() const; // fx = fy
    double centreX() const { return width / 2.0; }
    double centreY() const { return height / 2.0; }
};

struct BevConfig {
    int width = 96;  // cells along x (forward)
    int height = 80; // cells along y (lateral)
    double pixelsPerMeter = 2;
    double xMinM = -16; // rear edge of the grid

    double xMaxM() const { return xMinM + width / pixelsPerMeter; }
    double yMaxM() const { return height / (2 * pixelsPerMeter); }
    double cellM() const { return 1 / pixelsPerMeter; }
};

struct LidarConfig {
    int channels = 64;
    int azimuthSteps = 512;
    double upperFovDeg = 10;
    double lowerFovDeg = -30;
    double heightM = 2.5; // above the ground at the ego centre
    double maxRangeM = 80;
    int histogramMaxPerCell = 5;
};

struct SensorConfig {
    CameraConfig camera;
    BevConfig bev;
    LidarConfig lidar;
};

constexpr double kSkyDepthM = 255;

struct ImageU8 {
    int width = 0;
    int height = 0;
    int channels = 1;
    std::vector<std::uint8_t> pixels; // row-major, channels interleaved
};

struct ImageU16 {
    int width = 0;
    int height = 0;
    std::vector<std::uint16_t> pixels;
};

struct ImageF32 {
    int width = 0;
    int height = 0;
    std::vector<float> pixels;
};

// An object's box on the BEV plane, ego frame.
struct BevBox {
    double x = 0, y = 0;          // centre (m)
    double length = 0, width = 0; // m
    double yaw = 0;               // rad, relative to the ego's heading
    double speed = 0;             // m/s
};

// The visible pixels of an object in the camera image (tight box around them, pixels).
struct ImageBox {
    int x = 0, y = 0, width = 0, height = 0;
    int visiblePixels = 0;
};

struct ObjectLabel {
    int id = 0; // actor or light id, stable over an episode
    BoxClass boxClass = BoxClass::Vehicle;
    CipoLevel cipo = CipoLevel::Other;
    std::optional<int> relativeLane; // lane of the centre minus the ego lane (left positive); none off the lanes
    std::optional<BevBox> bev;       // when the centre is on the BEV grid
    std::optional<ImageBox> image;   // when at least kMinVisiblePixels are visible
};

constexpr int kMinVisiblePixels = 4;

struct FrameLabels {
    std::vector<ObjectLabel> objects;
    std::array<Vec2, kWaypointCount> waypoints{}; // ego frame, 0.25 s apart
    double targetSpeed = 0;                       // m/s
    Vec2 targetPoint;                             // route target, ego frame
    double speed = 0;                             // m/s
    DrivingCommand command = DrivingCommand::FollowLane;
    BrakeReason brakeReason = BrakeReason::None;
    double steer = 0, acceleration = 0; // the ego's current wheel angle (rad) and m/s^2
    int egoLane = 0, targetLane = 0, forwardLanes = 0;
    double laneOffsetM = 0;               // ego centre minus its lane centre (left positive)
    std::optional<LightState> lightState; // next light within 80 m
    double lightDistanceM = 0;
    double timeS = 0;
};

struct Frame {
    ImageU8 rgb;          // 3 channels
    ImageU8 semantic;     // SemanticClass per pixel
    ImageF32 depth;       // metres
    ImageU8 bevSemantic;  // BevClass per cell
    ImageU16 lidarCounts; // LiDAR returns per cell
    ImageF32 lidar;       // min(count, histogramMaxPerCell) / histogramMaxPerCell
    FrameLabels labels;
};

// Renders every sensor and label of the current state. Deterministic: the same world state gives the same
// bytes. About 2-3 ms of one core at the default sizes, the 2 s waypoint roll-out included.
Frame renderFrame(const World& world, const SensorConfig& config);

// What a driving policy may see in closed loop: the camera (rgb, and its semantic and depth images, which the same
// pass makes), the LiDAR, and the ego's own measurements in labels (speed, route target point, command, time),
// each equal to renderFrame's. No ground truth: no BEV semantic, no object or light labels, and no expert waypoints
// or target speed (whose 2 s roll-out is most of renderFrame's label cost).
Frame renderSensors(const World& world, const SensorConfig& config);

} // namespace pitwall::synth
