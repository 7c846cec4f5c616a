// CARLA-style scoring on hand-made ticks: penalty and completion arithmetic, each infraction counted once per
// object or light, red lights only when red, and the route-ending rules (deviation, blocked, completion); the
// standard error over routes on hand-computed route scores, and the same figure in the JSON and the stored summary.
#include "core/drive/scoring.h"
#include "core/engine/drive/runeval.h"

#include <QtTest>

#include <cmath>

using namespace pitwall;
using namespace pitwall::drive;

namespace {

// The ego at station s on a straight road along x, lane centre d = -1.75 (two forward lanes, right edge -7).
TickObservation tickAt(double timeS, double s, double speed = 10, double d = -1.75)
{
    TickObservation t;
    t.timeS = timeS;
    t.position = {s, d};
    t.speedMps = speed;
    t.s = s;
    t.d = d;
    t.frontS = s + 2.3;
    t.corridorRightD = -7.0;
    t.corridorLeftD = 0.0;
    return t;
}

Infraction infraction(InfractionType type)
{
    Infraction i;
    i.type = type;
    return i;
}

} // namespace

class TestDriveScoring : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void penaltyIsTheProductOfMultipliers_data();
    void penaltyIsTheProductOfMultipliers();
    void routeCompletionIsTheBestProgressAlongTheRoute();
    void collisionsCountOncePerObject();
    void redLightCountsOnlyWhenCrossingOnRed();
    void leavingTheCorridorEndsTheRouteWithoutPenalty();
    void standingStillFor60sEndsTheRouteAsBlocked();
    void summaryUsesSampleStdAndKilometresDriven();
    void standardErrorIsStdOverRootRoutes_data();
    void standardErrorIsStdOverRootRoutes();
    void severalRunsAverageTheirStandardErrors();
};

void TestDriveScoring::penaltyIsTheProductOfMultipliers_data()
{
    QTest::addColumn<QList<int>>("types");
    QTest::addColumn<double>("penalty");
    using T = InfractionType;
    QTest::newRow("none") << QList<int>{} << 1.0;
    QTest::newRow("pedestrian") << QList<int>{int(T::CollisionPedestrian)} << 0.5;
    QTest::newRow("vehicle + red light") << QList<int>{int(T::CollisionVehicle), int(T::RedLight)} << 0.6 * 0.7;
    QTest::newRow("two static objects") << QList<int>{int(T::CollisionStatic), int(T::CollisionStatic)} << 0.65 * 0.65;
    QTest::newRow("route-ending ones carry no multiplier")
        << QList<int>{int(T::RouteDeviation), int(T::AgentBlocked)} << 1.0;
    QTest::newRow("one of each") << QList<int>{int(T::CollisionPedestrian), int(T::CollisionVehicle),
                                               int(T::CollisionStatic), int(T::RedLight), int(T::RouteDeviation)}
                                 << 0.5 * 0.6 * 0.65 * 0.7;
}

void TestDriveScoring::penaltyIsTheProductOfMultipliers()
{
    QFETCH(QList<int>, types);
    QFETCH(double, penalty);
    std::vector<Infraction> list;
    for (int t : types)
        list.push_back(infraction(static_cast<InfractionType>(t)));
    QVERIFY(std::abs(infractionPenalty(list) - penalty) < 1e-12);
}

void TestDriveScoring::routeCompletionIsTheBestProgressAlongTheRoute()
{
    RouteMonitor monitor(tickAt(0, 100), 200);
    monitor.update(tickAt(1, 150), 1);
    QCOMPARE(monitor.completionPercent(), 25.0);
    monitor.update(tickAt(2, 140), 1); // rolling back does not undo progress
    QCOMPARE(monitor.completionPercent(), 25.0);
    QVERIFY(!monitor.ended());
    monitor.update(tickAt(3, 300.5), 1);
    QVERIFY(monitor.ended());
    QCOMPARE(monitor.status(), RouteStatus::Completed);
    QCOMPARE(monitor.completionPercent(), 100.0);
    const RouteResult r = routeResult(monitor, 0, 1, 3);
    QCOMPARE(r.drivingScore, 100.0);

    // A vehicle collision and a red light on a route driven to 40 %: DS = 40 × 0.6 × 0.7.
    RouteMonitor partial(tickAt(0, 0), 100);
    TickObservation hit = tickAt(1, 10);
    hit.contacts.push_back({7, InfractionType::CollisionVehicle, "car"});
    partial.update(hit, 1);
    TickObservation light = tickAt(2, 20);
    light.lights.push_back({3, 21, synth::LightState::Red});
    partial.update(light, 1);
    partial.update(tickAt(3, 40), 1);
    partial.finish(RouteStatus::TimedOut);
    const RouteResult p = routeResult(partial, 0, 1, 3);
    QCOMPARE(p.status, RouteStatus::TimedOut);
    QVERIFY(std::abs(p.routeCompletion - 40.0) < 1e-9);
    QVERIFY(std::abs(p.drivingScore - 40.0 * 0.6 * 0.7) < 1e-9);
}

