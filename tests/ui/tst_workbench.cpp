// The workbench window over a real results database: the study list (kind, state, counts, best, filter),
// the trials of a study, failure reasons with the events tail, live pick-up of rows written by another
// connection, Optuna's own files, launching work from the configure view, and the screenshot mode.
#include "demodb.h"

#include "ui/charts/chartview.h"
#include "ui/configure/configform.h"
#include "ui/configure/configureview.h"
#include "ui/exporting.h"
#include "ui/jobs/jobspanel.h"
#include "ui/live/liveview.h"
#include "ui/mainwindow.h"
#include "ui/studies/studiesview.h"
#include "ui/studies/trialspage.h"
#include "ui/studies/trialsview.h"
#include "ui/theme.h"

#include "core/hpo/studyreport.h"
#include "core/store/jobstore.h"
#include "core/store/store.h"

#include <QAction>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSettings>
#include <QStandardItemModel>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;
using pitwall::test::guiPath;
using pitwall::test::sourcePath;

using namespace pitwall;
using Col = ui::StudiesView::Column;

namespace {
void writeDemoStudies(const QString& db)
{
    auto store = openStore(db.toStdString());
    const auto a = store->createStudy("speed-variants", {StudyDirection::Minimize});
    store->setStudySystemAttr(a, "pitwall:kind", "bench");
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
    void showsStudiesWithKindStateCountsAndBest();
    void namesInterruptedTrialsApartFromFailures();
    void filtersStudies();
    void showsTrialsOfTheSelectedStudy();
    void showsWhyATrialFailedWithTheEventsTail();
    void picksUpRowsWrittenElsewhere();
    void showsLateChangesToFinishedTrials();
    void reportsAForeignFileInPlace();
    void opensAnOptunaDatabase();
    void startsUnderADecimalCommaLocale();
    void launchReportsABadConfigInPlace();
    void exportsTablesAndCharts();
    void jobsDockShowsThreeJobsAtTheDefaultSize();
    void switchesViewsWithShortcuts();
    void followsADarkPalette();
    void screenshotModeWritesAPicture();
    void commandLineAddsADatabaseToCompare();
    void showsStateAndActionIcons();

private:
    QTemporaryDir m_dir;
    QString m_db;
    QString m_demo;
};

void TestWorkbench::initTestCase()
{
    QCoreApplication::setOrganizationName("PitwallTest");
    QSettings().clear();
    m_db = m_dir.filePath("demo.db");
    writeDemoStudies(m_db);
    m_demo = m_dir.filePath("full-demo.db");
    demo::writeDemoDatabase(m_demo);
}

void TestWorkbench::showsStudiesWithKindStateCountsAndBest()
{
    ui::MainWindow window;
    window.openDatabase(m_db);
    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 2);
    const QTreeWidgetItem* item = window.studiesView()->topLevelItem(0);
    QCOMPARE(item->text(Col::kName), QString("speed-variants"));
    QCOMPARE(item->text(Col::kKind), QString("bench"));
    QCOMPARE(item->text(Col::kState), QString("finished"));
    QCOMPARE(item->text(Col::kBest), QString("0.333333")); // best of the complete trials (minimize); pruned ignored
    QCOMPARE(item->text(Col::kComplete), QString("3"));
    QCOMPARE(item->text(Col::kPruned), QString("1"));
    QCOMPARE(window.studiesView()->topLevelItem(1)->text(Col::kBest), QString("–"));
    QCOMPARE(window.studiesView()->topLevelItem(1)->text(Col::kState), QString("empty"));
    QCOMPARE(ui::MainWindow::recentFiles().value(0), QFileInfo(m_db).absoluteFilePath());
}

