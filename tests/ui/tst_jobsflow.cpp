// The workbench hosts the engine: a search configured, started, watched, stopped and resumed from the window,
// driven with QTest mouse clicks and key presses on the real widgets, against real `pitwall` jobs (the built
// CLI and engine) and a real results database.

#include "../cli/clitestutil.h"
#include "../core/pool/schedtestutil.h"
#include "core/store/jobstore.h"
#include "core/store/store.h"
#include "jobrows.h"
#include "ui/benchmarks/benchmarksview.h"
#include "ui/charts/markerlayer.h"
#include "ui/configure/configform.h"
#include "ui/configure/configureview.h"
#include "ui/configure/devicepanel.h"
#include "ui/configure/internal/runpicker.h"
#include "ui/configure/internal/searchspaceeditor.h"
#include "ui/configure/runoptions.h"
#include "ui/jobs/jobspanel.h"
#include "ui/mainwindow.h"
#include "ui/studies/studiesview.h"
#include "ui/study/internal/studywidgets.h"
#include "ui/study/studyview.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCheckBox>
#include <QColor>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

#include <sqlite3.h>

#include <map>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;
using pitwall::test::sourcePath;

using namespace pitwall;
using uitest::jobRow;
using uitest::jobState;

namespace {

constexpr int kJobTimeoutMs = 240000; // a real search on 2 cores; every wait is for a condition, not a time

template <typename T>
T* child(QWidget* root, const char* name)
{
    T* found = root->findChild<T*>(QLatin1String(name));
    if (!found)
        qFatal("no widget named %s", name);
    return found;
}

void click(QWidget* widget)
{
    QVERIFY2(widget->isEnabled(), qPrintable(widget->objectName() + " is disabled"));
    QTest::mouseClick(widget, Qt::LeftButton, {}, widget->rect().center());
}

void clickTab(QTabWidget* tabs, QWidget* page)
{
    const int index = tabs->indexOf(page);
    QVERIFY(index >= 0);
    QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {}, tabs->tabBar()->tabRect(index).center());
    QCOMPARE(tabs->currentIndex(), index);
}

QPushButton* buttonWithText(QWidget* root, const QString& text)
{
    for (QPushButton* b : root->findChildren<QPushButton*>())
        if (b->text() == text)
            return b;
    qFatal("no button %s", qPrintable(text));
}

// Keys Down (or Up) until the combo box shows `text`.
void choose(QComboBox* box, const QString& text)
{
    box->setFocus();
    const int target = box->findText(text);
    QVERIFY2(target >= 0, qPrintable(text));
    while (box->currentIndex() != target)
        QTest::keyClick(box, box->currentIndex() < target ? Qt::Key_Down : Qt::Key_Up);
}

// Replaces a spin box's or line edit's text by typing.
void typeInto(QWidget* field, const QString& text)
{
    field->setFocus();
    QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_Tab);
}

// Edits a table cell the way a user does: F2 on the current cell, type, Return.
void typeIntoCell(QTableWidget* table, int row, int column, const QString& text)
{
    table->scrollToItem(table->item(row, column));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(table->item(row, column)).center());
    QCOMPARE(table->currentRow(), row);
    QCOMPARE(table->currentColumn(), column);
    const QList<QLineEdit*> before = table->viewport()->findChildren<QLineEdit*>();
    QTest::keyClick(table, Qt::Key_F2);
    QLineEdit* editor = nullptr;
    for (QLineEdit* e : table->viewport()->findChildren<QLineEdit*>())
        if (!before.contains(e))
            editor = e;
    QVERIFY2(editor, "F2 opens a line editor in the cell");
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, text);
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_COMPARE(table->item(row, column)->text(), text); // the delegate commits on its next event
}

// With $PITWALL_UI_SCREENSHOT_DIR set, the window as the user sees it at this step (the README's pictures).
void shoot(QWidget& window, const char* name)
{
    const QString dir = qEnvironmentVariable("PITWALL_UI_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(window.grab().save(dir + QLatin1Char('/') + QLatin1String(name)));
}

void clickRow(QTreeWidget* table, qint64 id)
{
    QTreeWidgetItem* row = jobRow(table, id);
    QVERIFY(row);
    table->scrollToItem(row);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(row).center());
    QCOMPARE(table->currentItem(), row);
}

// Clicks Start, waits for the job it started to end `finished` in the Jobs panel as `kind`, exit code 0.
void startAndFinish(ui::MainWindow& window, const char* kind, qint64& id)
{
    ui::ConfigureView* configure = window.configureView();
    QSignalSpy started(configure, &ui::ConfigureView::launched);
    click(child<QPushButton>(configure, "launchButton"));
    QVERIFY2(started.wait(60000), qPrintable(configure->launchOutput()->toPlainText()));
    id = started.first().at(0).toLongLong();
    QTreeWidget* jobs = window.jobsPanel()->table();
    QTRY_COMPARE_WITH_TIMEOUT(jobState(jobs, id), QString("finished"), kJobTimeoutMs);
    QCOMPARE(jobRow(jobs, id)->text(1), QString(kind));
    const auto record = JobStore(window.database().toStdString(), OpenMode::ReadOnly).job(id);
    QVERIFY(record);
    QCOMPARE(record->exitCode.value_or(-1), 0);
}

