// Everything in the world that moves on its own: traffic lights, other vehicles, pedestrians.
#include "core/synth/internal/driving.h"
#include "core/synth/internal/worldbuilder.h"

#include <algorithm>

namespace pitwall::synth::internal {

namespace {

constexpr double kRemoveBehindM = 90;
constexpr double kRemoveAheadM = 260;
constexpr double kPedestrianRemoveBehindM = 50;
constexpr double kPedestrianRemoveAheadM = 190;

const IdmParams kTrafficIdm{1.8, 3.0, 1.3};

} // namespace

void TrafficSimulation::advance(double dt)
{
    updateLights(dt);
    std::vector<Actor>& actors = m_world.m_actors;
    for (Actor& a : actors)
        if (isDrivingVehicle(a.kind))
            decideLaneChange(a, dt);
    // Accelerations from one snapshot, then integration, so the update order does not matter.
    std::vector<double> accelerations(actors.size(), 0.0);
    for (std::size_t i = 0; i < actors.size(); ++i)
        if (isDrivingVehicle(actors[i].kind))
            accelerations[i] = vehicleAcceleration(actors[i]);
    const Road& road = m_world.road();
    for (std::size_t i = 0; i < actors.size(); ++i) {
        Actor& a = actors[i];
        if (a.kind == ActorKind::Pedestrian) {
            updatePedestrian(a, dt);
            continue;
        }
        if (!isDrivingVehicle(a.kind))
            continue;
        const double before = a.speed;
        a.speed = std::max(0.0, a.speed + accelerations[i] * dt);
        a.acceleration = (a.speed - before) / dt;
        const double scale = clampValue(1.0 / (1.0 - road.curvature(a.s) * a.d), 0.5, 2.0);
        a.s += a.direction * 0.5 * (before + a.speed) * std::cos(a.yawOffset) * dt * scale;
        a.d = a.plan.at(a.s);
        // These vehicles turn about their centre; limiting the yaw keeps the tail of a long vehicle side-stepping
        // slowly from swinging more than 0.6 m out of its lane.
        const double maxYaw = std::atan(0.6 / (a.length / 2));
        a.yawOffset = clampValue(std::atan(a.plan.slope(a.s)), -maxYaw, maxYaw);
        const int lane = road.laneAt(a.d);
        if (lane >= 0)
            a.lane = lane;
        if (!a.plan.changing(a.s))
            a.lane = a.targetLane;
        a.cooldownS -= dt;
    }
}

void TrafficSimulation::updateLights(double dt)
{
    for (TrafficLight& light : m_world.m_lights) {
        light.timeInStateS += dt;
        const double duration = light.state == LightState::Green    ? light.greenS
                                : light.state == LightState::Yellow ? light.yellowS
                                                                    : light.redS;
        if (light.timeInStateS < duration)
            continue;
        light.timeInStateS -= duration;
        light.state = light.state == LightState::Green    ? LightState::Yellow
                      : light.state == LightState::Yellow ? LightState::Red
                                                          : LightState::Green;
    }
}

void TrafficSimulation::decideLaneChange(Actor& v, double dt)
{
    const Road& road = m_world.road();
    const int lanes = road.layout().forwardLanes;
    v.waitsForLane = -1;
    if (v.direction < 0)
        return;
    // A plan that returns to the lane the vehicle is in (an abandoned change) does not stop new decisions.
    if (v.plan.changing(v.s) && std::abs(v.plan.d1 - v.plan.d0) > 1.0) {
        // A change decided while standing may have become unsafe before the vehicle got going: give it up while it
        // has barely left its lane.
        const double progress = (v.s - v.plan.s0) / (v.plan.s1 - v.plan.s0);
        const int from = road.laneAt(v.plan.d0);
        if (progress < 0.25 && from >= 0 && from != v.targetLane &&
            !laneChangeIsSafe(m_world, v.s, v.speed, 1, v.targetLane, v.id, v.length / 2, 2.0, 0.3, v.plan.s1 - v.s)) {
            v.plan = {v.s, v.s + 8.0, v.d, road.laneCentre(from)};
            v.targetLane = from;
            v.cooldownS = 4;
        }
        return;
    }
    int want = -1;
    double frontGap = 8, rearHeadway = 1.0;
    bool cutIn = false;
    const bool blocked = closureAhead(m_world, v.lane, v.s, 70) >= 0;
    if (blocked) {
        for (int candidate : {v.lane + 1, v.lane - 1})
            if (candidate >= 0 && candidate < lanes && closureAhead(m_world, candidate, v.s - 10, 80) < 0) {
                want = candidate;
                break;
            }
        frontGap = 4;
        rearHeadway = 0.6;
    } else if (v.cooldownS > 0) {
        return;
    } else if (v.plansCutIn) {
        const EgoFrenet ego = egoFrenet(m_world);
        const int egoLane = m_world.ego().lane;
        const double lead = (v.s - v.length / 2) - (ego.s + ego.halfLength);
        if (std::abs(v.lane - egoLane) == 1 && lead >= std::max(6.0, 0.6 * ego.speedAlong) && lead <= 20 &&
            v.speed >= ego.speedAlong - 0.5) {
            want = egoLane;
            cutIn = true;
            frontGap = 5;
            rearHeadway = 0.4;
        }
    } else if (lanes > 1 && m_world.m_rng.chance(dt / 40)) {
        want = v.lane + (m_world.m_rng.chance(0.5) ? 1 : -1);
        if (want < 0 || want >= lanes)
            want = -1;
    }
    if (want < 0)
        return;
    // The change must be complete before whatever stands ahead in this lane. These vehicles follow their plan
    // exactly, so a blocked one may side-step in less than the usual length; the others wait for room.
    const double usual = std::max(10.0, 2.8 * v.speed);
    PathQuery stay;
    stay.s = v.s;
    stay.halfLength = v.length / 2;
    stay.halfWidth = v.width / 2;
    stay.plan = v.plan;
    stay.lookaheadM = blocked ? closureAhead(m_world, v.lane, v.s, 70) + v.length : usual + 10;
    stay.selfId = v.id;
    const double room = laneLeavingRoom(m_world, stay, blocked);
    const double shortest = blocked ? std::max(6.0, 1.2 * v.length) : usual;
    const double changeLength = std::min(std::max(usual, shortest), room - 1.0);
    if (changeLength < shortest)
        return; // queued behind something standing: not its turn
    if (blocked)
        v.waitsForLane = want; // others make room; cleared once the change starts
    if (!laneChangeIsSafe(m_world, v.s, v.speed, 1, want, v.id, v.length / 2, frontGap, rearHeadway, changeLength))
        return;
    v.plan = {v.s, v.s + changeLength, v.d, road.laneCentre(want)};
    v.targetLane = want;
    v.waitsForLane = -1;
    v.cooldownS = 8;
    if (cutIn)
        v.plansCutIn = false;
}

double TrafficSimulation::vehicleAcceleration(const Actor& v) const
{
    const Road& road = m_world.road();
    const double ahead = v.s + v.direction * 40;
    const double kappa = road.maxAbsCurvature(std::min(v.s, ahead), std::max(v.s, ahead));
    const double desired = std::min(v.desiredSpeed, std::sqrt(2.5 / std::max(kappa, 1e-4)));
    double a = idmFree(v.speed, desired, kTrafficIdm);
    PathQuery query;
    query.s = v.s;
    query.speed = v.speed;
    query.direction = v.direction;
    query.halfLength = v.length / 2;
    query.halfWidth = v.width / 2;
    query.plan = v.plan;
    query.lookaheadM = std::max(40.0, v.speed * 4);
    query.selfId = v.id;
    const Obstruction obstruction = nearestObstruction(m_world, query);
    if (obstruction.found) {
        const double minGap = obstruction.reason == BrakeReason::LeadVehicle  ? 2.5
                              : obstruction.reason == BrakeReason::Pedestrian ? 4.0
                                                                              : 15.0;
        a = std::min(a, idmFollow(v.speed, desired, obstruction.gapM, obstruction.speedAlongMps, minGap, kTrafficIdm));
    }
    const double stop = stopLineGap(m_world, v.s, v.direction, v.length / 2, v.speed);
    if (stop >= 0)
        a = std::min(a, idmFollow(v.speed, desired, stop, 0, 1.0, kTrafficIdm));
    return a;
}

void TrafficSimulation::updatePedestrian(Actor& p, double dt)
{
    Rng& rng = m_world.m_rng;
    const Road& road = m_world.road();
    p.cooldownS -= dt;
    if (p.walk == WalkMode::Sidewalk) {
        p.s += p.walkSpeed * dt;
        bool cross = false;
        double speed = 1.5;
        if (p.cooldownS <= 0) {
            for (const TrafficLight& light : m_world.lights()) {
                if (p.s < light.s + 1.5 || p.s > light.s + 4.5 || light.state != LightState::Red ||
                    light.timeInStateS < 1.0)
                    continue;
                const double width = road.leftSidewalkCentre() - road.rightSidewalkCentre();
                cross =
                    light.remainingS() >= 0.6 * width / speed && rng.chance(dt * 1.5); // vehicles yield to latecomers
            }
            if (!cross && p.jaywalker && jaywalkIsSafe(p) && rng.chance(dt * 0.7)) {
                cross = true;
                speed = rng.uniform(1.4, 1.8);
                p.jaywalker = false;
            }
        }
        if (cross) {
            p.walk = WalkMode::Crossing;
            const bool fromRight = p.d < 0;
            p.crossToD = (fromRight ? road.leftSidewalkCentre() : road.rightSidewalkCentre()) + rng.uniform(-0.5, 0.5);
            p.crossSpeed = fromRight ? speed : -speed;
        }
    } else if (!vehicleInTheWay(p)) {
        p.d += p.crossSpeed * dt;
        if (p.crossSpeed > 0 ? p.d >= p.crossToD : p.d <= p.crossToD) {
            p.d = p.crossToD;
            p.walk = WalkMode::Sidewalk;
            p.crossSpeed = 0;
            p.cooldownS = 30;
            p.walkSpeed = rng.uniform(1.0, 1.6) * (rng.chance(0.5) ? 1 : -1);
        }
    }
    if (p.walk == WalkMode::Crossing)
        p.yawOffset = p.crossSpeed > 0 ? kPi / 2 : -kPi / 2;
    else
        p.yawOffset = p.walkSpeed > 0 ? 0 : kPi;
    p.speed = p.walk == WalkMode::Crossing ? std::abs(p.crossSpeed) : std::abs(p.walkSpeed);
}

bool TrafficSimulation::vehicleInTheWay(const Actor& p) const
{
    // A probe just ahead of the pedestrian in its walking direction.
    const double step = p.crossSpeed > 0 ? 0.6 : -0.6;
    const Pose2 probe{m_world.road().point(p.s, p.d + step), 0};
    auto overlaps = [&](const Pose2& pose, double length, double width) {
        return footprintsOverlap(probe.position, 0.35, 0.35, 0, pose.position, length / 2, width / 2, pose.yaw);
    };
    for (const Actor& a : m_world.actors())
        if ((isDrivingVehicle(a.kind) || a.kind == ActorKind::ParkedCar) && std::abs(a.s - p.s) < 10 &&
            overlaps(m_world.actorPose(a), a.length, a.width))
            return true;
    const EgoState& ego = m_world.ego();
    return std::abs(ego.frenet.s - p.s) < 10 && overlaps(ego.pose, ego.length, ego.width);
}

bool TrafficSimulation::jaywalkIsSafe(const Actor& p) const
{
    for (const TrafficLight& light : m_world.lights())
        if (std::abs(p.s - light.s) < 35)
            return false;
    // Only in front of the ego, far enough that it can stop comfortably, near enough that it has to.
    const EgoState& ego = m_world.ego();
    const double need = ego.speed * ego.speed / 6 + 15;
    const double ahead = p.s - ego.frenet.s;
    if (ahead < need || ahead > need + 30)
        return false;
    for (const LaneClosure& c : m_world.closures())
        if (p.s > c.s0 - 10 && p.s < c.s1 + 10)
            return false;
    for (const Actor& a : m_world.actors()) {
        if ((a.kind == ActorKind::ParkedCar || isObstacle(a.kind)) && std::abs(a.s - p.s) < a.length / 2 + 1.5)
            return false; // would walk through it
        if (!isDrivingVehicle(a.kind))
            continue;
        const double distance = (p.s - a.s) * a.direction;
        if (distance > -6 && distance < a.speed * a.speed / 6 + 15)
            return false;
    }
    return true;
}

void TrafficSimulation::maintain()
{
    World& w = m_world;
    const double egoS = w.m_ego.frenet.s;
    auto& actors = w.m_actors;
    actors.erase(std::remove_if(actors.begin(), actors.end(),
                                [&](const Actor& a) {
                                    if (isDrivingVehicle(a.kind))
                                        return a.s < egoS - kRemoveBehindM || a.s > egoS + kRemoveAheadM;
                                    if (a.kind == ActorKind::Pedestrian)
                                        return a.s < egoS - kPedestrianRemoveBehindM ||
                                               a.s > egoS + kPedestrianRemoveAheadM;
                                    return false;
                                }),
                 actors.end());
    const Road& road = w.road();
    Rng& rng = w.m_rng;
    const double density = std::max(0.0, w.m_options.trafficDensity);
    for (int lane = 0; lane < road.laneCount(); ++lane) {
        const bool oncoming = road.isOncoming(lane);
        int count = 0;
        for (const Actor& a : actors)
            count += isDrivingVehicle(a.kind) && a.lane == lane;
        if (count >= std::lround((oncoming ? 4 : 5) * density))
            continue;
        double s;
        if (oncoming || rng.chance(0.6))
            s = egoS + rng.uniform(oncoming ? 185 : 170, 250);
        else
            s = egoS - rng.uniform(60, 85);
        if (s < 10 || s > road.length() - 10 || !WorldBuilder::laneFree(w, lane, s, 25))
            continue;
        actors.push_back(WorldBuilder::makeVehicle(w, lane, s, w.m_speedLimit * rng.uniform(0.8, 1.0)));
    }
    int pedestrians = 0;
    for (const Actor& a : actors)
        pedestrians += a.kind == ActorKind::Pedestrian;
    if (pedestrians < std::lround(7 * w.m_options.pedestrianDensity)) {
        const double s = rng.chance(0.7) ? egoS + rng.uniform(165, 188) : egoS - rng.uniform(35, 48);
        actors.push_back(WorldBuilder::makePedestrian(w, s, rng.chance(0.6)));
    }
}

} // namespace pitwall::synth::internal
