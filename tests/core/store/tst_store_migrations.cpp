// Pitwall's tables grow through numbered migrations. A file of an older schema must come up to date with its
// data intact, migrating twice must do nothing, and an Optuna-only file gains Pitwall's tables without losing
// or changing Optuna's. If this fails, upgrading Pitwall could lose or hide recorded results.
#include "storetestutil.h"

#include "core/store/internal/migrations.h"
#include "core/store/sqlitestore.h"
#include "core/store/store.h"

#include <QtTest>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;
using storetest::query;
using storetest::scalar;

namespace {

bool hasIndex(const std::string& path, const std::string& name)
{
    return scalar(path, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = '" + name + "'") == "1";
}

std::string describeTrials(Store& store, const std::string& studyName)
{
    std::string text;
    const auto study = store.requireStudy(studyName);
    for (const auto& trial : store.trials(study.id)) {
        text += std::to_string(trial.number) + ":" + std::string(trialStateName(trial.state));
        for (const auto& param : trial.params)
            text += " " + param.name + "=" + param.value().dump() + "@" + param.distribution.toOptunaJson();
        for (double value : trial.values)
            text += " value=" + std::to_string(value);
        for (const auto& [step, value] : trial.intermediateValues)
            text += " i" + std::to_string(step) + "=" + std::to_string(value);
        text += " " + trial.userAttrs.dump() + "\n";
    }
    return text;
}

} // namespace

class TestStoreMigrations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void migrationsAreNumberedInOrder();
    void version1FileComesUpToDate();
    void migrateIsIdempotent();
    void optunaOnlyFileGainsPitwallTables();
    void version4FileReadsWithoutVectorTable();
    void optunaRevisionOfNewFiles();
    void optunaRevisionConvertsBothWays();

private:
    QTemporaryDir m_dir;
};

void TestStoreMigrations::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestStoreMigrations::migrationsAreNumberedInOrder()
{
    const auto& migrations = pitwallMigrations();
    QVERIFY(migrations.size() >= 2);
    for (std::size_t i = 0; i < migrations.size(); ++i)
        QCOMPARE(migrations[i].version, static_cast<int>(i + 1));
    QCOMPARE(latestPitwallSchemaVersion(), static_cast<int>(migrations.size()));
}

