// The closed loop on real synthetic worlds: the expert through the PID controller scores near 100 and the idle
// policy near 0; results are deterministic per seed; every policy evaluated with one seed drives the same routes
// (paired comparisons); scripted policies that ignore traffic rear-end stopped
// vehicles (after the expert stopped behind them) and run red lights, and one that steers off the road ends its route;
// replays are written; routes driven side by side for a policy that plans them together score exactly as one by one.
#include "core/drive/simulator.h"
#include "core/synth/internal/imageio.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

using namespace pitwall;
using namespace pitwall::drive;

namespace {

// Follows the route's lane centres at a fixed speed, blind to everything else (a model that learned nothing
// about traffic). `steerLeftM` shifts the path to the left by that much per metre travelled.
class ScriptedPolicy : public DrivingPolicy {
public:
    ScriptedPolicy(double speedMps, double steerLeftM = 0) : m_speed(speedMps), m_steerLeft(steerLeftM) {}
    std::string name() const override { return "scripted"; }
    DrivingPlan plan(const synth::World& world) override
    {
        const synth::Road& road = world.road();
        const synth::EgoState& ego = world.ego();
        DrivingPlan plan;
        plan.targetSpeedMps = m_speed;
        for (int k = 1; k <= 8; ++k) {
            const double ahead = std::max(ego.speed, 2.0) * 0.25 * k;
            const double s = ego.frenet.s + ahead;
            const double d = m_steerLeft > 0 ? ego.frenet.d + m_steerLeft * ahead : road.laneCentre(world.routeLane(s));
            plan.waypoints.push_back(ego.pose.toLocal(road.point(s, d)));
        }
        return plan;
    }

private:
    double m_speed, m_steerLeft;
};

// The expert, until a vehicle queued at a red light stands within 40 m ahead in its lane; then it drives on
// into it.
class RamPolicy : public DrivingPolicy {
public:
    std::string name() const override { return "ram"; }
    void reset(const synth::World& world) override
    {
        m_expert = makeExpertPolicy();
        m_expert->reset(world);
        m_target = -1;
    }
    DrivingPlan plan(const synth::World& world) override
    {
        const synth::EgoState& ego = world.ego();
        if (m_target < 0)
            for (const synth::Actor& a : world.actors())
                if (synth::isDrivingVehicle(a.kind) && a.speed < 0.5 && std::abs(a.d - ego.frenet.d) < 1.0 &&
                    a.s > ego.frenet.s && a.s - ego.frenet.s < 40 && redForAWhile(world, a.s))
                    m_target = a.id;
        if (m_target < 0)
            return m_expert->plan(world);
        DrivingPlan plan;
        plan.targetSpeedMps = 8;
        for (int k = 1; k <= 8; ++k)
            plan.waypoints.push_back(ego.pose.toLocal(world.road().point(ego.frenet.s + 1.5 * k, ego.frenet.d)));
        return plan;
    }
    int targetId() const { return m_target; }

private:
    // The queue stands at least 5 s more: the next light is red for that long.
    static bool redForAWhile(const synth::World& world, double s)
    {
        const synth::TrafficLight* light = world.nextLight(s, 80);
        return light && light->state == synth::LightState::Red && light->remainingS() > 5;
    }

    std::unique_ptr<DrivingPolicy> m_expert;
    int m_target = -1;
};

// ScriptedPolicy that lets the simulator drive its routes side by side, and counts how it is asked.
class TogetherPolicy : public ScriptedPolicy {
public:
    using ScriptedPolicy::ScriptedPolicy;
    bool plansRoutesTogether() const override { return true; }
    std::vector<DrivingPlan> planBatch(const std::vector<const synth::World*>& worlds) override
    {
        widest = std::max(widest, worlds.size());
        return ScriptedPolicy::planBatch(worlds);
    }
    std::size_t widest = 0;
};

DrivingEvalOptions shortRoutes(int routes, double seconds)
{
    DrivingEvalOptions o;
    o.routes = routes;
    o.routeSeconds = seconds;
    return o;
}

} // namespace

