#pragma once
// Driving rules shared by the expert (ego) and the other vehicles: the intelligent driver model, what
// obstructs a path, stop lines and lane-change gap acceptance. All in Frenet coordinates.

#include "core/synth/world.h"

namespace pitwall::synth::internal {

struct IdmParams {
    double maxAccelerationMps2 = 2.0;
    double comfortBrakeMps2 = 3.0;
    double headwayS = 1.3;
};

// Acceleration on free road towards desired speed v0 (never below -3 m/s^2: slowing for curves is gentle).
double idmFree(double speed, double desiredSpeed, const IdmParams& params);
// Acceleration behind a leader `gapM` ahead moving at leaderSpeed, keeping at least minGapM when stopped.
// Includes a kinematic floor so that a closing vehicle always brakes hard enough to stop before the gap.
double idmFollow(double speed, double desiredSpeed, double gapM, double leaderSpeed, double minGapM,
                 const IdmParams& params);

// A vehicle's footprint moving along a lateral plan, looking ahead for what is in its way.
struct PathQuery {
    double s = 0;
    double speed = 0; // m/s, for deciding whether it can stop to let a blocked vehicle merge
    int direction = 1;
    double halfLength = 2.3;
    double halfWidth = 0.95;
    LateralPlan plan; // its offset d as a function of station
    double lookaheadM = 80;
    int selfId = 0; // actor id to skip; 0 for the ego
    bool includeEgo = true;
};

struct Obstruction {
    bool found = false;
    double gapM = 1e9;        // bumper to bumper along the road
    double speedAlongMps = 0; // the obstruction's speed in the query's direction of travel
    BrakeReason reason = BrakeReason::None;
    int id = -1; // actor id, 0 for the ego
};

// Lateral margin added on each side of a path.
constexpr double kPathMarginM = 0.3;

// The nearest thing ahead whose lateral extent overlaps the path (widened where the path bends): vehicles going
// the same way, pedestrians (crossing ones occupy the rest of their crossing), obstacles, the ego. A vehicle
// standing and waiting to merge into the query's lane (waitsForLane) also counts, 6 m early, when the query can
// stop comfortably for it: that is how traffic lets blocked vehicles in.
Obstruction nearestObstruction(const World& world, const PathQuery& query);

// Lateral extent [low, high] of an actor. A crossing pedestrian occupies the rest of its crossing, so traffic
// waits for it however far away it still is.
void lateralExtent(const Actor& actor, double& low, double& high);
// Half the actor's extent along the road.
double halfExtentAlong(const Actor& actor);

// Gap to the stop line of a red light (or a yellow one that can still be stopped for at <= 3.5 m/s^2)
// ahead of the front bumper, or a negative value when there is none to stop for.
double stopLineGap(const World& world, double s, int direction, double halfLength, double speed);

// Whether moving into `targetLane` around station s along a change `changeLengthM` long is safe: no vehicle,
// pedestrian or obstacle too near ahead or behind in that lane. `rearHeadwayS` is the headway left to a vehicle
// behind, which must also not catch up while the (possibly slow) change lasts.
bool laneChangeIsSafe(const World& world, double s, double speed, int direction, int targetLane, int selfId,
                      double halfLength, double frontGapM, double rearHeadwayS, double changeLengthM);

// Room to leave a lane: the gap to whatever stands (or crawls, < 2 m/s) ahead in it, which a lane change must
// complete before reaching; 1e9 when nothing does. `stay` is the path query for keeping the lane. With
// `zipper` (leaving a closed lane) only the vehicle at the head of the queue may go: any vehicle ahead within
// the lookahead gives -1.
double laneLeavingRoom(const World& world, const PathQuery& stay, bool zipper);

// Distance from station s to a closure of `lane` ahead within rangeM, or a negative value.
double closureAhead(const World& world, int lane, double s, double rangeM);

// The ego seen as an actor in Frenet terms.
struct EgoFrenet {
    double s, d, yawOffset, speedAlong, halfLength, halfWidth;
};
EgoFrenet egoFrenet(const World& world);

} // namespace pitwall::synth::internal
