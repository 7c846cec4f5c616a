#pragma once
// Driving policies for closed-loop evaluation: what drives the ego through the simulator. A policy looks at the
// simulated world and returns a plan (waypoints + target speed, see controller.h); the simulator asks for a
// new plan every planIntervalS() simulated seconds, holds the last one in between, and hands it to the same
// VehicleController whatever the policy is.
//
// Built in (no torch): `expert` (the data-generating expert's own waypoints and target speed: the sanity
// anchor, it should score near 100) and `idle` (never asks to move: it scores near 0). The trained-model
// policy lives in modelpolicy.h. Tests add scripted policies by implementing DrivingPolicy.

#include "core/drive/controller.h"
#include "core/synth/classes.h"

#include <memory>
#include <string>
#include <vector>

namespace pitwall::drive {

class DrivingPolicy {
public:
    virtual ~DrivingPolicy() = default;
    // "expert", "idle", "run 12", ... (for tables and messages).
    virtual std::string name() const = 0;
    // Simulated seconds between two plans (> 0). Models run at 4-10 Hz; the simulator ticks at 20 Hz.
    virtual double planIntervalS() const { return 0.1; }
    // A new route starts with `world` in its initial state.
    virtual void reset(const synth::World& world) { (void)world; }
    // The plan for the current state of `world` (waypoints in the current ego frame).
    virtual DrivingPlan plan(const synth::World& world) = 0;
    // Whether plan() keeps no memory between calls (reset() does nothing), so the simulator may drive several
    // routes side by side and ask for their plans together (simulator.h, DrivingEvalOptions::routesTogether).
    virtual bool plansRoutesTogether() const { return false; }
    // The plans for several worlds (one route each), in order: one call to plan() each unless a policy batches
    // them (a model runs one forward pass for all).
    virtual std::vector<DrivingPlan> planBatch(const std::vector<const synth::World*>& worlds);
};

// The expert of synth/expert.h: keeps its own memory (lane-change plan, target speed) across plans, and plans
// by rolling out a copy of the world with itself driving, exactly as the waypoint labels are made.
std::unique_ptr<DrivingPolicy> makeExpertPolicy(double planIntervalS = 0.1);
// Always asks to stand still (the ego starts rolling, so it brakes to a stop).
std::unique_ptr<DrivingPolicy> makeIdlePolicy();

// The navigation command a model is given in closed loop: a lane change towards the lane the route follows
// max(30 m, 3 s) ahead when the ego is in another lane, else FollowLane. (The dataset's command label comes
// from the expert's memory, which a world stepped by the caller no longer updates.)
synth::DrivingCommand routeCommand(const synth::World& world);

} // namespace pitwall::drive