class TestDriveClosedLoop : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void expertScoresNearHundred();
    void idleScoresNearZero();
    void sameSeedSameScores();
    void everyPolicyDrivesTheSameRoutes();
    void rearEndIntoAStoppedLeadVehicle();
    void blindDriverRunsARedLightTheExpertStopsFor();
    void steeringOffTheRoadEndsTheRoute();
    void replayWritesOnePngPerRoute();
    void routesDrivenTogetherScoreAsOneByOne();
};

void TestDriveClosedLoop::expertScoresNearHundred()
{
    auto expert = makeExpertPolicy();
    const DrivingReport report = evaluateDriving(*expert, shortRoutes(5, 20));
    QCOMPARE(report.routes.size(), std::size_t(5));
    QVERIFY2(report.drivingScore.mean >= 90, qPrintable(QString::number(report.drivingScore.mean)));
    QVERIFY(report.routeCompletion.mean >= 90);
    QVERIFY(report.distanceKm > 0.3);
}

void TestDriveClosedLoop::idleScoresNearZero()
{
    auto idle = makeIdlePolicy();
    const DrivingReport report = evaluateDriving(*idle, shortRoutes(5, 20));
    QVERIFY2(report.drivingScore.mean <= 5, qPrintable(QString::number(report.drivingScore.mean)));
    for (const RouteResult& r : report.routes)
        QVERIFY(r.status == RouteStatus::TimedOut || r.status == RouteStatus::Blocked);
}

void TestDriveClosedLoop::sameSeedSameScores()
{
    auto expert = makeExpertPolicy();
    ScriptedPolicy blind(12);
    DrivingEvalOptions options = shortRoutes(2, 15);
    options.seed = 7;
    QCOMPARE(reportJson(evaluateDriving(*expert, options)).dump(),
             reportJson(evaluateDriving(*expert, options)).dump());
    const std::string a = reportJson(evaluateDriving(blind, options)).dump();
    QCOMPARE(reportJson(evaluateDriving(blind, options)).dump(), a);
    options.seed = 8;
    QVERIFY2(reportJson(evaluateDriving(blind, options)).dump() != a, "another seed must give other routes");
}

// Variants are compared on paired routes: the routes depend only on the evaluation seed and the route count,
// not on the policy or the route duration, and more routes extend the list. If this fails, two variants'
// scores differ by which routes they drew as well as by how they drive.
void TestDriveClosedLoop::everyPolicyDrivesTheSameRoutes()
{
    DrivingEvalOptions options = shortRoutes(3, 6);
    options.seed = 11;
    DrivingEvalOptions longer = options;
    longer.routeSeconds = 9;
    DrivingEvalOptions more = options;
    more.routes = 5;
    const std::vector<RouteSpec> routes = routeSpecs(options), routesOfMore = routeSpecs(more);
    QCOMPARE(routes.size(), std::size_t(3));
    QCOMPARE(routesOfMore.size(), std::size_t(5));
    for (std::size_t i = 0; i < routes.size(); ++i) {
        QCOMPARE(routes[i].index, static_cast<int>(i));
        QCOMPARE(routeSpecs(longer)[i].worldSeed, routes[i].worldSeed);
        QCOMPARE(routesOfMore[i].worldSeed, routes[i].worldSeed);
        for (std::size_t j = 0; j < i; ++j)
            QVERIFY(routes[j].worldSeed != routes[i].worldSeed); // distinct worlds, not one route repeated
    }
    auto expert = makeExpertPolicy();
    ScriptedPolicy blind(12);
    const DrivingReport a = evaluateDriving(*expert, options), b = evaluateDriving(blind, options);
    QCOMPARE(a.routes.size(), b.routes.size());
    for (std::size_t i = 0; i < a.routes.size(); ++i) {
        QCOMPARE(a.routes[i].worldSeed, routes[i].worldSeed);
        QCOMPARE(b.routes[i].worldSeed, routes[i].worldSeed);
        QCOMPARE(b.routes[i].routeLengthM, a.routes[i].routeLengthM); // set by the expert, whoever drives
    }
}

