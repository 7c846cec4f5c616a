#include "core/synth/road.h"

#include <algorithm>

namespace pitwall::synth {

namespace {

constexpr double kIntegrationStepM = 0.1;

// Curvature as a function of distance: pieces of constant or linearly changing curvature.
struct CurvaturePiece {
    double lengthM;
    double startCurvature;
    double endCurvature;
};

void addCurve(std::vector<CurvaturePiece>& pieces, Rng& rng)
{
    const double radius = rng.chance(0.2) ? rng.uniform(45, 80) : rng.uniform(80, 350);
    const double sign = rng.chance(0.5) ? 1.0 : -1.0;
    const double angle = rng.uniform(15, 80) * kPi / 180;
    const double kappa = sign / radius;
    const double transition = rng.uniform(15, 35);
    // A clothoid ramp of length T turns by kappa*T/2; the constant arc makes up the rest of the angle.
    const double arc = std::max(0.0, angle * radius - transition);
    pieces.push_back({transition, 0, kappa});
    if (arc > 0)
        pieces.push_back({arc, kappa, kappa});
    pieces.push_back({transition, kappa, 0});
}

} // namespace

Road Road::generate(Rng& rng, double lengthM, const RoadLayout& layout, RoadShape shape)
{
    std::vector<CurvaturePiece> pieces;
    double planned = 0;
    pieces.push_back({rng.uniform(80, 130), 0, 0});
    planned += pieces.back().lengthM;
    while (planned < lengthM + 1) {
        if (shape == RoadShape::Straight || rng.chance(0.4))
            pieces.push_back({rng.uniform(30, 160), 0, 0});
        else
            addCurve(pieces, rng);
        planned = 0;
        for (const CurvaturePiece& p : pieces)
            planned += p.lengthM;
    }

    Road road;
    road.m_layout = layout;
    const auto samples = static_cast<std::size_t>(std::ceil(lengthM / kSampleSpacingM)) + 1;
    road.m_x.reserve(samples);
    double x = 0, y = 0, heading = rng.uniform(-kPi, kPi), travelled = 0;
    std::size_t piece = 0;
    double pieceStart = 0;
    const int substeps = static_cast<int>(std::lround(kSampleSpacingM / kIntegrationStepM));
    auto curvatureAt = [&](double s) {
        while (piece + 1 < pieces.size() && s > pieceStart + pieces[piece].lengthM) {
            pieceStart += pieces[piece].lengthM;
            ++piece;
        }
        const CurvaturePiece& p = pieces[piece];
        const double t = clampValue((s - pieceStart) / p.lengthM, 0, 1);
        return p.startCurvature + (p.endCurvature - p.startCurvature) * t;
    };
    for (std::size_t i = 0; i < samples; ++i) {
        road.m_x.push_back(x);
        road.m_y.push_back(y);
        road.m_heading.push_back(heading);
        road.m_curvature.push_back(curvatureAt(travelled));
        road.m_normalX.push_back(-std::sin(heading));
        road.m_normalY.push_back(std::cos(heading));
        for (int k = 0; k < substeps; ++k) {
            const double kappa = curvatureAt(travelled + kIntegrationStepM / 2);
            const double mid = heading + kappa * kIntegrationStepM / 2;
            x += std::cos(mid) * kIntegrationStepM;
            y += std::sin(mid) * kIntegrationStepM;
            heading += kappa * kIntegrationStepM;
            travelled += kIntegrationStepM;
        }
    }
    return road;
}

Vec2 Road::point(double s, double d) const
{
    const double last = length();
    if (s <= 0 || s >= last) {
        const std::size_t i = s <= 0 ? 0 : m_x.size() - 1;
        const Vec2 normal{m_normalX[i], m_normalY[i]};
        const Vec2 tangent{normal.y, -normal.x};
        const double beyond = s <= 0 ? s : s - last;
        return Vec2{m_x[i], m_y[i]} + tangent * beyond + normal * d;
    }
    const auto i = static_cast<std::size_t>(s / kSampleSpacingM);
    const double t = s / kSampleSpacingM - static_cast<double>(i);
    const std::size_t j = std::min(i + 1, m_x.size() - 1);
    // A chord with an interpolated normal: within millimetres of the true curve at one-metre spacing (the
    // normal's length stays 1 to within 1e-4 for the tightest curves generated).
    const Vec2 base{m_x[i] + (m_x[j] - m_x[i]) * t, m_y[i] + (m_y[j] - m_y[i]) * t};
    const Vec2 normal{m_normalX[i] + (m_normalX[j] - m_normalX[i]) * t,
                      m_normalY[i] + (m_normalY[j] - m_normalY[i]) * t};
    return base + normal * d;
}

double Road::heading(double s) const
{
    if (s <= 0)
        return m_heading.front();
    if (s >= length())
        return m_heading.back();
    const auto i = static_cast<std::size_t>(s / kSampleSpacingM);
    const double t = s / kSampleSpacingM - static_cast<double>(i);
    const std::size_t j = std::min(i + 1, m_x.size() - 1);
    return m_heading[i] + (m_heading[j] - m_heading[i]) * t;
}

double Road::curvature(double s) const
{
    if (s <= 0 || s >= length())
        return 0;
    return m_curvature[static_cast<std::size_t>(std::lround(s / kSampleSpacingM))];
}

double Road::maxAbsCurvature(double s0, double s1) const
{
    const auto last = static_cast<long>(m_curvature.size()) - 1;
    const long i0 = std::clamp(static_cast<long>(std::floor(s0 / kSampleSpacingM)), 0L, last);
    const long i1 = std::clamp(static_cast<long>(std::ceil(s1 / kSampleSpacingM)), 0L, last);
    double best = 0;
    for (long i = i0; i <= i1; ++i)
        best = std::max(best, std::abs(m_curvature[static_cast<std::size_t>(i)]));
    return best;
}

FrenetPoint Road::project(Vec2 world, std::size_t* hint) const
{
    const std::size_t segments = m_x.size() - 1;
    std::size_t from = 0, to = segments;
    if (hint && *hint < segments) {
        from = *hint > 30 ? *hint - 30 : 0;
        to = std::min(segments, *hint + 30);
    }
    double bestDistance = 1e300;
    FrenetPoint best;
    std::size_t bestSegment = from;
    for (std::size_t i = from; i < to; ++i) {
        const Vec2 a{m_x[i], m_y[i]};
        const Vec2 b{m_x[i + 1], m_y[i + 1]};
        const Vec2 ab = b - a;
        const double lengthSquared = ab.dot(ab);
        double t = (world - a).dot(ab) / lengthSquared;
        // Let the first and last segments extend so points beyond the ends project outside [0, length].
        if (i != 0)
            t = std::max(t, 0.0);
        if (i + 1 != segments)
            t = std::min(t, 1.0);
        const Vec2 foot = a + ab * t;
        const double distance = (world - foot).norm();
        if (distance < bestDistance) {
            bestDistance = distance;
            const double segmentLength = std::sqrt(lengthSquared);
            best.s = (static_cast<double>(i) + t) * kSampleSpacingM;
            best.d = ab.cross(world - a) / segmentLength;
            bestSegment = i;
        }
    }
    if (hint)
        *hint = bestSegment;
    return best;
}

int Road::laneAt(double d) const
{
    if (d < rightEdge() || d >= leftEdge())
        return -1;
    return std::min(laneCount() - 1, static_cast<int>(std::floor((d - rightEdge()) / m_layout.laneWidthM)));
}

} // namespace pitwall::synth