// A stopped search: one trial failed by its own fault, two were interrupted by the stop. The side bar says so in
// its Failed and Interrupted columns, as `pitwall study list` does (core/store: StudySummary::failures).
void TestWorkbench::namesInterruptedTrialsApartFromFailures()
{
    const QString db = m_dir.filePath("stopped.db");
    {
        auto store = openStore(db.toStdString());
        const auto study = store->createStudy("stopped-search", {StudyDirection::Minimize});
        store->setStudySystemAttr(study, kHpoSettingsAttr, Json{{"objective", "val/loss"}});
        store->finishTrial(store->createTrial(study).id, TrialState::Complete, {0.5});
        const TrialRecord crashed = store->createTrial(study);
        store->setTrialSystemAttr(crashed.id, "fail_reason", "exit status 137");
        store->finishTrial(crashed.id, TrialState::Fail, {});
        for (int i = 0; i < 2; ++i) {
            const TrialRecord stopped = store->createTrial(study);
            store->setTrialSystemAttr(stopped.id, kInterruptedAttr, true);
            store->finishTrial(stopped.id, TrialState::Fail, {});
        }
    }
    ui::MainWindow window;
    window.openDatabase(db);
    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 1);
    const QTreeWidgetItem* item = window.studiesView()->topLevelItem(0);
    QCOMPARE(item->text(Col::kComplete), QString("1"));
    QCOMPARE(item->text(Col::kFailed), QString("1"));
    QCOMPARE(item->text(Col::kInterrupted), QString("2"));
    // The Studies view's trials: the same counts in its title, and the Value column names its metric.
    window.showView(ui::View::Studies);
    auto* title = window.trialsPage()->findChild<QLabel*>("trialsTitle");
    QVERIFY(title);
    QTRY_VERIFY2(title->text().contains("4 trials") && title->text().contains("1 failed") &&
                     title->text().endsWith(", 2 interrupted"),
                 qPrintable(title->text()));
    QCOMPARE(window.trialsView()->headerText(ui::TrialsView::kValue), QString("Value: val/loss"));
    // `pitwall study list`'s rows, from the same summary.
    const Json rows = studyListJson(openStore(db.toStdString(), OpenMode::ReadOnly)->listStudies());
    QCOMPARE(rows[0]["failed"].get<int>(), 1);
    QCOMPARE(rows[0]["interrupted"].get<int>(), 2);
    QVERIFY(studyListText(openStore(db.toStdString(), OpenMode::ReadOnly)->listStudies())
                .find("failed interrupted") != std::string::npos);
}

void TestWorkbench::filtersStudies()
{
    ui::MainWindow window;
    window.openDatabase(m_demo);
    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 2);
    auto* filter = window.findChild<QLineEdit*>("studyFilter");
    QVERIFY(filter);
    filter->setText("HPO"); // case-insensitive part of the name
    QCOMPARE(window.studiesView()->visibleCount(), 1);
    for (int i = 0; i < 2; ++i) {
        const QTreeWidgetItem* item = window.studiesView()->topLevelItem(i);
        QCOMPARE(item->isHidden(), item->text(Col::kName) != "autospeed-hpo");
    }
    filter->clear();
    QCOMPARE(window.studiesView()->visibleCount(), 2);
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
        headers << window.trialsView()->headerText(c);
    QVERIFY2(headers.contains("batch_size"), qPrintable(headers.join(",")));
    QCOMPARE(window.trialsView()->cellText(3, ui::TrialsView::kState), QString("PRUNED"));
}