void TestDriveScoring::collisionsCountOncePerObject()
{
    RouteMonitor monitor(tickAt(0, 0), 1000);
    for (int i = 1; i <= 10; ++i) {
        TickObservation t = tickAt(i * 0.05, i * 0.5);
        t.contacts.push_back({42, InfractionType::CollisionVehicle, "car"}); // a long contact
        if (i >= 8)
            t.contacts.push_back({43, InfractionType::CollisionPedestrian, "pedestrian"});
        monitor.update(t, 0.05);
    }
    TickObservation again = tickAt(1, 6);
    again.contacts.push_back({42, InfractionType::CollisionVehicle, "car"}); // touching the same car again
    monitor.update(again, 0.05);
    const RouteResult r = routeResult(monitor, 0, 0, 1);
    QCOMPARE(r.count(InfractionType::CollisionVehicle), 1);
    QCOMPARE(r.count(InfractionType::CollisionPedestrian), 1);
    QVERIFY(std::abs(r.infractionPenalty - 0.6 * 0.5) < 1e-12);
    QCOMPARE(r.infractions.front().objectId, 42);
    QCOMPARE(r.infractions.front().timeS, 0.05);
}

void TestDriveScoring::redLightCountsOnlyWhenCrossingOnRed()
{
    auto crossing = [](synth::LightState state, int times) {
        RouteMonitor monitor(tickAt(0, 90), 1000);
        for (int k = 0; k < times; ++k) {
            // The front bumper goes from before the stop line at s = 100 to beyond it, then back and again.
            for (double s : {95.0, 97.0, 99.0})
                for (double x : {s, s - 4.0}) {
                    TickObservation t = tickAt(0.1, x);
                    t.lights.push_back({5, 100.0, state});
                    monitor.update(t, 0.1);
                }
        }
        return routeResult(monitor, 0, 0, 1).count(InfractionType::RedLight);
    };
    QCOMPARE(crossing(synth::LightState::Green, 1), 0);
    QCOMPARE(crossing(synth::LightState::Yellow, 1), 0);
    QCOMPARE(crossing(synth::LightState::Red, 1), 1);
    QCOMPARE(crossing(synth::LightState::Red, 3), 1); // once per light

    // Standing with the bumper beyond the line when it turns red is no violation.
    RouteMonitor stopped(tickAt(0, 90), 1000);
    TickObservation before = tickAt(1, 98.5); // front at 100.8: crossed on green
    before.lights.push_back({5, 100.0, synth::LightState::Green});
    stopped.update(before, 1);
    TickObservation after = tickAt(2, 98.5, 0);
    after.lights.push_back({5, 100.0, synth::LightState::Red});
    stopped.update(after, 1);
    QCOMPARE(routeResult(stopped, 0, 0, 2).count(InfractionType::RedLight), 0);
}

