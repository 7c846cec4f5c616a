#include "core/synth/internal/driving.h"

#include <algorithm>

namespace pitwall::synth::internal {

double idmFree(double speed, double desiredSpeed, const IdmParams& params)
{
    const double ratio = speed / std::max(desiredSpeed, 0.1);
    return std::max(-3.0, params.maxAccelerationMps2 * (1 - ratio * ratio * ratio * ratio));
}

double idmFollow(double speed, double desiredSpeed, double gapM, double leaderSpeed, double minGapM,
                 const IdmParams& params)
{
    const double closing = speed - leaderSpeed;
    const double wanted =
        minGapM +
        std::max(0.0, speed * params.headwayS +
                          speed * closing / (2 * std::sqrt(params.maxAccelerationMps2 * params.comfortBrakeMps2)));
    const double gap = std::max(gapM, 0.01);
    double a = params.maxAccelerationMps2 * (1 - (wanted / gap) * (wanted / gap));
    a = std::min(a, idmFree(speed, desiredSpeed, params));
    if (closing <= 0 && gapM > minGapM) // not closing in: the gap grows anyway, no need to brake hard
        a = std::max(a, -params.comfortBrakeMps2);
    if (closing > 0) { // never rely on the model alone to stop in time
        const double needed = closing * closing / (2 * std::max(gapM - 0.5 * minGapM, 0.05));
        if (needed > 1.0)
            a = std::min(a, -needed);
    }
    return std::max(a, -World::kMaxBrakeMps2);
}

EgoFrenet egoFrenet(const World& world)
{
    const EgoState& ego = world.ego();
    const double yawOffset = wrapAngle(ego.pose.yaw - world.road().heading(ego.frenet.s));
    return {ego.frenet.s, ego.frenet.d, yawOffset, ego.speed * std::cos(yawOffset), ego.length / 2, ego.width / 2};
}

void lateralExtent(const Actor& actor, double& low, double& high)
{
    const double c = std::abs(std::cos(actor.yawOffset)), s = std::abs(std::sin(actor.yawOffset));
    const double half = actor.width / 2 * c + actor.length / 2 * s;
    low = actor.d - half;
    high = actor.d + half;
    if (actor.kind == ActorKind::Pedestrian && actor.walk == WalkMode::Crossing) {
        high = std::max(high, actor.crossToD + half);
        low = std::min(low, actor.crossToD - half);
    }
}

double halfExtentAlong(const Actor& actor)
{
    const double c = std::abs(std::cos(actor.yawOffset)), s = std::abs(std::sin(actor.yawOffset));
    return actor.length / 2 * c + actor.width / 2 * s;
}

namespace {

BrakeReason reasonFor(ActorKind kind)
{
    if (isDrivingVehicle(kind))
        return BrakeReason::LeadVehicle;
    return kind == ActorKind::Pedestrian ? BrakeReason::Pedestrian : BrakeReason::Obstacle;
}

bool corridorOverlaps(const PathQuery& q, double sNear, double sFar, double low, double high)
{
    const double a = q.plan.at(sNear), b = q.plan.at(sFar);
    // Where the path bends sideways the yawed body sweeps wider than its width (up to 0.6 m, see traffic.cpp).
    auto sweep = [&](double s) {
        if (std::abs(q.plan.d1 - q.plan.d0) < 1.0)
            return 0.0; // settling back into the lane, not a lane change
        const double slope = std::abs(q.plan.slope(s));
        return std::min(0.6, q.halfLength * slope / std::sqrt(1 + slope * slope));
    };
    const double half = q.halfWidth + kPathMarginM + std::max(sweep(sNear), sweep(sFar));
    return high > std::min(a, b) - half && low < std::max(a, b) + half;
}

} // namespace

namespace {

// Room a vehicle leaves in front of itself when it stops to let a blocked vehicle merge into its lane.
constexpr double kYieldRoomM = 6.0;
constexpr double kWaitingSpeedMps = 3.0;

// Whether a vehicle at lateral offset d (half width hw) should stop for a vehicle waiting to merge into its lane,
// `gap` ahead: only when the waiting one blocks that lane's traffic and stopping is comfortable.
bool yieldsTo(const World& world, const PathQuery& q, int waitsForLane, double speed, double gap)
{
    if (waitsForLane < 0 || speed > kWaitingSpeedMps || q.direction != 1)
        return false;
    const Road& road = world.road();
    const double d = q.plan.at(q.s);
    if (std::abs(d - road.laneCentre(waitsForLane)) > road.layout().laneWidthM / 2)
        return false;
    return gap - kYieldRoomM >= q.speed * q.speed / 6; // stops at <= 3 m/s^2
}

} // namespace

Obstruction nearestObstruction(const World& world, const PathQuery& q)
{
    Obstruction best;
    for (const Actor& actor : world.actors()) {
        if (actor.id == q.selfId)
            continue;
        const bool driving = isDrivingVehicle(actor.kind);
        if (driving && actor.direction != q.direction)
            continue;
        const double ds = (actor.s - q.s) * q.direction;
        if (ds <= 0 || ds > q.lookaheadM + 10)
            continue;
        const double along = halfExtentAlong(actor);
        const double gap = ds - q.halfLength - along;
        if (gap >= best.gapM || (gap < 0 && !driving && actor.kind != ActorKind::Pedestrian))
            continue; // already alongside something standing: stopping would not help
        double low, high;
        lateralExtent(actor, low, high);
        double effectiveGap = gap;
        if (!corridorOverlaps(q, actor.s - q.direction * along, actor.s, low, high)) {
            if (!driving || !yieldsTo(world, q, actor.waitsForLane, actor.speed, gap))
                continue;
            effectiveGap = gap - kYieldRoomM;
            if (effectiveGap >= best.gapM)
                continue;
        }
        best.found = true;
        best.gapM = effectiveGap;
        best.id = actor.id;
        best.reason = reasonFor(actor.kind);
        if (driving)
            best.speedAlongMps = actor.speed * std::cos(actor.yawOffset);
        else if (actor.kind == ActorKind::Pedestrian && actor.walk == WalkMode::Sidewalk)
            best.speedAlongMps = std::max(0.0, actor.walkSpeed * q.direction);
        else
            best.speedAlongMps = 0;
    }
    if (q.includeEgo && q.direction == 1) {
        const EgoFrenet ego = egoFrenet(world);
        const double ds = ego.s - q.s;
        const double along =
            ego.halfLength * std::abs(std::cos(ego.yawOffset)) + ego.halfWidth * std::abs(std::sin(ego.yawOffset));
        const double across =
            ego.halfWidth * std::abs(std::cos(ego.yawOffset)) + ego.halfLength * std::abs(std::sin(ego.yawOffset));
        const double gap = ds - q.halfLength - along;
        if (ds > 0 && ds <= q.lookaheadM + 10 && gap < best.gapM) {
            if (corridorOverlaps(q, ego.s - along, ego.s, ego.d - across, ego.d + across))
                best = {true, gap, ego.speedAlong, BrakeReason::LeadVehicle, 0};
            else if (yieldsTo(world, q, world.expert().waitsForLane, ego.speedAlong, gap) &&
                     gap - kYieldRoomM < best.gapM)
                best = {true, gap - kYieldRoomM, ego.speedAlong, BrakeReason::LeadVehicle, 0};
        }
    }
    return best;
}

double stopLineGap(const World& world, double s, int direction, double halfLength, double speed)
{
    const TrafficLight* nearest = nullptr;
    double nearestGap = 1e9;
    for (const TrafficLight& light : world.lights()) {
        const double stopS = direction > 0 ? light.s : light.s + TrafficLight::kOncomingStopOffsetM;
        const double gap = (stopS - s) * direction - halfLength;
        if (gap >= -0.5 && gap < nearestGap && gap < 120) {
            nearestGap = gap;
            nearest = &light;
        }
    }
    if (!nearest || nearest->state == LightState::Green)
        return -1;
    const double needed = speed * speed / (2 * std::max(nearestGap, 0.1));
    if (nearest->state == LightState::Yellow)
        return needed <= 3.5 ? std::max(nearestGap, 0.0) : -1;
    return needed <= 6.0 ? std::max(nearestGap, 0.0) : -1; // too close to stop: clear the junction
}

bool laneChangeIsSafe(const World& world, double s, double speed, int direction, int targetLane, int selfId,
                      double halfLength, double frontGapM, double rearHeadwayS, double changeLengthM)
{
    // Time to cover the change while accelerating moderately from the current speed.
    constexpr double kMergeAccelerationMps2 = 1.8;
    const double mergeS = clampValue((-speed + std::sqrt(speed * speed + 2 * kMergeAccelerationMps2 * changeLengthM)) /
                                         kMergeAccelerationMps2,
                                     0.5, 8.0);
    const Road& road = world.road();
    const double laneLow = road.laneCentre(targetLane) - road.layout().laneWidthM / 2;
    const double laneHigh = laneLow + road.layout().laneWidthM;
    auto vehicleOk = [&](double otherS, double otherHalfAlong, double otherSpeed) {
        const double ds = (otherS - s) * direction;
        if (ds >= 0)
            return ds - halfLength - otherHalfAlong >= frontGapM + std::max(0.0, speed - otherSpeed) * 1.5;
        const double gap = -ds - halfLength - otherHalfAlong;
        return gap >= std::max(5.0, otherSpeed * rearHeadwayS + std::max(0.0, otherSpeed - speed) * mergeS);
    };
    for (const Actor& actor : world.actors()) {
        if (actor.id == selfId || std::abs(actor.s - s) > 120)
            continue;
        double low, high;
        lateralExtent(actor, low, high);
        if (isDrivingVehicle(actor.kind) && actor.plan.changing(actor.s)) {
            low = std::min(low, actor.plan.d1 - actor.width / 2);
            high = std::max(high, actor.plan.d1 + actor.width / 2);
        }
        if (high <= laneLow || low >= laneHigh)
            continue;
        const double along = halfExtentAlong(actor);
        if (isDrivingVehicle(actor.kind)) {
            if (actor.direction == direction && !vehicleOk(actor.s, along, actor.speed))
                return false;
        } else {
            const double ds = (actor.s - s) * direction;
            if (ds > -halfLength - along - 3 && ds < frontGapM + 40)
                return false;
        }
    }
    if (selfId != 0 && direction == 1) {
        const EgoFrenet ego = egoFrenet(world);
        double low = ego.d - ego.halfWidth, high = ego.d + ego.halfWidth;
        const LateralPlan& plan = world.expert().plan;
        if (plan.changing(ego.s)) { // where the ego is going counts too
            low = std::min(low, plan.d1 - ego.halfWidth);
            high = std::max(high, plan.d1 + ego.halfWidth);
        }
        if (high > laneLow && low < laneHigh && !vehicleOk(ego.s, ego.halfLength, ego.speedAlong))
            return false;
    }
    return closureAhead(world, targetLane, s - halfLength - 5, frontGapM + 40) < 0;
}

double laneLeavingRoom(const World& world, const PathQuery& stay, bool zipper)
{
    const Obstruction ahead = nearestObstruction(world, stay);
    if (zipper && ahead.found && ahead.reason == BrakeReason::LeadVehicle)
        return -1;
    return !ahead.found || ahead.speedAlongMps >= 2.0 ? 1e9 : ahead.gapM;
}

double closureAhead(const World& world, int lane, double s, double rangeM)
{
    double best = -1;
    for (const LaneClosure& c : world.closures())
        if (c.lane == lane && s <= c.s1 && c.s0 - s <= rangeM) {
            const double distance = std::max(0.0, c.s0 - s);
            if (best < 0 || distance < best)
                best = distance;
        }
    return best;
}

} // namespace pitwall::synth::internal
