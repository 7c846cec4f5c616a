#include "core/synth/expert.h"

#include "core/synth/internal/driving.h"

#include <algorithm>

namespace pitwall::synth {

namespace {

using namespace internal;

const IdmParams kExpertIdm{2.0, 3.0, 1.5};
constexpr double kLateralAccelerationMps2 = 2.5; // comfortable in curves
constexpr double kCurveBrakeMps2 = 2.0;
// A constraint is "the reason" when it takes at least this much off the free-road acceleration.
constexpr double kReasonMarginMps2 = 0.3;

// Starts a lane change when the route or a closed lane asks for one and the target lane has room.
void planLaneChange(const World& world, ExpertState& state)
{
    const Road& road = world.road();
    const EgoState& ego = world.ego();
    const double s = ego.frenet.s;
    state.waitsForLane = -1;
    if (state.plan.changing(s))
        return;
    const int lanes = road.layout().forwardLanes;
    int wanted = -1;
    const bool blocked = closureAhead(world, state.targetLane, s, 60) >= 0;
    if (blocked) {
        for (int candidate : {state.targetLane + 1, state.targetLane - 1})
            if (candidate >= 0 && candidate < lanes && closureAhead(world, candidate, s - 10, 70) < 0) {
                wanted = candidate;
                break;
            }
    } else {
        const int route = world.routeLane(s + std::max(30.0, ego.speed * 3));
        if (route != state.targetLane)
            wanted = state.targetLane + (route > state.targetLane ? 1 : -1);
    }
    if (wanted < 0)
        return;
    // The change must be complete before reaching whatever stands ahead in this lane (the pursuit controller
    // lags its path, so keep 4 m spare). Blocked by a closure, the ego may steer out more sharply.
    const double usual = std::max(10.0, 3.0 * ego.speed);
    PathQuery stay;
    stay.s = s;
    stay.halfLength = ego.length / 2;
    stay.halfWidth = ego.width / 2;
    stay.plan = state.plan;
    stay.lookaheadM = blocked ? closureAhead(world, state.targetLane, s, 60) + ego.length : usual + 10;
    stay.includeEgo = false;
    const double changeLength = std::min(usual, laneLeavingRoom(world, stay, blocked) - 4);
    if (changeLength < (blocked && ego.speed < 3 ? 7.0 : usual))
        return;
    if (blocked)
        state.waitsForLane = wanted; // others make room; cleared once the change starts
    if (!laneChangeIsSafe(world, s, ego.speed, 1, wanted, 0, ego.length / 2, 8, 1.0, changeLength))
        return;
    state.plan = {s, s + changeLength, ego.frenet.d, road.laneCentre(wanted)};
    state.targetLane = wanted;
    state.waitsForLane = -1;
}

DrivingCommand commandFor(const World& world, const ExpertState& state)
{
    const EgoState& ego = world.ego();
    if (state.plan.changing(ego.frenet.s))
        return state.plan.d1 > state.plan.d0 ? DrivingCommand::ChangeLaneLeft : DrivingCommand::ChangeLaneRight;
    const int route = world.routeLane(ego.frenet.s + std::max(30.0, ego.speed * 3));
    if (route != state.targetLane)
        return route > state.targetLane ? DrivingCommand::ChangeLaneLeft : DrivingCommand::ChangeLaneRight;
    return DrivingCommand::FollowLane;
}

double pursuitSteer(const World& world, const ExpertState& state)
{
    const Road& road = world.road();
    const EgoState& ego = world.ego();
    const Vec2 rearAxle = ego.pose.position - direction(ego.pose.yaw) * (ego.wheelbase / 2);
    const double lookahead = clampValue(4 + 0.8 * ego.speed, 6, 20);
    const double s = ego.frenet.s + lookahead;
    const Vec2 target = road.point(s, state.plan.at(s));
    const Vec2 local = Pose2{rearAxle, ego.pose.yaw}.toLocal(target);
    const double alpha = std::atan2(local.y, local.x);
    return std::atan2(2 * ego.wheelbase * std::sin(alpha), std::max(local.norm(), 1.0));
}

// Highest speed from which every curve within 80 m can be entered comfortably.
double curveSpeed(const Road& road, double s, double limit)
{
    double best = limit;
    for (double x = 0; x <= 80; x += 5) {
        const double kappa = std::max(road.maxAbsCurvature(s + x - 3, s + x + 3), 1e-4);
        const double inCurve = std::sqrt(kLateralAccelerationMps2 / kappa);
        best = std::min(best, std::sqrt(inCurve * inCurve + 2 * kCurveBrakeMps2 * x));
    }
    return best;
}

} // namespace

EgoControl ExpertPolicy::drive(const World& world, ExpertState& state)
{
    const EgoState& ego = world.ego();
    const double s = ego.frenet.s, v = ego.speed;
    planLaneChange(world, state);
    state.command = commandFor(world, state);

    const double limit = world.speedLimit();
    const double desired = curveSpeed(world.road(), s, limit);
    double a = idmFree(v, desired, kExpertIdm);
    BrakeReason reason = desired < limit - 0.3 && v > desired - 0.5 ? BrakeReason::Curve : BrakeReason::None;

    PathQuery query;
    query.s = s;
    query.speed = v;
    query.direction = 1;
    query.halfLength = ego.length / 2;
    query.halfWidth = ego.width / 2;
    query.plan = state.plan;
    query.lookaheadM = std::max(50.0, v * 4 + 20);
    query.selfId = 0;
    query.includeEgo = false;
    const Obstruction obstruction = nearestObstruction(world, query);
    if (obstruction.found) {
        // Static obstacles close a lane: stop far enough back to steer around them once the next lane is free.
        const double minGap = obstruction.reason == BrakeReason::LeadVehicle  ? 3.0
                              : obstruction.reason == BrakeReason::Pedestrian ? 5.0
                                                                              : 19.0;
        const double follow = idmFollow(v, desired, obstruction.gapM, obstruction.speedAlongMps, minGap, kExpertIdm);
        if (follow < a - kReasonMarginMps2)
            reason = obstruction.reason;
        a = std::min(a, follow);
    }
    const double stop = stopLineGap(world, s, 1, ego.length / 2, v);
    if (stop >= 0) {
        const double follow = idmFollow(v, desired, stop, 0, 1.5, kExpertIdm);
        if (follow < a - kReasonMarginMps2 || (follow <= a && v < 0.5))
            reason = BrakeReason::RedLight;
        a = std::min(a, follow);
    }
    state.reason = reason;
    state.targetSpeed = clampValue(v + a * 1.0, 0, desired);
    return {pursuitSteer(world, state), a};
}

std::array<Vec2, kWaypointCount> expertWaypoints(const World& world, double stepS)
{
    World future = world;
    const Pose2 origin = world.ego().pose;
    const int stepsPerWaypoint = std::max(1, static_cast<int>(std::lround(kWaypointIntervalS / stepS)));
    const double dt = kWaypointIntervalS / stepsPerWaypoint;
    std::array<Vec2, kWaypointCount> points;
    for (int k = 0; k < kWaypointCount; ++k) {
        for (int j = 0; j < stepsPerWaypoint; ++j)
            future.step(dt);
        points[static_cast<std::size_t>(k)] = origin.toLocal(future.ego().pose.position);
    }
    return points;
}

} // namespace pitwall::synth
