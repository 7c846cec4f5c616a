#include "core/drive/simulator.h"

#include "core/drive/internal/replay.h"
#include "core/synth/random.h"
#include "core/util/error.h"

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

namespace pitwall::drive {

namespace {

// Keeps evaluation worlds apart from the training episodes (mixSeed(dataSeed, episode)).
constexpr std::uint64_t kRouteSeedSalt = 0x6576616c64726976ull; // "evaldriv"
constexpr double kMinRouteLengthM = 20;

} // namespace

void validateEvalOptions(const DrivingEvalOptions& o)
{
    std::vector<Diagnostic> problems;
    auto require = [&](bool ok, const std::string& message) {
        if (!ok)
            problems.push_back({{}, message});
    };
    require(o.routes >= 1 && o.routes <= 10000, "routes must be in 1..10000, got " + std::to_string(o.routes));
    require(o.routeSeconds >= 2 && o.routeSeconds <= 3600,
            "route seconds must be in 2..3600, got " + std::to_string(o.routeSeconds));
    require(o.timeLimitFactor >= 1 && o.timeLimitFactor <= 10,
            "the time limit factor must be in 1..10, got " + std::to_string(o.timeLimitFactor));
    require(o.tickS > 0 && o.tickS <= 0.1, "the simulation step must be in (0, 0.1] s, got " + std::to_string(o.tickS));
    require(o.replayPanels >= 1 && o.replayPanels <= 100,
            "replay panels must be in 1..100, got " + std::to_string(o.replayPanels));
    require(o.routesTogether >= 1 && o.routesTogether <= 1024,
            "routes driven together must be in 1..1024, got " + std::to_string(o.routesTogether));
    require(o.monitor.blockedAfterS > 0, "the blocked time must be positive");
    require(o.monitor.corridorMarginM >= 0, "the corridor margin must not be negative");
    if (!problems.empty())
        throw InputError(problems);
}

std::vector<RouteSpec> routeSpecs(const DrivingEvalOptions& options)
{
    std::vector<RouteSpec> routes;
    for (int i = 0; i < options.routes; ++i)
        routes.push_back({i, synth::mixSeed(options.seed ^ kRouteSeedSalt, static_cast<std::uint64_t>(i))});
    return routes;
}

double expertRouteLength(const synth::World& world, double seconds, double tickS)
{
    synth::World expert = world;
    const double start = expert.ego().frenet.s;
    const int ticks = static_cast<int>(std::lround(seconds / tickS));
    for (int i = 0; i < ticks; ++i)
        expert.step(tickS);
    return std::max(kMinRouteLengthM, expert.ego().frenet.s - start);
}

namespace {

// One route being driven: its world, controller, monitor and replay, advanced a tick at a time. driveRoute() runs
// one to its end; driveRoutes() runs several side by side so a policy can plan for them in one batch.
class RouteRun {
public:
    RouteRun(const RouteSpec& route, const DrivingEvalOptions& options, double planIntervalS)
        : m_route(route), m_options(options), m_timeLimitS(options.routeSeconds * options.timeLimitFactor),
          m_world(synth::World::create(route.worldSeed, worldOptions(options, m_timeLimitS))),
          m_controller(options.controller),
          m_monitor(observe(m_world), expertRouteLength(m_world, options.routeSeconds, options.tickS), options.monitor),
          m_planEvery(std::max(1, static_cast<int>(std::lround(planIntervalS / options.tickS)))),
          m_progressEvery(std::max(1, static_cast<int>(std::lround(1.0 / options.tickS)))),
          m_ticks(static_cast<long>(std::ceil(m_timeLimitS / options.tickS - 1e-9))), m_startTimeS(m_world.time())
    {
        if (!options.replayDir.empty())
            m_replay = std::make_unique<ReplayRecorder>(options.replaySensors,
                                                        options.routeSeconds / std::max(1, options.replayPanels - 1));
        if (m_ticks <= 0)
            m_monitor.finish(RouteStatus::TimedOut);
    }

    const RouteSpec& route() const { return m_route; }
    const synth::World& world() const { return m_world; }
    bool ended() const { return m_monitor.ended(); }
    bool needsPlan() const { return !ended() && m_tick % m_planEvery == 0; }
    void setPlan(const DrivingPlan& plan) { m_controller.setPlan(plan, m_world.ego().pose); }

    // One tick (the plan set when needsPlan()); reports progress about once per simulated second.
    void tick(const DriveCallbacks& callbacks, bool reportProgress)
    {
        if (callbacks.cancel && callbacks.cancel->requested()) {
            m_monitor.finish(RouteStatus::Cancelled);
            return;
        }
        m_world.step(m_options.tickS, m_controller.control(m_world.ego(), m_options.tickS));
        m_monitor.update(observe(m_world), m_options.tickS);
        if (++m_tick == m_ticks)
            m_monitor.finish(RouteStatus::TimedOut);
        if (callbacks.tick)
            callbacks.tick(m_world, m_monitor);
        if (m_replay)
            m_replay->tick(m_world, m_controller, m_monitor, m_monitor.ended());
        if (reportProgress && m_tick % m_progressEvery == 0)
            report(callbacks);
    }

