// The window open on a database that 16 processes write at once (studywriter_helper.cpp: trials of one shared study
// with intermediate values, then a run's metric rows), as a search's workers do. No writer may fail (a "database is
// locked" would end it with exit 1 and the message), the window's reads may not fail (its snapshot carries any read
// error), every trial and metric row must arrive in the window, and trial numbers must be unique and gap-free.
// Then, with the window still open and polling, a checkpoint must be able to empty the WAL file: it can only when no
// reader holds an older snapshot, so a window that kept a read transaction open between polls would let the WAL grow
// with everything written for as long as it stays open. (While 16 processes write, the WAL grows with or without the
// window, about 50 MB for 2 s of such writing here: every writer is also a reader that checkpoints wait for; the
// file is cut back to SqliteStore::kWalSizeLimitBytes when writing goes on at a normal pace.)
#include "ui/mainwindow.h"
#include "ui/study/studyview.h"

#include "core/store/sqlitestore.h"
#include "core/store/store.h"

#include <QFileInfo>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <memory>
#include <set>
#include <vector>

#include "tests/support/testpaths.h"

using namespace pitwall;
using pitwall::test::pathFromEnvironment;

class TestManyWriters : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void sixteenWritersAndTheWindow();

private:
    QTemporaryDir m_dir;
};

void TestManyWriters::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
}

void TestManyWriters::sixteenWritersAndTheWindow()
{
    constexpr int kWriters = 16, kTrials = 100, kSteps = 20, kRows = 5000;
    const QString db = m_dir.filePath("shared.db");
    openStore(db.toStdString())->createStudy("shared", {StudyDirection::Minimize});

    ui::MainWindow window;
    window.resize(1400, 900);
    window.openDatabase(db);
    window.showView(ui::View::Study);
    window.focusStudy("shared");
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    std::vector<std::unique_ptr<QProcess>> writers;
    for (int i = 0; i < kWriters; ++i) {
        writers.push_back(std::make_unique<QProcess>());
        writers.back()->start(pathFromEnvironment("PITWALL_UI_STUDY_WRITER"),
                              {db, QString::number(i), QString::number(kTrials), QString::number(kSteps),
                               QString::number(kRows)});
        QVERIFY(writers.back()->waitForStarted());
    }
    // The GUI thread keeps polling and drawing while they write.
    const auto allDone = [&] {
        for (const auto& writer : writers)
            if (writer->state() != QProcess::NotRunning)
                return false;
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(allDone(), 300000);
    for (int i = 0; i < kWriters; ++i) {
        const QString errors = QString::fromUtf8(writers[i]->readAllStandardError());
        QVERIFY2(writers[i]->exitStatus() == QProcess::NormalExit && writers[i]->exitCode() == 0,
                 qPrintable(QString("writer %1: %2").arg(i).arg(errors)));
        QCOMPARE(QString::fromUtf8(writers[i]->readAllStandardOutput()).trimmed(), QString("done"));
    }

    // Everything arrives in the window, and its reads never failed.
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot().focusTrials->size() == std::size_t(kWriters * kTrials) &&
                                 window.snapshot().runs->size() == std::size_t(kWriters),
                             20000);
    QVERIFY2(window.snapshot().error.isEmpty(), qPrintable(window.snapshot().error));
    std::set<int> numbers;
    for (const TrialRecord& trial : *window.snapshot().focusTrials) {
        QVERIFY(trial.state == TrialState::Complete);
        QCOMPARE(trial.intermediateValues.size(), std::size_t(kSteps));
        numbers.insert(trial.number);
    }
    QCOMPARE(numbers.size(), std::size_t(kWriters * kTrials));
    QCOMPARE(*numbers.rbegin(), kWriters * kTrials - 1); // unique and gap-free
    QTRY_VERIFY_WITH_TIMEOUT(window.studyView()->ready(), 20000);
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    for (const RunRecord& run : *window.snapshot().runs)
        QCOMPARE(store->metricsSince(run.id, 0).size(), std::size_t(kRows));

    // The burst left the WAL far larger than the limit. Writing goes on, one process at a time as a slow search
    // does: once a checkpoint catches up and a writer restarts the WAL, the file is cut back to the limit. Each late
    // writer commits 66 times; a window that pinned an old snapshot would keep every restart from happening.
    const auto wal = [&] { return QFileInfo(db + "-wal").size(); };
    const qint64 afterBurst = wal();
    int late = 0;
    while (wal() > SqliteStore::kWalSizeLimitBytes && late < 30) {
        QProcess writer;
        writer.start(pathFromEnvironment("PITWALL_UI_STUDY_WRITER"),
                     {db, QString::number(kWriters + late), "3", QString::number(kSteps), "10"});
        QVERIFY(writer.waitForFinished(60000));
        QCOMPARE(writer.exitCode(), 0);
        ++late;
        QCoreApplication::processEvents(); // the window keeps polling in between
    }
    qInfo("WAL after the burst: %lld bytes; after %d late writers: %lld (limit %lld)", afterBurst, late, wal(),
          static_cast<long long>(SqliteStore::kWalSizeLimitBytes));
    QVERIFY2(wal() <= SqliteStore::kWalSizeLimitBytes, qPrintable(QString::number(wal())));
    QTRY_COMPARE_WITH_TIMEOUT(window.snapshot().focusTrials->size(), std::size_t(kWriters * kTrials + 3 * late),
                              20000);

    // A checkpoint empties the WAL while the window stays open and polls (waiting up to 10 s for readers; a poll's
    // read lasts milliseconds).
    const qint64 walBefore = QFileInfo(db + "-wal").size();
    sqlite3* connection = nullptr;
    QCOMPARE(sqlite3_open(db.toUtf8().constData(), &connection), SQLITE_OK);
    sqlite3_busy_timeout(connection, 10000);
    sqlite3_stmt* statement = nullptr;
    QCOMPARE(sqlite3_prepare_v2(connection, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &statement, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_step(statement), SQLITE_ROW);
    const int busy = sqlite3_column_int(statement, 0);
    sqlite3_finalize(statement);
    sqlite3_close(connection);
    qInfo("WAL before the checkpoint: %lld bytes; after: %lld", walBefore, QFileInfo(db + "-wal").size());
    QCOMPARE(busy, 0);
    QCOMPARE(QFileInfo(db + "-wal").size(), qint64(0));
    QVERIFY(walBefore > 0);

    // And the window goes on reading: one more writer's trials arrive.
    QProcess last;
    last.start(pathFromEnvironment("PITWALL_UI_STUDY_WRITER"),
               {db, QString::number(kWriters + late), "3", QString::number(kSteps), "10"});
    QVERIFY(last.waitForFinished(60000));
    QCOMPARE(last.exitCode(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(window.snapshot().focusTrials->size(), std::size_t(kWriters * kTrials + 3 * late + 3),
                              20000);
    QVERIFY2(window.snapshot().error.isEmpty(), qPrintable(window.snapshot().error));
}

QTEST_MAIN(TestManyWriters)
#include "tst_manywriters.moc"
