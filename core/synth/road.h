#pragma once
// The road of an episode: a smooth centre line (straights and curves joined by clothoid transitions)
// sampled every metre, with lanes beside it. Positions on the road are Frenet coordinates: station `s`
// (metres along the centre line from its start) and lateral offset `d` (metres, positive to the left).
//
// Lateral layout, right to left: sidewalk | right shoulder (asphalt, parking) | forward lanes | centre line
// d = 0 | oncoming lanes | left shoulder | sidewalk. Lanes are numbered from the right: forward lanes
// 0 .. F-1 (F-1 is next to the centre line), oncoming lanes F .. F+O-1.

#include "core/synth/geometry.h"
#include "core/synth/random.h"

#include <cstddef>
#include <vector>

namespace pitwall::synth {

struct RoadLayout {
    int forwardLanes = 2;  // lanes in the ego's direction, 1..4
    int oncomingLanes = 0; // lanes in the other direction, 0..2
    double laneWidthM = 3.5;
    double rightShoulderM = 2.5; // asphalt beyond the right edge line, where cars park
    double leftShoulderM = 1.0;
    double sidewalkWidthM = 3.0;
};

enum class RoadShape { Winding, Straight };

struct FrenetPoint {
    double s = 0;
    double d = 0;
};

class Road {
public:
    // A random road `lengthM` long: straights of 30-160 m and curves of 45-350 m radius. It starts with a
    // straight of at least 80 m (where the ego starts).
    static Road generate(Rng& rng, double lengthM, const RoadLayout& layout, RoadShape shape = RoadShape::Winding);

    double length() const { return static_cast<double>(m_x.size() - 1) * kSampleSpacingM; }
    const RoadLayout& layout() const { return m_layout; }

    // World position at station s and lateral offset d. Beyond the ends the road continues straight.
    Vec2 point(double s, double d = 0) const;
    // Heading of the centre line at s (rad, world frame).
    double heading(double s) const;
    // Curvature at s (1/m, positive turning left).
    double curvature(double s) const;
    // Largest |curvature| over [s0, s1].
    double maxAbsCurvature(double s0, double s1) const;

    // Nearest point of the centre line. `hint` (a sample index, updated) makes repeated queries for a
    // moving point O(1); pass nullptr for a global search.
    FrenetPoint project(Vec2 world, std::size_t* hint = nullptr) const;

    int laneCount() const { return m_layout.forwardLanes + m_layout.oncomingLanes; }
    bool isOncoming(int lane) const { return lane >= m_layout.forwardLanes; }
    double laneCentre(int lane) const { return (lane - m_layout.forwardLanes + 0.5) * m_layout.laneWidthM; }
    // Lane containing lateral offset d, or -1 off the carriageway.
    int laneAt(double d) const;
    double rightEdge() const { return -m_layout.forwardLanes * m_layout.laneWidthM; }
    double leftEdge() const { return m_layout.oncomingLanes * m_layout.laneWidthM; }
    // Outer edges of the asphalt (shoulders included) and centres of the sidewalks.
    double rightAsphaltEdge() const { return rightEdge() - m_layout.rightShoulderM; }
    double leftAsphaltEdge() const { return leftEdge() + m_layout.leftShoulderM; }
    double rightSidewalkCentre() const { return rightAsphaltEdge() - m_layout.sidewalkWidthM / 2; }
    double leftSidewalkCentre() const { return leftAsphaltEdge() + m_layout.sidewalkWidthM / 2; }

    static constexpr double kSampleSpacingM = 1.0;

private:
    std::vector<double> m_x, m_y, m_heading, m_curvature; // one per sample
    std::vector<double> m_normalX, m_normalY;             // unit normal (to the left) per sample
    RoadLayout m_layout;
};

} // namespace pitwall::synth