    void report(const DriveCallbacks& callbacks, int routesDone = -1) const
    {
        if (callbacks.progress)
            callbacks.progress({m_route.index, m_options.routes, m_world.time() - m_startTimeS, m_timeLimitS,
                                m_monitor.completionPercent(), routesDone});
    }

    // The scored route (and its replay written); call once ended().
    RouteResult result()
    {
        RouteResult result = routeResult(m_monitor, m_route.index, m_route.worldSeed, m_world.time() - m_startTimeS);
        if (m_replay) {
            const std::string path = (std::filesystem::path(m_options.replayDir) /
                                      replayFileName(m_route.index, m_route.worldSeed))
                                         .string();
            m_replay->write(path);
            result.replayFile = path;
        }
        return result;
    }

private:
    static synth::WorldOptions worldOptions(const DrivingEvalOptions& options, double timeLimitS)
    {
        synth::WorldOptions out = options.world;
        out.durationS = timeLimitS;
        return out;
    }

    RouteSpec m_route;
    const DrivingEvalOptions& m_options;
    double m_timeLimitS;
    synth::World m_world;
    VehicleController m_controller;
    RouteMonitor m_monitor;
    std::unique_ptr<ReplayRecorder> m_replay;
    int m_planEvery;
    int m_progressEvery;
    long m_ticks;
    long m_tick = 0;
    double m_startTimeS;
};

// Routes side by side, up to options.routesTogether at once: each tick, the routes due a plan get it from one
// planBatch() call; a route that ends makes room for the next. Results in route order.
std::vector<RouteResult> driveTogether(DrivingPolicy& policy, const std::vector<RouteSpec>& routes,
                                       const DrivingEvalOptions& options, const DriveCallbacks& callbacks)
{
    const std::size_t width = static_cast<std::size_t>(std::max(1, options.routesTogether));
    std::vector<std::optional<RouteResult>> done(routes.size());
    std::vector<std::unique_ptr<RouteRun>> active;
    std::size_t next = 0;
    int ended = 0;
    auto cancelled = [&] { return callbacks.cancel && callbacks.cancel->requested(); };
    while (true) {
        while (active.size() < width && next < routes.size() && !cancelled())
            active.push_back(std::make_unique<RouteRun>(routes[next++], options, policy.planIntervalS()));
        if (active.empty())
            break;
        std::vector<const synth::World*> worlds;
        std::vector<RouteRun*> planned;
        for (const auto& run : active)
            if (run->needsPlan()) {
                worlds.push_back(&run->world());
                planned.push_back(run.get());
            }
        if (!worlds.empty() && !cancelled()) {
            const std::vector<DrivingPlan> plans = policy.planBatch(worlds);
            if (plans.size() != worlds.size())
                throw RuntimeError(policy.name() + ": planBatch() gave " + std::to_string(plans.size()) +
                                   " plans for " + std::to_string(worlds.size()) + " routes");
            for (std::size_t i = 0; i < plans.size(); ++i)
                planned[i]->setPlan(plans[i]);
        }
        for (const auto& run : active)
            run->tick(callbacks, false); // progress counts routes as they end
        for (auto it = active.begin(); it != active.end();) {
            if ((*it)->ended()) {
                (*it)->report(callbacks, ++ended);
                const int index = (*it)->route().index;
                done[static_cast<std::size_t>(index)] = (*it)->result();
                if (callbacks.routeDone)
                    callbacks.routeDone(*done[static_cast<std::size_t>(index)]);
                it = active.erase(it);
            } else {
                ++it;
            }
        }
    }
    std::vector<RouteResult> out;
    for (std::optional<RouteResult>& r : done)
        if (r)
            out.push_back(std::move(*r));
    return out;
}

} // namespace

RouteResult driveRoute(DrivingPolicy& policy, const RouteSpec& route, const DrivingEvalOptions& options,
                       const DriveCallbacks& callbacks)
{
    RouteRun run(route, options, policy.planIntervalS());
    policy.reset(run.world());
    while (!run.ended()) {
        if (run.needsPlan() && !(callbacks.cancel && callbacks.cancel->requested()))
            run.setPlan(policy.plan(run.world()));
        run.tick(callbacks, true);
    }
    run.report(callbacks);
    return run.result();
}

std::vector<RouteResult> driveRoutes(DrivingPolicy& policy, const DrivingEvalOptions& options,
                                     const DriveCallbacks& callbacks)
{
    validateEvalOptions(options);
    const std::vector<RouteSpec> specs = routeSpecs(options);
    if (policy.plansRoutesTogether() && options.routesTogether > 1)
        return driveTogether(policy, specs, options, callbacks);
    std::vector<RouteResult> routes;
    for (const RouteSpec& route : specs) {
        if (callbacks.cancel && callbacks.cancel->requested())
            break;
        routes.push_back(driveRoute(policy, route, options, callbacks));
        if (callbacks.routeDone)
            callbacks.routeDone(routes.back());
    }
    return routes;
}

DrivingReport evaluateDriving(DrivingPolicy& policy, const DrivingEvalOptions& options, const DriveCallbacks& callbacks)
{
    return summarise(policy.name(), driveRoutes(policy, options, callbacks));
}

} // namespace pitwall::drive
