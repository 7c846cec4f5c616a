// Study trials and run metrics leave the store as CSV or JSON that spreadsheets and scripts read correctly.
// If this fails, an exported table would have shifted columns (bad quoting) or wrong values.
#include "core/store/export.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <QtTest>

#include <cmath>
#include <sstream>

using namespace pitwall;

class TestStoreExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void csvCells_data();
    void csvCells();
    void trialsAsCsv();
    void trialsAsJson();
    void formulaCellsAreGuarded();
    void metricsAsCsvAndJson();
    void unknownStudyOrRun();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_store;
    std::int64_t m_runId = 0;
    std::vector<TrialRecord> m_trials;
};

void TestStoreExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_store = openStore(m_dir.filePath("export.db").toStdString());
    const auto studyId = m_store->createStudy("exported", {StudyDirection::Maximize});
    Distribution choice;
    choice.kind = Distribution::Kind::Categorical;
    choice.choices = {"a,b", "say \"hi\""};
    Distribution rate;
    rate.low = 0, rate.high = 1;
    const auto first = m_store->createTrial(studyId);
    m_store->setTrialParam(first.id, "choice", 0, choice);
    m_store->setTrialParam(first.id, "rate", 0.5, rate);
    m_store->setTrialUserAttr(first.id, "note", "line1\nline2");
    m_store->finishTrial(first.id, TrialState::Complete, {0.75});
    const auto second = m_store->createTrial(studyId);
    m_store->setTrialParam(second.id, "choice", 1, choice);
    m_store->setTrialUserAttr(second.id, "tags", Json::array({1, 2}));
    m_store->finishTrial(second.id, TrialState::Complete, {HUGE_VAL});
    m_store->createTrial(studyId); // still running
    m_trials = m_store->trials(studyId);

    RunRecord run;
    run.kind = "train";
    m_runId = m_store->createRun(run);
    m_store->appendMetrics(std::vector<MetricSample>{{m_runId, "pretrain", 0, "loss", 2.5, 100.25},
                                                     {m_runId, "post, train", 1, "mAP50", 0.125, 101.5}});
}

void TestStoreExport::csvCells_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("cell");
    QTest::newRow("plain") << "loss"
                           << "loss";
    QTest::newRow("comma") << "a,b"
                           << "\"a,b\"";
    QTest::newRow("quote") << "say \"hi\""
                           << "\"say \"\"hi\"\"\"";
    QTest::newRow("newline") << "l1\nl2"
                             << "\"l1\nl2\"";
    QTest::newRow("edge space") << " x"
                                << "\" x\"";
    QTest::newRow("empty") << ""
                           << "";
    // Spreadsheet formula injection: text that would run as a formula gets a leading quote; numbers stay numbers.
    QTest::newRow("formula") << "=1+2"
                             << "'=1+2";
    QTest::newRow("plus formula") << "+cmd|' /C calc'!A0"
                                  << "'+cmd|' /C calc'!A0";
    QTest::newRow("minus formula") << "-2+3"
                                   << "'-2+3";
    QTest::newRow("at formula") << "@SUM(A1)"
                                << "'@SUM(A1)";
    QTest::newRow("tab first") << "\t=1"
                               << "'\t=1";
    QTest::newRow("formula needing quotes") << "=HYPERLINK(\"http://x\",\"y\")"
                                            << "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"";
    QTest::newRow("lone minus") << "-"
                                << "'-";
    QTest::newRow("negative number") << "-1.5"
                                     << "-1.5";
    QTest::newRow("negative exponent") << "-3e-05"
                                       << "-3e-05";
    QTest::newRow("signed number") << "+7"
                                   << "+7";
    QTest::newRow("minus infinity") << "-inf"
                                    << "-inf";
}

void TestStoreExport::csvCells()
{
    QFETCH(QString, text);
    QFETCH(QString, cell);
    QCOMPARE(QString::fromStdString(csvCell(text.toStdString())), cell);
}

void TestStoreExport::trialsAsCsv()
{
    std::ostringstream out;
    exportStudyTrials(*m_store, "exported", ExportFormat::Csv, out);
    const auto& t0 = m_trials[0];
    const auto& t1 = m_trials[1];
    const auto& t2 = m_trials[2];
    auto time = [](const std::optional<double>& t) { return t ? formatTimestamp(*t) : std::string(); };
    auto duration = [](const TrialRecord& t) { return formatDouble(*t.completeTime - *t.startTime); };
    const std::string expected =
        "number,state,value,datetime_start,datetime_complete,duration_s,params_choice,params_rate,user_attrs_note,"
        "user_attrs_tags\r\n"
        "0,COMPLETE,0.75," +
        time(t0.startTime) + "," + time(t0.completeTime) + "," + duration(t0) +
        ",\"a,b\",0.5,\"line1\nline2\",\r\n"
        "1,COMPLETE,inf," +
        time(t1.startTime) + "," + time(t1.completeTime) + "," + duration(t1) +
        ",\"say \"\"hi\"\"\",,,\"[1,2]\"\r\n"
        "2,RUNNING,," +
        time(t2.startTime) + ",,,,,,\r\n";
    QCOMPARE(QString::fromStdString(out.str()), QString::fromStdString(expected));
}

