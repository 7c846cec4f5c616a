// The workbench window over a real results database: the study list, the trials of a study, live pick-up
// of rows written by another connection, and the screenshot mode of pitwall-gui.
#include "ui/mainwindow.h"
#include "ui/studiesview.h"
#include "ui/trialsview.h"

#include "core/store/store.h"

#include <QImage>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace pitwall;

namespace {
void writeDemoStudies(const QString& db)
{
    auto store = openStore(db.toStdString());
    const auto a = store->createStudy("speed-variants", {StudyDirection::Minimize});
    Distribution batch;
    batch.kind = Distribution::Kind::Int;
    batch.low = 32;
    batch.high = 128;
    batch.step = 32;
    for (int i = 0; i < 4; ++i) {
        const TrialRecord t = store->createTrial(a);
        store->setTrialParam(t.id, "batch_size", 32.0 * (i + 1), batch);
        store->finishTrial(t.id, i == 3 ? TrialState::Pruned : TrialState::Complete, {1.0 / (i + 1)});
    }
    store->createStudy("empty-study", {StudyDirection::Maximize});
}
} // namespace

class TestWorkbench : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void showsStudiesWithCountsAndBest();
    void showsTrialsOfTheSelectedStudy();
    void picksUpRowsWrittenElsewhere();
    void reportsAForeignFileInPlace();
    void screenshotModeWritesAPicture();

private:
    QTemporaryDir m_dir;
    QString m_db;
};

void TestWorkbench::initTestCase()
{
    QCoreApplication::setOrganizationName("PitwallTest");
    QSettings().clear();
    m_db = m_dir.filePath("demo.db");
    writeDemoStudies(m_db);
}

void TestWorkbench::showsStudiesWithCountsAndBest()
{
    ui::MainWindow window;
    window.openDatabase(m_db);
    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 2);
    const QTreeWidgetItem* item = window.studiesView()->topLevelItem(0);
    QCOMPARE(item->text(0), QString("speed-variants"));
    QCOMPARE(item->text(1), QString("0.333333")); // best of the complete trials (minimize); pruned ignored
    QCOMPARE(item->text(2), QString("3"));
    QCOMPARE(item->text(4), QString("1"));
    QCOMPARE(window.studiesView()->topLevelItem(1)->text(1), QString("–"));
    QCOMPARE(ui::MainWindow::recentFiles().value(0), QFileInfo(m_db).absoluteFilePath());
}

void TestWorkbench::showsTrialsOfTheSelectedStudy()
{
    ui::MainWindow window;
    window.openDatabase(m_db);
    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 2);
    window.studiesView()->topLevelItem(0)->setSelected(true);
    QTRY_COMPARE(window.trialsView()->rowCount(), 4);
    QStringList headers;
    for (int c = 0; c < window.trialsView()->columnCount(); ++c)
        headers << window.trialsView()->horizontalHeaderItem(c)->text();
    QVERIFY2(headers.contains("batch_size"), qPrintable(headers.join(",")));
    QCOMPARE(window.trialsView()->item(3, 1)->text(), QString("PRUNED"));
}

void TestWorkbench::picksUpRowsWrittenElsewhere()
{
    ui::MainWindow window;
    window.openDatabase(m_db);
    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 2);
    {
        auto other = openStore(m_db.toStdString());
        other->createStudy("arrived-later", {StudyDirection::Minimize});
    }
    QTRY_COMPARE_WITH_TIMEOUT(window.studiesView()->topLevelItemCount(), 3, 10000);
}

void TestWorkbench::reportsAForeignFileInPlace()
{
    const QString foreign = m_dir.filePath("foreign.db");
    QFile file(foreign);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not a database");
    file.close();
    ui::MainWindow window;
    QSignalSpy shown(&window, &ui::MainWindow::snapshotShown);
    window.openDatabase(foreign);
    QVERIFY(shown.wait(10000));
    QVERIFY2(!window.snapshot().error.isEmpty(), "a foreign file must be reported, not shown as empty");
    QCOMPARE(window.studiesView()->topLevelItemCount(), 0);
}

void TestWorkbench::screenshotModeWritesAPicture()
{
    const QString png = m_dir.filePath("studies.png");
    QProcess gui;
    gui.start(PITWALL_GUI, {"--db", m_db, "--study", "speed-variants", "--screenshot", png});
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 0);
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1200, 760));
    // Not blank: many distinct colours (text, headers, selection), not one fill.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
}

QTEST_MAIN(TestWorkbench)
#include "tst_workbench.moc"