void TestDriveScoring::leavingTheCorridorEndsTheRouteWithoutPenalty()
{
    MonitorOptions options;
    options.corridorMarginM = 1.0;
    RouteMonitor monitor(tickAt(0, 0), 500, options);
    monitor.update(tickAt(1, 10, 10, -7.9), 1); // 0.9 m beyond the right edge: still on the route
    QVERIFY(!monitor.ended());
    monitor.update(tickAt(2, 20, 10, -8.1), 1);
    QVERIFY(monitor.ended());
    QCOMPARE(monitor.status(), RouteStatus::Deviated);
    monitor.update(tickAt(3, 400), 1); // nothing counts after the end
    const RouteResult r = routeResult(monitor, 0, 0, 2);
    QCOMPARE(r.count(InfractionType::RouteDeviation), 1);
    QCOMPARE(r.infractionPenalty, 1.0);
    QCOMPARE(r.routeCompletion, 4.0);
    QCOMPARE(r.drivingScore, 4.0);

    RouteMonitor left(tickAt(0, 0), 500, options);
    left.update(tickAt(1, 10, 10, 1.2), 1); // over the centre line into oncoming traffic
    QCOMPARE(left.status(), RouteStatus::Deviated);
}

void TestDriveScoring::standingStillFor60sEndsTheRouteAsBlocked()
{
    RouteMonitor waiting(tickAt(0, 0), 500);
    for (int i = 1; i <= 59 * 20; ++i)
        waiting.update(tickAt(i * 0.05, 5, 0.0), 0.05);
    waiting.update(tickAt(59.05, 5, 0.5), 0.05); // moves off after 59 s at a light
    for (int i = 1; i <= 59 * 20; ++i)
        waiting.update(tickAt(60 + i * 0.05, 6, 0.05), 0.05);
    QVERIFY(!waiting.ended());

    RouteMonitor stuck(tickAt(0, 0), 500);
    for (int i = 1; i <= 60 * 20 && !stuck.ended(); ++i)
        stuck.update(tickAt(i * 0.05, 5, 0.0), 0.05);
    QVERIFY(stuck.ended());
    QCOMPARE(stuck.status(), RouteStatus::Blocked);
    const RouteResult r = routeResult(stuck, 0, 0, 60);
    QCOMPARE(r.count(InfractionType::AgentBlocked), 1);
    QCOMPARE(r.infractionPenalty, 1.0);
    QCOMPARE(r.routeCompletion, 1.0);
}

void TestDriveScoring::summaryUsesSampleStdAndKilometresDriven()
{
    std::vector<RouteResult> routes(3);
    const double ds[3] = {100, 60, 20};
    for (int i = 0; i < 3; ++i) {
        routes[i].index = i;
        routes[i].drivingScore = ds[i];
        routes[i].routeCompletion = 100;
        routes[i].infractionPenalty = ds[i] / 100;
        routes[i].distanceKm = 0.5;
    }
    routes[1].infractions = {infraction(InfractionType::CollisionVehicle)};
    routes[2].infractions = {infraction(InfractionType::CollisionVehicle), infraction(InfractionType::RedLight),
                             infraction(InfractionType::RouteDeviation)};
    const DrivingReport report = summarise("test", routes);
    QCOMPARE(report.drivingScore.mean, 60.0);
    QCOMPARE(report.drivingScore.std, 40.0); // sqrt((40² + 0 + 40²) / (3 − 1))
    QCOMPARE(report.distanceKm, 1.5);
    QCOMPARE(report.counts[static_cast<std::size_t>(InfractionType::CollisionVehicle)], 2);
    QVERIFY(std::abs(report.perKm[static_cast<std::size_t>(InfractionType::CollisionVehicle)] - 2 / 1.5) < 1e-12);
    QVERIFY(std::abs(report.infractionsPerKm - 4 / 1.5) < 1e-12);
    const nlohmann::json json = reportJson(report);
    QCOMPARE(json["driving_score"].get<double>(), 60.0);
    QCOMPARE(json["infraction_counts"]["red_light"].get<int>(), 1);
    QCOMPARE(json["routes"].size(), std::size_t(3));
    QCOMPARE(summarise("one", {routes[0]}).drivingScore.std, 0.0);
    QCOMPARE(summarise("one", {routes[0]}).drivingScore.standardError, 0.0);
}

