// The window on a shared PostgreSQL database (issue 26), the user's way: File ▸ Open location…, the location typed
// into the dialog, the studies listed with their counts, a trial written by another process picked up live, the
// server's jobs in the Jobs panel, and no password in the title, the status bar or the recent list (the window moves
// it to PGPASSWORD). The server is real (tests/support/postgres.h).
#include "ui/jobs/jobspanel.h"
#include "ui/mainwindow.h"
#include "ui/studies/studiesview.h"

#include "core/store/jobstore.h"
#include "core/store/store.h"
#include "tests/support/components.h"
#include "tests/support/postgres.h"

#include <QAction>
#include <QInputDialog>
#include <QLabel>
#include <QSettings>
#include <QTimer>
#include <QtTest>

using namespace pitwall;
using Col = ui::StudiesView::Column;

class TestWindowPostgres : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void opensALocationTypedIntoTheDialog();

private:
    test::PostgresServer m_server;
};

void TestWindowPostgres::initTestCase()
{
    QCoreApplication::setOrganizationName("PitwallTest");
    QSettings().clear();
    if (const QString why = m_server.start(); !why.isEmpty())
        PITWALL_FAIL_MISSING("postgresql", why);
}

void TestWindowPostgres::opensALocationTypedIntoTheDialog()
{
    const std::string location = m_server.database("window");
    auto writer = openStore(location);
    const auto study = writer->createStudy("shared-search", {StudyDirection::Minimize});
    for (int i = 0; i < 3; ++i)
        writer->finishTrial(writer->createTrial(study).id, TrialState::Complete, {1.0 + i});

    ui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The dialog is modal: it is filled in and accepted as soon as it shows.
    bool typed = false;
    QTimer::singleShot(0, this, [&] {
        auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
        QVERIFY(dialog);
        QCOMPARE(dialog->objectName(), QString("openLocationDialog"));
        auto* edit = dialog->findChild<QLineEdit*>();
        QVERIFY(edit);
        QTest::keyClicks(edit, QString::fromStdString(location));
        if (const QString shots = qEnvironmentVariable("PITWALL_TEST_SCREENSHOTS"); !shots.isEmpty())
            dialog->grab().save(shots + "/postgres-open-location.png");
        QTest::keyClick(edit, Qt::Key_Return);
        typed = true;
    });
    QAction* open = window.findChild<QAction*>("openLocation");
    QVERIFY(open);
    open->trigger();
    QVERIFY(typed);

    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 1);
    const QTreeWidgetItem* item = window.studiesView()->topLevelItem(0);
    QCOMPARE(item->text(Col::kName), QString("shared-search"));
    QCOMPARE(item->text(Col::kComplete), QString("3"));
    QCOMPARE(item->text(Col::kBest), QString("1"));

    const QString password = test::PostgresServer::kPassword;
    const QString port = QString::number(m_server.port());
    QCOMPARE(window.windowTitle(), QString("Pitwall — window on 127.0.0.1"));
    QLabel* status = window.findChild<QLabel*>("statusText");
    QTRY_VERIFY2(status->text().contains("postgresql://postgres@127.0.0.1:" + port + "/window"),
                 qPrintable(status->text()));
    QCOMPARE(qEnvironmentVariable("PGPASSWORD"), password); // where libpq and the commands the window starts find it
    QVERIFY(!status->text().contains(password));
    QCOMPARE(ui::MainWindow::recentFiles().value(0), "postgresql://postgres@127.0.0.1:" + port + "/window");

    // Another process's trial: the server's change counter moves, and the window reads it.
    writer->finishTrial(writer->createTrial(study).id, TrialState::Complete, {0.5});
    QTRY_COMPARE_WITH_TIMEOUT(window.studiesView()->topLevelItem(0)->text(Col::kComplete), QString("4"), 15000);
    QCOMPARE(window.studiesView()->topLevelItem(0)->text(Col::kBest), QString("0.5"));

    // A search another machine runs on this database is in the Jobs panel, with its progress.
    const auto job = JobStore(location).create("hpo", Json{{"argv", {"hpo", "--study", "shared-search"}}},
                                               JobState::Running, QCoreApplication::applicationPid(), "");
    JobStore(location).heartbeat(job, 0.5, "trials 2/4", std::nullopt);
    QTreeWidget* jobs = window.findChild<ui::JobsPanel*>()->table();
    QTRY_COMPARE_WITH_TIMEOUT(jobs->topLevelItemCount(), 1, 15000);
    const QString row = [&] {
        QString text;
        for (int column = 0; column < jobs->columnCount(); ++column)
            text += jobs->topLevelItem(0)->text(column) + " | ";
        return text;
    }();
    QVERIFY2(row.contains("hpo") && row.contains("running") && row.contains("trials 2/4"), qPrintable(row));
    const QString everything = [&] {
        QString text;
        for (QLabel* label : window.findChildren<QLabel*>())
            text += label->text() + "\n";
        return text;
    }();
    QVERIFY(!everything.contains(password));

    const QString shots = qEnvironmentVariable("PITWALL_TEST_SCREENSHOTS");
    if (!shots.isEmpty()) {
        window.grab().save(shots + "/postgres-window-default.png");
        window.resize(1024, 700);
        QTest::qWait(200);
        window.grab().save(shots + "/postgres-window-1024x700.png");
    }
}

QTEST_MAIN(TestWindowPostgres)
#include "tst_window_postgres.moc"
