// A trained model drives end to end: the smoke TransFuser-lite run is loaded from its checkpoint, renders its
// own sensors from the simulator each plan, gets a score in [0, 100] that is the same on every evaluation,
// and the result is kept with the run in the results store. `pitwall eval driving` prints and stores the same
// standard error over routes that its JSON gives, and prints the same figures on every run. Bad runs are input
// errors. The variants table shows the route-level standard error where one seed's std would read "± 0.0".
#include "../../cli/clitestutil.h"

#include "core/engine/drive/modelpolicy.h"
#include "core/engine/drive/runeval.h"
#include "core/store/store.h"
#include "core/engine/train/experiment.h"
#include "core/engine/train/variants.h"
#include "core/util/error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "tests/support/testpaths.h"

using pitwall::test::sourceFile;

using namespace pitwall;
using namespace pitwall::drive;

class TestDriveModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trainedModelDrivesDeterministically();
    void resultIsRecordedWithTheRun();
    void evalCommandPrintsAndStoresTheStandardError();
    void unknownRunIsAnInputError();
    void modelPlansRoutesInOneBatch();
    void variantsFileDrivingSectionAddsAColumn();
    void variantsTableSaysWhatItsPlusMinusIs();
    void pairedDifferencesOverTheSameRoutes();

private:
    QTemporaryDir m_dir;
    std::string m_db;
    std::int64_t m_runId = 0;
    DrivingReport m_report;
    DrivingEvalOptions m_options;
};

void TestDriveModel::initTestCase()
{
    m_db = m_dir.filePath("drive.db").toStdString();
    const ResolvedConfig config = resolveConfig(loadSchema(), {sourceFile("/configs/transfuser/smoke.yaml")},
                                                {"experiment.output_dir=" + m_dir.filePath("runs").toStdString()});
    engine::ExperimentOptions options;
    options.storeLocation = m_db;
    options.device.threads = 1;
    const engine::ExperimentResult result = engine::runExperiment(config, options);
    QCOMPARE(result.seeds.size(), std::size_t(1));
    m_runId = result.seeds.front().train.runId;
    m_options.routes = 2;
    m_options.routeSeconds = 6;
}

void TestDriveModel::trainedModelDrivesDeterministically()
{
    ModelPolicyOptions model;
    model.threads = 1;
    m_report = evaluateRun(m_db, m_runId, m_options, model);
    QCOMPARE(m_report.routes.size(), std::size_t(2));
    QCOMPARE(m_report.policy, "run " + std::to_string(m_runId));
    for (const RouteResult& r : m_report.routes) {
        QVERIFY(r.drivingScore >= 0 && r.drivingScore <= 100);
        QVERIFY(r.routeCompletion > 0); // it starts rolling, at least
        QVERIFY(r.distanceKm > 0);
    }
    const DrivingReport again = evaluateRun(m_db, m_runId, m_options, model);
    QCOMPARE(reportJson(again).dump(), reportJson(m_report).dump());
}