// Trial states of a study, counted straight from the file (Optuna's tables).
std::map<QString, int> trialStates(const QString& db, const QString& study)
{
    std::map<QString, int> counts;
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(handle);
        return counts;
    }
    sqlite3_busy_timeout(handle, 5000);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(handle,
                       "SELECT t.state, COUNT(*) FROM trials t JOIN studies s ON s.study_id = t.study_id "
                       "WHERE s.study_name = ? GROUP BY t.state",
                       -1, &stmt, nullptr);
    const QByteArray name = study.toUtf8();
    sqlite3_bind_text(stmt, 1, name.constData(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
    while (sqlite3_step(stmt) == SQLITE_ROW)
        counts[QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)))] = sqlite3_column_int(stmt, 1);
    sqlite3_finalize(stmt);
    sqlite3_close(handle);
    return counts;
}

} // namespace

class TestJobsFlow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void searchStartsStopsAndResumesFromTheWindow();
    void aJobStartedFromATerminalAppearsInThePanel();
    void aBadFieldBlocksStartWithTheMessageAtTheField();
    void whatTheCliRefusesShowsAtItsField();
    void aBenchmarkTheCliRefusesShowsAtItsField();
    void compareTheseMakesAVariantTable();
    void drivingPicksARunFromTheDatabase();
    void aDrivingRunTheCliRefusesShowsAtItsField();
    void aLoaderBenchmarkRunsFromTheWindow();
    void aPartitionBenchmarkRunsFromTheWindow();

private:
    // A window on a new database in its own folder, shown, with the smoke config loaded and 1 epoch per stage.
    void openWindow(ui::MainWindow& window, const QString& name);

    QTemporaryDir m_dir;
};

