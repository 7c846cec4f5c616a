// Vehicles, pedestrians, obstacles and roadside scenery as boxes and decals.
#include "core/synth/internal/scene.h"

#include <algorithm>

namespace pitwall::synth::internal {

namespace {

// Places parts of one object given in its own frame (x forward, y left) into the scene.
struct ObjectFrame {
    Scene& scene;
    Pose2 pose; // ego frame
    SemanticClass semantic;
    std::uint32_t instance;

    void box(double x, double y, double hl, double hw, double z0, double z1, Rgb colour, double yawOffset = 0) const
    {
        scene.boxes.push_back(
            {pose.toWorld({x, y}), wrapAngle(pose.yaw + yawOffset), hl, hw, z0, z1, colour, semantic, instance});
    }
    // A rectangle on the plane x = const (front or rear face), spanning y0..y1 and z0..z1.
    void faceX(double x, double y0, double y1, double z0, double z1, Rgb colour) const
    {
        scene.decals.push_back(
            {{at(x, y0, z0), at(x, y1, z0), at(x, y1, z1), at(x, y0, z1)}, colour, semantic, instance});
    }
    // A rectangle on the plane y = const (a side), spanning x0..x1 and z0..z1.
    void faceY(double y, double x0, double x1, double z0, double z1, Rgb colour) const
    {
        scene.decals.push_back(
            {{at(x0, y, z0), at(x1, y, z0), at(x1, y, z1), at(x0, y, z1)}, colour, semantic, instance});
    }
    Vec3 at(double x, double y, double z) const
    {
        const Vec2 p = pose.toWorld({x, y});
        return {p.x, p.y, z};
    }
};

Rgb scale(Rgb c, double k)
{
    auto f = [k](std::uint8_t v) { return static_cast<std::uint8_t>(clampValue(v * k, 0, 255)); };
    return {f(c.r), f(c.g), f(c.b)};
}

Rgb blend(Rgb a, Rgb b, double t)
{
    auto f = [t](std::uint8_t x, std::uint8_t y) { return static_cast<std::uint8_t>(x + (y - x) * t); };
    return {f(a.r, b.r), f(a.g, b.g), f(a.b, b.b)};
}

void addWheels(const ObjectFrame& o, double length, double width, int axles)
{
    const Rgb tyre{22, 22, 24};
    for (int k = 0; k < axles; ++k) {
        const double x = axles == 2 ? (k == 0 ? length / 2 - 0.85 : -length / 2 + 0.85)
                                    : length / 2 - 1.0 - k * (length - 2.0) / (axles - 1);
        for (double side : {-1.0, 1.0})
            o.box(x, side * (width / 2 - 0.13), 0.34, 0.13, 0, 0.66, tyre);
    }
}

void addLamps(const ObjectFrame& o, double length, double width, double z, bool braking)
{
    const Rgb tail = braking ? Rgb{255, 50, 40} : Rgb{150, 25, 22};
    const Rgb head{235, 235, 205};
    for (double side : {-1.0, 1.0}) {
        const double y0 = side * (width / 2 - 0.12), y1 = side * (width / 2 - 0.42);
        o.faceX(-length / 2 - 0.02, y0, y1, z, z + 0.14, tail);
        o.faceX(length / 2 + 0.02, y0, y1, z, z + 0.12, head);
    }
}

void addVehicle(const ObjectFrame& o, const Actor& a)
{
    const double L = a.length, W = a.width, H = a.height;
    const Rgb glass = blend(a.color, {35, 45, 58}, 0.75);
    const bool braking = a.acceleration < -0.6 || (isDrivingVehicle(a.kind) && a.speed < 0.3);
    switch (a.kind) {
    case ActorKind::Van:
        addWheels(o, L, W, 2);
        o.box(0, 0, L / 2, W / 2, 0.35, H, a.color);
        o.faceX(L / 2 + 0.02, -W / 2 + 0.15, W / 2 - 0.15, H * 0.62, H - 0.12, glass);
        addLamps(o, L, W, 0.75, braking);
        break;
    case ActorKind::Truck: {
        addWheels(o, L, W, 3);
        const double cab = 2.2;
        o.box(L / 2 - cab / 2, 0, cab / 2, W / 2, 0.45, H * 0.82, a.color);
        o.faceX(L / 2 + 0.02, -W / 2 + 0.15, W / 2 - 0.15, H * 0.55, H * 0.78, glass);
        o.box(-cab / 2 - 0.1, 0, (L - cab) / 2 - 0.1, W / 2, 0.9, H, blend(a.color, {225, 225, 222}, 0.8));
        addLamps(o, L, W, 0.8, braking);
        break;
    }
    default: { // cars, emergency vehicles, parked cars
        addWheels(o, L, W, 2);
        const double waist = 0.45 * H + 0.15;
        o.box(0, 0, L / 2, W / 2, 0.3, waist, a.color);
        o.box(-0.06 * L, 0, 0.27 * L, W / 2 * 0.86, waist, H, glass);
        o.box(-0.06 * L, 0, 0.2 * L, W / 2 * 0.84, H - 0.08, H, a.color); // roof
        if (a.kind == ActorKind::Emergency) {
            o.box(-0.06 * L, 0.35, 0.18, 0.3, H, H + 0.16, {220, 30, 30});
            o.box(-0.06 * L, -0.35, 0.18, 0.3, H, H + 0.16, {30, 60, 220});
            o.faceY(W / 2 + 0.02, -L / 2 + 0.4, L / 2 - 0.4, 0.55, 0.75, {200, 40, 40});
            o.faceY(-W / 2 - 0.02, -L / 2 + 0.4, L / 2 - 0.4, 0.55, 0.75, {200, 40, 40});
        }
        addLamps(o, L, W, 0.6, braking);
        break;
    }
    }
}

void addPedestrian(const ObjectFrame& o, const Actor& a)
{
    static const Rgb trousers[] = {{35, 40, 70}, {45, 45, 48}, {90, 80, 65}, {25, 25, 28}};
    static const Rgb skins[] = {{225, 185, 150}, {190, 140, 100}, {140, 95, 65}, {95, 65, 45}};
    const double H = a.height;
    o.box(0, 0, 0.12, 0.17, 0, 0.48 * H, trousers[a.id % 4]);
    o.box(0, 0, 0.13, 0.24, 0.48 * H, 0.84 * H, a.color);
    o.box(0.01, 0, 0.1, 0.095, 0.86 * H, H, skins[(a.id / 4) % 4]);
}

void addObstacle(const ObjectFrame& o, const Actor& a)
{
    const Rgb white{235, 235, 230};
    if (a.kind == ActorKind::Cone) {
        o.box(0, 0, 0.2, 0.2, 0, 0.04, {30, 30, 30});
        o.box(0, 0, 0.15, 0.15, 0.04, 0.3, a.color);
        o.box(0, 0, 0.11, 0.11, 0.3, 0.45, white);
        o.box(0, 0, 0.07, 0.07, 0.45, a.height, a.color);
    } else if (a.kind == ActorKind::Barrel) {
        o.box(0, 0, 0.3, 0.3, 0, 0.4, a.color);
        o.box(0, 0, 0.3, 0.3, 0.4, 0.58, white);
        o.box(0, 0, 0.3, 0.3, 0.58, a.height, a.color);
    } else { // barrier: feet and a striped board
        for (double x : {-a.length / 2 + 0.15, a.length / 2 - 0.15})
            o.box(x, 0, 0.08, a.width / 2, 0, 0.45, {60, 60, 60});
        const int stripes = 4;
        for (int k = 0; k < stripes; ++k) {
            const double x0 = -a.length / 2 + k * a.length / stripes;
            o.box(x0 + a.length / stripes / 2, 0, a.length / stripes / 2, 0.06, 0.45, a.height,
                  k % 2 ? white : a.color);
        }
    }
}

BevClass bevClassOf(ActorKind kind)
{
    switch (kind) {
    case ActorKind::Emergency:
        return BevClass::SpecialVehicle;
    case ActorKind::ParkedCar:
        return BevClass::ParkingVehicle;
    case ActorKind::Pedestrian:
        return BevClass::Walker;
    case ActorKind::Cone:
    case ActorKind::Barrel:
    case ActorKind::Barrier:
        return BevClass::Obstacle;
    default:
        return BevClass::Vehicle;
    }
}

SemanticClass semanticOf(ActorKind kind)
{
    switch (kind) {
    case ActorKind::Emergency:
        return SemanticClass::SpecialVehicle;
    case ActorKind::Pedestrian:
        return SemanticClass::Pedestrian;
    case ActorKind::Cone:
    case ActorKind::Barrel:
    case ActorKind::Barrier:
        return SemanticClass::Obstacle;
    default:
        return SemanticClass::Vehicle;
    }
}

// BEV draw order: later classes paint over earlier ones where footprints touch.
int bevLayer(ActorKind kind)
{
    if (isObstacle(kind))
        return 0;
    return kind == ActorKind::Pedestrian ? 2 : 1;
}

} // namespace

void addActors(const World& world, double bevCellM, Scene& scene)
{
    const Road& road = world.road();
    const EgoTransform toEgo(world.ego().pose);
    const double egoS = world.ego().frenet.s;
    for (int layer = 0; layer < 3; ++layer) {
        for (const Actor& a : world.actors()) {
            if (a.s < egoS - kDrawBehindM || a.s > egoS + kDrawAheadM || bevLayer(a.kind) != layer)
                continue;
            const Pose2 worldPose = world.actorPose(a);
            const Pose2 pose{toEgo.point(worldPose.position), toEgo.yaw(worldPose.yaw)};
            const ObjectFrame frame{scene, pose, semanticOf(a.kind), static_cast<std::uint32_t>(a.id)};
            if (a.kind != ActorKind::Cone) {
                // A soft contact shadow on the ground (part of the ground, labelled as what it lies on).
                const double hl = a.length / 2 + 0.2, hw = a.width / 2 + 0.2;
                const bool onAsphalt = a.d > road.rightAsphaltEdge() && a.d < road.leftAsphaltEdge();
                const Rgb under = onAsphalt ? world.style().asphalt : world.style().sidewalk;
                scene.ground.push_back(
                    {{frame.at(-hl, -hw, 0), frame.at(hl, -hw, 0), frame.at(hl, hw, 0), frame.at(-hl, hw, 0)},
                     scale(under, 0.55),
                     onAsphalt ? SemanticClass::Road : SemanticClass::Unlabeled,
                     0});
            }
            if (a.kind == ActorKind::Pedestrian)
                addPedestrian(frame, a);
            else if (isObstacle(a.kind))
                addObstacle(frame, a);
            else
                addVehicle(frame, a);
            addBevFootprint(scene, pose.position, pose.yaw, a.length, a.width, bevClassOf(a.kind), bevCellM);
        }
    }
}

void addScenery(const World& world, Scene& scene)
{
    const Road& road = world.road();
    const EgoTransform toEgo(world.ego().pose);
    const double egoS = world.ego().frenet.s;
    const Rgb windowGlass{55, 65, 80}, bark{85, 62, 40};
    for (const SceneryItem& item : world.scenery()) {
        if (item.s + item.length / 2 < egoS - kDrawBehindM || item.s - item.length / 2 > egoS + kDrawAheadM + 40)
            continue;
        const Pose2 pose{toEgo.point(road.point(item.s, item.d)), toEgo.yaw(road.heading(item.s))};
        const ObjectFrame o{scene, pose, SemanticClass::Unlabeled, 0};
        switch (item.kind) {
        case SceneryKind::Building: {
            o.box(0, 0, item.length / 2, item.width / 2, 0, item.height, item.color);
            if (std::abs(item.s - egoS) > 110)
                break;
            // Windows on the side facing the road.
            const double face = item.d > 0 ? -item.width / 2 - 0.03 : item.width / 2 + 0.03;
            for (double z = 1.2; z + 1.6 < item.height; z += 3.0)
                for (double x = -item.length / 2 + 1.5; x + 1.3 < item.length / 2; x += 3.0)
                    o.faceY(face, x, x + 1.3, z, z + 1.5, windowGlass);
            break;
        }
        case SceneryKind::Tree:
            o.box(0, 0, 0.15, 0.15, 0, 0.45 * item.height, bark);
            o.box(0, 0, item.width / 2, item.width / 2, 0.35 * item.height, item.height, item.color);
            o.box(0, 0, item.width * 0.42, item.width * 0.42, 0.45 * item.height, 0.97 * item.height,
                  scale(item.color, 1.15), kPi / 4);
            break;
        case SceneryKind::Pole: {
            o.box(0, 0, item.width / 2, item.width / 2, 0, item.height, item.color);
            const double towardRoad = item.d < 0 ? 0.6 : -0.6;
            o.box(0, towardRoad, 0.15, 0.6, item.height - 0.15, item.height, item.color);
            break;
        }
        }
    }
}

} // namespace pitwall::synth::internal
