#pragma once
// The expert driver of the ego: follows the route's lanes (changing lanes when the route or a closed lane
// asks for it and the gap allows), keeps a safe gap to whatever is in its path (vehicles, pedestrians,
// obstacles), slows for curves and stops at red lights. Its future trajectory is the waypoint label.

#include "core/synth/world.h"

#include <array>

namespace pitwall::synth {

class ExpertPolicy {
public:
    // The ego's control for the next step. Updates the expert's memory: lane-change plan, target speed (the
    // speed it wants one second from now, m/s), route command and the reason it is slowing, if any.
    static EgoControl drive(const World& world, ExpertState& state);
};

constexpr int kWaypointCount = 8;
constexpr double kWaypointIntervalS = 0.25;

// Where the ego will be at 0.25, 0.5, ..., 2.0 s if the expert keeps driving: a copy of the world is rolled
// out (the other actors included, so the future is exactly the one World::step would produce). Points are in
// the current ego frame (x forward, y left, metres).
std::array<Vec2, kWaypointCount> expertWaypoints(const World& world, double stepS = 0.05);

} // namespace pitwall::synth
