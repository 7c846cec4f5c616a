// Object boxes with CIPO levels, and the planning labels (waypoints, target speed and point, command).
#include "core/synth/internal/driving.h"
#include "core/synth/internal/sensors.h"

#include <algorithm>
#include <unordered_map>

namespace pitwall::synth::internal {

namespace {

constexpr double kLightLabelRangeM = 80;

BoxClass boxClassOf(ActorKind kind)
{
    switch (kind) {
    case ActorKind::Emergency:
        return BoxClass::Special;
    case ActorKind::ParkedCar:
        return BoxClass::Parking;
    case ActorKind::Pedestrian:
        return BoxClass::Walker;
    case ActorKind::Cone:
    case ActorKind::Barrel:
    case ActorKind::Barrier:
        return BoxClass::Obstacle;
    default:
        return BoxClass::Vehicle;
    }
}

// Where an object is relative to the ego lane and path, in Frenet terms.
struct Relation {
    double gapAhead; // bumper to bumper along the road, negative when beside or behind
    double ds;       // centre to centre along the road
    bool inPath;     // overlaps the ego's planned path at its station
    bool touchesEgoLane;
    bool cutting; // changing into or out of the ego lane / crossing into it
    std::optional<int> relativeLane;
};

Relation relate(const World& world, const Actor& a)
{
    const Road& road = world.road();
    const EgoFrenet ego = egoFrenet(world);
    const int egoLane = world.ego().lane;
    const LateralPlan& plan = world.expert().plan;
    Relation r{};
    r.ds = a.s - ego.s;
    const double along = halfExtentAlong(a);
    r.gapAhead = r.ds - ego.halfLength - along;
    const double c = std::abs(std::cos(a.yawOffset)), s = std::abs(std::sin(a.yawOffset));
    const double half = a.width / 2 * c + a.length / 2 * s;
    const double low = a.d - half, high = a.d + half;
    const double pathD = plan.at(a.s - along);
    r.inPath = r.ds > 0 && high > pathD - ego.halfWidth - kPathMarginM && low < pathD + ego.halfWidth + kPathMarginM;
    const double laneLow = road.laneCentre(egoLane) - road.layout().laneWidthM / 2;
    const double laneHigh = laneLow + road.layout().laneWidthM;
    r.touchesEgoLane = high > laneLow && low < laneHigh;
    const int lane = road.laneAt(a.d);
    if (lane >= 0)
        r.relativeLane = lane - egoLane;
    if (isDrivingVehicle(a.kind) && a.plan.changing(a.s))
        r.cutting = road.laneAt(a.plan.d0) == egoLane || road.laneAt(a.plan.d1) == egoLane;
    if (a.kind == ActorKind::Pedestrian && a.walk == WalkMode::Crossing) {
        double predictedLow, predictedHigh;
        lateralExtent(a, predictedLow, predictedHigh);
        r.cutting = !r.touchesEgoLane && predictedHigh > laneLow && predictedLow < laneHigh;
    }
    return r;
}

// The camera's box of each instance id with enough visible pixels, from the instance raster (0: no instance).
class VisibleBoxes {
public:
    VisibleBoxes(const std::vector<std::uint32_t>& instances, int width)
    {
        for (std::size_t i = 0; i < instances.size(); ++i) {
            const std::uint32_t id = instances[i];
            if (id == 0)
                continue;
            const int x = static_cast<int>(i % static_cast<std::size_t>(width)), y = static_cast<int>(i / width);
            auto [it, fresh] = m_boxes.try_emplace(id, ImageBox{x, y, x, y, 0});
            ImageBox& b = it->second; // width/height hold the max corner until finished
            b.x = std::min(b.x, x);
            b.y = std::min(b.y, y);
            b.width = std::max(b.width, x);
            b.height = std::max(b.height, y);
            ++b.visiblePixels;
        }
    }