void TestStoreExport::trialsAsJson()
{
    std::ostringstream out;
    exportStudyTrials(*m_store, "exported", ExportFormat::Json, out);
    const Json rows = Json::parse(out.str());
    QCOMPARE(rows.size(), std::size_t(3));
    QCOMPARE(rows[0]["number"], Json(0));
    QCOMPARE(rows[0]["state"], Json("COMPLETE"));
    QCOMPARE(rows[0]["value"], Json(0.75));
    QCOMPARE(rows[0]["params_choice"], Json("a,b"));
    QCOMPARE(rows[0]["params_rate"], Json(0.5));
    QCOMPARE(rows[0]["user_attrs_note"], Json("line1\nline2"));
    QVERIFY(rows[0]["user_attrs_tags"].is_null());
    QCOMPARE(rows[0]["datetime_start"], Json(formatTimestamp(*m_trials[0].startTime)));
    QVERIFY(std::abs(rows[0]["duration_s"].get<double>() - (*m_trials[0].completeTime - *m_trials[0].startTime)) <
            1e-9);
    QCOMPARE(rows[1]["value"], Json("inf")); // JSON has no infinity: the string, as Optuna's storage writes it
    QVERIFY(rows[2]["value"].is_null());     // no value (a running trial): null, distinct from inf
    QCOMPARE(rows[1]["user_attrs_tags"], Json::array({1, 2}));
    QVERIFY(rows[2]["datetime_complete"].is_null());
}

// A known row: a categorical choice and a user attr that a spreadsheet would run, next to a negative value
// that must stay a number.
void TestStoreExport::formulaCellsAreGuarded()
{
    const auto studyId = m_store->createStudy("formulas", {StudyDirection::Minimize});
    Distribution choice;
    choice.kind = Distribution::Kind::Categorical;
    choice.choices = {"=cmd|' /C calc'!A0"};
    const auto trial = m_store->createTrial(studyId);
    m_store->setTrialParam(trial.id, "choice", 0, choice);
    m_store->setTrialUserAttr(trial.id, "note", "@SUM(A1:A9)");
    m_store->finishTrial(trial.id, TrialState::Complete, {-1.5});
    std::ostringstream out;
    exportStudyTrials(*m_store, "formulas", ExportFormat::Csv, out);
    const QStringList lines = QString::fromStdString(out.str()).split("\r\n");
    QCOMPARE(lines.size(), 3); // header, the trial, the empty piece after the last CRLF
    QVERIFY2(lines[1].startsWith("0,COMPLETE,-1.5,"), qPrintable(lines[1]));
    QVERIFY2(lines[1].endsWith(",'=cmd|' /C calc'!A0,'@SUM(A1:A9)"), qPrintable(lines[1]));
}

void TestStoreExport::metricsAsCsvAndJson()
{
    std::ostringstream csv;
    exportRunMetrics(*m_store, m_runId, ExportFormat::Csv, csv);
    const std::string id = std::to_string(m_runId);
    QCOMPARE(QString::fromStdString(csv.str()),
             QString::fromStdString("run,stage,step,key,value,wall_time\r\n" + id + ",pretrain,0,loss,2.5,100.25\r\n" +
                                    id + ",\"post, train\",1,mAP50,0.125,101.5\r\n"));
    std::ostringstream json;
    exportRunMetrics(*m_store, m_runId, ExportFormat::Json, json);
    const Json rows = Json::parse(json.str());
    QCOMPARE(rows.size(), std::size_t(2));
    QCOMPARE(rows[1], Json({{"run", m_runId},
                            {"stage", "post, train"},
                            {"step", 1},
                            {"key", "mAP50"},
                            {"value", 0.125},
                            {"wall_time", 101.5}}));
    // A run without metrics is an empty table, not an error.
    RunRecord empty;
    empty.kind = "eval";
    const auto emptyId = m_store->createRun(empty);
    std::ostringstream none;
    exportRunMetrics(*m_store, emptyId, ExportFormat::Json, none);
    QCOMPARE(Json::parse(none.str()), Json::array());
}

void TestStoreExport::unknownStudyOrRun()
{
    std::ostringstream out;
    QVERIFY_THROWS_EXCEPTION(InputError, exportStudyTrials(*m_store, "exportd", ExportFormat::Csv, out));
    QVERIFY_THROWS_EXCEPTION(InputError, exportRunMetrics(*m_store, 424242, ExportFormat::Csv, out));
}

QTEST_GUILESS_MAIN(TestStoreExport)
#include "tst_store_export.moc"
