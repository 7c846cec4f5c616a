#pragma once
// The ego's low-level controller in closed-loop evaluation: it turns a policy's plan (future waypoints and a
// target speed) into the synthetic world's EgoControl, as TransFuser's PID controllers do in CARLA.
//
// - Longitudinal: a PID on the speed error (target − current, m/s) gives an acceleration (m/s²). A target
//   below ControllerOptions::stopSpeedMps means "stop": the controller then brakes at least stopBrakeMps2.
// - Lateral: the waypoints are fixed in the world when the plan arrives (so a plan held for several ticks
//   stays where it was meant to be); the aim point lies a speed-dependent look-ahead distance along them
//   (extrapolated along the last segment past the end). A PID on the heading error to the aim point, seen
//   from the rear axle, gives the wheel angle; its gain is scheduled with the look-ahead distance as pure
//   pursuit's is (gain 2·wheelbase / look-ahead), so the default kp = 1 with no I and D terms is exactly the
//   pure-pursuit law the data-generating expert steers with.
// Plain C++ (no torch). Not thread-safe; one controller per simulated ego.

#include "core/synth/world.h"

#include <vector>

namespace pitwall::drive {

// What a policy decides at one moment: where the ego should be in the future, in the ego frame at that moment
// (x forward, y left, metres; TransFuser's 8 points 0.25 s apart), and the speed it wants (m/s, >= 0).
struct DrivingPlan {
    std::vector<synth::Vec2> waypoints;
    double targetSpeedMps = 0;
};

// A textbook PID with a clamped integral and a derivative on the error. Units are the caller's.
class PidController {
public:
    PidController(double kp = 1, double ki = 0, double kd = 0, double integralLimit = 1e9)
        : m_kp(kp), m_ki(ki), m_kd(kd), m_integralLimit(integralLimit)
    {
    }
    // Output for `error` after dt seconds (dt > 0). `integrate` false freezes the integral (anti-windup).
    double step(double error, double dt, bool integrate = true);
    void reset();
    double integral() const { return m_integral; }

private:
    double m_kp, m_ki, m_kd, m_integralLimit;
    double m_integral = 0;
    double m_lastError = 0;
    bool m_hasLast = false;
};

struct ControllerOptions {
    // Speed PID: m/s² per m/s of error (and its integral / derivative).
    double speedKp = 1.5, speedKi = 0.2, speedKd = 0.0;
    double speedIntegralLimit = 2.0; // m/s·s
    double stopSpeedMps = 0.4;       // target speeds below this mean "stop"
    double stopBrakeMps2 = 3.0;      // at least this much braking when stopping
    // Heading PID: wheel angle (rad) per rad of heading error, times 2·wheelbase / look-ahead.
    double steerKp = 1.0, steerKi = 0.0, steerKd = 0.0;
    double steerIntegralLimit = 0.5; // rad·s
    // Look-ahead distance from the rear axle: clamp(base + perMps · speed, min, max) metres.
    double lookaheadBaseM = 4.0, lookaheadPerMps = 0.8, lookaheadMinM = 6.0, lookaheadMaxM = 20.0;
    // A plan whose waypoints span less than this (m) says "stand still": the wheels are held straight.
    double minPathLengthM = 0.5;
};

class VehicleController {
public:
    explicit VehicleController(const ControllerOptions& options = {});

    // A new plan, made when the ego was at `egoPose` (its waypoints are in that pose's frame).
    void setPlan(const DrivingPlan& plan, const synth::Pose2& egoPose);
    // The control for the next dt seconds (dt > 0) of an ego in state `ego`. Without a plan: brake.
    synth::EgoControl control(const synth::EgoState& ego, double dt);
    // Forgets the plan and the PID states (a new route).
    void reset();

    // The held plan as a world-frame polyline (the plan-time ego position first), and the last aim point.
    const std::vector<synth::Vec2>& worldPath() const { return m_path; }
    synth::Vec2 aimPoint() const { return m_aim; }
    double targetSpeed() const { return m_targetSpeed; }
    bool hasPlan() const { return m_hasPlan; }

private:
    double steer(const synth::EgoState& ego, double dt);
    double acceleration(const synth::EgoState& ego, double dt);

    ControllerOptions m_options;
    PidController m_speedPid, m_steerPid;
    std::vector<synth::Vec2> m_path;
    double m_pathLength = 0;
    double m_targetSpeed = 0;
    synth::Vec2 m_aim;
    bool m_hasPlan = false;
    bool m_lastSaturated = false;
};

} // namespace pitwall::drive