void TestDriveModel::resultIsRecordedWithTheRun()
{
    auto store = openStore(m_db);
    recordRunEvaluation(*store, m_runId, m_report, m_options);
    std::map<std::string, double> eval;
    for (const MetricRow& row : store->metricsSince(m_runId, 0))
        if (row.sample.stage == "eval")
            eval[row.sample.key] = row.sample.value;
    QCOMPARE(eval.at("driving_score"), m_report.drivingScore.mean);
    QCOMPARE(eval.at("route_completion"), m_report.routeCompletion.mean);
    QCOMPARE(eval.at("infraction_penalty"), m_report.infractionPenalty.mean);
    QVERIFY(eval.count("infractions_per_km"));
    QVERIFY(eval.count("infractions_per_km/collisions_vehicle"));

    const RunRecord run = *store->run(m_runId);
    QVERIFY(run.trialId);
    const StudyRecord study = store->requireStudy("transfuser-smoke");
    bool found = false;
    for (const TrialRecord& trial : store->trials(study.id))
        if (trial.id == *run.trialId) {
            QCOMPARE(trial.userAttrs["driving_score"].get<double>(), m_report.drivingScore.mean);
            found = true;
        }
    QVERIFY(found);
    const std::vector<BenchmarkRecord> benchmarks = store->benchmarks("driving");
    QCOMPARE(benchmarks.size(), std::size_t(1));
    QCOMPARE(benchmarks[0].name, "run " + std::to_string(m_runId));
    QCOMPARE(benchmarks[0].results["routes"].get<double>(), 2.0);
    QCOMPARE(benchmarks[0].results["driving_score"].get<double>(), m_report.drivingScore.mean);
    for (const auto& [key, value] : benchmarks[0].results.items())
        QVERIFY2(value.is_number(), key.c_str()); // flat: one workbench column per figure
    int routeRows = 0;
    for (const MetricRow& row : store->metricsSince(m_runId, 0))
        routeRows += row.sample.key == "route/driving_score";
    QCOMPARE(routeRows, 2);
}

// The run's evaluation through the command line, twice with --json and once as text: the JSON carries
// driving_score_stderr beside driving_score, equal to what was recorded with the run (metric and benchmark
// record) and to this process's own evaluation of the same run (same seed, machine and thread count: the
// same score); the text prints the score ± that standard error and says which it is.
void TestDriveModel::evalCommandPrintsAndStoresTheStandardError()
{
    const QStringList args{
        "eval",      "driving", "--policy", QString::number(m_runId),    "--routes", "2", "--route-seconds", "6",
        "--threads", "1",       "--db",     QString::fromStdString(m_db)};
    const CliResult first = runCli(args + QStringList{"--json"});
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    const nlohmann::json json = nlohmann::json::parse(first.out.toStdString());
    QVERIFY(json.contains("driving_score_stderr"));
    QCOMPARE(json["driving_score"].get<double>(), m_report.drivingScore.mean);
    QCOMPARE(json["driving_score_stderr"].get<double>(), m_report.drivingScore.standardError);
    // The standard error worked out here from the routes' own scores (sample std / sqrt(n)). It is > 0 when the
    // routes differ (Debian's LibTorch); the CUDA wheel's LibTorch trains this smoke model to drive both routes
    // alike, and then it must be exactly 0.
    double mean = 0;
    for (const RouteResult& r : m_report.routes)
        mean += r.drivingScore / static_cast<double>(m_report.routes.size());
    double squares = 0;
    for (const RouteResult& r : m_report.routes)
        squares += (r.drivingScore - mean) * (r.drivingScore - mean);
    const double n = static_cast<double>(m_report.routes.size());
    QCOMPARE(m_report.routes.size(), std::size_t(2));
    QVERIFY(std::abs(m_report.drivingScore.standardError - std::sqrt(squares / (n - 1)) / std::sqrt(n)) < 1e-9);

    auto store = openStore(m_db, OpenMode::ReadOnly);
    const std::vector<BenchmarkRecord> benchmarks = store->benchmarks("driving");
    QVERIFY(!benchmarks.empty());
    QCOMPARE(benchmarks.back().results["driving_score_stderr"].get<double>(),
             json["driving_score_stderr"].get<double>());
    QCOMPARE(benchmarks.back().results["driving_score"].get<double>(), json["driving_score"].get<double>());
    double storedMetric = -1;
    for (const MetricRow& row : store->metricsSince(m_runId, 0))
        if (row.sample.stage == "eval" && row.sample.key == "driving_score_stderr")
            storedMetric = row.sample.value; // the latest evaluation's
    QCOMPARE(storedMetric, json["driving_score_stderr"].get<double>());

    const CliResult again = runCli(args + QStringList{"--json"});
    QCOMPARE(again.out, first.out); // the same score, route by route, to the last bit

    const CliResult text = runCli(args);
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    const QString expected =
        QString::asprintf("driving score       %6.2f ± %.2f    (route std %.2f)", m_report.drivingScore.mean,
                          m_report.drivingScore.standardError, m_report.drivingScore.std);
    QVERIFY2(text.out.contains(expected), qPrintable(text.out));
    QVERIFY2(text.out.contains("± is the standard error over routes (1 seed): sample std over the 2 routes / √2"),
             qPrintable(text.out));
}

