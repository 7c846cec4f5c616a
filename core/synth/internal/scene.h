#pragma once
// A world state turned into drawable primitives in the ego frame (x forward, y left, z up): ground quads
// painted in order (grass, sidewalks, asphalt, markings), solid boxes (vehicles, pedestrians, obstacles,
// lights, scenery: what the camera and the LiDAR see), decals on box faces (lamps, windows) and the
// bird's-eye-view polygons. Built once per frame and shared by the camera, LiDAR, BEV and label passes.

#include "core/synth/classes.h"
#include "core/synth/world.h"

#include <vector>

namespace pitwall::synth::internal {

struct SceneQuad {
    Vec3 corners[4]; // convex, in order
    Rgb colour;
    SemanticClass semantic = SemanticClass::Unlabeled;
    std::uint32_t instance = 0; // actor or light id; 0 = none
};

struct SceneBox {
    Vec2 centre; // ego frame
    double yaw = 0;
    double halfLength = 0, halfWidth = 0, zMin = 0, zMax = 0;
    Rgb colour;
    SemanticClass semantic = SemanticClass::Unlabeled;
    std::uint32_t instance = 0;
};

struct BevPolygon {
    Vec2 corners[4]; // ego frame, convex
    BevClass bevClass = BevClass::Unlabeled;
};

struct Scene {
    std::vector<SceneQuad> ground; // painter's order, all at z = 0
    std::vector<SceneBox> boxes;
    std::vector<SceneQuad> decals;      // depth-tested like boxes, drawn after them
    std::vector<BevPolygon> bevGround;  // painter's order
    std::vector<BevPolygon> bevObjects; // footprints, drawn over the ground
    Vec3 sunEgo;                        // towards the sun, ego frame
};

// Ego-frame BEV footprints of small objects are inflated to at least this many cells across so that every
// object covers the cell holding its centre.
constexpr double kMinFootprintCells = 1.5;

// bevCellM: side of a BEV cell (m), to widen lane markings and small footprints so they survive rasterising.
Scene buildScene(const World& world, double bevCellM);

// Parts of buildScene (scene.cpp: road, markings, lights; sceneobjects.cpp: actors and scenery).
void addRoad(const World& world, double bevCellM, Scene& scene);
void addLights(const World& world, Scene& scene);
void addActors(const World& world, double bevCellM, Scene& scene);
void addScenery(const World& world, Scene& scene);

// Shared helpers.
// World -> ego frame, with the rotation computed once.
struct EgoTransform {
    explicit EgoTransform(const Pose2& ego) : m_ego(ego), m_cos(std::cos(ego.yaw)), m_sin(std::sin(ego.yaw)) {}
    Vec2 point(Vec2 world) const
    {
        const Vec2 d = world - m_ego.position;
        return {m_cos * d.x + m_sin * d.y, -m_sin * d.x + m_cos * d.y};
    }
    double yaw(double worldYaw) const { return wrapAngle(worldYaw - m_ego.yaw); }

private:
    Pose2 m_ego;
    double m_cos, m_sin;
};
void addBevFootprint(Scene& scene, Vec2 centre, double yaw, double length, double width, BevClass bevClass,
                     double bevCellM);

// Range of stations around the ego that is drawn.
constexpr double kDrawBehindM = 50;
constexpr double kDrawAheadM = 165;

} // namespace pitwall::synth::internal
