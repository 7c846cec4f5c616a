// A spinning LiDAR ray-cast against the ground plane and the scene's boxes, binned into the BEV histogram.
#include "core/synth/internal/sensors.h"

#include <algorithm>
#include <cmath>

namespace pitwall::synth::internal {

namespace {

// A box seen from the sensor: every ray starts at (0, 0, oz), so the sensor's position in the box frame (lox, loy)
// is the same for all of them and is worked out once.
struct RayBox {
    double lox, loy, cosYaw, sinYaw, hl, hw, z0, z1;
    double nearM = 0; // no point of the box is nearer the sensor, horizontally (so along any ray): centre - half-diagonal
    int first = 0, last = 0; // azimuth steps it spans
};

RayBox rayBox(const SceneBox& b)
{
    const double cosYaw = std::cos(b.yaw), sinYaw = std::sin(b.yaw);
    const double rx = 0 - b.centre.x, ry = 0 - b.centre.y;
    return {cosYaw * rx + sinYaw * ry, -sinYaw * rx + cosYaw * ry, cosYaw, sinYaw, b.halfLength, b.halfWidth, b.zMin,
            b.zMax};
}

// Distance along the ray (from the sensor at height oz, unit direction d) to the box, or a negative value when it
// misses.
double intersect(const RayBox& b, double oz, double dx, double dy, double dz)
{
    // Into the box frame.
    const double lox = b.lox, loy = b.loy;
    const double ldx = b.cosYaw * dx + b.sinYaw * dy, ldy = -b.sinYaw * dx + b.cosYaw * dy;
    double tNear = 0, tFar = 1e30;
    auto slab = [&](double o, double d, double lo, double hi) {
        if (std::abs(d) < 1e-12)
            return o >= lo && o <= hi;
        double t0 = (lo - o) / d, t1 = (hi - o) / d;
        if (t0 > t1)
            std::swap(t0, t1);
        tNear = std::max(tNear, t0);
        tFar = std::min(tFar, t1);
        return tNear <= tFar;
    };
    if (!slab(lox, ldx, -b.hl, b.hl) || !slab(loy, ldy, -b.hw, b.hw) || !slab(oz, dz, b.z0, b.z1))
        return -1;
    return tNear;
}

} // namespace

void renderLidar(const Scene& scene, const LidarConfig& lidar, const BevConfig& bev, ImageU16& counts,
                 ImageF32& feature)
{
    const int w = bev.width, h = bev.height;
    counts = {w, h, std::vector<std::uint16_t>(static_cast<std::size_t>(w) * h, 0)};
    const double xMin = bev.xMinM, xMax = bev.xMaxM(), yMax = bev.yMaxM(), ppm = bev.pixelsPerMeter;
    // Nothing beyond the grid's farthest corner can land on it.
    const double reach = std::sqrt(std::max(xMin * xMin, xMax * xMax) + yMax * yMax) + 1;
    const double range = std::min(lidar.maxRangeM, reach);
    const double oz = lidar.heightM;

    // Bucket boxes by the azimuth span they cover so every ray tests only its candidates, nearest first: a ray stops
    // at the first candidate that cannot be nearer than what it already hit (the ground, or a box).
    const int steps = std::max(1, lidar.azimuthSteps);
    std::vector<RayBox> boxes;
    for (const SceneBox& b : scene.boxes) {
        const double radius = std::sqrt(b.halfLength * b.halfLength + b.halfWidth * b.halfWidth);
        const double distance = b.centre.norm();
        if (distance - radius > range)
            continue;
        RayBox box = rayBox(b);
        box.nearM = std::max(0.0, distance - radius);
        box.first = 0;
        box.last = steps - 1;
        if (distance > radius + 0.01) {
            const double centreAngle = std::atan2(b.centre.y, b.centre.x);
            const double halfSpan = std::asin(std::min(1.0, radius / distance));
            const double stepAngle = 2 * kPi / steps;
            box.first = static_cast<int>(std::floor((centreAngle - halfSpan) / stepAngle));
            box.last = static_cast<int>(std::ceil((centreAngle + halfSpan) / stepAngle));
        }
        boxes.push_back(box);
    }
    std::stable_sort(boxes.begin(), boxes.end(), [](const RayBox& a, const RayBox& b) { return a.nearM < b.nearM; });
    std::vector<std::vector<std::uint32_t>> buckets(static_cast<std::size_t>(steps));
    for (std::uint32_t index = 0; index < boxes.size(); ++index)
        for (int k = boxes[index].first; k <= boxes[index].last; ++k)
            buckets[static_cast<std::size_t>(((k % steps) + steps) % steps)].push_back(index);

    std::vector<double> cosAzimuth(static_cast<std::size_t>(steps)), sinAzimuth(static_cast<std::size_t>(steps));
    for (int a = 0; a < steps; ++a) {
        cosAzimuth[static_cast<std::size_t>(a)] = std::cos(2 * kPi * a / steps);
        sinAzimuth[static_cast<std::size_t>(a)] = std::sin(2 * kPi * a / steps);
    }
    const int channels = std::max(1, lidar.channels);
    for (int c = 0; c < channels; ++c) {
        const double elevation =
            (lidar.lowerFovDeg + (lidar.upperFovDeg - lidar.lowerFovDeg) * c / std::max(1, channels - 1)) * kPi / 180;
        const double dz = std::sin(elevation), horizontal = std::cos(elevation);
        const double groundT = dz < 0 ? oz / -dz : 1e30;
        for (int a = 0; a < steps; ++a) {
            const double dx = horizontal * cosAzimuth[static_cast<std::size_t>(a)];
            const double dy = horizontal * sinAzimuth[static_cast<std::size_t>(a)];
            double t = groundT;
            for (std::uint32_t index : buckets[static_cast<std::size_t>(a)]) {
                if (boxes[index].nearM > t + 1e-6) // it and every box after it: a hit would be farther than t
                    break;
                const double hit = intersect(boxes[index], oz, dx, dy, dz);
                if (hit > 0 && hit < t)
                    t = hit;
            }
            if (t > range)
                continue;
            const double px = dx * t, py = dy * t;
            const int col = static_cast<int>(std::floor((px - xMin) * ppm));
            const int row = static_cast<int>(std::floor((yMax - py) * ppm));
            if (col < 0 || col >= w || row < 0 || row >= h)
                continue;
            std::uint16_t& cell = counts.pixels[static_cast<std::size_t>(row) * w + col];
            if (cell < 65535)
                ++cell;
        }
    }

    feature = {w, h, std::vector<float>(counts.pixels.size())};
    const double cap = std::max(1, lidar.histogramMaxPerCell);
    for (std::size_t i = 0; i < counts.pixels.size(); ++i)
        feature.pixels[i] = static_cast<float>(std::min<double>(counts.pixels[i], cap) / cap);
}

} // namespace pitwall::synth::internal