void TestDriveClosedLoop::rearEndIntoAStoppedLeadVehicle()
{
    // The expert drives until a vehicle queued at a red light stands ahead in its lane, then the script drives
    // on into it. Search routes for one where that happens.
    const DrivingEvalOptions options = shortRoutes(20, 30);
    for (const RouteSpec& route : routeSpecs(options)) {
        RamPolicy ram;
        double leadSpeedAtContact = -1;
        std::size_t seen = 0;
        DriveCallbacks callbacks;
        callbacks.tick = [&](const synth::World& world, const RouteMonitor& monitor) {
            for (; seen < monitor.infractions().size(); ++seen)
                if (monitor.infractions()[seen].objectId == ram.targetId())
                    for (const synth::Actor& a : world.actors())
                        if (a.id == ram.targetId())
                            leadSpeedAtContact = a.speed;
        };
        const RouteResult r = driveRoute(ram, route, options, callbacks);
        if (ram.targetId() < 0 || leadSpeedAtContact < 0 || leadSpeedAtContact > 0.5)
            continue; // no standing vehicle, or it drove off before the contact
        // The contact lasts many ticks (the ego drives through) but counts once, at 0.6.
        int withThatCar = 0;
        for (const Infraction& i : r.infractions) {
            withThatCar += i.objectId == ram.targetId();
            if (i.objectId == ram.targetId())
                QCOMPARE(i.type, InfractionType::CollisionVehicle);
        }
        QCOMPARE(withThatCar, 1);
        QVERIFY(r.infractionPenalty <= 0.6 + 1e-12);
        QVERIFY(std::abs(r.drivingScore - r.routeCompletion * r.infractionPenalty) < 1e-9);
        return;
    }
    QFAIL("in no route of 20 did the ego meet a vehicle queued at a red light");
}

void TestDriveClosedLoop::blindDriverRunsARedLightTheExpertStopsFor()
{
    ScriptedPolicy blind(12);
    auto expert = makeExpertPolicy();
    const DrivingEvalOptions options = shortRoutes(20, 20);
    for (const RouteSpec& route : routeSpecs(options)) {
        std::vector<synth::LightState> stateAtViolation;
        std::size_t seen = 0;
        DriveCallbacks callbacks;
        callbacks.tick = [&](const synth::World& world, const RouteMonitor& monitor) {
            for (; seen < monitor.infractions().size(); ++seen)
                if (monitor.infractions()[seen].type == InfractionType::RedLight)
                    for (const synth::TrafficLight& light : world.lights())
                        if (light.id == monitor.infractions()[seen].objectId)
                            stateAtViolation.push_back(light.state);
        };
        const RouteResult r = driveRoute(blind, route, options, callbacks);
        if (r.count(InfractionType::RedLight) == 0)
            continue;
        QCOMPARE(static_cast<int>(stateAtViolation.size()), r.count(InfractionType::RedLight));
        for (synth::LightState state : stateAtViolation)
            QCOMPARE(state, synth::LightState::Red);
        const RouteResult anchor = driveRoute(*expert, route, options);
        QCOMPARE(anchor.count(InfractionType::RedLight), 0);
        QVERIFY(anchor.drivingScore > r.drivingScore);
        return;
    }
    QFAIL("no route of 20 made the blind driver run a red light");
}

