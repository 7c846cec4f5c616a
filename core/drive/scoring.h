#pragma once
// Scoring a driven route the CARLA-leaderboard way (leaderboard/utils/statistics_manager.py):
//
//   driving score (DS) = route completion (RC, 0-100 %) × infraction penalty (starts at 1.0)
//
// Each infraction multiplies the penalty once per event: collision with a pedestrian ×0.5, with a vehicle
// (driving or parked) ×0.6, with a static object (cones, barrels, barriers, scenery) ×0.65, running a red
// light ×0.7. A collision counts once per object and a red light once per light, however long the contact
// or the crossing lasts; as in CARLA, a collision counts whoever caused it (the synthetic world has no
// physics: the ego drives through what it hits). A red light is run when the front bumper crosses the stop
// line while the light is red (not yellow). Route deviation (the ego's centre leaves the forward carriageway by more than a
// margin: off the road or over the centre line) and agent blocked (slower than 0.1 m/s for 60 s) END the
// route and carry no multiplier; running out of time ends it too (RC is what was reached). Not modelled:
// stop signs, scenario timeouts, yielding to emergency vehicles, and MIN_SPEED (Bench2Drive disables it too).
//
// The global score is the mean over routes of DS, RC and penalty, with the sample std (n − 1); infractions
// per km divide counts by the kilometres driven (odometer), as leaderboard's result_parser.py reports them.
// Pitwall adds the standard error of each mean over routes (sample std / √routes): how far the score of one
// policy may move with another draw of routes, the figure to hold against a difference between two variants.
// Plain C++ (no torch).

#include "core/synth/world.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pitwall::drive {

enum class InfractionType : std::uint8_t {
    CollisionPedestrian,
    CollisionVehicle,
    CollisionStatic,
    RedLight,
    RouteDeviation,
    AgentBlocked,
};
constexpr int kInfractionTypeCount = 6;
constexpr std::array<InfractionType, kInfractionTypeCount> kInfractionTypes = {
    InfractionType::CollisionPedestrian, InfractionType::CollisionVehicle,
    InfractionType::CollisionStatic,     InfractionType::RedLight,
    InfractionType::RouteDeviation,      InfractionType::AgentBlocked};

// CARLA's keys: collisions_pedestrian, collisions_vehicle, collisions_layout, red_light, route_dev,
// vehicle_blocked.
const char* infractionKey(InfractionType type);
// 0.5, 0.6, 0.65, 0.7, and 1.0 for the route-ending ones.
double penaltyMultiplier(InfractionType type);

struct Infraction {
    InfractionType type = InfractionType::CollisionVehicle;
    double timeS = 0;         // simulated time of the event
    synth::Vec2 position;     // ego position (world frame)
    double routeStationM = 0; // ego station along the road
    int objectId = -1;        // actor or light id; scenery items are -(index + 1); -1 for none
    std::string detail;       // "car", "pedestrian", "cone", "light 7", ...
};

// Product of the multipliers of `infractions` (1.0 when there are none).
double infractionPenalty(const std::vector<Infraction>& infractions);

enum class RouteStatus : std::uint8_t { Completed, Deviated, Blocked, TimedOut, Cancelled };
const char* routeStatusName(RouteStatus status); // "completed", "route_deviation", "blocked", "timeout", "cancelled"

// What the monitor needs from one simulated tick (observe() extracts it from a world).
struct TickObservation {
    double timeS = 0;
    synth::Vec2 position; // ego centre, world frame
    double speedMps = 0;
    double s = 0, d = 0;                          // Frenet position of the ego centre
    double frontS = 0;                            // station of the front bumper
    double corridorRightD = 0, corridorLeftD = 0; // lateral edges of the forward carriageway
    struct Contact {
        int id = -1;
        InfractionType type = InfractionType::CollisionVehicle;
        std::string detail;
    };
    std::vector<Contact> contacts; // everything the ego's footprint overlaps now
    struct Light {
        int id = 0;
        double s = 0; // stop line station
        synth::LightState state = synth::LightState::Green;
    };
    std::vector<Light> lights;
};

// Extracts a tick from the world: every actor and scenery item whose footprint overlaps the ego's (within
// `contactMarginM` of touching), the lights, and the ego's place on the road.
TickObservation observe(const synth::World& world, double contactMarginM = 0.0);

struct MonitorOptions {
    double corridorMarginM = 1.0; // how far the ego's centre may leave the forward carriageway
    double blockedSpeedMps = 0.1; // slower than this counts as standing...
    double blockedAfterS = 60.0;  // ...and this long in a row ends the route as blocked
};

