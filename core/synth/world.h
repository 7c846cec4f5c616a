#pragma once
// The state of one synthetic driving episode and its simulation: a road with a route along it, the ego
// vehicle (a kinematic bicycle), other vehicles (car following, lane changes, cut-ins), pedestrians
// (sidewalk walkers, crossers at lights, jaywalkers), static obstacles, parked cars, traffic lights and
// roadside scenery. Everything random comes from one seed, so World::create(seed) and the same sequence of
// step() calls give the same states on any machine.
//
// A World is a value: copying it (cheap; the road and scenery are shared, immutable) gives an independent
// simulation, which is how the expert's future waypoints are rolled out. Not thread-safe; copies may be used
// from different threads.

#include "core/synth/classes.h"
#include "core/synth/geometry.h"
#include "core/synth/random.h"
#include "core/synth/road.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace pitwall::synth {

namespace internal {
class WorldBuilder;
class TrafficSimulation;
} // namespace internal

enum class ActorKind : std::uint8_t { Car, Van, Truck, Emergency, ParkedCar, Pedestrian, Cone, Barrel, Barrier };

// Car, Van, Truck, Emergency: vehicles that drive.
bool isDrivingVehicle(ActorKind kind);
// Cone, Barrel, Barrier.
bool isObstacle(ActorKind kind);

// Lateral motion of a vehicle: its offset d as a function of station, blending d0 -> d1 (smoothstep) while
// the station goes from s0 to s1 (s1 < s0 for oncoming traffic). Outside that span d is d0 or d1.
struct LateralPlan {
    double s0 = 0;
    double s1 = 0;
    double d0 = 0;
    double d1 = 0;

    double at(double s) const;
    // dd/ds at s.
    double slope(double s) const;
    bool changing(double s) const;
};

enum class WalkMode : std::uint8_t { Sidewalk, Crossing };

struct Actor {
    int id = 0;
    ActorKind kind = ActorKind::Car;
    double s = 0; // Frenet position of the footprint centre (m)
    double d = 0;
    double speed = 0;     // m/s along its heading, >= 0
    int direction = 0;    // +1 along the road, -1 oncoming, 0 static or pedestrian
    double yawOffset = 0; // heading relative to the road tangent in its direction of travel (rad); for
                          // pedestrians and static objects relative to +s
    double length = 4.5, width = 1.9, height = 1.5;
    Rgb color;

    // Driving vehicles.
    int lane = -1;
    int targetLane = -1;
    LateralPlan plan;
    double desiredSpeed = 0;
    double acceleration = 0;
    bool plansCutIn = false; // will cut into the ego lane once beside and ahead of the ego
    int waitsForLane = -1;   // blocked by a closure and waiting for a gap in this lane (others yield), or -1
    double cooldownS = 0;    // time before the next lane change (vehicles) or crossing (pedestrians)

    // Pedestrians.
    WalkMode walk = WalkMode::Sidewalk;
    double walkSpeed = 0;  // along s (m/s, signed)
    double crossSpeed = 0; // along d while crossing (m/s, signed)
    double crossToD = 0;   // lateral offset where the crossing ends
    bool jaywalker = false;
};

enum class LightState : std::uint8_t { Green, Yellow, Red };

// A signalled crossing. Forward traffic stops before `s`; the crosswalk spans [s + 1, s + 5]; oncoming traffic
// stops after s + kOncomingStopOffsetM.
struct TrafficLight {
    int id = 0;
    double s = 0;
    LightState state = LightState::Green;
    double timeInStateS = 0;
    double greenS = 12, yellowS = 3, redS = 10;

    static constexpr double kCrosswalkStartM = 1.0;
    static constexpr double kCrosswalkEndM = 5.0;
    static constexpr double kOncomingStopOffsetM = 6.0;
    double remainingS() const;
};

// A lane closed by cones and a barrier over [s0, s1].
struct LaneClosure {
    double s0 = 0;
    double s1 = 0;
    int lane = 0;
};

enum class SceneryKind : std::uint8_t { Building, Tree, Pole };

struct SceneryItem {
    SceneryKind kind = SceneryKind::Building;
    double s = 0, d = 0;
    double length = 10, width = 10, height = 8; // along s, across, up
    Rgb color;
};

