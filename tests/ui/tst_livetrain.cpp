// A real `pitwall train` feeding the window: the CLI trains the smoke config into a results database while the
// main window follows it, and every chart of the Live view must get points under the metric keys it draws. If this
// fails, the trainer and the window disagree on a metric's name (renamed on one side only) and a chart stays empty.
#include "livewindow.h"

#include "ui/charts/chartview.h"
#include "ui/live/livemodel.h"
#include "ui/live/liveview.h"
#include "ui/mainwindow.h"

#include "core/store/store.h"

#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QXYSeries>
#include <QtTest>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;
using pitwall::test::sourcePath;

using namespace pitwall;

class TestLiveTrain : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName("PitwallTest");
        QSettings().clear();
    }
    void liveViewChartsTheKeysTrainWrites();
};

void TestLiveTrain::liveViewChartsTheKeysTrainWrites()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("train.db");
    openStore(db.toStdString()).reset(); // the window opens the file before the run exists
    ui::MainWindow window;
    livetest::showLiveView(window, db);
    if (QTest::currentTestFailed())
        return;

    QProcess train;
    train.setWorkingDirectory(dir.path());
    train.setProcessChannelMode(QProcess::MergedChannels);
    train.start(cliPath(),
                {"train", sourcePath("/configs/transfuser/smoke.yaml"), "training.stages.pretrain.epochs=1",
                 "training.stages.posttrain.epochs=1", "training.optimization.num_threads=1",
                 "training.experiment.log_scalars_every_n_steps=1", "experiment.name=live-train", "--db", db});
    QVERIFY(train.waitForFinished(600000));
    QVERIFY2(train.exitStatus() == QProcess::NormalExit && train.exitCode() == 0, train.readAll().constData());

    ui::LiveModel* model = window.liveModel();
    QTRY_VERIFY_WITH_TIMEOUT(model->run() && model->run()->status == RunStatus::Succeeded, 20000);
    // The charts in the Live view's order with the keys each must draw: what the trainer writes (tst_trainer's
    // recordsTheDocumentedMetrics) and the view charts (liveview.cpp) must be the same names.
    const std::vector<QStringList> expected{{"loss", "loss/semantic", "loss/depth", "loss/waypoints"},
                                            {"compute_fps", "full_fps"},
                                            {"lr"},
                                            {"data_wait_ms"},
                                            {"cpu_percent"},
                                            {"peak_memory_bytes"}};
    for (const QStringList& keys : expected)
        for (const QString& key : keys)
            QVERIFY2(!model->series(key).isEmpty(), qPrintable("the live model got no " + key));
    QTRY_VERIFY(window.viewReady(ui::View::Live));
    const std::vector<ui::ChartView*> charts = window.liveView()->charts();
    QCOMPARE(charts.size(), expected.size());
    for (std::size_t i = 0; i < charts.size(); ++i)
        for (const QString& key : expected[i]) {
            QTRY_VERIFY2(charts[i]->find(key) && charts[i]->find(key)->count() > 0,
                         qPrintable(QStringLiteral("chart %1 draws no %2").arg(i).arg(key)));
        }
}

QTEST_MAIN(TestLiveTrain)
#include "tst_livetrain.moc"
