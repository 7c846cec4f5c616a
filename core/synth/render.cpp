// The camera and BEV semantic passes, and renderFrame which runs every pass.
#include "core/synth/render.h"

#include "core/synth/internal/raster.h"
#include "core/synth/internal/sensors.h"

#include <algorithm>

namespace pitwall::synth {

double CameraConfig::focalPx() const
{
    return width / 2.0 / std::tan(horizontalFovDeg * kPi / 360);
}

namespace internal {

namespace {

constexpr double kNearM = 0.1;
constexpr double kFarM = 600;

struct CameraVertex {
    double x, y, z; // camera frame: right, down, forward
};

class CameraPass {
public:
    CameraPass(const CameraConfig& config, Frame& frame, std::vector<std::uint32_t>& instances)
        : m_config(config), m_frame(frame), m_instances(instances), m_focal(config.focalPx())
    {
        const double pitch = config.pitchDownDeg * kPi / 180;
        m_cosPitch = std::cos(pitch);
        m_sinPitch = std::sin(pitch);
    }

    CameraVertex toCamera(const Vec3& p) const
    {
        const double rx = p.x - m_config.forwardM, ry = p.y, rz = p.z - m_config.heightM;
        return {-ry, -(rx * m_sinPitch + rz * m_cosPitch), rx * m_cosPitch - rz * m_sinPitch};
    }
    // Whether a face with outward normal n through point p faces the camera.
    bool facesCamera(const Vec3& p, const Vec3& n) const
    {
        return (p.x - m_config.forwardM) * n.x + p.y * n.y + (p.z - m_config.heightM) * n.z < 0;
    }