void TestWorkbench::showsWhyATrialFailedWithTheEventsTail()
{
    ui::MainWindow window;
    window.focusStudy("transfuser-seeds");
    window.show();
    window.openDatabase(m_demo);
    QTRY_COMPARE_WITH_TIMEOUT(window.trialsView()->rowCount(), 4, 10000);
    QVERIFY(window.trialsView()->cellText(3, ui::TrialsView::kNote).contains("diverged"));
    QVERIFY(window.trialsView()->selectTrial(3));
    QPlainTextEdit* details = window.trialsPage()->details();
    QTRY_VERIFY_WITH_TIMEOUT(details->toPlainText().contains("Latest events"), 10000);
    const QString text = details->toPlainText();
    QVERIFY2(text.contains("FAILED: pretrain epoch 2 step 3: the loss is nan (diverged)"), qPrintable(text));
    QVERIFY2(text.contains("[error] pretrain epoch 2 step 3"), qPrintable(text));
    QVERIFY(text.contains("failed"));
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

// A finished trial's attribute set later by another process (an evaluation's driving score) reaches the trial's details,
// also when it replaces an earlier value; a trial added meanwhile reaches the table. If this fails, the window keeps
// what it read first: the poller re-reads only the trials that changed (core/store/trialcache.h).
void TestWorkbench::showsLateChangesToFinishedTrials()
{
    const QString db = m_dir.filePath("late-changes.db");
    writeDemoStudies(db);
    ui::MainWindow window;
    window.focusStudy("speed-variants");
    window.show();
    window.openDatabase(db);
    QTRY_COMPARE_WITH_TIMEOUT(window.trialsView()->rowCount(), 4, 10000);
    QVERIFY(window.trialsView()->selectTrial(0));
    QPlainTextEdit* details = window.trialsPage()->details();
    QTRY_VERIFY_WITH_TIMEOUT(details->toPlainText().contains("Trial #0"), 10000);
    QVERIFY(!details->toPlainText().contains("driving_score"));

    auto other = openStore(db.toStdString());
    const auto study = other->requireStudy("speed-variants").id;
    const std::int64_t first = other->trial(study, 0)->id;
    other->setTrialUserAttr(first, "driving_score", 71.5);
    QTRY_VERIFY2_WITH_TIMEOUT(details->toPlainText().contains("driving_score: 71.5"),
                              qPrintable(details->toPlainText()), 10000);
    other->setTrialUserAttr(first, "driving_score", 80.25);
    QTRY_VERIFY2_WITH_TIMEOUT(details->toPlainText().contains("driving_score: 80.25"),
                              qPrintable(details->toPlainText()), 10000);
    other->finishTrial(other->createTrial(study).id, TrialState::Complete, {0.125});
    QTRY_COMPARE_WITH_TIMEOUT(window.trialsView()->rowCount(), 5, 10000);
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

void TestWorkbench::opensAnOptunaDatabase()
{
    // A copy: opening must not need to write, but the original fixture must never be at risk.
    const QString copy = m_dir.filePath("optuna-3.1-study.db");
    QVERIFY(QFile::copy(sourcePath("/tests/data/optuna/optuna-3.1-study.db"), copy));
    const QByteArray before = [&] {
        QFile f(copy);
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }();
    ui::MainWindow window;
    window.openDatabase(copy);
    QTRY_COMPARE_WITH_TIMEOUT(window.studiesView()->topLevelItemCount(), 1, 10000);
    QCOMPARE(window.studiesView()->topLevelItem(0)->text(Col::kName), QString("reference"));
    QTRY_COMPARE(window.trialsView()->rowCount(), 8); // the only study gets the focus
    QStringList headers;
    for (int c = 0; c < window.trialsView()->columnCount(); ++c)
        headers << window.trialsView()->headerText(c);
    for (const char* param : {"x", "lr", "layers", "optimizer"})
        QVERIFY2(headers.contains(param), qPrintable(headers.join(",")));
    QFile after(copy);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QVERIFY2(after.readAll() == before, "reading an Optuna file must not change it");
}

void TestWorkbench::launchReportsABadConfigInPlace()
{
    const QString db = m_dir.filePath("launch.db");
    openStore(db.toStdString());
    ui::MainWindow window;
    window.openDatabase(db);
    ui::ConfigureView* configure = window.configureView();
    configure->setCliPath(cliPath());
    // A config the schema accepts but the run cannot use: the data folder does not exist.
    QCOMPARE(configure->form()->setText("data.root", m_dir.filePath("no-such-dataset")), QString());
    QCOMPARE(configure->form()->setText("experiment.name", "launch-test"), QString());
    QSignalSpy ended(configure, &ui::ConfigureView::launchEnded);
    QVERIFY(configure->launch());
    QVERIFY2(ended.wait(60000), qPrintable(configure->launchOutput()->toPlainText()));
    const QString stderrTail = ended.first().at(1).toString();
    QVERIFY2(stderrTail.contains("no-such-dataset"), qPrintable(stderrTail));
    QVERIFY(configure->launchOutput()->toPlainText().contains("no-such-dataset"));
    // And a form with a flagged field does not launch at all.
    configure->form()->setText("experiment.seeds", "[-1]");
    QVERIFY(!configure->launch());
}

void TestWorkbench::exportsTablesAndCharts()
{
    ui::MainWindow window;
    window.focusStudy("speed-variants");
    window.show();
    window.openDatabase(m_db);
    QTRY_COMPARE(window.trialsView()->rowCount(), 4);
    const QString csv = m_dir.filePath("trials.csv");
    QCOMPARE(ui::writeCsv(*window.trialsView()->model(), csv), QString());
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().split('\n');
    QVERIFY(lines[0].startsWith("#,State,Value,Duration (s),Note,batch_size"));
    QCOMPARE(lines.size(), 6); // header, 4 trials, and the empty piece after the last CRLF
    QCOMPARE(ui::tableToCsv(*window.trialsView()->model()).count("PRUNED"), 1);
    // Quoting (RFC 4180) of a cell with a comma and a quote.
    QStandardItemModel model(1, 1);
    model.setHorizontalHeaderLabels({"a,b"});
    model.setItem(0, 0, new QStandardItem("say \"hi\""));
    QCOMPARE(ui::tableToCsv(model), QString("\"a,b\"\r\n\"say \"\"hi\"\"\"\r\n"));
    // Formula injection guarded (core's csvCell): text that starts with '=' gets a quote, a negative number not.
    QStandardItemModel formulas(1, 2);
    formulas.setHorizontalHeaderLabels({"name", "value"});
    formulas.setItem(0, 0, new QStandardItem("=1+2"));
    formulas.setItem(0, 1, new QStandardItem("-1.5"));
    QCOMPARE(ui::tableToCsv(formulas), QString("name,value\r\n'=1+2,-1.5\r\n"));
    // Any chart to PNG.
    window.showView(ui::View::Live);
    ui::ChartView* chart = window.liveView()->charts().front();
    const QString png = m_dir.filePath("loss.png");
    QCOMPARE(ui::writePng(*chart, png), QString());
    QCOMPARE(QImage(png).size(), chart->size());
    QVERIFY(chart->property("pitwallExport").toBool()); // offered by Ctrl+E and the context menu
    QVERIFY(window.trialsView()->property("pitwallExport").toBool());
}

// The Jobs dock at the default size shows its header and three jobs whole, whichever view is current (the views'
// minimum heights leave it the room).
void TestWorkbench::jobsDockShowsThreeJobsAtTheDefaultSize()
{
    const QString db = m_dir.filePath("jobs.db");
    writeDemoStudies(db);
    {
        JobStore jobs(db.toStdString());
        for (int i = 0; i < 4; ++i)
            jobs.create("train", Json{{"argv", {"train", "x.yaml"}}}, JobState::Queued, 0, "");
    }
    ui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), QSize(1200, 760));
    window.openDatabase(db);
    QTreeWidget* table = window.findChild<ui::JobsPanel*>()->table();
    QTRY_COMPARE(table->topLevelItemCount(), 4);
    for (ui::View view : {ui::View::Studies, ui::View::Configure, ui::View::Live, ui::View::Study, ui::View::Compare,
                          ui::View::Benchmarks}) {
        window.showView(view);
        QCoreApplication::processEvents();
        const int rowHeight = table->visualItemRect(table->topLevelItem(0)).height();
        QVERIFY(rowHeight > 0);
        QVERIFY2(table->viewport()->height() >= 3 * rowHeight,
                 qPrintable(QStringLiteral("view %1: %2 px for rows of %3 px")
                                .arg(int(view))
                                .arg(table->viewport()->height())
                                .arg(rowHeight)));
    }
}