// Routes are driven side by side with one forward pass for all of them: row i of the batch is world i's plan, as
// a forward pass of that world alone gives it (to float rounding: the reductions run over other sizes).
void TestDriveModel::modelPlansRoutesInOneBatch()
{
    ModelPolicyOptions model;
    model.threads = 1;
    auto store = openStore(m_db, OpenMode::ReadOnly);
    const std::unique_ptr<DrivingPolicy> policy = loadRunPolicy(*store, m_runId, model);
    QVERIFY(policy->plansRoutesTogether());
    synth::WorldOptions worldOptions;
    worldOptions.durationS = 8;
    std::vector<synth::World> worlds;
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        worlds.push_back(synth::World::create(seed, worldOptions));
        for (std::uint64_t t = 0; t < 10 * seed; ++t) // different moments, so the three frames differ
            worlds.back().step(0.05);
    }
    const std::vector<DrivingPlan> batch = policy->planBatch({&worlds[0], &worlds[1], &worlds[2]});
    QCOMPARE(batch.size(), std::size_t(3));
    for (std::size_t i = 0; i < worlds.size(); ++i) {
        const DrivingPlan alone = policy->plan(worlds[i]);
        QCOMPARE(batch[i].waypoints.size(), alone.waypoints.size());
        QVERIFY(!alone.waypoints.empty());
        QVERIFY2(std::abs(batch[i].targetSpeedMps - alone.targetSpeedMps) < 1e-4,
                 qPrintable(QString("route %1: %2 together, %3 alone")
                                .arg(i)
                                .arg(batch[i].targetSpeedMps)
                                .arg(alone.targetSpeedMps)));
        for (std::size_t k = 0; k < alone.waypoints.size(); ++k) {
            QVERIFY(std::abs(batch[i].waypoints[k].x - alone.waypoints[k].x) < 1e-4);
            QVERIFY(std::abs(batch[i].waypoints[k].y - alone.waypoints[k].y) < 1e-4);
        }
    }
    QVERIFY2(std::abs(batch[0].waypoints.back().x - batch[2].waypoints.back().x) > 1e-6 ||
                 std::abs(batch[0].targetSpeedMps - batch[2].targetSpeedMps) > 1e-6,
             "three different frames should not give one plan");
}

void TestDriveModel::unknownRunIsAnInputError()
{
    QVERIFY_THROWS_EXCEPTION(InputError, evaluateRun(m_db, m_runId + 1000, m_options));
}

void TestDriveModel::variantsFileDrivingSectionAddsAColumn()
{
    auto write = [&](const QString& name, const std::string& text) {
        QFile file(m_dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text.c_str());
    };
    const std::string variants = "name: v\nseeds: [0]\nvariants:\n  - {name: A}\n";
    write("plain.yaml", variants);
    write("driving.yaml", "driving: {routes: 2, route_seconds: 12}\n" + variants);
    write("bad.yaml", "driving: {routes: 0}\n" + variants);
    write("typo.yaml", "driving: {route: 2}\n" + variants);
    const engine::VariantsFile plain = engine::readVariantsFile(m_dir.filePath("plain.yaml").toStdString());
    QVERIFY(!plain.driving.enabled);
    const engine::VariantsFile driving = engine::readVariantsFile(m_dir.filePath("driving.yaml").toStdString());
    QVERIFY(driving.driving.enabled);
    QCOMPARE(driving.driving.routes, 2);
    QCOMPARE(driving.driving.routeSeconds, 12.0);
    QVERIFY_THROWS_EXCEPTION(InputError, engine::readVariantsFile(m_dir.filePath("bad.yaml").toStdString()));
    QVERIFY_THROWS_EXCEPTION(InputError, engine::readVariantsFile(m_dir.filePath("typo.yaml").toStdString()));

    engine::VariantResult result;
    result.name = "A";
    result.drivingScore = meanStd({40, 60});
    QCOMPARE(engine::variantsTable(plain, {result}).header().size(), std::size_t(7));
    const Table table = engine::variantsTable(driving, {result});
    QCOMPARE(table.header().back(), std::string("Driving Score ↑"));
    QCOMPARE(table.rows()[0].back(), result.drivingScore.toString(1));
}