void TestJobsFlow::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestJobsFlow::openWindow(ui::MainWindow& window, const QString& name)
{
    const QString db = m_dir.filePath(name);
    openStore(db.toStdString());
    window.resize(1500, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openDatabase(db);
    window.configureView()->setCliPath(cliPath());
    window.jobsPanel()->setCliPath(cliPath());
    window.showView(ui::View::Configure);
    QCOMPARE(window.configureView()->loadConfig(sourcePath("/configs/transfuser/smoke.yaml")), QString());
}

void TestJobsFlow::searchStartsStopsAndResumesFromTheWindow()
{
    ui::MainWindow window;
    openWindow(window, "search.db");
    ui::ConfigureView* configure = window.configureView();
    QTabWidget* panels = configure->panels();

    // Speed options: upsample_mode → nearest.
    QWidget* speed = child<QWidget>(configure, "speedPanel");
    clickTab(panels, speed->parentWidget()->parentWidget()); // the scroll area around the panel
    choose(child<QComboBox>(speed, "policy.transfuser.upsample_mode"), "nearest");
    QCOMPARE(QString::fromStdString(configure->form()->config().getString("policy.transfuser.upsample_mode")),
             QString("nearest"));

    // Devices: DPX → 2 logical devices on this machine's 2 cores.
    clickTab(panels, configure->devices());
    QRadioButton* dpx = nullptr;
    for (QRadioButton* b : configure->devices()->findChildren<QRadioButton*>())
        if (b->text().startsWith("DPX"))
            dpx = b;
    QVERIFY(dpx);
    click(dpx);
    QCOMPARE(QString::fromStdString(configure->form()->config().getString("device.partition_mode")), QString("DPX"));
    QCOMPARE(configure->devices()->logicalDevices()->topLevelItemCount(), 2);

    // Search space: two parameters, typed into the table.
    ui::SearchSpaceEditor* space = configure->searchSpace();
    clickTab(panels, space);
    QPushButton* add = buttonWithText(space, "&Add");
    click(add);
    click(add);
    QTableWidget* table = space->table();
    QCOMPARE(table->rowCount(), 2);
    typeIntoCell(table, 0, 0, "training.optimization.lr");
    typeIntoCell(table, 0, 2, "0.0003");
    typeIntoCell(table, 0, 3, "0.003");
    typeIntoCell(table, 1, 0, "policy.transfuser.loss_weights.waypoints");
    typeIntoCell(table, 1, 2, "0.5");
    typeIntoCell(table, 1, 3, "2.0");
    QVERIFY2(!space->hasProblems() && space->problems().contains("2 searched"), qPrintable(space->problems()));

    // What to run: a 4-trial search, 1 epoch per stage, no pruning.
    ui::RunOptions* run = configure->runOptions();
    clickTab(panels, run);
    choose(run->kindBox(), "Hyperparameter search");
    QCOMPARE(run->kind(), ui::RunKind::Search);
    QVERIFY2(child<QLabel>(run, "searchPartition")->text().contains("DPX: 2 logical devices"),
             qPrintable(child<QLabel>(run, "searchPartition")->text()));
    typeInto(child<QWidget>(run, "searchTrials"), "4");
    typeInto(child<QWidget>(run, "searchEpochs"), "1");
    choose(child<QComboBox>(run, "searchPruner"), "none");
    shoot(window, "workbench-configure-search.png");

    QSignalSpy started(configure, &ui::ConfigureView::launched);
    click(child<QPushButton>(configure, "launchButton"));
    QVERIFY2(started.wait(60000), qPrintable(configure->launchOutput()->toPlainText()));
    const qint64 id = started.first().at(0).toLongLong();
    const QString study = started.first().at(2).toString();
    QCOMPARE(study, QString("transfuser-smoke-hpo"));
    QCOMPARE(window.currentView(), ui::View::Study);

    // The Jobs panel shows it running on 2 logical devices.
    QTreeWidget* jobs = window.jobsPanel()->table();
    QTRY_VERIFY_WITH_TIMEOUT(jobRow(jobs, id) && jobRow(jobs, id)->data(7, Qt::UserRole).toInt() == 2, kJobTimeoutMs);
    QCOMPARE(jobState(jobs, id), QString("running"));
    QCOMPARE(jobRow(jobs, id)->text(1), QString("hpo"));

    // Trials appear in the Study view: a history marker per complete trial, a timeline lane per logical device.
    const QString db = window.database();
    QTRY_VERIFY_WITH_TIMEOUT(trialStates(db, study)["COMPLETE"] >= 1, kJobTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(window.studyView()->ready() && window.studyView()->historyMarkers()->count(0) >= 1,
                             30000);
    QCOMPARE(window.studyView()->timeline()->lanes(), QStringList({"cpu:0.0", "cpu:0.1"}));
    shoot(window, "workbench-study-running.png");

    // Stop (graceful): cancelled, every finished trial kept, nothing left running.
    clickRow(jobs, id);
    click(child<QPushButton>(window.jobsPanel(), "jobStop"));
    QTRY_COMPARE_WITH_TIMEOUT(jobState(jobs, id), QString("cancelled"), kJobTimeoutMs);
    std::map<QString, int> states = trialStates(db, study);
    const int keptComplete = states["COMPLETE"];
    QVERIFY2(keptComplete >= 1 && keptComplete < 4, qPrintable(QString::number(keptComplete)));
    QCOMPARE(states["RUNNING"], 0);
    // One source for the counts: the job's message in the Jobs dock, the side bar's Failed and Interrupted columns,
    // `pitwall jobs show` and the job's log say the same (the trials the stop interrupted are not failures).
    QTreeWidgetItem* side = nullptr;
    QTRY_VERIFY((side = window.studiesView()->findItems(study, Qt::MatchExactly).value(0)) &&
                side->text(ui::StudiesView::kFailed).toInt() + side->text(ui::StudiesView::kInterrupted).toInt() ==
                    states["FAIL"]);
    const QString counts = QStringLiteral(" · failed %1 · interrupted %2")
                               .arg(side->text(ui::StudiesView::kFailed), side->text(ui::StudiesView::kInterrupted));
    QCOMPARE(side->text(ui::StudiesView::kFailed), QString("0")); // nothing failed by its own fault
    QTRY_VERIFY2(jobRow(jobs, id)->text(4).contains(counts + " · epochs"),
                 qPrintable(jobRow(jobs, id)->text(4) + " vs" + counts));
    const CliResult shown = runCli({"jobs", "show", QString::number(id), "--db", db});
    QVERIFY2(shown.exitCode == 0 && shown.out.contains(counts + " · epochs"), qPrintable(shown.out + shown.err));
    const auto record = JobStore(db.toStdString(), OpenMode::ReadOnly).job(id);
    QVERIFY(record && !record->logFile.empty());
    QFile logFile(QString::fromStdString(record->logFile));
    QVERIFY(logFile.open(QIODevice::ReadOnly));
    const QString logText = QString::fromUtf8(logFile.readAll());
    QVERIFY2(logText.contains(counts + " in "), qPrintable(logText.right(1500)));

    // Resume: the same job continues until the study has its 4 trials.
    clickRow(jobs, id);
    click(child<QPushButton>(window.jobsPanel(), "jobResume"));
    QTRY_COMPARE_WITH_TIMEOUT(jobState(jobs, id), QString("finished"), kJobTimeoutMs);
    states = trialStates(db, study);
    QCOMPARE(states["COMPLETE"], 4);
    QCOMPARE(states["RUNNING"], 0);
    // The finished study is what the Study view shows.
    QTRY_VERIFY_WITH_TIMEOUT(window.studyView()->ready() && window.studyView()->historyMarkers()->count(0) == 4, 30000);

    // Open log: the job's output, followed live.
    clickRow(jobs, id);
    click(child<QPushButton>(window.jobsPanel(), "jobLog"));
    auto* log = window.jobsPanel()->findChild<ui::JobLogDialog*>("jobLogDialog");
    QVERIFY(log);
    QVERIFY2(log->text()->toPlainText().contains("trials"), qPrintable(log->text()->toPlainText().right(2000)));
    log->close();

    // Show results: the study in the Study view.
    window.showView(ui::View::Live);
    click(child<QPushButton>(window.jobsPanel(), "jobShowResults"));
    QCOMPARE(window.currentView(), ui::View::Study);
    QTRY_COMPARE(window.snapshot().focusStudy, study);

    // Edit spec: the job's config and options back in Configure, as they were started.
    clickTab(panels, speed->parentWidget()->parentWidget());
    choose(run->kindBox(), "Training run");
    QCOMPARE(configure->form()->setText("device.partition_mode", "SPX"), QString());
    click(child<QPushButton>(window.jobsPanel(), "jobEditSpec"));
    QCOMPARE(window.currentView(), ui::View::Configure);
    QCOMPARE(run->kind(), ui::RunKind::Search);
    QCOMPARE(qobject_cast<QAbstractSpinBox*>(child<QWidget>(run, "searchTrials"))->text(), QString("4"));
    QCOMPARE(child<QComboBox>(run, "searchPruner")->currentText(), QString("none"));
    QCOMPARE(QString::fromStdString(configure->form()->config().getString("device.partition_mode")), QString("DPX"));
    QCOMPARE(QString::fromStdString(configure->form()->config().getString("policy.transfuser.upsample_mode")),
             QString("nearest"));
}

void TestJobsFlow::aJobStartedFromATerminalAppearsInThePanel()
{
    ui::MainWindow window;
    openWindow(window, "terminal.db");
    QProcess cli;
    cli.setWorkingDirectory(m_dir.path());
    cli.start(cliPath(), {"eval", "driving", "--policy", "expert", "--routes", "1", "--route-seconds", "5", "--db",
                          window.database(), "--detach"});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    const qint64 id = QString::fromUtf8(cli.readAllStandardOutput()).trimmed().toLongLong();
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(jobRow(window.jobsPanel()->table(), id), 2000);
    QCOMPARE(jobRow(window.jobsPanel()->table(), id)->text(1), QString("eval-driving"));
    QTRY_COMPARE_WITH_TIMEOUT(jobState(window.jobsPanel()->table(), id), QString("finished"), kJobTimeoutMs);

    // Start again: a new job with the same command line, started from the panel.
    QSignalSpy again(window.jobsPanel(), &ui::JobsPanel::jobStarted);
    clickRow(window.jobsPanel()->table(), id);
    click(child<QPushButton>(window.jobsPanel(), "jobStartAgain"));
    QVERIFY2(again.wait(60000), qPrintable(window.jobsPanel()->lastMessage()));
    const qint64 second = again.first().at(0).toLongLong();
    QVERIFY(second > id);
    QTRY_COMPARE_WITH_TIMEOUT(jobState(window.jobsPanel()->table(), second), QString("finished"), kJobTimeoutMs);
    const auto record = JobStore(window.database().toStdString(), OpenMode::ReadOnly).job(second);
    QVERIFY(record);
    QCOMPARE(record->kind, std::string("eval-driving"));
    const Json firstArgv = JobStore(window.database().toStdString(), OpenMode::ReadOnly).job(id)->spec.value("argv", Json::array());
    QVERIFY2(record->spec.value("argv", Json::array()) == firstArgv, record->spec.dump().c_str());
}

void TestJobsFlow::aBadFieldBlocksStartWithTheMessageAtTheField()
{
    ui::MainWindow window;
    openWindow(window, "bad.db");
    ui::ConfigureView* configure = window.configureView();
    ui::RunOptions* run = configure->runOptions();
    clickTab(configure->panels(), run);
    choose(run->kindBox(), "Closed-loop driving evaluation");
    typeInto(child<QWidget>(run, "drivingPolicy"), "twelve");
    QSignalSpy started(configure, &ui::ConfigureView::launched);
    QSignalSpy refused(configure, &ui::ConfigureView::launchRefused);
    click(child<QPushButton>(configure, "launchButton"));
    QVERIFY2(run->problemAt("drivingPolicy").contains("'twelve' is not a run id list"), qPrintable(run->problemAt("drivingPolicy")));
    QVERIFY(child<QLabel>(run, "drivingPolicyProblem")->isVisible());
    QVERIFY(configure->launchOutput()->toPlainText().contains("Not started"));
    // A search whose space tab is empty is refused at the space field.
    choose(run->kindBox(), "Hyperparameter search");
    click(child<QPushButton>(configure, "launchButton"));
    QVERIFY2(run->problemAt("searchSpaceFile").contains("add parameters"), qPrintable(run->problemAt("searchSpaceFile")));
    QCOMPARE(refused.count(), 2); // both Starts ended there: nothing goes on asynchronously
    QCOMPARE(started.count(), 0);
    QCOMPARE(JobStore(window.database().toStdString(), OpenMode::ReadOnly).jobs(true).size(), std::size_t(0));
}

// Start runs the search's own start-up checks (`pitwall hpo ... --check`) before it starts anything: a study name
// already taken and an objective the model never records are refused at their fields, and no job is created.
void TestJobsFlow::whatTheCliRefusesShowsAtItsField()
{
    ui::MainWindow window;
    openWindow(window, "refused.db");
    QCOMPARE(runCli({"study", "create", "--study", "taken", "--db", window.database()}).exitCode, 0);
    ui::ConfigureView* configure = window.configureView();
    ui::RunOptions* run = configure->runOptions();
    clickTab(configure->panels(), run);
    choose(run->kindBox(), "Hyperparameter search");
    typeInto(child<QWidget>(run, "searchSpaceFile"), sourcePath("/configs/transfuser/hpo/speed_space.yaml"));
    typeInto(child<QWidget>(run, "searchTrials"), "4");
    typeInto(child<QWidget>(run, "searchStudy"), "taken");
    QSignalSpy started(configure, &ui::ConfigureView::launched);
    QPushButton* launch = child<QPushButton>(configure, "launchButton");
    click(launch);
    QTRY_VERIFY_WITH_TIMEOUT(!run->problemAt("searchStudy").isEmpty(), 60000);
    QVERIFY2(run->problemAt("searchStudy").contains("study 'taken' already exists"), qPrintable(run->problemAt("searchStudy")));
    QVERIFY(child<QLabel>(run, "searchStudyProblem")->isVisible());
    QVERIFY(configure->launchOutput()->toPlainText().contains("refused"));

    typeInto(child<QWidget>(run, "searchStudy"), "fresh");
    QComboBox* objective = child<QComboBox>(run, "searchObjective");
    typeInto(objective, "val/nope");
    QTRY_VERIFY(launch->isEnabled());
    click(launch);
    QTRY_VERIFY_WITH_TIMEOUT(!run->problemAt("searchObjective").isEmpty(), 60000);
    QVERIFY2(run->problemAt("searchObjective").contains("val/nope"), qPrintable(run->problemAt("searchObjective")));
    QVERIFY(run->problemAt("searchStudy").isEmpty());
    QTRY_VERIFY(launch->isEnabled());
    QCOMPARE(started.count(), 0);
    QCOMPARE(JobStore(window.database().toStdString(), OpenMode::ReadOnly).jobs(true).size(), std::size_t(0));
    auto store = openStore(window.database().toStdString(), OpenMode::ReadOnly);
    QVERIFY(!store->findStudy("fresh"));

    // TransFuser-lite drives, so its closed-loop metrics are offered as the one objective too, and taken.
    QVERIFY2(objective->findText("driving_score") >= 0, qPrintable(QString::number(objective->count())));
    typeInto(objective, "driving_score");
    choose(child<QComboBox>(run, "searchDirection"), "maximize");
    run->check({});
    QVERIFY2(run->problemAt("searchObjective").isEmpty(), qPrintable(run->problemAt("searchObjective")));
    const QString line = run->words({}).join(' ');
    QVERIFY2(line.contains("--objective driving_score") && line.contains("--direction maximize"), qPrintable(line));
}

// Start runs a benchmark's own start-up checks (`pitwall bench ... --check`, on the words Start would run) before it
// starts anything: an image folder that exists but holds no JPEG, a bench file whose variant names an unknown key
// and a batch size the schema refuses pass the window's own checks and are refused by the CLI, each with the
// CLI's message under its field; no job is created. If this fails, a benchmark that cannot run starts in the
// background and fails there, or its problem is shown away from the field to fix.
void TestJobsFlow::aBenchmarkTheCliRefusesShowsAtItsField()
{
    ui::MainWindow window;
    openWindow(window, "benchcheck.db");
    const QString noJpeg = m_dir.filePath("nojpeg");
    QVERIFY(QDir().mkpath(noJpeg));
    schedtest::writeFile(m_dir, "nojpeg/notes.txt", "not an image\n");
    ui::ConfigureView* configure = window.configureView();
    ui::RunOptions* run = configure->runOptions();
    QSignalSpy started(configure, &ui::ConfigureView::launched);
    QSignalSpy refused(configure, &ui::ConfigureView::launchRefused);
    QPushButton* launch = child<QPushButton>(configure, "launchButton");
    clickTab(configure->panels(), run);

    choose(run->kindBox(), "Data-loader benchmark");
    typeInto(child<QWidget>(run, "loaderImages"), noJpeg);
    click(launch);
    QTRY_VERIFY_WITH_TIMEOUT(!run->problemAt("loaderImages").isEmpty(), 60000);
    QVERIFY2(run->problemAt("loaderImages").contains(noJpeg + ": no usable sample (read as images)"),
             qPrintable(run->problemAt("loaderImages")));
    QVERIFY(child<QLabel>(run, "loaderImagesProblem")->isVisible());
    QVERIFY(configure->launchOutput()->toPlainText().contains("pitwall bench loader refused it"));
    QTRY_VERIFY(launch->isEnabled());

    const QString typo =
        schedtest::writeFile(m_dir, "typo-bench.yaml",
                             ("name: typo\n"
                              "base: [" +
                              sourcePath("/configs/transfuser/smoke.yaml]\n"
                                         "seeds: [0]\n"
                                         "variants:\n"
                                         "  - {name: Typo, overrides: [policy.transfuser.upsample_mod=nearest]}\n"))
                                 .toUtf8());
    choose(run->kindBox(), "Variant benchmark");
    typeInto(child<QWidget>(run, "variantsFile"), typo);
    click(launch);
    QTRY_VERIFY_WITH_TIMEOUT(!run->problemAt("variantsFile").isEmpty(), 60000);
    QVERIFY2(run->problemAt("variantsFile").contains("variant 'Typo': "), qPrintable(run->problemAt("variantsFile")));
    QVERIFY2(run->problemAt("variantsFile").contains("policy.transfuser.upsample_mod"),
             qPrintable(run->problemAt("variantsFile")));
    QVERIFY(child<QLabel>(run, "variantsFileProblem")->isVisible());
    QTRY_VERIFY(launch->isEnabled());

    choose(run->kindBox(), "Partition benchmark");
    typeInto(child<QWidget>(run, "partitionBatchSizes"), "8,100000");
    click(launch);
    QTRY_VERIFY_WITH_TIMEOUT(!run->problemAt("partitionBatchSizes").isEmpty(), 60000);
    QVERIFY2(run->problemAt("partitionBatchSizes").contains("training.optimization.batch_size"),
             qPrintable(run->problemAt("partitionBatchSizes")));
    QVERIFY(child<QLabel>(run, "partitionBatchSizesProblem")->isVisible());
    QTRY_VERIFY(launch->isEnabled());

    QCOMPARE(refused.count(), 3); // each of the three Starts ended in its refusal: nothing goes on asynchronously
    QCOMPARE(started.count(), 0);
    QCOMPARE(JobStore(window.database().toStdString(), OpenMode::ReadOnly).jobs(true).size(), std::size_t(0));
}

void TestJobsFlow::compareTheseMakesAVariantTable()
{
    ui::MainWindow window;
    openWindow(window, "compare.db");
    ui::ConfigureView* configure = window.configureView();
    QCOMPARE(configure->form()->setText("training.stages.pretrain.epochs", "1"), QString());
    QCOMPARE(configure->form()->setText("training.stages.posttrain.epochs", "1"), QString());
    QWidget* speed = child<QWidget>(configure, "speedPanel");
    clickTab(configure->panels(), speed->parentWidget()->parentWidget());
    choose(child<QComboBox>(speed, "policy.transfuser.upsample_mode"), "nearest");
    click(child<QPushButton>(speed, "compareSpeedOptions"));
    ui::RunOptions* run = configure->runOptions();
    QCOMPARE(run->kind(), ui::RunKind::Variants);
    QCOMPARE(configure->panels()->currentWidget(), run);
    QSignalSpy started(configure, &ui::ConfigureView::launched);
    QSignalSpy ended(configure, &ui::ConfigureView::launchEnded);
    click(child<QPushButton>(configure, "launchButton"));
    QVERIFY2(started.wait(60000), qPrintable(configure->launchOutput()->toPlainText()));
    QVERIFY2(ended.wait(kJobTimeoutMs), qPrintable(configure->launchOutput()->toPlainText()));
    QTRY_COMPARE(jobState(window.jobsPanel()->table(), started.first().at(0).toLongLong()), QString("finished"));
    // Benchmarks: LEAD's table with the two variants.
    window.showView(ui::View::Benchmarks);
    QTableWidget* table = window.benchmarksView()->table();
    auto cellTexts = [table] { // every cell: the view may order its columns as it likes
        QStringList cells;
        for (int r = 0; r < table->rowCount(); ++r)
            for (int c = 0; c < table->columnCount(); ++c)
                cells << (table->item(r, c) ? table->item(r, c)->text() : QString());
        return cells;
    };
    QTRY_VERIFY_WITH_TIMEOUT(cellTexts().contains("Baseline"), 30000);
    const QStringList cells = cellTexts();
    QVERIFY2(cells.contains("Baseline"), qPrintable(cells.join("|")));
    QVERIFY2(cells.contains("policy.transfuser.upsample_mode=nearest"), qPrintable(cells.join("|")));
}

// Closed-loop driving: the policy is picked from the database's runs (model, date, stage, final metric shown;
// filterable), typing still works, and an id the database does not have is refused at the field. The picked run
// is a real (tiny) smoke training with its checkpoints, so Start's `eval driving --check` accepts it and the
// evaluation runs to the end; the two runs recorded after it only fill the list.
void TestJobsFlow::drivingPicksARunFromTheDatabase()
{
    const QString db = m_dir.filePath("driving.db");
    const CliResult trained =
        runCli({"train", sourcePath("/configs/transfuser/smoke.yaml"), "data.synthetic.frames=40",
                "training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1", "--db", db},
               m_dir.path());
    QVERIFY2(trained.exitCode == 0, qPrintable(trained.err));
    std::vector<std::int64_t> runs;
    {
        auto store = openStore(db.toStdString());
        for (const RunRecord& r : store->runs())
            runs.push_back(r.id);
        QCOMPARE(runs.size(), std::size_t(1));
        for (const char* model : {"autospeed", "transfuser"}) {
            RunRecord run;
            run.kind = "train";
            run.configYaml = std::string("experiment:\n  name: picked\n  model: ") + model + "\n";
            run.logicalDevice = "cpu:0";
            run.startTime = 1.7e9 + static_cast<double>(runs.size()) * 3600;
            runs.push_back(store->createRun(run));
            store->appendMetrics(std::vector<MetricSample>{{runs.back(), "pretrain", 1, "loss", 2.0, run.startTime},
                                                           {runs.back(), "posttrain", 2, "val/loss", 0.25, run.startTime}});
            store->finishRun(runs.back(), RunStatus::Succeeded, 0, "");
        }
    }
    ui::MainWindow window;
    openWindow(window, "driving.db");
    ui::ConfigureView* configure = window.configureView();
    ui::RunOptions* run = configure->runOptions();
    clickTab(configure->panels(), run);
    choose(run->kindBox(), "Closed-loop driving evaluation");
    ui::RunPicker* picker = run->runPicker();
    QTreeView* list = picker->view();
    QTRY_COMPARE_WITH_TIMEOUT(list->model()->rowCount(), 3, 10000);
    // Newest first, with its model, last stage and final metric.
    QCOMPARE(list->model()->index(0, 0).data().toLongLong(), runs[2]);
    QCOMPARE(list->model()->index(0, 1).data().toString(), QString("transfuser"));
    QCOMPARE(list->model()->index(0, 3).data().toString(), QString("posttrain"));
    QVERIFY2(list->model()->index(0, 4).data().toString().contains("val/loss 0.25"),
             qPrintable(list->model()->index(0, 4).data().toString()));
    // Filtering by date leaves the one run trained today (the others are dated 2023); clicking it fills the
    // policy field.
    const QString trainedDate = list->model()->index(2, 2).data().toString();
    QVERIFY2(!trainedDate.startsWith("2023-"), qPrintable(trainedDate));
    QTest::keyClicks(picker->filter(), trainedDate);
    QTRY_COMPARE(list->model()->rowCount(), 1);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(list->model()->index(0, 0)).center());
    auto* policy = child<QLineEdit>(run, "drivingPolicy");
    QCOMPARE(policy->text(), QString::number(runs[0]));
    // A typed id the database does not have is flagged under the field; nothing starts.
    QSignalSpy started(configure, &ui::ConfigureView::launched);
    typeInto(policy, QString::number(runs[0]) + ",999");
    click(child<QPushButton>(configure, "launchButton"));
    QVERIFY2(run->problemAt("drivingPolicy").contains("no run 999"), qPrintable(run->problemAt("drivingPolicy")));
    QVERIFY(child<QLabel>(run, "drivingPolicyProblem")->isVisible());
    QCOMPARE(started.count(), 0);
    // Pick again, Start: an eval-driving job of the picked run starts.
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(list->model()->index(0, 0)).center());
    QTRY_COMPARE(policy->text(), QString::number(runs[0]));
    typeInto(child<QWidget>(run, "drivingRoutes"), "1");
    click(child<QPushButton>(configure, "launchButton"));
    QVERIFY2(started.wait(60000), qPrintable(configure->launchOutput()->toPlainText()));
    const auto job = JobStore(db.toStdString(), OpenMode::ReadOnly).job(started.first().at(0).toLongLong());
    QVERIFY(job);
    QCOMPARE(job->kind, std::string("eval-driving"));
    QVERIFY2(job->spec.dump().find("\"" + std::to_string(runs[0]) + "\"") != std::string::npos, job->spec.dump().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(jobRow(window.jobsPanel()->table(), started.first().at(0).toLongLong()), 5000);
    shoot(window, "workbench-configure-driving.png");
    QTRY_COMPARE_WITH_TIMEOUT(jobState(window.jobsPanel()->table(), started.first().at(0).toLongLong()),
                              QString("finished"), kJobTimeoutMs);
}

// Start runs the driving evaluation's own start-up checks (`pitwall eval driving ... --check`, on the words Start
// would run) before it starts anything: a run that the database has, so the window's own checks pass, but that has
// no checkpoint to drive from is refused by the CLI, with the CLI's message under the policy field the run picker
// filled; no job is created. If this fails, an evaluation that cannot drive starts in the background and fails
// there, or its problem is shown away from the field to fix.
void TestJobsFlow::aDrivingRunTheCliRefusesShowsAtItsField()
{
    const QString db = m_dir.filePath("drivecheck.db");
    std::int64_t untrained = 0;
    {
        auto store = openStore(db.toStdString());
        RunRecord run;
        run.kind = "train";
        run.configYaml = "experiment:\n  name: untrained\n  model: transfuser\n";
        run.logicalDevice = "cpu:0";
        run.startTime = 1.7e9;
        untrained = store->createRun(run);
        store->finishRun(untrained, RunStatus::Failed, 1, "stopped before its first checkpoint");
    }
    ui::MainWindow window;
    openWindow(window, "drivecheck.db");
    ui::ConfigureView* configure = window.configureView();
    ui::RunOptions* run = configure->runOptions();
    clickTab(configure->panels(), run);
    choose(run->kindBox(), "Closed-loop driving evaluation");
    QTreeView* list = run->runPicker()->view();
    QTRY_COMPARE_WITH_TIMEOUT(list->model()->rowCount(), 1, 10000);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(list->model()->index(0, 0)).center());
    auto* policy = child<QLineEdit>(run, "drivingPolicy");
    QCOMPARE(policy->text(), QString::number(untrained));
    QSignalSpy started(configure, &ui::ConfigureView::launched);
    QSignalSpy refused(configure, &ui::ConfigureView::launchRefused);
    QPushButton* launch = child<QPushButton>(configure, "launchButton");
    click(launch);
    QTRY_VERIFY_WITH_TIMEOUT(!run->problemAt("drivingPolicy").isEmpty(), 60000);
    QVERIFY2(run->problemAt("drivingPolicy").contains("run " + QString::number(untrained) + " has no checkpoint"),
             qPrintable(run->problemAt("drivingPolicy")));
    QVERIFY(child<QLabel>(run, "drivingPolicyProblem")->isVisible());
    QVERIFY(run->problemAt("drivingRoutes").isEmpty());
    QVERIFY2(configure->launchOutput()->toPlainText().contains("pitwall eval driving refused it"),
             qPrintable(configure->launchOutput()->toPlainText()));
    QTRY_VERIFY(launch->isEnabled());
    QCOMPARE(refused.count(), 1); // the Start ended in its refusal: nothing goes on asynchronously
    QCOMPARE(started.count(), 0);
    QCOMPARE(JobStore(db.toStdString(), OpenMode::ReadOnly).jobs(true).size(), std::size_t(0));
}

