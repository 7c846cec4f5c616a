#include "core/drive/internal/replay.h"

#include "core/synth/internal/imageio.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace pitwall::drive {

namespace {

using synth::Rgb;
using synth::Vec2;

constexpr int kColumns = 6;
constexpr int kGlyphScale = 2;
constexpr int kHeaderPx = 30;
constexpr int kGapPx = 4;

// 3×5 glyphs, one row per 3 bits (most significant bit left).
int glyph(char c)
{
    static const char* kChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.:-%/";
    static const int kRows[][5] = {
        {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1}, {7, 4, 7, 1, 7},
        {7, 4, 7, 5, 7}, {7, 1, 1, 2, 2}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}, {2, 5, 7, 5, 5}, {6, 5, 6, 5, 6},
        {3, 4, 4, 4, 3}, {6, 5, 5, 5, 6}, {7, 4, 6, 4, 7}, {7, 4, 6, 4, 4}, {3, 4, 5, 5, 3}, {5, 5, 7, 5, 5},
        {7, 2, 2, 2, 7}, {1, 1, 1, 5, 2}, {5, 5, 6, 5, 5}, {4, 4, 4, 4, 7}, {5, 7, 7, 5, 5}, {6, 5, 5, 5, 5},
        {2, 5, 5, 5, 2}, {6, 5, 6, 4, 4}, {2, 5, 5, 6, 3}, {6, 5, 6, 5, 5}, {3, 4, 2, 1, 6}, {7, 2, 2, 2, 2},
        {5, 5, 5, 5, 7}, {5, 5, 5, 5, 2}, {5, 5, 7, 7, 5}, {5, 5, 2, 5, 5}, {5, 5, 2, 2, 2}, {7, 1, 2, 4, 7},
        {0, 0, 0, 0, 2}, {0, 2, 0, 2, 0}, {0, 0, 7, 0, 0}, {5, 1, 2, 4, 5}, {1, 1, 2, 4, 4}};
    const char* at = std::strchr(kChars, std::toupper(static_cast<unsigned char>(c)));
    if (!at || c == '\0')
        return -1;
    const int index = static_cast<int>(at - kChars);
    int bits = 0;
    for (int row = 0; row < 5; ++row)
        bits = (bits << 3) | kRows[index][row];
    return bits;
}

// An RGB canvas with the few drawing operations a replay needs.
struct Canvas {
    int width, height;
    std::vector<std::uint8_t>& rgb;
    int originX = 0, originY = 0;

    void put(int x, int y, Rgb c)
    {
        x += originX;
        y += originY;
        if (x < 0 || y < 0 || x >= width || y >= height)
            return;
        std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
    }
    void fill(int x0, int y0, int w, int h, Rgb c)
    {
        for (int y = y0; y < y0 + h; ++y)
            for (int x = x0; x < x0 + w; ++x)
                put(x, y, c);
    }
    void text(int x, int y, const std::string& s, Rgb c)
    {
        for (char ch : s) {
            const int bits = glyph(ch);
            for (int row = 0; row < 5 && bits >= 0; ++row)
                for (int col = 0; col < 3; ++col)
                    if (bits >> ((4 - row) * 3 + (2 - col)) & 1)
                        fill(x + col * kGlyphScale, y + row * kGlyphScale, kGlyphScale, kGlyphScale, c);
            x += 4 * kGlyphScale;
        }
    }
};

// Maps world points into the top-down sketch: the ego at (128, 176), heading up.
struct SketchFrame {
    synth::Pose2 ego;
    Vec2 toPixel(Vec2 world) const
    {
        const Vec2 local = ego.toLocal(world);
        return {ReplayRecorder::kSketchPx / 2.0 - local.y / ReplayRecorder::kMetresPerPx,
                ReplayRecorder::kSketchPx * 0.69 - local.x / ReplayRecorder::kMetresPerPx};
    }
    Vec2 toWorld(double px, double py) const
    {
        const Vec2 local{(ReplayRecorder::kSketchPx * 0.69 - py) * ReplayRecorder::kMetresPerPx,
                         (ReplayRecorder::kSketchPx / 2.0 - px) * ReplayRecorder::kMetresPerPx};
        return ego.toWorld(local);
    }
};