// One seed: the cell is the mean ± the route-level standard error (not "± 0.0") and the legend says so; several
// seeds: mean ± sample std over seeds, and the standard error in its own column.
void TestDriveModel::variantsTableSaysWhatItsPlusMinusIs()
{
    engine::VariantsFile file;
    file.qualityLabel = "Waypoint L1 (m)";
    file.driving.enabled = true;
    file.driving.routes = 4;
    file.seeds = {0};
    engine::VariantResult one;
    one.name = "A";
    one.drivingScore = meanStd({42.4});
    one.drivingScoreStandardError = 3.21;
    const Table single = engine::variantsTable(file, {one});
    QCOMPARE(single.header().back(), std::string("Driving Score ↑"));
    QCOMPARE(single.rows()[0].back(), std::string("42.4 ± 3.2"));
    const std::string legend = engine::variantsLegend(file);
    QVERIFY2(legend.find("Driving Score: ± is the standard error over routes (1 seed, 4 routes") != std::string::npos,
             legend.c_str());

    file.seeds = {0, 1, 2};
    engine::VariantResult three;
    three.name = "B";
    three.drivingScore = meanStd({40, 44, 48});
    three.drivingScoreStandardError = 5.0;
    const Table several = engine::variantsTable(file, {three});
    QCOMPARE(several.header().size(), std::size_t(9));
    QCOMPARE(several.header()[7], std::string("Driving Score ↑"));
    QCOMPARE(several.header()[8], std::string("DS s.e."));
    QCOMPARE(several.rows()[0][7], std::string("44.0 ± 4.0")); // sample std over the three seeds
    QCOMPARE(several.rows()[0][8], std::string("5.0"));
    QVERIFY(engine::variantsLegend(file).find("Driving Score: mean ± sample std over 3 training seed(s); DS s.e.") !=
            std::string::npos);
}