void TestStoreMigrations::version1FileComesUpToDate()
{
    const auto path = m_dir.filePath("v1.db").toStdString();
    std::int64_t runId = 0;
    std::vector<MetricRow> rowsAtV1;
    std::string trialsAtV1;
    {
        SqliteStore v1(path, OpenMode::ReadWrite, AutoMigrate::No);
        QCOMPARE(v1.info().pitwallSchemaVersion, 0);
        QCOMPARE(v1.migrateTo(1), 1);
        QCOMPARE(v1.info().pitwallSchemaVersion, 1);
        QVERIFY(!hasIndex(path, "ix_pitwall_metrics_run_id"));

        const auto studyId = v1.createStudy("old", {StudyDirection::Maximize});
        const auto trial = v1.createTrial(studyId);
        Distribution layers;
        layers.kind = Distribution::Kind::Int;
        layers.low = 1, layers.high = 8, layers.step = 1.0;
        v1.setTrialParam(trial.id, "layers", 6, layers);
        v1.reportIntermediate(trial.id, 0, 0.4);
        v1.finishTrial(trial.id, TrialState::Complete, {0.55});
        RunRecord run;
        run.trialId = trial.id;
        run.kind = "train";
        run.host = "old-host";
        runId = v1.createRun(run);
        std::vector<MetricSample> samples;
        for (int step = 0; step < 100; ++step)
            samples.push_back({runId, "pretrain", step, step % 2 ? "loss" : "fps", step * 0.5, 1000.0 + step});
        v1.appendMetrics(samples);
        v1.addEvent(runId, EventLevel::Warning, "written at schema 1");
        v1.addBenchmark({0, "loader", "v1", {{"batch", 8}}, {{"ms", 3.0}}, "old-host", 5.0});
        rowsAtV1 = v1.metricsSince(runId, 0);
        trialsAtV1 = describeTrials(v1, "old");
    }
    {
        // A read-only view of the old file works and reports its schema without changing it.
        auto readOnly = openStore(path, OpenMode::ReadOnly);
        QCOMPARE(readOnly->info().pitwallSchemaVersion, 1);
        QCOMPARE(readOnly->metricsSince(runId, 0).size(), std::size_t(100));
    }
    QCOMPARE(scalar(path, "SELECT MAX(version) FROM pitwall_schema_version"), std::string("1"));

    auto store = openStore(path); // ReadWrite applies the pending migration
    const auto info = store->info();
    QCOMPARE(info.pitwallSchemaVersion, 6);
    QCOMPARE(info.latestPitwallSchemaVersion, 6);
    QVERIFY(hasIndex(path, "ix_pitwall_metrics_run_id"));
    QVERIFY(hasIndex(path, "ix_pitwall_events_run_id"));
    QCOMPARE(query(path, "SELECT version, description FROM pitwall_schema_version ORDER BY version"),
             (std::vector<storetest::Row>{{"1", pitwallMigrations()[0].description},
                                          {"2", pitwallMigrations()[1].description},
                                          {"3", pitwallMigrations()[2].description},
                                          {"4", pitwallMigrations()[3].description},
                                          {"5", pitwallMigrations()[4].description},
                                          {"6", pitwallMigrations()[5].description}}));
    // The live-view query uses the new index.
    const auto plan = query(path, "EXPLAIN QUERY PLAN SELECT metric_id FROM pitwall_metrics "
                                  "WHERE run_id = 1 AND metric_id > 5 ORDER BY metric_id");
    QVERIFY(!plan.empty());
    QVERIFY2(plan.front().back().find("ix_pitwall_metrics_run_id") != std::string::npos, plan.front().back().c_str());

    // Data intact.
    const auto rows = store->metricsSince(runId, 0);
    QCOMPARE(rows.size(), rowsAtV1.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        QCOMPARE(rows[i].cursor, rowsAtV1[i].cursor);
        QCOMPARE(rows[i].sample.key, rowsAtV1[i].sample.key);
        QCOMPARE(rows[i].sample.value, rowsAtV1[i].sample.value);
        QCOMPARE(rows[i].sample.wallTime, rowsAtV1[i].sample.wallTime);
    }
    QCOMPARE(describeTrials(*store, "old"), trialsAtV1);
    QCOMPARE(store->run(runId)->host, std::string("old-host"));
    QCOMPARE(store->eventsSince(runId, 0).at(0).message, std::string("written at schema 1"));
    QCOMPARE(store->benchmarks("loader").at(0).results, Json({{"ms", 3.0}}));
    // And it keeps working at the new schema.
    store->appendMetrics(std::vector<MetricSample>{{runId, "pretrain", 100, "loss", 1.0, 2000.0}});
    QCOMPARE(store->metricsSince(runId, rowsAtV1.back().cursor).size(), std::size_t(1));
}

void TestStoreMigrations::migrateIsIdempotent()
{
    const auto path = m_dir.filePath("idempotent.db").toStdString();
    {
        SqliteStore store(path, OpenMode::ReadWrite, AutoMigrate::No);
        QCOMPARE(store.migrate(), 6);
        QCOMPARE(store.migrate(), 0);
        QCOMPARE(store.migrateTo(1), 0);
        QCOMPARE(store.info().pitwallSchemaVersion, 6);
    }
    auto again = openStore(path);
    QCOMPARE(again->migrate(), 0);
    QCOMPARE(scalar(path, "SELECT COUNT(*) FROM pitwall_schema_version"), std::string("6"));
}

