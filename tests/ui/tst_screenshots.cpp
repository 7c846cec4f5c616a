// pitwall-gui's screenshot mode for each of the six views of a demo database: the process waits for the
// view's data, writes a PNG of the window and exits 0. A picture that is blank or mostly one colour means the
// view showed nothing (or the grab happened before the data arrived).
// Set PITWALL_UI_SCREENSHOT_DIR to keep the pictures.
#include "demodb.h"

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

#include "tests/support/testpaths.h"

using pitwall::test::guiPath;

class TestScreenshots : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void rendersEachView_data();
    void rendersEachView();

private:
    QTemporaryDir m_dir;
    QString m_db;
    QString m_out;
};

void TestScreenshots::initTestCase()
{
    m_db = m_dir.filePath("demo.db");
    demo::writeDemoDatabase(m_db);
    m_out = qEnvironmentVariable("PITWALL_UI_SCREENSHOT_DIR", m_dir.path());
    QDir().mkpath(m_out);
}

void TestScreenshots::rendersEachView_data()
{
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("study");
    QTest::addColumn<int>("minColours");
    QTest::newRow("studies") << "studies"
                             << "autospeed-hpo" << 40;
    QTest::newRow("configure") << "configure"
                               << "" << 40;
    QTest::newRow("live") << "live"
                          << "transfuser-seeds" << 60;
    QTest::newRow("study") << "study"
                           << "autospeed-hpo" << 60;
    QTest::newRow("compare") << "compare"
                             << "transfuser-seeds" << 40;
    QTest::newRow("benchmarks") << "benchmarks"
                                << "" << 30;
}

void TestScreenshots::rendersEachView()
{
    QFETCH(QString, view);
    QFETCH(QString, study);
    QFETCH(int, minColours);
    const QString png = QDir(m_out).filePath(view + ".png");
    QFile::remove(png);
    QStringList args = {"--db", m_db, "--view", view, "--screenshot", png};
    if (!study.isEmpty())
        args << "--study" << study;
    QProcess gui;
    gui.start(guiPath(), args);
    QVERIFY(gui.waitForFinished(90000));
    QVERIFY2(gui.exitCode() == 0, gui.readAllStandardError().constData());
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1200, 760));
    // Not blank: many distinct colours (text, lines, headers), and no colour covers nearly everything.
    std::map<QRgb, int> colours;
    int samples = 0;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3, ++samples)
            ++colours[image.pixel(x, y)];
    int most = 0;
    for (const auto& [c, n] : colours)
        most = std::max(most, n);
    QVERIFY2(static_cast<int>(colours.size()) > minColours, qPrintable(QString::number(colours.size())));
    QVERIFY2(most < samples * 0.9, "one colour fills the picture");
}

QTEST_GUILESS_MAIN(TestScreenshots)
#include "tst_screenshots.moc"
