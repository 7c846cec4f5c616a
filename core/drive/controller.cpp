#include "core/drive/controller.h"

#include <algorithm>
#include <cmath>

namespace pitwall::drive {

using synth::Vec2;

double PidController::step(double error, double dt, bool integrate)
{
    if (integrate)
        m_integral = synth::clampValue(m_integral + error * dt, -m_integralLimit, m_integralLimit);
    const double derivative = m_hasLast && dt > 0 ? (error - m_lastError) / dt : 0.0;
    m_lastError = error;
    m_hasLast = true;
    return m_kp * error + m_ki * m_integral + m_kd * derivative;
}

void PidController::reset()
{
    m_integral = 0;
    m_lastError = 0;
    m_hasLast = false;
}

VehicleController::VehicleController(const ControllerOptions& options)
    : m_options(options), m_speedPid(options.speedKp, options.speedKi, options.speedKd, options.speedIntegralLimit),
      m_steerPid(options.steerKp, options.steerKi, options.steerKd, options.steerIntegralLimit)
{
}

void VehicleController::reset()
{
    m_speedPid.reset();
    m_steerPid.reset();
    m_path.clear();
    m_pathLength = 0;
    m_targetSpeed = 0;
    m_hasPlan = false;
    m_lastSaturated = false;
}

void VehicleController::setPlan(const DrivingPlan& plan, const synth::Pose2& egoPose)
{
    m_path.clear();
    m_path.push_back(egoPose.position);
    for (const Vec2& p : plan.waypoints)
        if (std::isfinite(p.x) && std::isfinite(p.y))
            m_path.push_back(egoPose.toWorld(p));
    m_pathLength = 0;
    for (std::size_t i = 1; i < m_path.size(); ++i)
        m_pathLength += (m_path[i] - m_path[i - 1]).norm();
    m_targetSpeed = std::isfinite(plan.targetSpeedMps) ? std::max(0.0, plan.targetSpeedMps) : 0.0;
    m_hasPlan = true;
}

synth::EgoControl VehicleController::control(const synth::EgoState& ego, double dt)
{
    dt = std::max(dt, 1e-4);
    if (!m_hasPlan)
        return {0.0, -m_options.stopBrakeMps2};
    return {steer(ego, dt), acceleration(ego, dt)};
}

double VehicleController::acceleration(const synth::EgoState& ego, double dt)
{
    const double error = m_targetSpeed - ego.speed;
    if (m_targetSpeed < m_options.stopSpeedMps) {
        m_speedPid.reset();
        m_lastSaturated = false;
        return std::min(m_options.speedKp * error, -m_options.stopBrakeMps2);
    }
    const double raw = m_speedPid.step(error, dt, !m_lastSaturated);
    const double a = synth::clampValue(raw, -synth::World::kMaxBrakeMps2, synth::World::kMaxAccelerationMps2);
    m_lastSaturated = a != raw;
    return a;
}

double VehicleController::steer(const synth::EgoState& ego, double dt)
{
    if (m_path.size() < 2 || m_pathLength < m_options.minPathLengthM) {
        m_steerPid.reset();
        m_aim = ego.pose.position;
        return 0.0;
    }
    // Arc position of the point of the path nearest to the ego centre.
    double best = 1e18, arcAtBest = 0, arc = 0;
    for (std::size_t i = 1; i < m_path.size(); ++i) {
        const Vec2 a = m_path[i - 1], b = m_path[i];
        const Vec2 ab = b - a;
        const double length = ab.norm();
        const double t =
            length > 1e-9 ? synth::clampValue((ego.pose.position - a).dot(ab) / (length * length), 0, 1) : 0;
        const double distance = (a + ab * t - ego.pose.position).norm();
        if (distance < best) {
            best = distance;
            arcAtBest = arc + t * length;
        }
        arc += length;
    }
    const double lookahead = synth::clampValue(m_options.lookaheadBaseM + m_options.lookaheadPerMps * ego.speed,
                                               m_options.lookaheadMinM, m_options.lookaheadMaxM);
    double wanted = arcAtBest + lookahead;
    // The point `wanted` metres along the path, extrapolated along the last real segment past its end.
    m_aim = m_path.back();
    arc = 0;
    bool found = false;
    for (std::size_t i = 1; i < m_path.size() && !found; ++i) {
        const Vec2 a = m_path[i - 1], b = m_path[i];
        const double length = (b - a).norm();
        if (arc + length >= wanted && length > 1e-9) {
            m_aim = a + (b - a) * ((wanted - arc) / length);
            found = true;
        }
        arc += length;
    }
    if (!found) {
        for (std::size_t i = m_path.size() - 1; i > 0; --i) {
            const Vec2 segment = m_path[i] - m_path[i - 1];
            if (segment.norm() > 0.05) {
                m_aim = m_path.back() + segment * ((wanted - m_pathLength) / segment.norm());
                break;
            }
        }
    }
    const Vec2 rearAxle = ego.pose.position - synth::direction(ego.pose.yaw) * (ego.wheelbase / 2);
    const Vec2 local = synth::Pose2{rearAxle, ego.pose.yaw}.toLocal(m_aim);
    const double headingError = std::atan2(local.y, std::max(local.x, 1e-3));
    const double gain = 2 * ego.wheelbase / std::max(local.norm(), 1.0);
    return synth::clampValue(gain * m_steerPid.step(headingError, dt), -synth::World::kMaxSteerRad,
                             synth::World::kMaxSteerRad);
}

} // namespace pitwall::drive