// Variants driven on the same routes are compared route by route: what the routes share cancels, so the error of
// the difference is far below either score's own.
void TestDriveModel::pairedDifferencesOverTheSameRoutes()
{
    auto report = [](std::vector<double> scores, std::uint64_t firstSeed) {
        DrivingReport r;
        for (std::size_t i = 0; i < scores.size(); ++i) {
            RouteResult route;
            route.index = static_cast<int>(i);
            route.worldSeed = firstSeed + i;
            route.drivingScore = scores[i];
            r.routes.push_back(route);
        }
        return r;
    };
    // Two seeds of one variant: per route, their mean.
    const std::vector<double> a = routeDrivingScores({report({10, 50, 90, 30}, 7), report({20, 60, 70, 30}, 7)});
    QCOMPARE(a, (std::vector<double>{15, 55, 80, 30}));
    QVERIFY(routeDrivingScores({report({10, 50}, 7), report({10, 50}, 8)}).empty()); // other routes
    QVERIFY(routeDrivingScores({report({10, 50}, 7), report({10}, 7)}).empty());
    QVERIFY(routeDrivingScores({}).empty());

    // b - a per route: 5, 7, 3, 5 -> mean 5, sample std sqrt(8/3) = 1.633, s.e. 0.816; each score's own s.e. is
    // about 14 (15..80 over four routes).
    const std::vector<double> b{20, 62, 83, 35};
    const ScoreStats d = pairedDifference(b, a);
    QCOMPARE(d.mean, 5.0);
    QVERIFY(std::abs(d.std - std::sqrt(8.0 / 3.0)) < 1e-12);
    QVERIFY(std::abs(d.standardError - std::sqrt(8.0 / 3.0) / 2.0) < 1e-12);
    QVERIFY(scoreStats(a).standardError > 10 * d.standardError);
    QCOMPARE(pairedDifference(b, {1, 2}).mean, 0.0); // other sizes: nothing
    QCOMPARE(pairedDifference({}, {}).standardError, 0.0);

    engine::VariantsFile file;
    file.driving.enabled = true;
    file.driving.routes = 4;
    file.seeds = {0};
    engine::VariantResult base, faster, unpaired;
    base.name = "Baseline";
    base.routeDrivingScores = a;
    faster.name = "Faster";
    faster.routeDrivingScores = b;
    std::vector<double> worse(4);
    for (std::size_t i = 0; i < 4; ++i)
        worse[i] = a[i] - 2.0 * static_cast<double>(i);
    unpaired.name = "Worse";
    unpaired.routeDrivingScores = worse; // -0, -2, -4, -6: mean -3, std 2.582, s.e. 1.291
    const std::string text = engine::variantsPairedDifferences(file, {base, faster, unpaired});
    QCOMPARE(text, std::string("Driving Score, paired differences to Baseline over the same 4 routes (± the standard "
                               "error of the per-route differences): Faster +5.0 ± 0.8, Worse -3.0 ± 1.3\n"));
    nlohmann::json out;
    engine::addPairedDifference(out, {base, faster}, 1);
    QCOMPARE(out["driving_score_diff"].get<double>(), 5.0);
    QVERIFY(std::abs(out["driving_score_diff_stderr"].get<double>() - d.standardError) < 1e-12);
    nlohmann::json none;
    engine::addPairedDifference(none, {base, faster}, 0); // the reference itself
    QVERIFY(none.is_null());
    // s.e. 0.8 and 1.3: both at most 2.5, so a 5-point difference is two of them.
    QCOMPARE(engine::variantsRoutesAdvice(file, {base, faster, unpaired}),
             std::string("Every paired standard error is at most 2.5 points (largest 1.3): a difference of 5 points "
                         "or more is at least two standard errors.\n"));
    // A noisy pair: differences 10, -10, 10, -10 -> sample std 11.547, s.e. 5.774 over 4 routes; 4 x (5.774 /
    // 2.5)^2 = 21.3 -> 22 routes.
    engine::VariantResult noisy = base;
    noisy.name = "Noisy";
    for (std::size_t i = 0; i < 4; ++i)
        noisy.routeDrivingScores[i] += i % 2 == 0 ? 10.0 : -10.0;
    QCOMPARE(engine::variantsRoutesAdvice(file, {base, faster, noisy}),
             std::string("The largest paired standard error, 5.8 points, is above 2.5: a 5-point difference may not "
                         "show. About 22 routes (driving.routes in the variants file) would bring it to 2.5; it "
                         "shrinks as 1/√routes.\n"));
    QVERIFY(engine::variantsRoutesAdvice(file, {base}).empty());
    QVERIFY(engine::variantsPairedDifferences(file, {base}).empty()); // nothing to compare
    engine::VariantResult shorter = faster;
    shorter.routeDrivingScores.pop_back();
    QVERIFY(engine::variantsPairedDifferences(file, {base, shorter}).empty());
    file.driving.enabled = false;
    QVERIFY(engine::variantsPairedDifferences(file, {base, faster}).empty());
}

QTEST_GUILESS_MAIN(TestDriveModel)
#include "tst_drive_model.moc"