void fillBox(Canvas& canvas, const SketchFrame& frame, Vec2 centre, double halfLength, double halfWidth, double yaw,
             Rgb c)
{
    const Vec2 f = synth::direction(yaw), l{-f.y, f.x};
    const Vec2 corners[4] = {centre + f * halfLength + l * halfWidth, centre + f * halfLength - l * halfWidth,
                             centre - f * halfLength + l * halfWidth, centre - f * halfLength - l * halfWidth};
    double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
    for (Vec2 corner : corners) {
        const Vec2 p = frame.toPixel(corner);
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
    }
    const int size = ReplayRecorder::kSketchPx;
    for (int y = std::max(0, static_cast<int>(y0)); y <= std::min(size - 1, static_cast<int>(y1)); ++y)
        for (int x = std::max(0, static_cast<int>(x0)); x <= std::min(size - 1, static_cast<int>(x1)); ++x) {
            const Vec2 rel = frame.toWorld(x + 0.5, y + 0.5) - centre;
            if (std::abs(rel.dot(f)) <= halfLength + 0.15 && std::abs(rel.dot(l)) <= halfWidth + 0.15)
                canvas.put(x, y, c);
        }
}

void dot(Canvas& canvas, Vec2 pixel, int radius, Rgb c)
{
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            if (dx * dx + dy * dy <= radius * radius + 1)
                canvas.put(static_cast<int>(pixel.x) + dx, static_cast<int>(pixel.y) + dy, c);
}

void cross(Canvas& canvas, Vec2 pixel, Rgb c)
{
    for (int k = -6; k <= 6; ++k)
        for (int w = 0; w < 2; ++w) {
            canvas.put(static_cast<int>(pixel.x) + k + w, static_cast<int>(pixel.y) + k, c);
            canvas.put(static_cast<int>(pixel.x) + k + w, static_cast<int>(pixel.y) - k, c);
        }
}

std::string fixed(double value, int decimals)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string infractionLabel(InfractionType type)
{
    switch (type) {
    case InfractionType::CollisionPedestrian:
        return "HIT PEDESTRIAN";
    case InfractionType::CollisionVehicle:
        return "HIT VEHICLE";
    case InfractionType::CollisionStatic:
        return "HIT OBJECT";
    case InfractionType::RedLight:
        return "RED LIGHT";
    case InfractionType::RouteDeviation:
        return "LEFT ROUTE";
    case InfractionType::AgentBlocked:
        return "BLOCKED";
    }
    return "";
}

// The header: time, route completion and driving score so far, and the latest infraction (highlighted when it
// happened on this tick).
void drawHeader(Canvas& canvas, const synth::World& world, const RouteMonitor& monitor, bool infractionNow)
{
    const double penalty = infractionPenalty(monitor.infractions());
    canvas.fill(0, 0, ReplayRecorder::kSketchPx, kHeaderPx, infractionNow ? Rgb{120, 20, 20} : Rgb{30, 30, 34});
    canvas.text(4, 3,
                "T " + fixed(world.time(), 1) + "S RC " + fixed(monitor.completionPercent(), 0) + "% DS " +
                    fixed(monitor.completionPercent() * penalty, 0),
                {235, 235, 235});
    if (!monitor.infractions().empty()) {
        const Infraction& latest = monitor.infractions().back();
        canvas.text(4, 17, infractionLabel(latest.type) + " AT " + fixed(latest.timeS, 1) + "S",
                    infractionNow ? Rgb{255, 230, 120} : Rgb{230, 90, 80});
    }
}

// The camera image below the header, scaled up to the panel width (nearest neighbour).
void drawCamera(Canvas& canvas, const synth::Frame& frame, int scale, int cameraHeight)
{
    for (int y = 0; y < cameraHeight; ++y)
        for (int x = 0; x < std::min(ReplayRecorder::kSketchPx, frame.rgb.width * scale); ++x) {
            const std::uint8_t* p =
                &frame.rgb.pixels[(static_cast<std::size_t>(y / scale) * frame.rgb.width + x / scale) * 3];
            canvas.put(x, kHeaderPx + y, {p[0], p[1], p[2]});
        }
}