QTEST_MAIN(TestJobsFlow)
// A data-loader benchmark of an image folder, started with Start and followed in the Jobs panel to `finished`;
// its log (Open log) holds the benchmark's report on the folder's images. If this fails, the window offers a
// benchmark it cannot run to the end.
void TestJobsFlow::aLoaderBenchmarkRunsFromTheWindow()
{
    ui::MainWindow window;
    openWindow(window, "loader.db");
    const QString images = m_dir.filePath("jpegs");
    QVERIFY(QDir().mkpath(images));
    for (int i = 0; i < 8; ++i) { // one batch of the form's default size
        QImage picture(96, 64, QImage::Format_RGB32);
        picture.fill(QColor(20 * i, 90, 200 - 20 * i));
        QVERIFY(picture.save(images + QString("/frame%1.jpg").arg(i), "JPEG"));
    }
    ui::ConfigureView* configure = window.configureView();
    ui::RunOptions* run = configure->runOptions();
    clickTab(configure->panels(), run);
    choose(run->kindBox(), "Data-loader benchmark");
    typeInto(child<QWidget>(run, "loaderImages"), images);
    typeInto(child<QWidget>(run, "loaderBatches"), "4");
    qint64 id = 0;
    startAndFinish(window, "bench-loader", id);
    if (QTest::currentTestFailed())
        return;
    QTreeWidget* jobs = window.jobsPanel()->table();

    clickRow(jobs, id);
    click(child<QPushButton>(window.jobsPanel(), "jobLog"));
    auto* log = window.jobsPanel()->findChild<ui::JobLogDialog*>("jobLogDialog");
    QVERIFY(log);
    const auto report = [&] {
        const QString text = log->text()->toPlainText();
        return text.contains("dataset of 8 images") && text.contains("ms/batch") && text.contains("over 4 batches");
    };
    QTRY_VERIFY2_WITH_TIMEOUT(report(), qPrintable(log->text()->toPlainText().right(2000)), 30000); // a live tail
    log->close();
}

