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

#include <QComboBox>
#include <QLineSeries>
#include <QLogValueAxis>
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
    void mapsStepsToTheTimeTheyWereLogged();
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

void TestLiveModel::mapsStepsToTheTimeTheyWereLogged()
{
    // Steps 1..10 at 100 + 2 * step seconds (two keys per step), then a posttrain stage whose steps 1..5 come at
    // 200 + step: global steps 11..15.
    ui::LiveSeriesBuilder builder;
    ui::LiveDelta delta;
    std::vector<MetricRow> rows;
    for (int step = 1; step <= 10; ++step) {
        rows.push_back({2 * step, {1, "pretrain", step, "loss", 1.0, 100.0 + 2 * step}});
        rows.push_back({2 * step + 1, {1, "pretrain", step, "lr", 0.1, 100.5 + 2 * step}});
    }
    for (int step = 1; step <= 5; ++step)
        rows.push_back({30 + step, {1, "posttrain", step, "loss", 2.0, 200.0 + step}});
    builder.add(rows, delta);
    // One clock entry per new step (the first row of each), not one per row.
    QCOMPARE(delta.clock.size(), 15);
    QCOMPARE(delta.clock[0], QPointF(1, 102));
    QCOMPARE(delta.clock[10], QPointF(11, 201));
    ui::LiveModel model;
    delta.runId = 1;
    model.apply(delta);
    QCOMPARE(model.firstTime(), 102.0);
    QCOMPARE(model.timeAt(4), 108.0);
    QCOMPARE(model.timeAt(4.5), 109.0); // between steps: interpolated
    QCOMPARE(model.timeAt(13), 203.0);
    QCOMPARE(model.timeAt(0), 102.0);  // before the first row: its time
    QCOMPARE(model.timeAt(99), 205.0); // after the last: the last time
    const QList<QPointF> relative = model.inTime(model.series("loss"), model.firstTime());
    QCOMPARE(relative.size(), 15);
    QCOMPARE(relative[0], QPointF(0, 1.0));
    QCOMPARE(relative[9], QPointF(18, 1.0));
    QCOMPARE(relative[14], QPointF(103, 2.0));
    // Points that go back in x are mapped too.
    QCOMPARE(model.inTime({QPointF(12, 0), QPointF(2, 0)}, 0), QList<QPointF>({QPointF(202, 0), QPointF(104, 0)}));
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

    // The x axis by relative time, chosen in the run bar's x picker: each step at the seconds since the first
    // row, labelled as times; by step on a log scale: a log axis.
    auto* xPicker = window.findChild<QComboBox*>("liveXAxis");
    QVERIFY(xPicker && xPicker->isVisible());
    xPicker->setFocus();
    QTest::keyClick(xPicker, Qt::Key_Down);
    QTest::keyClick(xPicker, Qt::Key_Down);
    QCOMPARE(xPicker->currentText(), QString("relative time"));
    QCOMPARE(loss->xAxis(), ui::ChartView::XAxis::Elapsed);
    const QPointF last = total->at(total->count() - 1);
    QVERIFY2(std::abs(last.x() - (model->timeAt(2 * kSteps) - model->firstTime())) < 1e-9, qPrintable(QString::number(last.x())));
    QVERIFY(last.x() > 0 && last.x() < 600);
    QVERIFY(loss->crosshairLines(last.x()).first().startsWith("time since the first row "));
    QTest::keyClick(xPicker, Qt::Key_Up);
    QCOMPARE(loss->xAxis(), ui::ChartView::XAxis::Log);
    QVERIFY(qobject_cast<QLogValueAxis*>(loss->chart()->axes(Qt::Horizontal).value(0)));
    QCOMPARE(total->at(total->count() - 1).x(), double(2 * kSteps));
}

QTEST_MAIN(TestLiveModel)
#include "tst_livemodel.moc"