struct EgoState {
    Pose2 pose;       // world pose of the footprint centre
    double speed = 0; // m/s, >= 0 (no reversing)
    double steer = 0; // front wheel angle (rad, positive left)
    double acceleration = 0;
    double length = 4.6, width = 1.9, height = 1.5, wheelbase = 2.8;
    // Derived after every step.
    FrenetPoint frenet;
    std::size_t roadHint = 0;
    int lane = 0;
};

struct EgoControl {
    double steerRad = 0;         // wanted front wheel angle, clamped to +-kMaxSteerRad
    double accelerationMps2 = 0; // clamped to [-kMaxBrakeMps2, kMaxAccelerationMps2]
};

enum class BrakeReason : std::uint8_t { None, LeadVehicle, Pedestrian, Obstacle, RedLight, Curve };
const char* brakeReasonName(BrakeReason reason);

// The expert's memory (part of the world so copies roll out identically).
struct ExpertState {
    int targetLane = 0;
    int waitsForLane = -1; // blocked by a closure and waiting for a gap in this lane, or -1
    LateralPlan plan;
    double targetSpeed = 0;
    DrivingCommand command = DrivingCommand::FollowLane;
    BrakeReason reason = BrakeReason::None;
};

// Appearance of an episode (time of day, weather).
struct WorldStyle {
    Rgb skyZenith, skyHorizon, grass, asphalt, sidewalk, laneWhite, laneYellow;
    Vec3 sunDirection{0.3, 0.4, 0.87}; // unit vector towards the sun, world frame
    double ambient = 0.55;             // share of light that does not depend on the sun
    double visibilityM = 250;          // fog: contrast halves every visibilityM * ln 2
    std::uint64_t noiseSeed = 0;
};

struct WorldOptions {
    double durationS = 30; // driving time the road must be long enough for
    RoadShape roadShape = RoadShape::Winding;
    double trafficDensity = 1.0;    // multiplier on the number of other vehicles
    double pedestrianDensity = 1.0; // multiplier on the number of pedestrians
};

class World {
public:
    static World create(std::uint64_t seed, const WorldOptions& options = {});

    // Advances by dt seconds (0 < dt <= 0.1) with the expert driving the ego.
    void step(double dt);
    // Advances by dt seconds with the caller driving the ego (closed loop).
    void step(double dt, const EgoControl& control);

    const Road& road() const { return *m_road; }
    const EgoState& ego() const { return m_ego; }
    const std::vector<Actor>& actors() const { return m_actors; }
    const std::vector<TrafficLight>& lights() const { return m_lights; }
    const std::vector<LaneClosure>& closures() const { return m_closures; }
    const std::vector<SceneryItem>& scenery() const { return *m_scenery; }
    const WorldStyle& style() const { return m_style; }
    const ExpertState& expert() const { return m_expert; }
    double time() const { return m_timeS; }
    double speedLimit() const { return m_speedLimit; }

    // World pose of an actor's footprint centre.
    Pose2 actorPose(const Actor& actor) const;
    // Lane the route follows at station s (a forward lane).
    int routeLane(double s) const;
    // The next route point 15-30 m ahead of the ego (world position, on the route lane's centre).
    Vec2 routeTargetPoint() const;
    // First light whose stop line is ahead of station s within rangeM, or nullptr.
    const TrafficLight* nextLight(double s, double rangeM) const;
    // Id of an actor whose footprint overlaps the ego's, or -1.
    int egoCollision() const;
    // Whether the ego's footprint lies within the forward lanes.
    bool egoInForwardLanes() const;

    static constexpr double kMaxSteerRad = 0.6;
    static constexpr double kMaxAccelerationMps2 = 3.0;
    static constexpr double kMaxBrakeMps2 = 9.0;

private:
    friend class internal::WorldBuilder;
    friend class internal::TrafficSimulation;
    World() = default;
    void updateEgo(double dt, const EgoControl& control);

    std::shared_ptr<const Road> m_road;
    std::shared_ptr<const std::vector<SceneryItem>> m_scenery;
    std::vector<std::pair<double, int>> m_route; // (end station, lane) pieces, in order
    EgoState m_ego;
    ExpertState m_expert;
    std::vector<Actor> m_actors;
    std::vector<TrafficLight> m_lights;
    std::vector<LaneClosure> m_closures;
    WorldStyle m_style;
    WorldOptions m_options;
    Rng m_rng;
    double m_timeS = 0;
    double m_speedLimit = 12;
    double m_maintenanceTimerS = 0;
    int m_nextId = 1;
};

} // namespace pitwall::synth
