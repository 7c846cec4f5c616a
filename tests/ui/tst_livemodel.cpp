// The live view's data path: rows that ANOTHER PROCESS writes into the store reach the live model through
// the poller thread, read incrementally with metricsSince (each row exactly once, stages placed one after the
// other), and the charts redraw from it. If this fails, the live view misses, duplicates or misplaces points
// of a training that runs outside the window.
#include "livewindow.h"

#include "ui/charts/chartview.h"
#include "ui/live/livemodel.h"
#include "ui/live/liveview.h"
#include "ui/mainwindow.h"
#include "ui/poller/liveseries.h"

#include "core/store/store.h"

#include <QLineSeries>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/support/testpaths.h"

using pitwall::test::pathFromEnvironment;

using namespace pitwall;

class TestLiveModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void placesStagesOneAfterTheOther();
    void picksUpRowsWrittenByAnotherProcess();

private:
    QTemporaryDir m_dir;
};

void TestLiveModel::initTestCase()
{
    QCoreApplication::setOrganizationName("PitwallTest");
    QSettings().clear();
}

void TestLiveModel::placesStagesOneAfterTheOther()
{
    ui::LiveSeriesBuilder builder;
    ui::LiveDelta delta;
    std::vector<MetricRow> rows;
    for (int step = 1; step <= 10; ++step)
        rows.push_back({step, {1, "pretrain", step, "loss", 1.0, 0}});
    for (int step = 1; step <= 5; ++step)
        rows.push_back({10 + step, {1, "posttrain", step, "loss", 2.0, 0}});
    builder.add(rows, delta);
    QCOMPARE(delta.stages.size(), std::size_t(2));
    QCOMPARE(delta.stages[1].name, QString("posttrain"));
    QCOMPARE(delta.stages[1].x, 10.0);
    QCOMPARE(delta.chunks.size(), std::size_t(1));
    QCOMPARE(delta.chunks[0].points.size(), 15);
    QCOMPARE(delta.chunks[0].points.last().x(), 15.0);
    ui::LiveModel model;
    delta.runId = 1;
    model.apply(delta);
    QCOMPARE(model.series("loss").size(), 15);
    QCOMPARE(model.stages().size(), std::size_t(2));
}

void TestLiveModel::picksUpRowsWrittenByAnotherProcess()
{
    const QString db = m_dir.filePath("live.db");
    openStore(db.toStdString())
        ->createStudy("already-there", {StudyDirection::Minimize}); // the window opens an existing file
    ui::MainWindow window;
    livetest::showLiveView(window, db);
    if (QTest::currentTestFailed())
        return;

    constexpr int kSteps = 300, kBatch = 20, kPauseMs = 60;
    QProcess writer;
    writer.start(pathFromEnvironment("PITWALL_UI_METRICS_WRITER"),
                 {db, QString::number(kSteps), QString::number(kBatch), QString::number(kPauseMs), "--gate"});
    QVERIFY(writer.waitForStarted());
    QVERIFY(writer.waitForReadyRead(20000));
    const QString first = QString::fromUtf8(writer.readLine()).trimmed();
    QVERIFY2(first.startsWith("run "), qPrintable(first));
    const qint64 runId = first.mid(4).toLongLong();

    // The live view follows the latest run, which the writer just created.
    QTRY_COMPARE_WITH_TIMEOUT(window.liveModel()->runId(), runId, 10000);
    // Rows keep arriving while the writer works: the model grows in steps, not all at the end.
    // The writer holds after its first batch (a handshake, not a time window) until the window has seen it.
    while (!writer.canReadLine())
        QVERIFY(writer.waitForReadyRead(20000));
    QCOMPARE(QString::fromUtf8(writer.readLine()).trimmed(), QString("gate"));
    QTRY_VERIFY_WITH_TIMEOUT(window.liveModel()->series("loss").size() > 0, 10000);
    const auto early = window.liveModel()->series("loss").size();
    QVERIFY2(early < 2 * kSteps, "the first rows should be visible before the writer is done");
    writer.write("go\n");
    QVERIFY(writer.waitForFinished(60000));
    QCOMPARE(writer.exitCode(), 0);
    const QString done = QString::fromUtf8(writer.readAll()).trimmed();
    const qint64 written = done.section(' ', 1).toLongLong();

    QTRY_COMPARE_WITH_TIMEOUT(window.liveModel()->rowCount(), written, 10000);
    ui::LiveModel* model = window.liveModel();
    QCOMPARE(model->series("loss").size(), 2 * kSteps); // every row once
    QCOMPARE(model->series("loss/depth").size(), 2 * kSteps);
    QCOMPARE(model->stages().size(), std::size_t(2));
    QCOMPARE(model->stages()[1].x, double(kSteps)); // posttrain starts where pretrain ended
    QCOMPARE(model->series("loss").last().x(), double(2 * kSteps));
    QTRY_VERIFY(model->run() && model->run()->status == RunStatus::Succeeded);
    QCOMPARE(model->progress().stage, QString("posttrain"));
    QCOMPARE(model->progress().stages, 2);
    QCOMPARE(model->events().size(), std::size_t(2));

    // The loss chart shows total and per-head series, down-sampled to about two points per pixel at most.
    QTRY_VERIFY(window.viewReady(ui::View::Live));
    ui::ChartView* loss = window.liveView()->charts().front();
    auto* total = qobject_cast<QLineSeries*>(loss->find("loss"));
    QVERIFY(total && loss->find("loss/depth"));
    QVERIFY(total->count() > 0 && total->count() <= std::max(64, 2 * loss->plotWidth()));
    QCOMPARE(total->at(total->count() - 1).x(), double(2 * kSteps)); // the last point is kept
}

QTEST_MAIN(TestLiveModel)
#include "tst_livemodel.moc"