// Hand-computed: mean, sample std (n − 1) and standard error = std / √n. If this fails, the ± that every driving
// score is printed and stored with is not the standard error of the mean over routes.
void TestDriveScoring::standardErrorIsStdOverRootRoutes_data()
{
    QTest::addColumn<QList<double>>("scores");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("std");
    QTest::addColumn<double>("standardError");
    QTest::newRow("one route: no spread to estimate") << QList<double>{42.4} << 42.4 << 0.0 << 0.0;
    // std = sqrt((10² + 10²) / 1) = 14.142..., s.e. = 14.142... / √2 = 10 (= |a − b| / 2)
    QTest::newRow("two routes") << QList<double>{40, 60} << 50.0 << 14.142135623730951 << 10.0;
    // std = sqrt((40² + 0 + 40²) / 2) = 40, s.e. = 40 / √3
    QTest::newRow("three routes") << QList<double>{100, 60, 20} << 60.0 << 40.0 << 23.094010767585033;
    // std = sqrt((30² + 10² + 10² + 30²) / 3) = sqrt(2000 / 3) = 25.819..., s.e. = std / 2
    QTest::newRow("four routes") << QList<double>{90, 70, 50, 30} << 60.0 << 25.819888974716115 << 12.909944487358057;
    QTest::newRow("all alike") << QList<double>{75, 75, 75, 75} << 75.0 << 0.0 << 0.0;
}

void TestDriveScoring::standardErrorIsStdOverRootRoutes()
{
    QFETCH(QList<double>, scores);
    QFETCH(double, mean);
    QFETCH(double, std);
    QFETCH(double, standardError);
    std::vector<RouteResult> routes;
    for (double ds : scores) {
        RouteResult r;
        r.index = static_cast<int>(routes.size());
        r.drivingScore = ds;
        r.routeCompletion = 100;
        r.infractionPenalty = ds / 100;
        routes.push_back(r);
    }
    const DrivingReport report = summarise("test", routes);
    QVERIFY(std::abs(report.drivingScore.mean - mean) < 1e-9);
    QVERIFY(std::abs(report.drivingScore.std - std) < 1e-9);
    QVERIFY2(std::abs(report.drivingScore.standardError - standardError) < 1e-9,
             qPrintable(QString::number(report.drivingScore.standardError, 'g', 17)));
    // The penalty is DS / 100 here, so its standard error is DS's / 100.
    QVERIFY(std::abs(report.infractionPenalty.standardError - standardError / 100) < 1e-12);
    QCOMPARE(report.routeCompletion.standardError, 0.0);

    // `--json` and the store carry the same figure beside the score.
    const nlohmann::json json = reportJson(report);
    QCOMPARE(json["driving_score_stderr"].get<double>(), report.drivingScore.standardError);
    QCOMPARE(json["driving_score_std"].get<double>(), report.drivingScore.std);
    QCOMPARE(json["infraction_penalty_stderr"].get<double>(), report.infractionPenalty.standardError);
    const nlohmann::json stored = drivingSummaryJson(report);
    QCOMPARE(stored["driving_score_stderr"].get<double>(), report.drivingScore.standardError);
    QCOMPARE(stored["route_completion_stderr"].get<double>(), 0.0);
}

// Several runs (training seeds) on the same routes: the route-level s.e. is the mean of the runs' own, not the
// pooled runs × routes s.e. (which would shrink by √runs although every run drove the same routes).
void TestDriveScoring::severalRunsAverageTheirStandardErrors()
{
    auto report = [](const std::vector<double>& scores) {
        std::vector<RouteResult> routes(scores.size());
        for (std::size_t i = 0; i < scores.size(); ++i)
            routes[i].drivingScore = scores[i];
        return summarise("run", routes);
    };
    const DrivingReport a = report({40, 60}), b = report({100, 60, 20});
    QCOMPARE(a.drivingScore.standardError, 10.0);
    QVERIFY(std::abs(meanDrivingScoreStandardError({a, b}) - (10.0 + 40 / std::sqrt(3.0)) / 2) < 1e-12);
    QCOMPARE(meanDrivingScoreStandardError({a}), 10.0);
    QCOMPARE(meanDrivingScoreStandardError({}), 0.0);
    // Two identical runs: the pooled four scores {40, 60, 40, 60} would give 11.547 / 2 = 5.77; the shared
    // routes' error stays 10.
    QCOMPARE(meanDrivingScoreStandardError({a, a}), 10.0);
}

QTEST_GUILESS_MAIN(TestDriveScoring)
#include "tst_drive_scoring.moc"
