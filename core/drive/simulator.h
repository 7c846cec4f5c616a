#pragma once
// Closed-loop driving evaluation on the synthetic world: a policy drives the ego along generated routes while
// the world's traffic (car following, lane changes, cut-ins), pedestrians, static obstacles and traffic
// lights react to it, and every route is scored the CARLA way (scoring.h).
//
// A route is a World made from a seed (route i of an evaluation with seed S uses mixSeed(S ^ salt, i), so
// evaluation worlds are not the training episodes). Its length is how far the data-generating expert, driving
// that world itself, gets in `routeSeconds`; the policy has `timeLimitFactor × routeSeconds` to get there.
// The simulator ticks at 1 / tickS Hz (20 Hz), asks the policy for a plan every planIntervalS() (holding the
// last plan in between) and drives the ego with a VehicleController (PID on speed, PID on heading).
//
// Deterministic: the same options, policy and seed give bit-identical results on the same machine and build
// (for a model policy, with the same torch thread count). Another machine may differ in the last bits (libm's
// sin/cos/exp, the BLAS kernels and thread count behind a model), and a closed loop can grow those into a
// different score. The routes themselves depend only on `seed` and `routes` (route i's world seed is the same
// for any routeSeconds or policy), so policies evaluated with one seed are compared on the same routes.
// Plain C++ (no torch); runs on the calling thread. A policy that plans routes together (a model: one batch
// through the network instead of one frame at a time) drives up to routesTogether routes side by side, each in
// lockstep with its own world; other policies drive one route after the other. Either way every route is the
// same world, ticked and planned the same way, and results come in route order.

#include "core/drive/policy.h"
#include "core/drive/scoring.h"
#include "core/synth/render.h"
#include "core/util/cancel.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pitwall::drive {

struct DrivingEvalOptions {
    int routes = 20; // `pitwall eval driving`'s default: a standard error of a few points (cmd_eval.cpp)
    std::uint64_t seed = 0;
    double routeSeconds = 30;     // nominal driving time of a route (sets its length)
    double timeLimitFactor = 2.0; // the route times out after this × routeSeconds
    double tickS = 0.05;          // simulation step
    synth::WorldOptions world;    // traffic and pedestrian density, road shape (durationS is derived)
    MonitorOptions monitor;
    ControllerOptions controller;
    // Replays: when replayDir is set, one PNG per route (replay.h) with about replayPanels snapshots.
    std::string replayDir;
    int replayPanels = 12;
    synth::SensorConfig replaySensors; // the camera shown in replays (a model policy's own by default)
    // How many routes a policy that plans routes together (DrivingPolicy::plansRoutesTogether) drives side by
    // side. The routes are the same whatever it is; a model's float reductions differ in the last bits between
    // batch sizes, so results are bit-identical for the same value (and thread count), not across values.
    int routesTogether = 32;
};

// Throws InputError naming every option out of range.
void validateEvalOptions(const DrivingEvalOptions& options);

struct RouteSpec {
    int index = 0;
    std::uint64_t worldSeed = 0;
};
std::vector<RouteSpec> routeSpecs(const DrivingEvalOptions& options);

// How far (m, along the road; at least 20) the expert driving `world` itself gets in `seconds`.
double expertRouteLength(const synth::World& world, double seconds, double tickS);

struct DriveProgress {
    int route = 0; // 0-based
    int routes = 0;
    double timeS = 0; // simulated time in this route
    double timeLimitS = 0;
    double completion = 0; // % of this route
    // Routes driven side by side: how many have ended (reported as each ends; progress counts routes, not time).
    // -1 when routes are driven one after the other.
    int routesDone = -1;
};

struct DriveCallbacks {
    // About once per simulated second, and when a route ends (on the calling thread).
    std::function<void(const DriveProgress&)> progress;
    // After every tick, with the world and the monitor's view of it (tests, debugging).
    std::function<void(const synth::World&, const RouteMonitor&)> tick;
    // Checked every tick: a cancelled route ends with RouteStatus::Cancelled, and no more routes start.
    const CancelToken* cancel = nullptr;
    // When a route ends (scored, its replay written), in the order routes end.
    std::function<void(const RouteResult&)> routeDone;
};

// Drives one route with `policy` (reset first) and scores it.
RouteResult driveRoute(DrivingPolicy& policy, const RouteSpec& route, const DrivingEvalOptions& options,
                       const DriveCallbacks& callbacks = {});

// Drives every route of `options` (side by side when the policy plans routes together), in route order; after a
// cancel, the routes that had started, each ended as Cancelled.
std::vector<RouteResult> driveRoutes(DrivingPolicy& policy, const DrivingEvalOptions& options,
                                     const DriveCallbacks& callbacks = {});

// Drives every route of `options` and summarises them (mean ± sample std over routes).
DrivingReport evaluateDriving(DrivingPolicy& policy, const DrivingEvalOptions& options,
                              const DriveCallbacks& callbacks = {});

} // namespace pitwall::drive