// Watches one route tick by tick: progress, odometer, infractions, and whether the route has ended.
class RouteMonitor {
public:
    // `start` is the state when the route begins; the route ends `routeLengthM` further along the road.
    RouteMonitor(const TickObservation& start, double routeLengthM, const MonitorOptions& options = {});

    // The state after the next tick (dt seconds later). Does nothing once the route has ended.
    void update(const TickObservation& tick, double dt);
    // Ends a route that is still running (time limit or cancel).
    void finish(RouteStatus status);

    bool ended() const { return m_ended; }
    RouteStatus status() const { return m_status; }
    double completionPercent() const; // 0..100
    double distanceM() const { return m_distanceM; }
    double routeLengthM() const { return m_routeLengthM; }
    double startS() const { return m_startS; }
    const std::vector<Infraction>& infractions() const { return m_infractions; }

private:
    void add(InfractionType type, const TickObservation& tick, int id, const std::string& detail);

    MonitorOptions m_options;
    double m_startS = 0, m_routeLengthM = 0, m_bestS = 0;
    double m_distanceM = 0, m_standingS = 0, m_lastFrontS = 0;
    synth::Vec2 m_lastPosition;
    std::vector<int> m_collided, m_lightsRun;
    std::vector<Infraction> m_infractions;
    bool m_ended = false;
    RouteStatus m_status = RouteStatus::TimedOut;
};

// One finished route.
struct RouteResult {
    int index = 0;
    std::uint64_t worldSeed = 0;
    double routeLengthM = 0;
    double timeS = 0;      // simulated time driven
    double distanceKm = 0; // odometer
    RouteStatus status = RouteStatus::TimedOut;
    double routeCompletion = 0;   // %
    double infractionPenalty = 1; // product of multipliers
    double drivingScore = 0;      // routeCompletion × infractionPenalty
    std::vector<Infraction> infractions;
    std::string replayFile; // PNG written for this route, if any

    int count(InfractionType type) const;
};

// RouteResult of a finished monitor (DS = RC × penalty).
RouteResult routeResult(const RouteMonitor& monitor, int index, std::uint64_t worldSeed, double timeS);

struct ScoreStats {
    double mean = 0;
    double std = 0;           // sample standard deviation (n − 1); 0 for one value
    double standardError = 0; // of the mean: std / √n (same units as the mean); 0 for one value
};
ScoreStats scoreStats(const std::vector<double>& values);

// The global score of an evaluation.
struct DrivingReport {
    std::string policy;
    std::vector<RouteResult> routes;
    ScoreStats drivingScore, routeCompletion, infractionPenalty; // over routes
    double distanceKm = 0;
    std::array<int, kInfractionTypeCount> counts{};
    std::array<double, kInfractionTypeCount> perKm{}; // counts / km driven (0 when nothing was driven)
    double infractionsPerKm = 0;                      // all types together
};
DrivingReport summarise(const std::string& policy, std::vector<RouteResult> routes);

// The route-level standard error of a score over several runs (training seeds) driven on the same routes: the
// mean of the runs' own standard errors of DS over routes. Not the s.e. of the pooled runs × routes scores:
// every run drives the same routes, so the error from which routes were drawn is shared by the runs and does
// not shrink with more seeds (pooling would divide it by √runs). 0 for no reports.
double meanDrivingScoreStandardError(const std::vector<DrivingReport>& reports);

// Per route, the mean driving score over several runs driven on the same routes (training seeds of one variant):
// the variant's score on each route, for paired comparisons. Empty when the runs did not drive the same routes
// (route counts or world seeds differ) or there are no runs.
std::vector<double> routeDrivingScores(const std::vector<DrivingReport>& reports);

// The paired difference a - b of two variants scored on the same routes (routeDrivingScores of each): mean, sample
// std and standard error of the per-route differences. What the routes have in common (a hard route is hard for
// both) cancels, so this error is smaller than either score's own. Empty stats (all 0) for lists of other sizes
// or of no routes.
ScoreStats pairedDifference(const std::vector<double>& a, const std::vector<double>& b);

// {"policy", "driving_score", "driving_score_std", "driving_score_stderr", "route_completion",
//  "route_completion_std", "route_completion_stderr", "infraction_penalty", "infraction_penalty_std",
//  "infraction_penalty_stderr", "km_driven", "infractions_per_km": {"total", <key>...},
//  "infraction_counts": {<key>...}, "routes": [{"index", "seed", "status", "driving_score", ...,
//  "infractions": [{"type", "time_s", "x", "y", "station_m", "object_id", "detail"}]}]}
nlohmann::json reportJson(const DrivingReport& report);

// Sets out[key] = mean, out[key + "_std"] = std, out[key + "_stderr"] = standard error.
void addScoreStats(nlohmann::json& out, const std::string& key, const ScoreStats& stats);

} // namespace pitwall::drive
