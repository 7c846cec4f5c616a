#pragma once
// Small plane geometry for the synthetic world. World frame: x east, y north, z up (metres), yaw counter-
// clockwise from +x (radians). Ego frame: x forward, y left, z up, origin at the centre of the ego's footprint.

#include <cmath>
#include <cstdint>

namespace pitwall::synth {

constexpr double kPi = 3.14159265358979323846;

struct Vec2 {
    double x = 0;
    double y = 0;

    Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
    Vec2 operator-(Vec2 o) const { return {x - o.x, y - o.y}; }
    Vec2 operator*(double k) const { return {x * k, y * k}; }
    double dot(Vec2 o) const { return x * o.x + y * o.y; }
    double cross(Vec2 o) const { return x * o.y - y * o.x; }
    double norm() const { return std::sqrt(x * x + y * y); }
    bool operator==(const Vec2&) const = default;
};

struct Vec3 {
    double x = 0;
    double y = 0;
    double z = 0;
};

// Unit vector at angle `yaw`.
inline Vec2 direction(double yaw)
{
    return {std::cos(yaw), std::sin(yaw)};
}

// Angle wrapped to (-pi, pi].
inline double wrapAngle(double a)
{
    while (a > kPi)
        a -= 2 * kPi;
    while (a <= -kPi)
        a += 2 * kPi;
    return a;
}

inline double clampValue(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

// A planar pose: position of a footprint centre and a heading.
struct Pose2 {
    Vec2 position;
    double yaw = 0;

    // World point -> this pose's local frame (x forward, y left).
    Vec2 toLocal(Vec2 world) const
    {
        const Vec2 d = world - position;
        const double c = std::cos(yaw), s = std::sin(yaw);
        return {c * d.x + s * d.y, -s * d.x + c * d.y};
    }
    // Local point -> world.
    Vec2 toWorld(Vec2 local) const
    {
        const double c = std::cos(yaw), s = std::sin(yaw);
        return {position.x + c * local.x - s * local.y, position.y + s * local.x + c * local.y};
    }
};

// An 8-bit RGB colour.
struct Rgb {
    std::uint8_t r = 0;
    std::uint8_t g = 0;
    std::uint8_t b = 0;
};

// Oriented rectangles (footprints) overlap? Separating-axis test; centres, half extents, yaws.
bool footprintsOverlap(Vec2 centreA, double halfLengthA, double halfWidthA, double yawA, Vec2 centreB,
                       double halfLengthB, double halfWidthB, double yawB);

// Smooth 0..1 ramp (cubic smoothstep) of t clamped to [0, 1].
inline double smoothStep(double t)
{
    t = clampValue(t, 0.0, 1.0);
    return t * t * (3 - 2 * t);
}

} // namespace pitwall::synth