void TestDriveClosedLoop::steeringOffTheRoadEndsTheRoute()
{
    ScriptedPolicy drifter(8, 0.15);
    DrivingEvalOptions options = shortRoutes(3, 20);
    const DrivingReport report = evaluateDriving(drifter, options);
    for (const RouteResult& r : report.routes) {
        QCOMPARE(r.status, RouteStatus::Deviated);
        QCOMPARE(r.infractions.back().type, InfractionType::RouteDeviation);
        QVERIFY(r.routeCompletion < 100);
        QVERIFY(r.timeS < options.routeSeconds * options.timeLimitFactor);
        std::vector<Infraction> others(r.infractions.begin(), r.infractions.end() - 1);
        QCOMPARE(r.infractionPenalty, infractionPenalty(others)); // deviation itself costs nothing
    }
}

void TestDriveClosedLoop::replayWritesOnePngPerRoute()
{
    QTemporaryDir dir;
    DrivingEvalOptions options = shortRoutes(2, 6);
    options.replayDir = dir.filePath("replay").toStdString();
    options.replayPanels = 4;
    ScriptedPolicy blind(12);
    const DrivingReport report = evaluateDriving(blind, options);
    for (const RouteResult& r : report.routes) {
        QVERIFY(!r.replayFile.empty());
        std::vector<std::uint8_t> bytes;
        QVERIFY(synth::internal::readFile(r.replayFile, bytes));
        synth::internal::DecodedPng png;
        std::string error;
        QVERIFY2(synth::internal::decodePng(bytes, png, error), error.c_str());
        QCOMPARE(png.channels, 3);
        QVERIFY(png.width >= 4 * 256); // at least the regular snapshots, side by side
    }
}

// Side by side, each route keeps its own world, controller and monitor, and is planned at the same ticks: a policy
// whose plan is a function of the world alone scores every route to the last bit as one route after the other,
// in route order, whatever the width (2 leaves routes waiting, so routes that end make room for the next).
void TestDriveClosedLoop::routesDrivenTogetherScoreAsOneByOne()
{
    DrivingEvalOptions options = shortRoutes(5, 8);
    options.seed = 3;
    options.routesTogether = 1;
    TogetherPolicy single(12);
    std::vector<int> endedOneByOne;
    DriveCallbacks callbacks;
    callbacks.routeDone = [&](const RouteResult& r) { endedOneByOne.push_back(r.index); };
    std::vector<int> counted; // routes ended, as progress reports them
    callbacks.progress = [&](const DriveProgress& p) { counted.push_back(p.routesDone); };
    const DrivingReport oneByOne = evaluateDriving(single, options, callbacks);
    QVERIFY(!counted.empty());
    QVERIFY(std::all_of(counted.begin(), counted.end(), [](int n) { return n == -1; })); // one by one: time within a route
    QCOMPARE(single.widest, std::size_t(0)); // width 1: plan() route after route, never planBatch()
    QCOMPARE(endedOneByOne, (std::vector<int>{0, 1, 2, 3, 4}));
    std::set<double> seconds;
    for (const RouteResult& r : oneByOne.routes)
        seconds.insert(r.timeS);
    QVERIFY2(seconds.size() > 1, "the routes must end at different times for the refill to be exercised");

    for (int width : {2, 32}) {
        options.routesTogether = width;
        TogetherPolicy together(12);
        std::vector<int> ended;
        callbacks.routeDone = [&](const RouteResult& r) { ended.push_back(r.index); };
        counted.clear();
        const DrivingReport report = evaluateDriving(together, options, callbacks);
        QCOMPARE(counted, (std::vector<int>{1, 2, 3, 4, 5})); // side by side: progress counts routes ended
        QCOMPARE(reportJson(report).dump(), reportJson(oneByOne).dump());
        QCOMPARE(together.widest, std::size_t(std::min(width, 5)));
        std::sort(ended.begin(), ended.end());
        QCOMPARE(ended, (std::vector<int>{0, 1, 2, 3, 4})); // each route once
    }
    options.routesTogether = 0;
    TogetherPolicy none(12);
    QVERIFY_THROWS_EXCEPTION(InputError, evaluateDriving(none, options));
}

QTEST_GUILESS_MAIN(TestDriveClosedLoop)
#include "tst_drive_closedloop.moc"