    void polygon(const Vec3* corners, int count, Rgb colour, SemanticClass semantic, std::uint32_t instance,
                 bool depthTest)
    {
        CameraVertex in[8], out[8];
        bool anyNear = false;
        for (int i = 0; i < count; ++i) {
            in[i] = toCamera(corners[i]);
            anyNear |= in[i].z < kFarM;
        }
        if (!anyNear)
            return;
        // Clip against the near plane (Sutherland-Hodgman).
        int n = 0;
        for (int i = 0; i < count; ++i) {
            const CameraVertex& a = in[i];
            const CameraVertex& b = in[(i + 1) % count];
            const bool aIn = a.z >= kNearM, bIn = b.z >= kNearM;
            if (aIn)
                out[n++] = a;
            if (aIn != bIn) {
                const double t = (kNearM - a.z) / (b.z - a.z);
                out[n++] = {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, kNearM};
            }
        }
        if (n < 3)
            return;
        ScreenVertex screen[8];
        for (int i = 0; i < n; ++i)
            screen[i] = {static_cast<float>(m_config.centreX() + m_focal * out[i].x / out[i].z),
                         static_cast<float>(m_config.centreY() + m_focal * out[i].y / out[i].z),
                         static_cast<float>(1.0 / out[i].z)};
        std::uint8_t* rgb = m_frame.rgb.pixels.data();
        std::uint8_t* semanticOut = m_frame.semantic.pixels.data();
        float* depth = m_frame.depth.pixels.data();
        const auto semanticValue = static_cast<std::uint8_t>(semantic);
        auto visit = [&](int index, float inverseDepth) {
            const float z = 1.0f / inverseDepth;
            if (depthTest && z >= depth[index])
                return;
            depth[index] = z;
            rgb[3 * index] = colour.r;
            rgb[3 * index + 1] = colour.g;
            rgb[3 * index + 2] = colour.b;
            semanticOut[index] = semanticValue;
            m_instances[static_cast<std::size_t>(index)] = instance;
        };
        for (int i = 1; i + 1 < n; ++i)
            fillTriangle(screen[0], screen[i], screen[i + 1], m_config.width, m_config.height, visit);
    }

private:
    const CameraConfig& m_config;
    Frame& m_frame;
    std::vector<std::uint32_t>& m_instances;
    double m_focal, m_cosPitch, m_sinPitch;
};

Rgb shade(Rgb c, double light)
{
    auto f = [light](std::uint8_t v) { return static_cast<std::uint8_t>(clampValue(v * light, 0, 255)); };
    return {f(c.r), f(c.g), f(c.b)};
}

double lightFor(const WorldStyle& style, const Vec3& sunEgo, const Vec3& normal)
{
    const double direct = std::max(0.0, normal.x * sunEgo.x + normal.y * sunEgo.y + normal.z * sunEgo.z);
    return style.ambient + (1 - style.ambient) * direct * 1.1;
}

Rgb mixRgb(Rgb a, Rgb b, double t)
{
    auto f = [t](std::uint8_t x, std::uint8_t y) { return static_cast<std::uint8_t>(std::lround(x + (y - x) * t)); };
    return {f(a.r, b.r), f(a.g, b.g), f(a.b, b.b)};
}

void drawBox(CameraPass& pass, const SceneBox& box, const WorldStyle& style, const Vec3& sunEgo)
{
    const Vec2 f = direction(box.yaw);
    const Vec2 l{-f.y, f.x};
    auto corner = [&](double sx, double sy, double z) {
        const Vec2 p = box.centre + f * (sx * box.halfLength) + l * (sy * box.halfWidth);
        return Vec3{p.x, p.y, z};
    };
    const double z0 = box.zMin, z1 = box.zMax;
    struct Face {
        Vec3 normal;
        Vec3 corners[4];
    };
    const Face faces[6] = {
        {{f.x, f.y, 0}, {corner(1, -1, z0), corner(1, 1, z0), corner(1, 1, z1), corner(1, -1, z1)}},
        {{-f.x, -f.y, 0}, {corner(-1, 1, z0), corner(-1, -1, z0), corner(-1, -1, z1), corner(-1, 1, z1)}},
        {{l.x, l.y, 0}, {corner(1, 1, z0), corner(-1, 1, z0), corner(-1, 1, z1), corner(1, 1, z1)}},
        {{-l.x, -l.y, 0}, {corner(-1, -1, z0), corner(1, -1, z0), corner(1, -1, z1), corner(-1, -1, z1)}},
        {{0, 0, 1}, {corner(1, -1, z1), corner(1, 1, z1), corner(-1, 1, z1), corner(-1, -1, z1)}},
        {{0, 0, -1}, {corner(1, -1, z0), corner(-1, -1, z0), corner(-1, 1, z0), corner(1, 1, z0)}},
    };
    for (const Face& face : faces) {
        if (!pass.facesCamera(face.corners[0], face.normal))
            continue;
        pass.polygon(face.corners, 4, shade(box.colour, lightFor(style, sunEgo, face.normal)), box.semantic,
                     box.instance, true);
    }
}

std::uint64_t hashPixel(std::uint64_t seed, std::uint64_t index)
{
    std::uint64_t z = seed ^ (index * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

void renderCamera(const Scene& scene, const WorldStyle& style, double timeS, const CameraConfig& config, Frame& frame,
                  std::vector<std::uint32_t>& instances)
{
    const int w = config.width, h = config.height;
    const auto pixels = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    frame.rgb = {w, h, 3, std::vector<std::uint8_t>(pixels * 3)};
    frame.semantic = {w, h, 1, std::vector<std::uint8_t>(pixels, 0)};
    frame.depth = {w, h, std::vector<float>(pixels, static_cast<float>(kSkyDepthM))};
    instances.assign(pixels, 0);

    // Sky: horizon colour at the horizon, zenith colour overhead.
    const double focal = config.focalPx(), pitch = config.pitchDownDeg * kPi / 180;
    for (int y = 0; y < h; ++y) {
        const double elevation = std::atan((config.centreY() - (y + 0.5)) / focal) - pitch;
        const Rgb c = mixRgb(style.skyHorizon, style.skyZenith, std::sqrt(clampValue(elevation / 0.9, 0, 1)));
        for (int x = 0; x < w; ++x) {
            std::uint8_t* p = &frame.rgb.pixels[(static_cast<std::size_t>(y) * w + x) * 3];
            p[0] = c.r;
            p[1] = c.g;
            p[2] = c.b;
        }
    }

    CameraPass pass(config, frame, instances);
    const double groundLight = lightFor(style, scene.sunEgo, {0, 0, 1});
    for (const SceneQuad& q : scene.ground)
        pass.polygon(q.corners, 4, shade(q.colour, groundLight), q.semantic, q.instance, false);
    for (const SceneBox& box : scene.boxes)
        drawBox(pass, box, style, scene.sunEgo);
    for (const SceneQuad& q : scene.decals)
        pass.polygon(q.corners, 4, q.colour, q.semantic, q.instance, true);

    // Aerial perspective (fog towards the horizon colour) and a little sensor noise.
    const std::uint64_t seed = style.noiseSeed ^ static_cast<std::uint64_t>(std::llround(timeS * 1000));
    for (std::size_t i = 0; i < pixels; ++i) {
        const float depth = std::min(frame.depth.pixels[i], static_cast<float>(kSkyDepthM));
        frame.depth.pixels[i] = depth;
        std::uint8_t* p = &frame.rgb.pixels[i * 3];
        double keep = 1.0;
        if (depth < kSkyDepthM)
            keep = std::exp(-depth / style.visibilityM);
        const int noise = static_cast<int>(hashPixel(seed, i) % 7) - 3;
        const Rgb fogColour = style.skyHorizon;
        const std::uint8_t fog[3] = {fogColour.r, fogColour.g, fogColour.b};
        for (int k = 0; k < 3; ++k) {
            const double v = p[k] * keep + fog[k] * (1 - keep) + noise + 0.5;
            p[k] = static_cast<std::uint8_t>(clampValue(v, 0, 255.0));
        }
    }
}

void renderBevSemantic(const Scene& scene, const BevConfig& config, ImageU8& bev)
{
    const int w = config.width, h = config.height;
    bev = {w, h, 1, std::vector<std::uint8_t>(static_cast<std::size_t>(w) * h, 0)};
    const double ppm = config.pixelsPerMeter, yMax = config.yMaxM();
    auto draw = [&](const BevPolygon& polygon) {
        ScreenVertex v[4];
        for (int i = 0; i < 4; ++i)
            v[i] = {static_cast<float>((polygon.corners[i].x - config.xMinM) * ppm),
                    static_cast<float>((yMax - polygon.corners[i].y) * ppm), 1.0f};
        const auto value = static_cast<std::uint8_t>(polygon.bevClass);
        auto visit = [&](int index, float) { bev.pixels[static_cast<std::size_t>(index)] = value; };
        fillTriangle(v[0], v[1], v[2], w, h, visit);
        fillTriangle(v[0], v[2], v[3], w, h, visit);
    };
    for (const BevPolygon& p : scene.bevGround)
        draw(p);
    for (const BevPolygon& p : scene.bevObjects)
        draw(p);
}

} // namespace internal

Frame renderFrame(const World& world, const SensorConfig& config)
{
    Frame frame;
    const internal::Scene scene = internal::buildScene(world, config.bev.cellM());
    std::vector<std::uint32_t> instances;
    internal::renderCamera(scene, world.style(), world.time(), config.camera, frame, instances);
    internal::renderBevSemantic(scene, config.bev, frame.bevSemantic);
    internal::renderLidar(scene, config.lidar, config.bev, frame.lidarCounts, frame.lidar);
    frame.labels = internal::makeLabels(world, config, instances);
    return frame;
}

Frame renderSensors(const World& world, const SensorConfig& config)
{
    Frame frame;
    const internal::Scene scene = internal::buildScene(world, config.bev.cellM());
    std::vector<std::uint32_t> instances;
    internal::renderCamera(scene, world.style(), world.time(), config.camera, frame, instances);
    internal::renderLidar(scene, config.lidar, config.bev, frame.lidarCounts, frame.lidar);
    frame.labels = internal::makeMeasurements(world);
    return frame;
}

} // namespace pitwall::synth