// A partition benchmark of the smoke config on SPX (the other modes unticked), batch 8, one epoch: started with
// Start, it finishes in the Jobs panel, and Show results opens the Benchmarks view. If this fails, the window
// offers a benchmark it cannot run to the end.
void TestJobsFlow::aPartitionBenchmarkRunsFromTheWindow()
{
    ui::MainWindow window;
    openWindow(window, "partitions.db");
    ui::ConfigureView* configure = window.configureView();
    ui::RunOptions* run = configure->runOptions();
    clickTab(configure->panels(), run);
    choose(run->kindBox(), "Partition benchmark");
    for (QCheckBox* box : child<QWidget>(run, "partitionModes")->findChildren<QCheckBox*>())
        if ((box->text() == "SPX") != box->isChecked()) {
            box->setFocus();
            QTest::keyClick(box, Qt::Key_Space); // a check box's own key; a click at its centre may miss the label
            QCOMPARE(box->isChecked(), box->text() == "SPX");
        }
    typeInto(child<QWidget>(run, "partitionBatchSizes"), "8");
    typeInto(child<QWidget>(run, "partitionEpochs"), "1");
    qint64 id = 0;
    startAndFinish(window, "bench-partitions", id);
    if (QTest::currentTestFailed())
        return;
    QTreeWidget* jobs = window.jobsPanel()->table();
    const auto record = JobStore(window.database().toStdString(), OpenMode::ReadOnly).job(id);
    const Json argv = record->spec.value("argv", Json::array());
    QVERIFY2(argv.dump().find("\"--modes\",\"SPX\",\"--batch-sizes\",\"8\"") != std::string::npos, argv.dump().c_str());

    window.showView(ui::View::Configure);
    clickRow(jobs, id);
    click(child<QPushButton>(window.jobsPanel(), "jobShowResults"));
    QCOMPARE(window.currentView(), ui::View::Benchmarks);
}

#include "tst_jobsflow.moc"
