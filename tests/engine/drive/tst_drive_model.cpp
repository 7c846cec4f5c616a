// A trained model drives end to end: the smoke TransFuser-lite run is loaded from its checkpoint, renders its
// own sensors from the simulator each plan, gets a score in [0, 100] that is the same on every evaluation,
// and the result is kept with the run in the results store. Bad runs are input errors.
#include "core/engine/drive/runeval.h"
#include "core/engine/train/experiment.h"
#include "core/engine/train/variants.h"
#include "core/util/error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace pitwall;
using namespace pitwall::drive;

class TestDriveModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trainedModelDrivesDeterministically();
    void resultIsRecordedWithTheRun();
    void unknownRunIsAnInputError();
    void variantsFileDrivingSectionAddsAColumn();

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
    const ResolvedConfig config = resolveConfig(loadSchema(), {PITWALL_SOURCE_DIR "/configs/transfuser/smoke.yaml"},
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

QTEST_GUILESS_MAIN(TestDriveModel)
#include "tst_drive_model.moc"