// The top-down sketch's road from the Frenet coordinates of every pixel: grass, sidewalks, shoulders, lanes and
// their markings (the centre line yellow, lane lines dashed).
void drawRoad(Canvas& canvas, const synth::World& world, const SketchFrame& sketch)
{
    const synth::Road& road = world.road();
    std::size_t hint = world.ego().roadHint;
    const double lanes[2] = {road.rightEdge(), road.leftEdge()};
    for (int y = 0; y < ReplayRecorder::kSketchPx; ++y)
        for (int x = 0; x < ReplayRecorder::kSketchPx; ++x) {
            const synth::FrenetPoint f = road.project(sketch.toWorld(x + 0.5, y + 0.5), &hint);
            Rgb c{70, 105, 55}; // grass
            if (f.d >= road.rightAsphaltEdge() && f.d <= road.leftAsphaltEdge())
                c = f.d >= lanes[0] && f.d <= lanes[1] ? Rgb{80, 80, 86} : Rgb{64, 64, 68};
            else if (f.d >= road.rightAsphaltEdge() - road.layout().sidewalkWidthM &&
                     f.d <= road.leftAsphaltEdge() + road.layout().sidewalkWidthM)
                c = {150, 150, 145};
            const double w = road.layout().laneWidthM;
            const double nearestLine = std::round((f.d - lanes[0]) / w) * w + lanes[0];
            if (f.d >= lanes[0] - 0.15 && f.d <= lanes[1] + 0.15 && std::abs(f.d - nearestLine) < 0.15) {
                const bool dashed = std::abs(nearestLine - lanes[0]) > 0.1 && std::abs(nearestLine - lanes[1]) > 0.1 &&
                                    std::abs(nearestLine) > 0.1;
                if (!dashed || std::fmod(std::abs(f.s), 6.0) < 3.0)
                    c = std::abs(nearestLine) < 0.1 ? Rgb{220, 180, 50} : Rgb{225, 225, 220};
            }
            canvas.put(x, y, c);
        }
}

// The traffic lights' stop lines in their colour and the actors' boxes within 60 m of the ego.
void drawLightsAndActors(Canvas& canvas, const synth::World& world, const SketchFrame& sketch)
{
    const synth::Road& road = world.road();
    for (const synth::TrafficLight& light : world.lights()) {
        if (std::abs(light.s - world.ego().frenet.s) > 60)
            continue;
        const Rgb c = light.state == synth::LightState::Red      ? Rgb{230, 40, 40}
                      : light.state == synth::LightState::Yellow ? Rgb{240, 200, 40}
                                                                 : Rgb{60, 210, 80};
        for (double d = road.rightEdge(); d <= 0; d += 0.1)
            dot(canvas, sketch.toPixel(road.point(light.s, d)), 1, c);
    }
    for (const synth::Actor& actor : world.actors()) {
        if (std::abs(actor.s - world.ego().frenet.s) > 60)
            continue;
        const synth::Pose2 pose = world.actorPose(actor);
        const Rgb c = actor.kind == synth::ActorKind::Pedestrian  ? Rgb{230, 60, 220}
                      : actor.kind == synth::ActorKind::ParkedCar ? Rgb{150, 150, 160}
                      : synth::isObstacle(actor.kind)             ? Rgb{245, 140, 30}
                                                                  : Rgb{70, 120, 230};
        fillBox(canvas, sketch, pose.position, actor.length / 2, actor.width / 2, pose.yaw, c);
    }
}

} // namespace

std::string replayFileName(int routeIndex, std::uint64_t worldSeed)
{
    char name[96];
    std::snprintf(name, sizeof name, "route_%02d_seed_%llu.png", routeIndex,
                  static_cast<unsigned long long>(worldSeed));
    return name;
}