    std::optional<ImageBox> of(int id) const
    {
        auto it = m_boxes.find(static_cast<std::uint32_t>(id));
        if (it == m_boxes.end() || it->second.visiblePixels < kMinVisiblePixels)
            return std::nullopt;
        ImageBox b = it->second;
        b.width = b.width - b.x + 1;
        b.height = b.height - b.y + 1;
        return b;
    }

private:
    std::unordered_map<std::uint32_t, ImageBox> m_boxes;
};

bool onBevGrid(const BevConfig& bev, Vec2 p)
{
    return p.x >= bev.xMinM && p.x < bev.xMaxM() && p.y > -bev.yMaxM() && p.y <= bev.yMaxM();
}

// Objects, and the closest one in the ego path within reaction distance.
void labelActors(const World& world, const BevConfig& bev, const VisibleBoxes& visible, FrameLabels& labels)
{
    const EgoState& ego = world.ego();
    const EgoTransform toEgo(ego.pose);
    const double v = ego.speed;
    const double reactionM = 10 + 2.0 * v + v * v / 8;
    double closestGap = 1e9;
    int closestIndex = -1;
    for (const Actor& a : world.actors()) {
        if (a.s < ego.frenet.s - kDrawBehindM || a.s > ego.frenet.s + kDrawAheadM)
            continue;
        const Pose2 pose = world.actorPose(a);
        const Vec2 centre = toEgo.point(pose.position);
        ObjectLabel label;
        label.id = a.id;
        label.boxClass = boxClassOf(a.kind);
        if (onBevGrid(bev, centre))
            label.bev = BevBox{centre.x, centre.y, a.length, a.width, toEgo.yaw(pose.yaw), a.speed};
        label.image = visible.of(a.id);
        if (!label.bev && !label.image)
            continue;
        const Relation r = relate(world, a);
        label.relativeLane = r.relativeLane;
        if (r.cutting && r.ds > -10 && r.ds < 60)
            label.cipo = CipoLevel::CutInOut;
        else if (r.relativeLane && std::abs(*r.relativeLane) <= 1 && r.ds > -20 && r.ds < 80)
            label.cipo = CipoLevel::Relevant;
        else if (r.inPath && r.ds < 80)
            label.cipo = CipoLevel::Relevant;
        if (r.inPath && r.touchesEgoLane && r.gapAhead > -0.5 && r.gapAhead <= reactionM && r.gapAhead < closestGap) {
            closestGap = r.gapAhead;
            closestIndex = static_cast<int>(labels.objects.size());
        }
        labels.objects.push_back(label);
    }
    if (closestIndex >= 0)
        labels.objects[static_cast<std::size_t>(closestIndex)].cipo = CipoLevel::Closest;
}

// The traffic lights in view; `governing` (the light that governs the ego) is Relevant. A light's BEV box is the
// stop area, its image box the head over the lanes.
void labelLights(const World& world, const BevConfig& bev, const VisibleBoxes& visible, const TrafficLight* governing,
                 FrameLabels& labels)
{
    const Road& road = world.road();
    const EgoState& ego = world.ego();
    const EgoTransform toEgo(ego.pose);
    for (const TrafficLight& l : world.lights()) {
        if (l.s < ego.frenet.s - kDrawBehindM || l.s > ego.frenet.s + kDrawAheadM)
            continue;
        ObjectLabel label;
        label.id = l.id;
        label.boxClass = BoxClass::TrafficLight;
        const double forwardWidth = -road.rightEdge();
        const Vec2 centre = toEgo.point(road.point(l.s - 1.0, road.rightEdge() / 2));
        if (onBevGrid(bev, centre))
            label.bev = BevBox{centre.x, centre.y, 2.0, forwardWidth, toEgo.yaw(road.heading(l.s - 1.0)), 0};
        label.image = visible.of(l.id);
        if (!label.bev && !label.image)
            continue;
        label.cipo = &l == governing ? CipoLevel::Relevant : CipoLevel::Other;
        labels.objects.push_back(label);
    }
}

// The planning labels: the expert's waypoints, target point, speed and command, the ego's state and lane, and the
// governing light.
void labelPlanning(const World& world, const TrafficLight* light, FrameLabels& labels)
{
    const Road& road = world.road();
    const EgoState& ego = world.ego();
    const EgoTransform toEgo(ego.pose);
    labels.waypoints = expertWaypoints(world);
    labels.targetPoint = toEgo.point(world.routeTargetPoint());
    const ExpertState& expert = world.expert();
    labels.targetSpeed = expert.targetSpeed;
    labels.command = expert.command;
    labels.brakeReason = expert.reason;
    labels.speed = ego.speed;
    labels.steer = ego.steer;
    labels.acceleration = ego.acceleration;
    labels.egoLane = ego.lane;
    labels.targetLane = expert.targetLane;
    labels.forwardLanes = road.layout().forwardLanes;
    labels.laneOffsetM = ego.frenet.d - road.laneCentre(ego.lane);
    if (light) {
        labels.lightState = light->state;
        labels.lightDistanceM = light->s - ego.frenet.s - ego.length / 2;
    }
    labels.timeS = world.time();
}

} // namespace

FrameLabels makeMeasurements(const World& world)
{
    const EgoState& ego = world.ego();
    FrameLabels labels;
    labels.targetPoint = EgoTransform(ego.pose).point(world.routeTargetPoint());
    labels.command = world.expert().command;
    labels.speed = ego.speed;
    labels.timeS = world.time();
    return labels;
}

FrameLabels makeLabels(const World& world, const SensorConfig& config, const std::vector<std::uint32_t>& instances)
{
    FrameLabels labels;
    const VisibleBoxes visible(instances, config.camera.width);
    labelActors(world, config.bev, visible, labels);
    // The light that governs the ego.
    const TrafficLight* light = world.nextLight(world.ego().frenet.s - 2, kLightLabelRangeM);
    labelLights(world, config.bev, visible, light, labels);
    labelPlanning(world, light, labels);
    return labels;
}

} // namespace pitwall::synth::internal