void TestStoreMigrations::optunaOnlyFileGainsPitwallTables()
{
    const auto path =
        storetest::copyFile(sourcePath("/tests/data/optuna/optuna-3.1-study.db"), m_dir, "optuna-only.db");
    const auto optunaRows = query(path, "SELECT * FROM trials ORDER BY trial_id");
    const auto optunaParams = query(path, "SELECT * FROM trial_params ORDER BY param_id");
    std::string trialsBefore;
    {
        auto readOnly = openStore(path, OpenMode::ReadOnly);
        const auto info = readOnly->info();
        QCOMPARE(info.pitwallSchemaVersion, 0);
        QCOMPARE(info.optunaSchemaVersion, std::optional<int>(12));
        QCOMPARE(info.trials, std::int64_t(8));
        QCOMPARE(info.runs, std::int64_t(0));
        QVERIFY(readOnly->runs().empty());
        QVERIFY(readOnly->metricsSince(0, 0).empty());
        QVERIFY(readOnly->eventsSince(0, 0).empty());
        QVERIFY(readOnly->benchmarks().empty());
        QVERIFY(!readOnly->run(1));
        trialsBefore = describeTrials(*readOnly, "reference");
    }
    QCOMPARE(scalar(path, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'pitwall%'"), std::string("0"));
    {
        SqliteStore store(path, OpenMode::ReadWrite, AutoMigrate::No);
        QCOMPARE(store.info().pitwallSchemaVersion, 0);
        QCOMPARE(store.migrate(), 6);
        QCOMPARE(store.info().pitwallSchemaVersion, 6);
        RunRecord run;
        run.trialId = store.trial(store.requireStudy("reference").id, 0)->id;
        run.kind = "eval";
        const auto runId = store.createRun(run);
        store.appendMetrics(std::vector<MetricSample>{{runId, "eval", 0, "mAP50", 0.5, 1.0}});
    }
    auto store = openStore(path, OpenMode::ReadOnly);
    QCOMPARE(describeTrials(*store, "reference"), trialsBefore);
    QCOMPARE(query(path, "SELECT * FROM trials ORDER BY trial_id"), optunaRows);
    QCOMPARE(query(path, "SELECT * FROM trial_params ORDER BY param_id"), optunaParams);
    QCOMPARE(query(path, "SELECT * FROM version_info"), (std::vector<storetest::Row>{{"1", "12", "3.1.0"}}));
    QCOMPARE(scalar(path, "SELECT version_num FROM alembic_version"), std::string("v3.0.0.d"));
    QCOMPARE(store->runs().size(), std::size_t(1));
    QCOMPARE(store->metricsSince(0, 0).size(), std::size_t(1));
}

// New files get Optuna's tables at revision 3.2 (alembic v3.2.0.a, an index on trials.study_id) so that every
// Optuna since 3.2 opens them as they are; $PITWALL_OPTUNA_SCHEMA=3.1 gives Debian's Optuna 3.1 its tables; another
// value is refused before any file is made. If this fails, the newest Optuna asks for `optuna storage upgrade` on
// every Pitwall file, or Debian's Optuna cannot open one at all.
void TestStoreMigrations::optunaRevisionOfNewFiles()
{
    const auto made = [&](const char* name, const char* setting) {
        const auto path = m_dir.filePath(name).toStdString();
        if (setting)
            qputenv("PITWALL_OPTUNA_SCHEMA", setting);
        else
            qunsetenv("PITWALL_OPTUNA_SCHEMA");
        openStore(path)->createStudy("s", {StudyDirection::Minimize});
        qunsetenv("PITWALL_OPTUNA_SCHEMA");
        return path;
    };
    const auto newest = made("newest.db", nullptr);
    QCOMPARE(scalar(newest, "SELECT version_num FROM alembic_version"), std::string("v3.2.0.a"));
    QCOMPARE(query(newest, "SELECT * FROM version_info"), (std::vector<storetest::Row>{{"1", "12", "3.2.0"}}));
    QCOMPARE(scalar(newest, "SELECT sql FROM sqlite_master WHERE name = 'ix_trials_study_id'"),
             std::string("CREATE INDEX ix_trials_study_id ON trials (study_id)"));

    const auto debian = made("debian.db", "3.1");
    QCOMPARE(scalar(debian, "SELECT version_num FROM alembic_version"), std::string("v3.0.0.d"));
    QCOMPARE(query(debian, "SELECT * FROM version_info"), (std::vector<storetest::Row>{{"1", "12", "3.1.0"}}));
    QVERIFY(!hasIndex(debian, "ix_trials_study_id"));
    QCOMPARE(scalar(made("explicit.db", "3.2"), "SELECT version_num FROM alembic_version"), std::string("v3.2.0.a"));

    const auto bad = m_dir.filePath("bad-setting.db").toStdString();
    qputenv("PITWALL_OPTUNA_SCHEMA", "5.1");
    try {
        openStore(bad);
        QFAIL("PITWALL_OPTUNA_SCHEMA=5.1 was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("PITWALL_OPTUNA_SCHEMA='5.1': give 3.1") != std::string::npos, e.what());
    }
    qunsetenv("PITWALL_OPTUNA_SCHEMA");
    QVERIFY(!QFileInfo::exists(QString::fromStdString(bad)));
}

// `pitwall db migrate --optuna-schema` converts a file's Optuna tables either way in one transaction, with its trials
// unchanged; the index a file upgraded by Optuna carries (trials_study_id_key) is dropped too; a revision of another
// Optuna is refused and left as it was. If this fails, converting a file for the other Optuna loses data or leaves a
// revision that no Optuna opens.
void TestStoreMigrations::optunaRevisionConvertsBothWays()
{
    const auto path = m_dir.filePath("convert.db").toStdString();
    auto store = openStore(path);
    const auto study = store->createStudy("s", {StudyDirection::Minimize});
    const auto trial = store->createTrial(study);
    store->finishTrial(trial.id, TrialState::Complete, {0.5});
    const auto trialsBefore = query(path, "SELECT * FROM trials ORDER BY trial_id");

    QVERIFY(!store->convertOptunaSchema(OptunaSchema::V3_2)); // already there
    QVERIFY(store->convertOptunaSchema(OptunaSchema::V3_1));
    QCOMPARE(scalar(path, "SELECT version_num FROM alembic_version"), std::string("v3.0.0.d"));
    QCOMPARE(scalar(path, "SELECT library_version FROM version_info"), std::string("3.1.0"));
    QVERIFY(!hasIndex(path, "ix_trials_study_id"));
    QVERIFY(!store->convertOptunaSchema(OptunaSchema::V3_1));
    QVERIFY(store->convertOptunaSchema(OptunaSchema::V3_2));
    QCOMPARE(scalar(path, "SELECT version_num FROM alembic_version"), std::string("v3.2.0.a"));
    QCOMPARE(scalar(path, "SELECT library_version FROM version_info"), std::string("3.2.0"));
    QVERIFY(hasIndex(path, "ix_trials_study_id"));

    // A file that Optuna's own migration brought to v3.2.0.a names the index after the migration.
    QVERIFY(store->convertOptunaSchema(OptunaSchema::V3_1));
    query(path, "CREATE INDEX trials_study_id_key ON trials (study_id)");
    query(path, "UPDATE alembic_version SET version_num = 'v3.2.0.a'");
    QVERIFY(store->convertOptunaSchema(OptunaSchema::V3_1));
    QVERIFY(!hasIndex(path, "trials_study_id_key"));
    QVERIFY(!hasIndex(path, "ix_trials_study_id"));
    // ... and converting it back does not add a second index beside Optuna's
    query(path, "CREATE INDEX trials_study_id_key ON trials (study_id)");
    QVERIFY(store->convertOptunaSchema(OptunaSchema::V3_2));
    QVERIFY(hasIndex(path, "trials_study_id_key"));
    QVERIFY(!hasIndex(path, "ix_trials_study_id"));
    QCOMPARE(query(path, "SELECT * FROM trials ORDER BY trial_id"), trialsBefore);

    query(path, "UPDATE alembic_version SET version_num = 'v9.0.0.a'");
    try {
        store->convertOptunaSchema(OptunaSchema::V3_1);
        QFAIL("a revision of another Optuna was converted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("alembic revision 'v9.0.0.a'") != std::string::npos, e.what());
    }
    QCOMPARE(scalar(path, "SELECT version_num FROM alembic_version"), std::string("v9.0.0.a"));
    QVERIFY(hasIndex(path, "trials_study_id_key"));
}

void TestStoreMigrations::version4FileReadsWithoutVectorTable()
{
    // A file an older Pitwall wrote (schema 4, no pitwall_intermediate_values) is read as it is when opened read-only,
    // and gains the table, with the vectors it then stores, when opened to write.
    const auto path = m_dir.filePath("v4.db").toStdString();
    std::int64_t trialId = 0, studyId = 0;
    {
        SqliteStore store(path, OpenMode::ReadWrite, AutoMigrate::No);
        QCOMPARE(store.migrateTo(4), 4);
        studyId = store.createStudy("two", {StudyDirection::Minimize, StudyDirection::Maximize});
        trialId = store.createTrial(studyId).id;
        store.reportIntermediate(trialId, 0, 1.5);
    }
    {
        const auto readOnly = openStore(path, OpenMode::ReadOnly);
        const auto trial = readOnly->trial(studyId, 0);
        QCOMPARE(trial->intermediateValues.at(0), 1.5);
        QVERIFY(trial->intermediateVectors.empty());
    }
    const auto store = openStore(path);
    QCOMPARE(store->info().pitwallSchemaVersion, 6);
    store->reportIntermediates(trialId, 1, {2.5, 7.0});
    const auto trial = store->trial(studyId, 0);
    QCOMPARE(trial->intermediateValues.at(1), 2.5);
    QCOMPARE(trial->intermediateVectors.at(1), (std::vector<double>{2.5, 7.0}));
    QCOMPARE(scalar(path, "SELECT value FROM pitwall_intermediate_values WHERE step = 1 AND objective = 1"),
             std::string("7.0"));
}

QTEST_GUILESS_MAIN(TestStoreMigrations)
#include "tst_store_migrations.moc"
