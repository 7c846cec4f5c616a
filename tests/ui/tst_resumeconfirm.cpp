// Resuming a search job runs the trial command its results database stores. When that command (or its log folder or
// best-parameters path) is not one this user started or confirmed, `pitwall jobs resume ID` refuses without --yes,
// and the Jobs panel's Resume shows what would run in a dialog and resumes only when its Resume button is clicked.
// Real jobs: a detached `pitwall hpo` over the trial script, stopped with `jobs stop --now`, its stored command then
// replaced as an edited results file would have it; clicks on the real panel's buttons (QTest).
// If this fails, a database from someone else can run any command from the window's Resume button unseen.

#include "../core/pool/schedtestutil.h"
#include "jobrows.h"

#include "core/pool/hposettings.h"
#include "core/search/resumereview.h"
#include "core/store/jobstore.h"
#include "core/store/store.h"
#include "ui/jobs/jobspanel.h"

#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QTreeWidget>
#include <QtTest>

#include "tests/support/components.h"
#include "tests/support/testpaths.h"

using namespace pitwall;
using uitest::jobRow;
using uitest::jobState;
using namespace schedtest;

namespace {

constexpr int kJobTimeoutMs = 120000; // every wait is for a condition, not a time

JobState storedState(const QString& db, qint64 id)
{
    const auto record = JobStore(db.toStdString(), OpenMode::ReadOnly).job(id);
    return record ? record->state : JobState::Queued;
}

QMessageBox* confirmBox(ui::JobsPanel& panel)
{
    QMessageBox* box = panel.findChild<QMessageBox*>(QStringLiteral("resumeConfirm"));
    return box && box->isVisible() ? box : nullptr;
}

} // namespace

class TestResumeConfirm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QFile::exists("/usr/bin/python3"))
            PITWALL_FAIL_MISSING("python3", "the trial script needs /usr/bin/python3");
    }
    void anEditedCommandIsShownAndRunsOnlyWhenConfirmed();
};

void TestResumeConfirm::anEditedCommandIsShownAndRunsOnlyWhenConfirmed()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("r.db");
    const QString space = writeFile(dir, "space.yaml", "mode: wait\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    // One trial that waits for a gate that never opens: the job runs until it is stopped.
    const CliResult started = runCli({"hpo",
                                      "--detach",
                                      "--db",
                                      db,
                                      "--study",
                                      "s",
                                      "--command",
                                      trialCommand("--gate " + dir.filePath("gate")),
                                      "--space",
                                      space,
                                      "--sampler",
                                      "random",
                                      "--pruner",
                                      "none",
                                      "--trials",
                                      "1",
                                      "--heartbeat-interval",
                                      "0.2",
                                      "--heartbeat-grace",
                                      "1"},
                                     dir.path());
    QVERIFY2(started.exitCode == 0, qPrintable(started.err));
    bool ok = false;
    const qint64 id = started.out.trimmed().section('\n', -1).toLongLong(&ok);
    QVERIFY2(ok && id > 0, qPrintable(started.out));
    QVERIFY(waitFor(
        [&] {
            const auto t = trials(db, "s");
            return !t.empty() && t.front().state == TrialState::Running;
        },
        kJobTimeoutMs));
    const CliResult stopped = runCli({"jobs", "stop", QString::number(id), "--now", "--db", db}, dir.path());
    QVERIFY2(stopped.exitCode == 0, qPrintable(stopped.err));
    QVERIFY(waitFor([&] { return storedState(db, id) == JobState::Cancelled; }, kJobTimeoutMs));

    // The results file is edited: its search would now run another command.
    const QString marker = dir.filePath("ran");
    {
        auto store = openStore(db.toStdString());
        const StudyRecord study = store->requireStudy("s");
        HpoSettings settings = *readHpoSettings(study);
        settings.command = "/usr/bin/touch " + marker.toStdString();
        writeHpoSettings(*store, study.id, settings);
    }

    // The terminal's way: refused, with the command shown and the way to go on named; nothing ran.
    const CliResult refused = runCli({"jobs", "resume", QString::number(id), "--db", db}, dir.path());
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("command: /usr/bin/touch " + marker), qPrintable(refused.err));
    QVERIFY2(refused.err.contains("pitwall jobs resume " + QString::number(id)) && refused.err.contains("--yes"),
             qPrintable(refused.err));
    QVERIFY(!QFile::exists(marker));
    QCOMPARE(storedState(db, id), JobState::Cancelled);

    // The window's way.
    ui::JobsPanel panel;
    panel.setCliPath(pitwall::test::cliPath());
    panel.resize(1100, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setDatabase(db);
    QTreeWidget* table = panel.table();
    QTRY_COMPARE_WITH_TIMEOUT(jobState(table, id), QString("cancelled"), 30000);
    QTreeWidgetItem* row = jobRow(table, id);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(row).center());
    auto* resume = panel.findChild<QPushButton*>(QStringLiteral("jobResume"));
    QVERIFY(resume && resume->isEnabled());

    // Resume, then Cancel in the dialog: nothing runs, the job stays cancelled.
    QTest::mouseClick(resume, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(confirmBox(panel), 30000);
    QPointer<QMessageBox> first = confirmBox(panel);
    QVERIFY2(first->informativeText().contains("command: /usr/bin/touch " + marker),
             qPrintable(first->informativeText()));
    QVERIFY2(first->informativeText().contains("logs in: ") &&
                 first->informativeText().contains("best parameters to: "),
             qPrintable(first->informativeText()));
    QCOMPARE(first->defaultButton(), first->button(QMessageBox::Cancel)); // Enter does not run it
    // With $PITWALL_UI_SCREENSHOT_DIR set: the dialog as the user sees it.
    if (const QString shots = qEnvironmentVariable("PITWALL_UI_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(first->grab().save(shots + "/jobs-resume-confirm.png"));
    QTest::mouseClick(first->button(QMessageBox::Cancel), Qt::LeftButton);
    QTRY_VERIFY(first.isNull()); // closed and deleted
    QCOMPARE(panel.lastMessage(), QString("job %1 was not resumed").arg(id));
    QVERIFY(!QFile::exists(marker));
    QCOMPARE(storedState(db, id), JobState::Cancelled);

    // Resume, then Resume in the dialog: the job goes on and runs the command it showed.
    QTest::mouseClick(resume, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(confirmBox(panel), 30000);
    auto* run = confirmBox(panel)->findChild<QPushButton*>(QStringLiteral("resumeConfirmRun"));
    QVERIFY(run);
    QTest::mouseClick(run, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(marker), kJobTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(isFinal(storedState(db, id)), kJobTimeoutMs);

    // Confirmed once (the dialog's Resume recorded it): not asked again.
    const auto review = reviewJobResume(*JobStore(db.toStdString(), OpenMode::ReadOnly).job(id), db.toStdString());
    QVERIFY(review && review->confirmed);
}

QTEST_MAIN(TestResumeConfirm)
#include "tst_resumeconfirm.moc"
