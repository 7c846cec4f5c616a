#pragma once
// Creating a world (road, route, lights, closures, parked cars, scenery, initial traffic) and simulating
// everything but the ego (lights, other vehicles, pedestrians, keeping traffic around the ego).

#include "core/synth/world.h"

namespace pitwall::synth::internal {

class WorldBuilder {
public:
    static World build(std::uint64_t seed, const WorldOptions& options);

    // A driving vehicle of a random kind in `lane` at station s, moving at up to `speed`.
    static Actor makeVehicle(World& world, int lane, double s, double speed);
    // A pedestrian on a sidewalk at station s.
    static Actor makePedestrian(World& world, double s, bool rightSide);
    // Whether a vehicle could be placed in `lane` at s with `clearanceM` to every other vehicle there.
    static bool laneFree(const World& world, int lane, double s, double clearanceM);

private:
    static void chooseStyle(World& world);
    static void placeLights(World& world);
    static void placeClosures(World& world);
    static void planRoute(World& world);
    static void placeParkedCarsAndScenery(World& world);
    static void placeInitialTraffic(World& world);
};

class TrafficSimulation {
public:
    explicit TrafficSimulation(World& world) : m_world(world) {}
    // Lights, other vehicles and pedestrians, dt seconds on (the ego is moved by the World).
    void advance(double dt);
    // Removes actors far from the ego and spawns new ones out of sight to keep the density.
    void maintain();

private:
    void updateLights(double dt);
    void decideLaneChange(Actor& vehicle, double dt);
    double vehicleAcceleration(const Actor& vehicle) const;
    void updatePedestrian(Actor& pedestrian, double dt);
    bool jaywalkIsSafe(const Actor& pedestrian) const;
    // Whether a crossing pedestrian would walk into a vehicle (it waits then).
    bool vehicleInTheWay(const Actor& pedestrian) const;

    World& m_world;
};

} // namespace pitwall::synth::internal
