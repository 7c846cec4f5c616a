// What `pitwall db info` prints about a results database (core/store/inforeport.h) and the export formats by
// name. If this fails, the info lines or JSON fields that scripts read changed, or the hint to migrate is missing
// when migrations are pending.
#include "core/store/inforeport.h"

#include <QtTest>

using namespace pitwall;

class TestStoreInfoReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pendingMigrationsAndStudies();
    void optunaOnlyFile();
    void exportFormats();
};

namespace {
SchemaInfo someInfo()
{
    SchemaInfo info;
    info.backend = "sqlite";
    info.location = "/tmp/x.db";
    info.pitwallSchemaVersion = 3;
    info.latestPitwallSchemaVersion = 5;
    info.optunaSchemaVersion = 12;
    info.optunaLibraryVersion = "3.1.0";
    info.alembicVersion = "v3.0.0.d";
    info.studies = 1;
    info.trials = 4;
    info.runs = 2;
    info.metricRows = 100;
    info.fileBytes = 2048;
    info.journalMode = "wal";
    return info;
}
} // namespace

void TestStoreInfoReport::pendingMigrationsAndStudies()
{
    StudySummary s;
    s.study.name = "speed";
    s.complete = 3;
    s.failed = 1;
    s.bestValue = 0.5;
    const std::string text = databaseInfoText(someInfo(), {s});
    QVERIFY2(text.find("database:        /tmp/x.db (sqlite, 2.0 KiB, journal wal)\n") == 0, text.c_str());
    QVERIFY2(text.find("pitwall schema:  3 of 5  (2 migration(s) pending: run 'pitwall db migrate')\n") !=
                 std::string::npos,
             text.c_str());
    QVERIFY2(text.find("optuna schema:   12 (library 3.1.0, alembic v3.0.0.d)\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("contents:        1 studies, 4 trials, 2 runs, 100 metric rows\n") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("0.500000") != std::string::npos, text.c_str()); // the study table's best value
    const nlohmann::json json = databaseInfoJson(someInfo(), {s});
    QCOMPARE(json["pending_migrations"].get<int>(), 2);
    QCOMPARE(json["optuna_schema_version"].get<int>(), 12);
    QCOMPARE(json["study_list"][0]["trials"].get<int>(), 4);
    QCOMPARE(json["study_list"][0]["best_value"].get<double>(), 0.5);
}

void TestStoreInfoReport::optunaOnlyFile()
{
    SchemaInfo info = someInfo();
    info.pitwallSchemaVersion = info.latestPitwallSchemaVersion;
    info.optunaSchemaVersion.reset();
    const std::string text = databaseInfoText(info, {});
    QVERIFY2(text.find("pending") == std::string::npos, text.c_str());
    QVERIFY2(text.find("optuna schema:   none\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("study ") == std::string::npos, text.c_str()); // no table without studies
    QVERIFY(databaseInfoJson(info, {})["optuna_schema_version"].is_null());
}

void TestStoreInfoReport::exportFormats()
{
    QCOMPARE(parseExportFormat("csv"), std::optional<ExportFormat>(ExportFormat::Csv));
    QCOMPARE(parseExportFormat("json"), std::optional<ExportFormat>(ExportFormat::Json));
    QVERIFY(!parseExportFormat("CSV"));
    QVERIFY(!parseExportFormat("xlsx"));
}

QTEST_GUILESS_MAIN(TestStoreInfoReport)
#include "tst_store_inforeport.moc"
