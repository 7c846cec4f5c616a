#include "core/drive/policy.h"

#include "core/synth/expert.h"

#include <algorithm>

namespace pitwall::drive {

std::vector<DrivingPlan> DrivingPolicy::planBatch(const std::vector<const synth::World*>& worlds)
{
    std::vector<DrivingPlan> plans;
    plans.reserve(worlds.size());
    for (const synth::World* world : worlds)
        plans.push_back(plan(*world));
    return plans;
}

namespace {

constexpr double kRolloutStepS = 0.05; // as the dataset's waypoint labels

class ExpertDrivingPolicy : public DrivingPolicy {
public:
    explicit ExpertDrivingPolicy(double intervalS) : m_intervalS(intervalS) {}

    std::string name() const override { return "expert"; }
    double planIntervalS() const override { return m_intervalS; }
    void reset(const synth::World& world) override { m_state = world.expert(); }

    DrivingPlan plan(const synth::World& world) override
    {
        synth::ExpertPolicy::drive(world, m_state);
        DrivingPlan plan;
        plan.targetSpeedMps = m_state.targetSpeed;
        // Roll a copy of the world forward with the expert driving (its memory copied too).
        synth::World future = world;
        synth::ExpertState state = m_state;
        const synth::Pose2 origin = world.ego().pose;
        const int stepsPerWaypoint =
            std::max(1, static_cast<int>(std::lround(synth::kWaypointIntervalS / kRolloutStepS)));
        const double dt = synth::kWaypointIntervalS / stepsPerWaypoint;
        for (int k = 0; k < synth::kWaypointCount; ++k) {
            for (int j = 0; j < stepsPerWaypoint; ++j)
                future.step(dt, synth::ExpertPolicy::drive(future, state));
            plan.waypoints.push_back(origin.toLocal(future.ego().pose.position));
        }
        return plan;
    }

private:
    double m_intervalS;
    synth::ExpertState m_state;
};

class IdlePolicy : public DrivingPolicy {
public:
    std::string name() const override { return "idle"; }
    DrivingPlan plan(const synth::World&) override
    {
        DrivingPlan plan;
        plan.waypoints.assign(synth::kWaypointCount, synth::Vec2{});
        plan.targetSpeedMps = 0;
        return plan;
    }
};

} // namespace

std::unique_ptr<DrivingPolicy> makeExpertPolicy(double planIntervalS)
{
    return std::make_unique<ExpertDrivingPolicy>(std::max(planIntervalS, 0.01));
}

std::unique_ptr<DrivingPolicy> makeIdlePolicy()
{
    return std::make_unique<IdlePolicy>();
}

synth::DrivingCommand routeCommand(const synth::World& world)
{
    const synth::EgoState& ego = world.ego();
    const int here = world.road().laneAt(ego.frenet.d);
    const int current = here >= 0 && !world.road().isOncoming(here) ? here : ego.lane;
    const int route = world.routeLane(ego.frenet.s + std::max(30.0, ego.speed * 3));
    if (route > current)
        return synth::DrivingCommand::ChangeLaneLeft;
    if (route < current)
        return synth::DrivingCommand::ChangeLaneRight;
    return synth::DrivingCommand::FollowLane;
}

} // namespace pitwall::drive