void TestWorkbench::switchesViewsWithShortcuts()
{
    ui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const ui::View order[] = {ui::View::Studies, ui::View::Configure, ui::View::Live,
                              ui::View::Study,   ui::View::Compare,   ui::View::Benchmarks};
    for (int i = 5; i >= 0; --i) {
        QTest::keyClick(&window, static_cast<Qt::Key>(Qt::Key_1 + i), Qt::ControlModifier);
        QCOMPARE(window.currentView(), order[i]);
    }
    QCOMPARE(ui::parseView("benchmarks"), std::optional<ui::View>(ui::View::Benchmarks));
    QVERIFY(!ui::parseView("nope"));
}

void TestWorkbench::followsADarkPalette()
{
    ui::MainWindow window;
    window.show();
    ui::ChartView* chart = window.liveView()->charts().front();
    const QPalette light = QApplication::palette();
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x24));
    dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x1c));
    dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    QApplication::setPalette(dark); // what a system switch to dark delivers
    QTRY_COMPARE(chart->chart()->backgroundBrush().color(), QColor(0x18, 0x18, 0x1c));
    QCOMPARE(chart->chart()->titleBrush().color(), QColor(0xe0, 0xe0, 0xe0));
    QApplication::setPalette(light);
    QTRY_COMPARE(chart->chart()->backgroundBrush().color(), light.color(QPalette::Base));
}

void TestWorkbench::screenshotModeWritesAPicture()
{
    const QString png = m_dir.filePath("studies.png");
    QProcess gui;
    gui.start(guiPath(), {"--db", m_db, "--study", "speed-variants", "--screenshot", png});
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 0);
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1200, 760));
}

void TestWorkbench::commandLineAddsADatabaseToCompare()
{
    // --compare-db adds a database to the Compare view; the screenshot waits until the view has read it (a
    // view that never heard back would time out: exit 1).
    const QString png = m_dir.filePath("compare-two-databases.png");
    QProcess gui;
    gui.start(guiPath(), {"--db", m_db, "--compare-db", m_demo, "--view", "compare", "--screenshot", png});
    QVERIFY(gui.waitForFinished(60000));
    QVERIFY2(gui.exitStatus() == QProcess::NormalExit && gui.exitCode() == 0, gui.readAllStandardError().constData());
    QVERIFY(!QImage(png).isNull());
    // A compare database that is not there is named before anything is drawn.
    const QString missing = m_dir.filePath("missing.db");
    gui.start(guiPath(), {"--db", m_db, "--compare-db", missing, "--view", "compare", "--screenshot", png});
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 2);
    QVERIFY(QString::fromLocal8Bit(gui.readAllStandardError()).contains("no database at " + missing));
}

