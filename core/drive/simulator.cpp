#include "core/drive/simulator.h"

#include "core/drive/internal/replay.h"
#include "core/synth/random.h"
#include "core/util/error.h"

#include <cmath>
#include <filesystem>
#include <memory>

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

RouteResult driveRoute(DrivingPolicy& policy, const RouteSpec& route, const DrivingEvalOptions& options,
                       const DriveCallbacks& callbacks)
{
    const double timeLimitS = options.routeSeconds * options.timeLimitFactor;
    synth::WorldOptions worldOptions = options.world;
    worldOptions.durationS = timeLimitS;
    synth::World world = synth::World::create(route.worldSeed, worldOptions);
    const double length = expertRouteLength(world, options.routeSeconds, options.tickS);

    policy.reset(world);
    VehicleController controller(options.controller);
    RouteMonitor monitor(observe(world), length, options.monitor);
    std::unique_ptr<ReplayRecorder> replay;
    if (!options.replayDir.empty())
        replay = std::make_unique<ReplayRecorder>(options.replaySensors,
                                                  options.routeSeconds / std::max(1, options.replayPanels - 1));

    const int planEvery = std::max(1, static_cast<int>(std::lround(policy.planIntervalS() / options.tickS)));
    const int progressEvery = std::max(1, static_cast<int>(std::lround(1.0 / options.tickS)));
    const long ticks = static_cast<long>(std::ceil(timeLimitS / options.tickS - 1e-9));
    const double startTimeS = world.time();
    auto report = [&] {
        if (callbacks.progress)
            callbacks.progress(
                {route.index, options.routes, world.time() - startTimeS, timeLimitS, monitor.completionPercent()});
    };
    for (long tick = 0; tick < ticks && !monitor.ended(); ++tick) {
        if (callbacks.cancel && callbacks.cancel->requested()) {
            monitor.finish(RouteStatus::Cancelled);
            break;
        }
        if (tick % planEvery == 0)
            controller.setPlan(policy.plan(world), world.ego().pose);
        world.step(options.tickS, controller.control(world.ego(), options.tickS));
        monitor.update(observe(world), options.tickS);
        if (tick + 1 == ticks)
            monitor.finish(RouteStatus::TimedOut);
        if (callbacks.tick)
            callbacks.tick(world, monitor);
        if (replay)
            replay->tick(world, controller, monitor, monitor.ended());
        if ((tick + 1) % progressEvery == 0)
            report();
    }
    monitor.finish(RouteStatus::TimedOut); // no ticks at all
    report();
    RouteResult result = routeResult(monitor, route.index, route.worldSeed, world.time() - startTimeS);
    if (replay) {
        const std::string path =
            (std::filesystem::path(options.replayDir) / replayFileName(route.index, route.worldSeed)).string();
        replay->write(path);
        result.replayFile = path;
    }
    return result;
}

DrivingReport evaluateDriving(DrivingPolicy& policy, const DrivingEvalOptions& options, const DriveCallbacks& callbacks)
{
    validateEvalOptions(options);
    std::vector<RouteResult> routes;
    for (const RouteSpec& route : routeSpecs(options)) {
        if (callbacks.cancel && callbacks.cancel->requested())
            break;
        routes.push_back(driveRoute(policy, route, options, callbacks));
    }
    return summarise(policy.name(), std::move(routes));
}

} // namespace pitwall::drive
