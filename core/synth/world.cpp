#include "core/synth/world.h"

#include "core/synth/expert.h"
#include "core/synth/internal/worldbuilder.h"

#include <algorithm>

namespace pitwall::synth {

bool isDrivingVehicle(ActorKind kind)
{
    return kind == ActorKind::Car || kind == ActorKind::Van || kind == ActorKind::Truck || kind == ActorKind::Emergency;
}

bool isObstacle(ActorKind kind)
{
    return kind == ActorKind::Cone || kind == ActorKind::Barrel || kind == ActorKind::Barrier;
}

double LateralPlan::at(double s) const
{
    if (s0 == s1)
        return d1;
    return d0 + (d1 - d0) * smoothStep((s - s0) / (s1 - s0));
}

double LateralPlan::slope(double s) const
{
    if (s0 == s1)
        return 0;
    const double u = (s - s0) / (s1 - s0);
    if (u <= 0 || u >= 1)
        return 0;
    return (d1 - d0) * 6 * u * (1 - u) / (s1 - s0);
}

bool LateralPlan::changing(double s) const
{
    if (s0 == s1)
        return false;
    const double u = (s - s0) / (s1 - s0);
    return u >= 0 && u < 1;
}

const char* brakeReasonName(BrakeReason reason)
{
    switch (reason) {
    case BrakeReason::None:
        return "none";
    case BrakeReason::LeadVehicle:
        return "lead_vehicle";
    case BrakeReason::Pedestrian:
        return "pedestrian";
    case BrakeReason::Obstacle:
        return "obstacle";
    case BrakeReason::RedLight:
        return "red_light";
    case BrakeReason::Curve:
        return "curve";
    }
    return "none";
}

double TrafficLight::remainingS() const
{
    const double total = state == LightState::Green ? greenS : (state == LightState::Yellow ? yellowS : redS);
    return std::max(0.0, total - timeInStateS);
}

World World::create(std::uint64_t seed, const WorldOptions& options)
{
    return internal::WorldBuilder::build(seed, options);
}

void World::step(double dt)
{
    const EgoControl control = ExpertPolicy::drive(*this, m_expert);
    step(dt, control);
}

void World::step(double dt, const EgoControl& control)
{
    dt = clampValue(dt, 1e-4, 0.1);
    internal::TrafficSimulation traffic(*this);
    traffic.advance(dt);
    updateEgo(dt, control);
    m_timeS += dt;
    m_maintenanceTimerS += dt;
    if (m_maintenanceTimerS >= 0.5) {
        m_maintenanceTimerS = 0;
        traffic.maintain();
    }
}

void World::updateEgo(double dt, const EgoControl& control)
{
    constexpr double kSteerRateRadPerS = 1.5;
    const double wanted = clampValue(control.steerRad, -kMaxSteerRad, kMaxSteerRad);
    m_ego.steer += clampValue(wanted - m_ego.steer, -kSteerRateRadPerS * dt, kSteerRateRadPerS * dt);
    const double accel = clampValue(control.accelerationMps2, -kMaxBrakeMps2, kMaxAccelerationMps2);
    const double before = m_ego.speed;
    m_ego.speed = std::max(0.0, m_ego.speed + accel * dt);
    m_ego.acceleration = (m_ego.speed - before) / dt;
    // Kinematic bicycle about the footprint centre (centre of mass halfway between the axles).
    const double rearToCentre = m_ego.wheelbase / 2;
    const double slip = std::atan(0.5 * std::tan(m_ego.steer));
    const double travelled = 0.5 * (before + m_ego.speed) * dt;
    m_ego.pose.position = m_ego.pose.position + direction(m_ego.pose.yaw + slip) * travelled;
    m_ego.pose.yaw = wrapAngle(m_ego.pose.yaw + travelled / rearToCentre * std::sin(slip));
    m_ego.frenet = m_road->project(m_ego.pose.position, &m_ego.roadHint);
    const int lane = m_road->laneAt(m_ego.frenet.d);
    if (lane >= 0)
        m_ego.lane = lane;
}

Pose2 World::actorPose(const Actor& actor) const
{
    double yaw = m_road->heading(actor.s) + actor.yawOffset;
    if (isDrivingVehicle(actor.kind) && actor.direction < 0)
        yaw += kPi;
    return {m_road->point(actor.s, actor.d), wrapAngle(yaw)};
}

int World::routeLane(double s) const
{
    for (const auto& [end, lane] : m_route)
        if (s < end)
            return lane;
    return m_route.empty() ? 0 : m_route.back().second;
}

Vec2 World::routeTargetPoint() const
{
    constexpr double kSpacingM = 15;
    const double s = std::ceil((m_ego.frenet.s + kSpacingM) / kSpacingM) * kSpacingM;
    return m_road->point(s, m_road->laneCentre(routeLane(s)));
}

const TrafficLight* World::nextLight(double s, double rangeM) const
{
    const TrafficLight* best = nullptr;
    for (const TrafficLight& light : m_lights)
        if (light.s >= s && light.s - s <= rangeM && (!best || light.s < best->s))
            best = &light;
    return best;
}

int World::egoCollision() const
{
    for (const Actor& actor : m_actors) {
        if (std::abs(actor.s - m_ego.frenet.s) > 12)
            continue;
        const Pose2 pose = actorPose(actor);
        if (footprintsOverlap(m_ego.pose.position, m_ego.length / 2, m_ego.width / 2, m_ego.pose.yaw, pose.position,
                              actor.length / 2, actor.width / 2, pose.yaw))
            return actor.id;
    }
    return -1;
}

bool World::egoInForwardLanes() const
{
    const double yawOffset = wrapAngle(m_ego.pose.yaw - m_road->heading(m_ego.frenet.s));
    const double half =
        m_ego.width / 2 * std::abs(std::cos(yawOffset)) + m_ego.length / 2 * std::abs(std::sin(yawOffset));
    return m_ego.frenet.d - half >= m_road->rightEdge() - 0.05 && m_ego.frenet.d + half <= 0.05;
}

} // namespace pitwall::synth