ReplayRecorder::ReplayRecorder(const synth::SensorConfig& sensors, double intervalS)
    : m_sensors(sensors), m_intervalS(std::max(intervalS, 0.05))
{
}

void ReplayRecorder::tick(const synth::World& world, const VehicleController& controller, const RouteMonitor& monitor,
                          bool last)
{
    if (m_trail.empty() || (world.ego().pose.position - m_trail.back()).norm() > 0.5)
        m_trail.push_back(world.ego().pose.position);
    const bool infraction = monitor.infractions().size() > m_infractionsSeen;
    m_infractionsSeen = monitor.infractions().size();
    if (world.time() + 1e-9 < m_nextS && !infraction && !last)
        return;
    if (world.time() + 1e-9 >= m_nextS)
        m_nextS += m_intervalS * std::max(1.0, std::floor((world.time() - m_nextS) / m_intervalS + 1));
    m_panels.push_back(render(world, controller, monitor, infraction));
}

ReplayRecorder::Panel ReplayRecorder::render(const synth::World& world, const VehicleController& controller,
                                             const RouteMonitor& monitor, bool infractionNow) const
{
    const synth::Frame frame = synth::renderFrame(world, m_sensors);
    const int scale = std::max(1, kSketchPx / std::max(1, frame.rgb.width));
    const int cameraHeight = frame.rgb.height * scale;
    Panel panel;
    panel.width = kSketchPx;
    panel.height = kHeaderPx + cameraHeight + kSketchPx;
    panel.rgb.assign(static_cast<std::size_t>(panel.width) * panel.height * 3, 0);
    Canvas canvas{panel.width, panel.height, panel.rgb};

    drawHeader(canvas, world, monitor, infractionNow);
    drawCamera(canvas, frame, scale, cameraHeight);
    canvas.originY = kHeaderPx + cameraHeight;
    const SketchFrame sketch{world.ego().pose};
    drawRoad(canvas, world, sketch);
    drawLightsAndActors(canvas, world, sketch);
    for (std::size_t i = 1; i < m_trail.size(); ++i)
        dot(canvas, sketch.toPixel(m_trail[i]), 1, {60, 220, 230});
    for (Vec2 p : controller.worldPath())
        dot(canvas, sketch.toPixel(p), 2, {80, 230, 90});
    if (controller.hasPlan())
        dot(canvas, sketch.toPixel(controller.aimPoint()), 2, {250, 240, 60});
    const synth::EgoState& ego = world.ego();
    fillBox(canvas, sketch, ego.pose.position, ego.length / 2, ego.width / 2, ego.pose.yaw, {240, 240, 240});
    for (const Infraction& infraction : monitor.infractions())
        cross(canvas, sketch.toPixel(infraction.position), {255, 30, 30});
    return panel;
}

void ReplayRecorder::write(const std::string& path) const
{
    if (m_panels.empty())
        return;
    const int columns = std::min(kColumns, static_cast<int>(m_panels.size()));
    const int rows = (static_cast<int>(m_panels.size()) + columns - 1) / columns;
    const int cellWidth = m_panels.front().width, cellHeight = m_panels.front().height;
    const int width = columns * cellWidth + (columns + 1) * kGapPx;
    const int height = rows * cellHeight + (rows + 1) * kGapPx;
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * height * 3, 255);
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        const Panel& panel = m_panels[i];
        const int x0 = kGapPx + static_cast<int>(i) % columns * (cellWidth + kGapPx);
        const int y0 = kGapPx + static_cast<int>(i) / columns * (cellHeight + kGapPx);
        for (int y = 0; y < std::min(panel.height, cellHeight); ++y)
            std::copy_n(&panel.rgb[static_cast<std::size_t>(y) * panel.width * 3], std::min(panel.width, cellWidth) * 3,
                        &rgb[(static_cast<std::size_t>(y0 + y) * width + x0) * 3]);
    }
    const std::filesystem::path file(path);
    if (file.has_parent_path())
        std::filesystem::create_directories(file.parent_path());
    synth::internal::writeFile(path, synth::internal::encodePng(rgb.data(), width, height, 3, false, 6));
}

} // namespace pitwall::drive
