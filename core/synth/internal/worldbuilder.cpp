#include "core/synth/internal/worldbuilder.h"

#include "core/synth/internal/driving.h"

#include <algorithm>

namespace pitwall::synth::internal {

namespace {

constexpr double kEgoStartS = 60;
constexpr double kVehicleWindowBehindM = 60;
constexpr double kVehicleWindowAheadM = 200;

Rgb mix(Rgb a, Rgb b, double t)
{
    auto c = [t](std::uint8_t x, std::uint8_t y) {
        return static_cast<std::uint8_t>(std::lround(x + (y - x) * clampValue(t, 0, 1)));
    };
    return {c(a.r, b.r), c(a.g, b.g), c(a.b, b.b)};
}

Rgb vehicleColour(Rng& rng)
{
    static const Rgb palette[] = {{235, 235, 235}, {25, 25, 28},  {160, 162, 168}, {95, 97, 102},
                                  {170, 30, 30},   {30, 60, 140}, {20, 35, 70},    {40, 90, 60},
                                  {200, 170, 60},  {110, 70, 45}, {200, 200, 205}, {60, 60, 62}};
    return palette[rng.uniformInt(0, 11)];
}

// Buildings and groups of trees along one side of the road (-1 right, 1 left), beyond the sidewalk, from 60 m
// before the road to 60 m after it.
void addRoadsideScenery(Rng& rng, const Road& road, int side, std::vector<SceneryItem>& scenery)
{
    static const Rgb facades[] = {{200, 185, 160}, {170, 170, 172}, {150, 80, 60},  {225, 222, 215},
                                  {120, 95, 75},   {185, 195, 205}, {210, 200, 170}};
    const double edge = side < 0 ? road.rightAsphaltEdge() - road.layout().sidewalkWidthM
                                 : road.leftAsphaltEdge() + road.layout().sidewalkWidthM;
    double s = -60;
    while (s < road.length() + 60) {
        const double pick = rng.uniform();
        if (pick < 0.55) {
            SceneryItem b;
            b.kind = SceneryKind::Building;
            const double kappa = std::max(road.maxAbsCurvature(s, s + 30), 1e-4);
            b.length = std::min(rng.uniform(10, 30), 2 * std::sqrt(2 * 1.5 / kappa));
            b.width = rng.uniform(8, 18);
            b.height = rng.uniform(5, 22);
            b.s = s + b.length / 2;
            b.d = edge + side * (rng.uniform(1.5, 8) + b.width / 2);
            b.color = facades[rng.uniformInt(0, 6)];
            scenery.push_back(b);
            s += b.length + rng.uniform(2, 15);
        } else if (pick < 0.9) {
            const int trees = rng.uniformInt(2, 6);
            for (int i = 0; i < trees; ++i) {
                SceneryItem t;
                t.kind = SceneryKind::Tree;
                t.length = t.width = rng.uniform(2.5, 4.5);
                t.height = rng.uniform(4, 9);
                t.s = s;
                t.d = edge + side * rng.uniform(1.2, 3.0);
                t.color = mix({40, 85, 35}, {95, 120, 45}, rng.uniform());
                scenery.push_back(t);
                s += rng.uniform(7, 12);
            }
        } else {
            s += rng.uniform(10, 30);
        }
    }
}

// Street-light poles every 35 m on the right edge of the asphalt.
void addLightPoles(Rng& rng, const Road& road, std::vector<SceneryItem>& scenery)
{
    for (double s = rng.uniform(0, 30); s < road.length(); s += 35) {
        SceneryItem pole;
        pole.kind = SceneryKind::Pole;
        pole.s = s;
        pole.d = road.rightAsphaltEdge() - 0.4;
        pole.length = pole.width = 0.2;
        pole.height = 7;
        pole.color = {110, 112, 115};
        scenery.push_back(pole);
    }
}

} // namespace

World WorldBuilder::build(std::uint64_t seed, const WorldOptions& options)
{
    World world;
    world.m_options = options;
    world.m_rng = Rng(seed);
    Rng& rng = world.m_rng;
    chooseStyle(world);

    RoadLayout layout;
    layout.forwardLanes = rng.chance(0.5) ? 2 : 3;
    const double oncoming = rng.uniform();
    layout.oncomingLanes = oncoming < 0.4 ? 0 : (oncoming < 0.75 ? 1 : 2);
    layout.laneWidthM = rng.uniform(3.3, 3.7);
    layout.leftShoulderM = layout.oncomingLanes > 0 ? rng.uniform(1.5, 2.5) : rng.uniform(0.6, 1.2);
    world.m_speedLimit = rng.uniform(8.3, 13.9);
    const double length = kEgoStartS + std::max(5.0, options.durationS) * 16 + 260;
    world.m_road = std::make_shared<const Road>(Road::generate(rng, length, layout, options.roadShape));

    placeLights(world);
    placeClosures(world);
    const int egoLane = rng.uniformInt(0, layout.forwardLanes - 1);
    world.m_ego.lane = egoLane;
    planRoute(world);
    placeParkedCarsAndScenery(world);

    const Road& road = *world.m_road;
    EgoState& ego = world.m_ego;
    ego.frenet = {kEgoStartS, road.laneCentre(egoLane)};
    ego.pose = {road.point(ego.frenet.s, ego.frenet.d), road.heading(ego.frenet.s)};
    ego.roadHint = static_cast<std::size_t>(kEgoStartS);
    ego.speed = world.m_speedLimit * rng.uniform(0.4, 0.9);
    world.m_expert.targetLane = egoLane;
    world.m_expert.plan = {ego.frenet.s, ego.frenet.s, ego.frenet.d, ego.frenet.d};
    world.m_expert.targetSpeed = ego.speed;
    placeInitialTraffic(world);
    return world;
}

void WorldBuilder::chooseStyle(World& world)
{
    Rng& rng = world.m_rng;
    WorldStyle& style = world.m_style;
    const int weather = rng.uniformInt(0, 3); // clear, overcast, dusk, hazy
    double elevation = rng.uniform(35, 70) * kPi / 180;
    switch (weather) {
    case 0:
        style.skyZenith = {70, 125, 200};
        style.skyHorizon = {180, 205, 230};
        style.ambient = rng.uniform(0.45, 0.55);
        style.visibilityM = rng.uniform(300, 600);
        break;
    case 1:
        style.skyZenith = {145, 150, 160};
        style.skyHorizon = {195, 197, 202};
        style.ambient = rng.uniform(0.75, 0.85);
        style.visibilityM = rng.uniform(150, 300);
        break;
    case 2:
        style.skyZenith = {55, 75, 135};
        style.skyHorizon = {235, 160, 110};
        style.ambient = rng.uniform(0.4, 0.5);
        style.visibilityM = rng.uniform(200, 400);
        elevation = rng.uniform(8, 15) * kPi / 180;
        break;
    default:
        style.skyZenith = {130, 160, 190};
        style.skyHorizon = {212, 215, 215};
        style.ambient = rng.uniform(0.6, 0.7);
        style.visibilityM = rng.uniform(90, 160);
        break;
    }
    const double azimuth = rng.uniform(-kPi, kPi);
    style.sunDirection = {std::cos(elevation) * std::cos(azimuth), std::cos(elevation) * std::sin(azimuth),
                          std::sin(elevation)};
    style.grass = mix({70, 110, 50}, {135, 125, 75}, rng.uniform());
    const auto grey = static_cast<std::uint8_t>(rng.uniformInt(68, 100));
    style.asphalt = {grey, grey, static_cast<std::uint8_t>(grey + 4)};
    const auto paving = static_cast<std::uint8_t>(rng.uniformInt(140, 175));
    style.sidewalk = {paving, paving, static_cast<std::uint8_t>(paving - 6)};
    style.laneWhite = {232, 232, 226};
    style.laneYellow = {222, 180, 45};
    style.noiseSeed = rng.next();
}

void WorldBuilder::placeLights(World& world)
{
    Rng& rng = world.m_rng;
    const Road& road = *world.m_road;
    double s = kEgoStartS + rng.uniform(80, 160);
    while (s < road.length() - 120) {
        TrafficLight light;
        light.id = world.m_nextId++;
        light.s = s;
        light.greenS = rng.uniform(8, 15);
        light.yellowS = 3;
        light.redS = rng.uniform(8, 13);
        const double phase = rng.uniform(0, light.greenS + light.yellowS + light.redS);
        if (phase < light.greenS) {
            light.state = LightState::Green;
            light.timeInStateS = phase;
        } else if (phase < light.greenS + light.yellowS) {
            light.state = LightState::Yellow;
            light.timeInStateS = phase - light.greenS;
        } else {
            light.state = LightState::Red;
            light.timeInStateS = phase - light.greenS - light.yellowS;
        }
        world.m_lights.push_back(light);
        s += rng.uniform(200, 400);
    }
}

void WorldBuilder::placeClosures(World& world)
{
    Rng& rng = world.m_rng;
    const Road& road = *world.m_road;
    if (road.layout().forwardLanes < 2)
        return;
    double s = 180 + rng.uniform(0, 100);
    while (s < road.length() - 120) {
        const double length = rng.uniform(25, 40);
        bool nearLight = false;
        for (const TrafficLight& light : world.m_lights)
            nearLight |= s - 40 < light.s + 10 && s + length + 25 > light.s - 40;
        if (!nearLight && rng.chance(0.45)) {
            const int lane = rng.uniformInt(0, road.layout().forwardLanes - 1);
            world.m_closures.push_back({s, s + length, lane});
            const double centre = road.laneCentre(lane);
            const double half = road.layout().laneWidthM / 2 - 0.45;
            auto add = [&](ActorKind kind, double cs, double cd, double yawOffset) {
                Actor a;
                a.id = world.m_nextId++;
                a.kind = kind;
                a.s = cs;
                a.d = cd;
                a.yawOffset = yawOffset;
                if (kind == ActorKind::Cone) {
                    a.length = a.width = 0.4;
                    a.height = 0.75;
                    a.color = {240, 110, 20};
                } else if (kind == ActorKind::Barrel) {
                    a.length = a.width = 0.6;
                    a.height = 0.95;
                    a.color = {235, 95, 25};
                } else {
                    a.length = 1.6;
                    a.width = 0.35;
                    a.height = 1.0;
                    a.color = {215, 40, 35};
                }
                world.m_actors.push_back(a);
            };
            for (int i = 0; i < 3; ++i)
                add(ActorKind::Cone, s + i * 0.4, centre - half + i * half, 0);
            add(ActorKind::Barrier, s + 4, centre - 0.85, kPi / 2);
            add(ActorKind::Barrier, s + 4, centre + 0.85, kPi / 2);
            for (double cs = s + 10; cs < s + length - 2; cs += 6)
                add(ActorKind::Cone, cs, centre + rng.uniform(-0.3, 0.3), 0);
            add(ActorKind::Barrel, s + length, centre, 0);
            s += length;
        }
        s += rng.uniform(150, 300);
    }
}

void WorldBuilder::planRoute(World& world)
{
    Rng& rng = world.m_rng;
    const Road& road = *world.m_road;
    const int lanes = road.layout().forwardLanes;
    auto closed = [&](int lane, double from, double range) { return closureAhead(world, lane, from, range); };
    int lane = world.m_ego.lane;
    for (double s = 0; s < road.length(); s += 10) {
        int next = lane;
        if (closed(lane, s, 90) >= 0) {
            for (int candidate : {lane + 1, lane - 1})
                if (candidate >= 0 && candidate < lanes && closed(candidate, s - 10, 100) < 0) {
                    next = candidate;
                    break;
                }
        } else if (s > kEgoStartS + 40 && lanes > 1 && rng.chance(0.04) && !world.nextLight(s - 50, 100)) {
            const int candidate = lane + (rng.chance(0.5) ? 1 : -1);
            if (candidate >= 0 && candidate < lanes && closed(candidate, s - 10, 100) < 0)
                next = candidate;
        }
        if (next != lane) {
            world.m_route.push_back({s, lane});
            lane = next;
        }
    }
    world.m_route.push_back({road.length() + 1e6, lane});
}

void WorldBuilder::placeParkedCarsAndScenery(World& world)
{
    Rng& rng = world.m_rng;
    const Road& road = *world.m_road;
    auto nearLight = [&](double s, double before, double after) {
        for (const TrafficLight& light : world.m_lights)
            if (s > light.s - before && s < light.s + after)
                return true;
        return false;
    };
    for (double s = 20 + rng.uniform(0, 20); s < road.length() - 20; s += rng.uniform(8, 40)) {
        if (nearLight(s, 20, 12))
            continue;
        Actor a;
        a.kind = rng.chance(0.85) ? ActorKind::ParkedCar : ActorKind::Cone;
        if (a.kind == ActorKind::ParkedCar && !rng.chance(0.45))
            continue;
        a.id = world.m_nextId++;
        a.s = s;
        if (a.kind == ActorKind::ParkedCar) {
            a.d = road.rightEdge() - road.layout().rightShoulderM / 2;
            a.yawOffset = rng.uniform(-0.03, 0.03);
            a.length = rng.uniform(4.0, 4.8);
            a.width = rng.uniform(1.75, 1.9);
            a.height = rng.uniform(1.4, 1.6);
            a.color = vehicleColour(rng);
        } else {
            a.d = road.rightAsphaltEdge() + 0.5;
            a.length = a.width = 0.4;
            a.height = 0.75;
            a.color = {240, 110, 20};
        }
        world.m_actors.push_back(a);
    }

    auto scenery = std::make_shared<std::vector<SceneryItem>>();
    for (int side : {-1, 1})
        addRoadsideScenery(rng, road, side, *scenery);
    addLightPoles(rng, road, *scenery);
    world.m_scenery = scenery;
}

Actor WorldBuilder::makeVehicle(World& world, int lane, double s, double speed)
{
    Rng& rng = world.m_rng;
    const Road& road = *world.m_road;
    Actor a;
    a.id = world.m_nextId++;
    const double pick = rng.uniform();
    a.kind = pick < 0.7    ? ActorKind::Car
             : pick < 0.85 ? ActorKind::Van
             : pick < 0.95 ? ActorKind::Truck
                           : ActorKind::Emergency;
    switch (a.kind) {
    case ActorKind::Van:
        a.length = rng.uniform(4.8, 5.6);
        a.width = 2.0;
        a.height = rng.uniform(2.0, 2.4);
        break;
    case ActorKind::Truck:
        a.length = rng.uniform(7.0, 9.5);
        a.width = 2.4;
        a.height = rng.uniform(3.0, 3.6);
        break;
    case ActorKind::Emergency:
        a.length = 5.0;
        a.width = 2.0;
        a.height = 1.9;
        break;
    default:
        a.length = rng.uniform(4.0, 4.8);
        a.width = rng.uniform(1.75, 1.95);
        a.height = rng.uniform(1.4, 1.6);
        break;
    }
    a.color = a.kind == ActorKind::Emergency ? Rgb{240, 240, 240} : vehicleColour(rng);
    a.s = s;
    a.lane = a.targetLane = lane;
    a.d = road.laneCentre(lane);
    a.plan = {s, s, a.d, a.d};
    a.direction = road.isOncoming(lane) ? -1 : 1;
    a.desiredSpeed = world.m_speedLimit * rng.uniform(0.85, 1.15) * (a.kind == ActorKind::Truck ? 0.85 : 1.0);
    a.speed = std::min(speed, a.desiredSpeed);
    a.plansCutIn = a.direction > 0 && rng.chance(0.3);
    a.cooldownS = rng.uniform(2, 10);
    return a;
}

Actor WorldBuilder::makePedestrian(World& world, double s, bool rightSide)
{
    Rng& rng = world.m_rng;
    const Road& road = *world.m_road;
    static const Rgb shirts[] = {{180, 40, 40}, {40, 70, 150},  {230, 230, 220}, {40, 40, 45},
                                 {60, 130, 70}, {200, 160, 40}, {120, 60, 130},  {150, 110, 80}};
    Actor a;
    a.id = world.m_nextId++;
    a.kind = ActorKind::Pedestrian;
    a.s = s;
    a.d = (rightSide ? road.rightSidewalkCentre() : road.leftSidewalkCentre()) + rng.uniform(-0.8, 0.8);
    a.length = 0.45;
    a.width = 0.55;
    a.height = rng.uniform(1.55, 1.9);
    a.color = shirts[rng.uniformInt(0, 7)];
    a.walkSpeed = rng.uniform(1.0, 1.6) * (rng.chance(0.5) ? 1 : -1);
    a.speed = std::abs(a.walkSpeed);
    a.yawOffset = a.walkSpeed > 0 ? 0 : kPi;
    a.jaywalker = rng.chance(0.25);
    return a;
}

bool WorldBuilder::laneFree(const World& world, int lane, double s, double clearanceM)
{
    const Road& road = *world.m_road;
    for (const Actor& a : world.m_actors) {
        if (!isDrivingVehicle(a.kind) || std::abs(a.s - s) >= clearanceM + a.length / 2)
            continue;
        // In that lane, leaving it or entering it.
        if (a.lane == lane || a.targetLane == lane || road.laneAt(a.d) == lane || road.laneAt(a.plan.d0) == lane ||
            road.laneAt(a.plan.d1) == lane)
            return false;
    }
    const EgoState& ego = world.m_ego;
    if ((ego.lane == lane || world.m_expert.targetLane == lane) && std::abs(ego.frenet.s - s) < clearanceM + 2.3)
        return false;
    if (!world.m_road->isOncoming(lane) && closureAhead(world, lane, s - 25, 100) >= 0)
        return false;
    return true;
}

void WorldBuilder::placeInitialTraffic(World& world)
{
    Rng& rng = world.m_rng;
    const Road& road = *world.m_road;
    const EgoState& ego = world.m_ego;
    const double density = std::max(0.0, world.m_options.trafficDensity);
    if (density > 0) {
        for (int lane = 0; lane < road.laneCount(); ++lane) {
            const bool oncoming = road.isOncoming(lane);
            double s = ego.frenet.s - (oncoming ? 40 : kVehicleWindowBehindM) + rng.uniform(0, 20);
            const double end = ego.frenet.s + kVehicleWindowAheadM + (oncoming ? 20 : 0);
            while (s < end) {
                const double egoClearance = lane == ego.lane ? (s > ego.frenet.s ? 22 : 15) : 8;
                if (std::abs(s - ego.frenet.s) >= egoClearance && laneFree(world, lane, s, 12))
                    world.m_actors.push_back(makeVehicle(world, lane, s, world.m_speedLimit * rng.uniform(0.6, 0.95)));
                s += rng.uniform(18, 55) / density + 5;
            }
        }
    }
    const int pedestrians = static_cast<int>(std::lround(rng.uniform(4, 10) * world.m_options.pedestrianDensity));
    for (int i = 0; i < pedestrians; ++i) {
        const double s = ego.frenet.s + rng.uniform(-30, 160);
        world.m_actors.push_back(makePedestrian(world, s, rng.chance(0.6)));
    }
}

} // namespace pitwall::synth::internal