// The window's icons come from its resources (resources/pitwall.qrc): each trial's state in the trials table, the
// jobs' states, the main actions and the window's own icon. If this fails, the states read as text only again (or a
// wrong state's icon is shown: pruned drawn as complete).
void TestWorkbench::showsStateAndActionIcons()
{
    const auto image = [](const QIcon& icon) { return icon.pixmap(QSize(16, 16), 1.0).toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied); };
    const auto resource = [](const char* name) {
        return QImage(QStringLiteral(":/pitwall/icons/ui/%1.png").arg(QLatin1String(name))).convertToFormat(QImage::Format_ARGB32_Premultiplied);
    };
    for (const char* name : {"state-complete", "state-pruned", "state-failed", "state-running", "state-waiting",
                             "action-open", "action-start", "action-stop", "action-resume", "action-export"})
        QVERIFY2(!resource(name).isNull(), name);
    QCOMPARE(image(ui::stateIcon("COMPLETE")), resource("state-complete"));
    QCOMPARE(image(ui::stateIcon("PRUNED")), resource("state-pruned"));
    QCOMPARE(image(ui::stateIcon("FAIL")), resource("state-failed"));
    QCOMPARE(image(ui::stateIcon("failed")), resource("state-failed"));      // a job's
    QCOMPARE(image(ui::stateIcon("finished")), resource("state-complete")); // a job's
    QCOMPARE(image(ui::stateIcon("queued")), resource("state-waiting"));
    QVERIFY(ui::stateIcon("no such state").isNull());
    QVERIFY(resource("state-complete") != resource("state-pruned"));

    ui::MainWindow window;
    window.openDatabase(m_db);
    QTRY_VERIFY(window.studiesView()->topLevelItemCount() >= 2); // earlier functions may have added studies
    QTreeWidgetItem* speed = nullptr;
    for (int i = 0; i < window.studiesView()->topLevelItemCount(); ++i)
        if (window.studiesView()->topLevelItem(i)->text(Col::kName) == "speed-variants")
            speed = window.studiesView()->topLevelItem(i);
    QVERIFY(speed);
    speed->setSelected(true);
    QTRY_COMPARE(window.trialsView()->rowCount(), 4);
    QCOMPARE(window.trialsView()->cellText(0, ui::TrialsView::kState), QString("COMPLETE"));
    QCOMPARE(window.trialsView()->cellText(3, ui::TrialsView::kState), QString("PRUNED"));
    QAbstractItemModel* trials = window.trialsView()->model();
    const auto cellIcon = [&](int row) {
        return image(trials->data(trials->index(row, ui::TrialsView::kState), Qt::DecorationRole).value<QIcon>());
    };
    QCOMPARE(cellIcon(0), resource("state-complete"));
    QCOMPARE(cellIcon(3), resource("state-pruned"));
    QVERIFY(!trials->data(trials->index(0, ui::TrialsView::kNumber), Qt::DecorationRole).isValid());

    const QIcon appIcon = ui::applicationIcon();
    QCOMPARE(appIcon.availableSizes().size(), 6);
    QVERIFY(appIcon.availableSizes().contains(QSize(256, 256)));
    QStringList withoutIcon;
    for (QAction* action : window.menuBar()->actions().constFirst()->menu()->actions())
        if (action->text().contains("Open database") || action->text().contains("Export"))
            if (action->icon().isNull())
                withoutIcon << action->text();
    QVERIFY2(withoutIcon.isEmpty(), qPrintable(withoutIcon.join(", ")));
}

void TestWorkbench::startsUnderADecimalCommaLocale()
{
    // Before: under de_DE the window aborted at start ("bad default for 'training.optimization.lr': expected a
    // number, got '0.0003'"), because QApplication set LC_NUMERIC and the schema was read with strtod.
    const QString png = m_dir.filePath("configure-de.png");
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("LC_ALL", "de_DE.UTF-8");
    env.insert("LANG", "de_DE.UTF-8");
    gui.setProcessEnvironment(env);
    gui.start(guiPath(), {"--db", m_db, "--view", "configure", "--screenshot", png});
    QVERIFY(gui.waitForFinished(60000));
    QVERIFY2(gui.exitStatus() == QProcess::NormalExit && gui.exitCode() == 0, gui.readAllStandardError().constData());
    QVERIFY(!QImage(png).isNull());
}

QTEST_MAIN(TestWorkbench)
#include "tst_workbench.moc"
