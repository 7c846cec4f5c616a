// The road surface, its markings and the traffic lights as scene primitives.
#include "core/synth/internal/scene.h"

#include <algorithm>

namespace pitwall::synth::internal {

namespace {

constexpr double kDashLengthM = 3.0;
constexpr double kDashPeriodM = 9.0;
constexpr double kLineWidthM = 0.15;

struct RoadPainter {
    const Road& road;
    EgoTransform toEgo;
    Scene& scene;

    Vec3 at(double s, double d) const
    {
        const Vec2 p = toEgo.point(road.point(s, d));
        return {p.x, p.y, 0};
    }
    void quad(double s0, double s1, double d0, double d1, Rgb colour, SemanticClass semantic) const
    {
        scene.ground.push_back({{at(s0, d0), at(s0, d1), at(s1, d1), at(s1, d0)}, colour, semantic, 0});
    }
    void bev(double s0, double s1, double d0, double d1, BevClass bevClass) const
    {
        const Vec3 a = at(s0, d0), b = at(s0, d1), c = at(s1, d1), d = at(s1, d0);
        scene.bevGround.push_back({{{a.x, a.y}, {b.x, b.y}, {c.x, c.y}, {d.x, d.y}}, bevClass});
    }
};

struct LaneLine {
    double d;
    bool dashed;
    Rgb colour;
    double widthM;
};

std::vector<LaneLine> laneLines(const Road& road, const WorldStyle& style)
{
    const RoadLayout& l = road.layout();
    std::vector<LaneLine> lines;
    lines.push_back({road.rightEdge(), false, style.laneWhite, kLineWidthM});
    for (int k = 1; k < l.forwardLanes; ++k)
        lines.push_back({road.rightEdge() + k * l.laneWidthM, true, style.laneWhite, kLineWidthM});
    if (l.oncomingLanes == 0) {
        lines.push_back({0, false, style.laneYellow, kLineWidthM});
        return lines;
    }
    lines.push_back({-0.12, false, style.laneYellow, 0.11});
    lines.push_back({0.12, false, style.laneYellow, 0.11});
    for (int k = 1; k < l.oncomingLanes; ++k)
        lines.push_back({k * l.laneWidthM, true, style.laneWhite, kLineWidthM});
    lines.push_back({road.leftEdge(), false, style.laneWhite, kLineWidthM});
    return lines;
}

} // namespace

void addBevFootprint(Scene& scene, Vec2 centre, double yaw, double length, double width, BevClass bevClass,
                     double bevCellM)
{
    const double hl = std::max(length, kMinFootprintCells * bevCellM) / 2;
    const double hw = std::max(width, kMinFootprintCells * bevCellM) / 2;
    const Pose2 pose{centre, yaw};
    scene.bevObjects.push_back(
        {{pose.toWorld({-hl, -hw}), pose.toWorld({hl, -hw}), pose.toWorld({hl, hw}), pose.toWorld({-hl, hw})},
         bevClass});
}

void addRoad(const World& world, double bevCellM, Scene& scene)
{
    const Road& road = world.road();
    const WorldStyle& style = world.style();
    const RoadPainter paint{road, EgoTransform(world.ego().pose), scene};
    const double egoS = world.ego().frenet.s;

    std::vector<double> stations;
    for (double s = egoS - kDrawBehindM; s < egoS + kDrawAheadM;) {
        stations.push_back(s);
        const double distance = std::abs(s - egoS);
        s += distance < 20 ? 1.0 : (distance < 60 ? 2.0 : 4.0);
    }
    stations.push_back(egoS + kDrawAheadM);

    scene.ground.push_back(
        {{{-100, -500, 0}, {600, -500, 0}, {600, 500, 0}, {-100, 500, 0}}, style.grass, SemanticClass::Unlabeled, 0});
    const double sidewalk = road.layout().sidewalkWidthM;
    const double rightOuter = road.rightAsphaltEdge() - sidewalk, leftOuter = road.leftAsphaltEdge() + sidewalk;
    for (std::size_t i = 0; i + 1 < stations.size(); ++i) {
        const double s0 = stations[i], s1 = stations[i + 1];
        paint.quad(s0, s1, rightOuter, road.rightAsphaltEdge(), style.sidewalk, SemanticClass::Unlabeled);
        paint.quad(s0, s1, road.leftAsphaltEdge(), leftOuter, style.sidewalk, SemanticClass::Unlabeled);
        paint.quad(s0, s1, road.rightAsphaltEdge(), road.leftAsphaltEdge(), style.asphalt, SemanticClass::Road);
        paint.bev(s0, s1, road.rightAsphaltEdge(), road.leftAsphaltEdge(), BevClass::Road);
    }

    const double bevLineM = std::max(kLineWidthM, 1.1 * bevCellM);
    for (const LaneLine& line : laneLines(road, style)) {
        const double bevHalf = (line.widthM < kLineWidthM ? std::max(bevLineM, 0.35) : bevLineM) / 2;
        const double bevD = line.widthM < kLineWidthM ? (line.d < 0 ? line.d + 0.12 : -1e9) : line.d;
        auto piece = [&](double s0, double s1) {
            paint.quad(s0, s1, line.d - line.widthM / 2, line.d + line.widthM / 2, line.colour,
                       SemanticClass::RoadLine);
            if (bevD > -1e8) // the double centre line is one marking in BEV
                paint.bev(s0, s1, bevD - bevHalf, bevD + bevHalf, BevClass::LaneMarkers);
        };
        if (!line.dashed) {
            for (std::size_t i = 0; i + 1 < stations.size(); ++i)
                piece(stations[i], stations[i + 1]);
            continue;
        }
        for (double s = std::floor(stations.front() / kDashPeriodM) * kDashPeriodM; s < stations.back();
             s += kDashPeriodM)
            piece(std::max(s, stations.front()), std::min(s + kDashLengthM, stations.back()));
    }
}

void addLights(const World& world, Scene& scene)
{
    const Road& road = world.road();
    const WorldStyle& style = world.style();
    const EgoTransform toEgo(world.ego().pose);
    const RoadPainter paint{road, toEgo, scene};
    const double egoS = world.ego().frenet.s;
    const RoadLayout& l = road.layout();
    for (const TrafficLight& light : world.lights()) {
        if (light.s < egoS - kDrawBehindM || light.s > egoS + kDrawAheadM)
            continue;
        // Stop lines and the crosswalk.
        paint.quad(light.s - 0.5, light.s, road.rightEdge(), 0, style.laneWhite, SemanticClass::RoadLine);
        const double oncomingStop = light.s + TrafficLight::kOncomingStopOffsetM;
        if (l.oncomingLanes > 0)
            paint.quad(oncomingStop, oncomingStop + 0.5, 0, road.leftEdge(), style.laneWhite, SemanticClass::RoadLine);
        for (double d = road.rightAsphaltEdge() + 0.25; d + 0.5 <= road.leftAsphaltEdge(); d += 1.0)
            paint.quad(light.s + TrafficLight::kCrosswalkStartM, light.s + TrafficLight::kCrosswalkEndM, d, d + 0.5,
                       style.laneWhite, SemanticClass::RoadLine);
        paint.bev(light.s - 2.0, light.s, road.rightEdge(), 0,
                  light.state == LightState::Green ? BevClass::TrafficGreen : BevClass::TrafficRedNormal);

        // The mast facing the ego: pole on the right, an arm over the forward lanes, a head on the arm and one
        // on the pole, lamps on the faces towards the ego.
        auto placeMast = [&](double s, double poleD, double headD, double facing, std::uint32_t instance) {
            const double yaw = toEgo.yaw(road.heading(s));
            auto centre = [&](double d) { return toEgo.point(road.point(s, d)); };
            const Rgb metal{75, 77, 80}, housing{28, 30, 30};
            scene.boxes.push_back({centre(poleD), yaw, 0.12, 0.12, 0, 6.2, metal, SemanticClass::Unlabeled, 0});
            scene.boxes.push_back({centre((poleD + headD) / 2), yaw, 0.07, std::abs(headD - poleD) / 2 + 0.2, 5.9, 6.05,
                                   metal, SemanticClass::Unlabeled, 0});
            const double poleHeadD = poleD + (headD > poleD ? 0.35 : -0.35);
            struct Head {
                double d, z0, z1;
                std::uint32_t instance;
            };
            for (const Head& h : {Head{headD, 4.8, 5.9, instance}, Head{poleHeadD, 2.6, 3.7, 0u}}) {
                scene.boxes.push_back(
                    {centre(h.d), yaw, 0.18, 0.2, h.z0, h.z1, housing, SemanticClass::TrafficLight, h.instance});
                if (facing > 0 || instance == 0)
                    continue; // lamps only on the side the ego sees
                const double faceS = s - 0.21;
                const Rgb lit[3] = {{255, 45, 30}, {255, 195, 30}, {40, 255, 110}};
                const Rgb dim[3] = {{80, 22, 20}, {80, 66, 20}, {20, 70, 35}};
                const int on = light.state == LightState::Red ? 0 : (light.state == LightState::Yellow ? 1 : 2);
                for (int k = 0; k < 3; ++k) {
                    const double zc = h.z1 - 0.2 - k * 0.34;
                    auto corner = [&](double d, double z) {
                        const Vec2 p = toEgo.point(road.point(faceS, d));
                        return Vec3{p.x, p.y, z};
                    };
                    scene.decals.push_back({{corner(h.d - 0.12, zc - 0.12), corner(h.d + 0.12, zc - 0.12),
                                             corner(h.d + 0.12, zc + 0.12), corner(h.d - 0.12, zc + 0.12)},
                                            k == on ? lit[k] : dim[k],
                                            SemanticClass::TrafficLight,
                                            h.instance});
                }
            }
        };
        const double forwardWidth = l.forwardLanes * l.laneWidthM;
        placeMast(light.s - 0.5, road.rightAsphaltEdge() - 0.6, -forwardWidth / 2, -1,
                  static_cast<std::uint32_t>(light.id));
        if (l.oncomingLanes > 0)
            placeMast(oncomingStop + 0.5, road.leftAsphaltEdge() + 0.6, road.leftEdge() / 2, 1, 0);
    }
}

Scene buildScene(const World& world, double bevCellM)
{
    Scene scene;
    const Vec3 sun = world.style().sunDirection;
    const double yaw = world.ego().pose.yaw;
    scene.sunEgo = {std::cos(yaw) * sun.x + std::sin(yaw) * sun.y, -std::sin(yaw) * sun.x + std::cos(yaw) * sun.y,
                    sun.z};
    addRoad(world, bevCellM, scene);
    addLights(world, scene);
    addActors(world, bevCellM, scene);
    addScenery(world, scene);
    return scene;
}

} // namespace pitwall::synth::internal
