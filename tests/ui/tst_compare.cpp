// The compare view over a real database: configs side by side from the runs' config_yaml, "differences
// only" showing exactly the keys whose values differ, the chosen metric's curves, and mean ± std per group of
// seeds; trials ticked (with the mouse and the keyboard) in two different studies side by side, labelled
// "study / #n"; trials of two databases opened at once side by side, labelled "file / study / #n", and a file
// that is not a results database refused with its reason and left untouched. If this fails, a comparison hides
// a difference that explains a result, shows noise as one, cannot put two variants of a benchmark (each its own
// study) or two machines' results (each its own database) next to each other, or mixes up two databases' runs.
#include "demodb.h"

#include "ui/charts/chartview.h"
#include "ui/compare/compareview.h"
#include "ui/mainwindow.h"
#include "ui/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOptionViewItem>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace pitwall;

namespace {
QString cell(QTableWidget* table, const QString& rowKey, const QString& header)
{
    int column = -1;
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == header)
            column = c;
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0)->text() == rowKey && column >= 0)
            return table->item(r, column)->text();
    return "<missing " + rowKey + " / " + header + ">";
}

QTableWidgetItem* cellItem(QTableWidget* table, const QString& rowKey, const QString& header)
{
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == header)
            for (int r = 0; r < table->rowCount(); ++r)
                if (table->item(r, 0)->text() == rowKey)
                    return table->item(r, c);
    return nullptr;
}

QStringList headers(QTableWidget* table)
{
    QStringList out;
    for (int c = 0; c < table->columnCount(); ++c)
        out << table->horizontalHeaderItem(c)->text();
    return out;
}

// Where a user clicks to tick or untick `item`: the centre of its check box.
QPoint checkBoxCentre(QTreeWidget* tree, QTreeWidgetItem* item)
{
    tree->scrollToItem(item);
    QStyleOptionViewItem option;
    option.initFrom(tree->viewport());
    option.rect = tree->visualItemRect(item);
    option.features = QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::HasDisplay;
    option.text = item->text(0);
    option.checkState = item->checkState(0);
    option.widget = tree;
    return tree->style()->subElementRect(QStyle::SE_ItemViewItemCheckIndicator, &option, tree).center();
}

QTreeWidgetItem* studyRow(QTreeWidget* tree, const QString& study)
{
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->data(0, Qt::UserRole).toString() == study)
            return tree->topLevelItem(i);
    return nullptr;
}

// The loss the first step of a run written by demo::writeRunMetrics with `seed` logs.
double firstLoss(int seed)
{
    return 2.0 * std::exp(-1 / 40.0) + 0.3 + 0.05 * std::sin(1 + seed);
}

// A results database of one machine: study "Baseline" with one complete trial (parameters lr and
// upsample_mode, a run with its resolved config and `seed`'s curves, an objective and a driving score), and a
// study "Notes" with a trial that has parameters only.
void writeMachineDatabase(const QString& path, double lr, const std::string& upsample, int seed, double objective,
                          double drivingScore)
{
    auto store = openStore(path.toStdString());
    const auto study = store->createStudy("Baseline", {StudyDirection::Minimize});
    const TrialRecord trial = store->createTrial(study);
    store->setTrialParam(trial.id, "lr", lr, {Distribution::Kind::Float, 1e-4, 1e-2, true, std::nullopt, {}});
    const Distribution modes{Distribution::Kind::Categorical, 0, 1, false, std::nullopt, {"bilinear", "nearest"}};
    store->setTrialParam(trial.id, "upsample_mode", upsample == "nearest" ? 1 : 0, modes);
    const auto run = demo::startRun(*store, trial.id, seed, "cpu:0.0", demo::kStart, demo::runConfig(8, lr, upsample));
    demo::writeRunMetrics(*store, run, seed);
    store->finishRun(run, RunStatus::Succeeded, 0, "");
    store->setTrialUserAttr(trial.id, "driving_score", drivingScore);
    store->finishTrial(trial.id, TrialState::Complete, {objective});
    const auto notes = store->createStudy("Notes", {StudyDirection::Maximize});
    store->setTrialParam(store->createTrial(notes).id, "lr", lr,
                         {Distribution::Kind::Float, 1e-4, 1e-2, true, std::nullopt, {}});
}

QByteArray fileHash(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return "<unreadable>";
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex();
}
} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void differencesOnlyShowsExactlyTheDifferingKeys();
    void overlaysTheChosenMetric();
    void summarisesGroupsOfSeeds();
    void comparesTrialsOfTwoStudies();
    void comparesTrialsOfTwoDatabases();
    void sideBySideColumnsShareTheWidth();
    void refusesAFileThatIsNotAResultsDatabase_data();
    void refusesAFileThatIsNotAResultsDatabase();
    void flattensYaml();

private:
    // Shows `window`'s Compare view on `study` of the test database (or of `database`) and returns the view
    // (still loading).
    ui::CompareView* openCompare(ui::MainWindow& window, const char* study, const QString& database = {});

    QTemporaryDir m_dir;
    QString m_db;
    QString m_machineA; // machine-a/results.db: Baseline #0 with lr 0.001, bilinear, seed 0
    QString m_machineB; // machine-b/other.db: Baseline #0 with lr 0.003, nearest, seed 3
};

ui::CompareView* TestCompare::openCompare(ui::MainWindow& window, const char* study, const QString& database)
{
    window.focusStudy(study);
    window.showView(ui::View::Compare);
    window.show();
    window.openDatabase(database.isEmpty() ? m_db : database);
    return window.compareView();
}

void TestCompare::initTestCase()
{
    QCoreApplication::setOrganizationName("PitwallTest");
    QSettings().clear();
    m_db = m_dir.filePath("compare.db");
    auto store = openStore(m_db.toStdString());
    const auto study = store->createStudy("two-variants", {StudyDirection::Minimize});
    // Two trials whose resolved configs differ in exactly two keys (and share every other one).
    const std::string configs[] = {demo::runConfig(8, 0.001, "bilinear"), demo::runConfig(8, 0.002, "nearest")};
    for (int i = 0; i < 2; ++i) {
        const TrialRecord trial = store->createTrial(study);
        const auto run = demo::startRun(*store, trial.id, 0, "cpu:0.0", demo::kStart, configs[i]);
        demo::writeRunMetrics(*store, run, i);
        store->finishRun(run, RunStatus::Succeeded, 0, "");
        store->finishTrial(trial.id, TrialState::Complete, {0.5 + i});
    }
    demo::writeTrainStudy(*store);
    QVERIFY(QDir(m_dir.path()).mkpath("machine-a") && QDir(m_dir.path()).mkpath("machine-b"));
    m_machineA = m_dir.filePath("machine-a/results.db");
    m_machineB = m_dir.filePath("machine-b/other.db");
    // Two trials as Optuna writes them (no runs): parameters with every digit of a double.
    const auto optunaLike = store->createStudy("optuna-digits", {StudyDirection::Minimize});
    const Distribution lr{Distribution::Kind::Float, 1e-5, 1e-2, true, std::nullopt, {}};
    for (double value : {0.004303254965069589, 0.0001749991487239607}) {
        const TrialRecord trial = store->createTrial(optunaLike);
        store->setTrialParam(trial.id, "training.optimization.lr", value, lr);
        store->finishTrial(trial.id, TrialState::Complete, {value * 100});
    }
    writeMachineDatabase(m_machineA, 0.001, "bilinear", 0, 0.42, 61.5);
    writeMachineDatabase(m_machineB, 0.003, "nearest", 3, 0.37, 70.25);
}

void TestCompare::differencesOnlyShowsExactlyTheDifferingKeys()
{
    ui::MainWindow window;
    ui::CompareView* compare = openCompare(window, "two-variants");
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare), 10000);
    QCOMPARE(compare->checked(), QList<int>({0, 1}));
    QTRY_VERIFY(compare->configTable()->rowCount() > 5);
    const QStringList all = compare->visibleConfigKeys();
    QVERIFY(all.contains("experiment.name"));
    QVERIFY(all.contains("training.optimization.batch_size"));
    compare->differencesOnly()->setChecked(true);
    QStringList differing = compare->visibleConfigKeys();
    differing.sort();
    QCOMPARE(differing, QStringList({"policy.transfuser.upsample_mode", "training.optimization.lr"}));
    QCOMPARE(cell(compare->configTable(), "policy.transfuser.upsample_mode", "#1"), QString("nearest"));
    compare->differencesOnly()->setChecked(false);
    QCOMPARE(compare->visibleConfigKeys().size(), all.size());
}

void TestCompare::overlaysTheChosenMetric()
{
    ui::MainWindow window;
    ui::CompareView* compare = openCompare(window, "two-variants");
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare), 10000);
    QTRY_VERIFY(compare->metricChooser()->count() > 3);
    QCOMPARE(compare->metricChooser()->currentText(), QString("loss"));
    QVERIFY(compare->curves()->find("#0") && compare->curves()->find("#1"));
    // Choosing another metric asks the poller again and redraws both curves.
    const int index = compare->metricChooser()->findText("data_wait_ms");
    QVERIFY(index >= 0);
    compare->metricChooser()->setCurrentIndex(index);
    Q_EMIT compare->metricChooser()->activated(index);
    QTRY_VERIFY(window.viewReady(ui::View::Compare));
    // The chosen metric names the y axis: as its title, or, when the plot is too short for it, in the chart's title
    // ("Metric per trial: data_wait_ms"; ChartView never elides an axis title).
    const auto yNamed = [compare](const QString& name) {
        const QChart* chart = compare->curves()->chart();
        return chart->axes(Qt::Vertical).value(0)->titleText() == name || chart->title() == name ||
               chart->title().endsWith(QStringLiteral(": ") + name) ||
               chart->title().contains(QStringLiteral(": ") + name + QStringLiteral(" by "));
    };
    QTRY_VERIFY2(yNamed("data_wait_ms"), qPrintable(compare->curves()->chart()->title()));
    auto* series = qobject_cast<QLineSeries*>(compare->curves()->find("#1"));
    QVERIFY(series && series->count() > 10);
    QVERIFY(series->at(0).y() >= 2.0 && series->at(0).y() <= 9.0); // data_wait_ms, not loss
}

void TestCompare::summarisesGroupsOfSeeds()
{
    ui::MainWindow window;
    ui::CompareView* compare = openCompare(window, "transfuser-seeds");
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare) && window.snapshot().focusStudy == "transfuser-seeds",
                             10000);
    compare->setChecked({0, 1, 2});
    QTRY_VERIFY(window.viewReady(ui::View::Compare));
    QTableWidget* metrics = compare->metricsTable();
    QCOMPARE(cell(metrics, "objective", "#0"), QString("0.81"));
    QCOMPARE(cell(metrics, "objective", "#1 (Δ vs #0)"), QString("0.79 (-0.02)"));
    QCOMPARE(cell(metrics, "objective", "mean ± std (#0,#1,#2)"), QString("0.81 ± 0.02 (n=3)"));
    QCOMPARE(cell(metrics, "metrics/waypoint_l1", "mean ± std (#0,#1,#2)"), QString("1.1 ± 0.1 (n=3)"));
    // Deltas coloured by which way is better: the objective (a minimised study) went down, better; the waypoint
    // error went up, worse. The first trial's own column, the reference, is not coloured.
    const QPalette palette = compare->palette();
    QCOMPARE(cellItem(metrics, "objective", "#1 (Δ vs #0)")->foreground().color(), ui::stateColor("BEST", palette));
    QTableWidgetItem* worse = cellItem(metrics, "metrics/waypoint_l1", "#1 (Δ vs #0)");
    QCOMPARE(worse->text(), QString("1.1 (+0.1)"));
    QCOMPARE(worse->foreground().color(), ui::stateColor("FAIL", palette));
    QVERIFY2(worse->toolTip().startsWith("1.1000000000000001") && worse->toolTip().endsWith("(worse)"),
             qPrintable(worse->toolTip()));
    QCOMPARE(cellItem(metrics, "objective", "#0")->foreground().style(), Qt::NoBrush);
    // Seeds of one config: no config differences at all.
    compare->differencesOnly()->setChecked(true);
    QTRY_COMPARE(compare->visibleConfigKeys(), QStringList());
}

void TestCompare::comparesTrialsOfTwoStudies()
{
    ui::MainWindow window;
    ui::CompareView* compare = openCompare(window, "two-variants");
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare), 10000);
    QTreeWidget* tree = compare->picker();
    using Ref = ui::TrialRef;
    QCOMPARE(compare->checkedTrials(), QList<Ref>({{"two-variants", 0}, {"two-variants", 1}}));
    // Every study of the database is in the picker, not only the one in focus.
    QTreeWidgetItem* seeds = studyRow(tree, "transfuser-seeds");
    QVERIFY(seeds && studyRow(tree, "two-variants"));
    QCOMPARE(seeds->childCount(), 4);
    QVERIFY(!seeds->isExpanded());

    // Untick two-variants #0 with the mouse.
    QTreeWidgetItem* first = compare->pickerItem({"two-variants", 0});
    QVERIFY(first);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, checkBoxCentre(tree, first));
    QCOMPARE(first->checkState(0), Qt::Unchecked);
    // Open transfuser-seeds with the keyboard, tick its #1 with the mouse and its #2 with the space bar.
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(seeds).center());
    QCOMPARE(tree->currentItem(), seeds);
    QTest::keyClick(tree->viewport(), Qt::Key_Right);
    QVERIFY(seeds->isExpanded());
    QTreeWidgetItem* seed1 = compare->pickerItem({"transfuser-seeds", 1});
    QTreeWidgetItem* seed2 = compare->pickerItem({"transfuser-seeds", 2});
    QVERIFY(seed1 && seed2);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, checkBoxCentre(tree, seed1));
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(seed2).center());
    QCOMPARE(tree->currentItem(), seed2);
    QTest::keyClick(tree->viewport(), Qt::Key_Space);
    QCOMPARE(compare->checkedTrials(),
             QList<Ref>({{"two-variants", 1}, {"transfuser-seeds", 1}, {"transfuser-seeds", 2}}));

    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare), 10000);
    // The metrics: each trial labelled with its study, deltas against the first, seeds grouped within a study.
    QTableWidget* metrics = compare->metricsTable();
    QCOMPARE(headers(metrics),
             QStringList({"Metric", "two-variants / #1", "transfuser-seeds / #1 (Δ vs two-variants / #1)",
                          "transfuser-seeds / #2 (Δ vs two-variants / #1)",
                          "mean ± std (transfuser-seeds / #1,transfuser-seeds / #2)"}));
    QCOMPARE(cell(metrics, "objective", "two-variants / #1"), QString("1.5"));
    QCOMPARE(cell(metrics, "objective", "transfuser-seeds / #1 (Δ vs two-variants / #1)"), QString("0.79 (-0.71)"));
    QCOMPARE(cell(metrics, "objective", "mean ± std (transfuser-seeds / #1,transfuser-seeds / #2)"),
             QString("0.81 ± 0.028284 (n=2)"));
    // The configs: the runs' resolved configs of both studies, side by side.
    QTRY_COMPARE(cell(compare->configTable(), "policy.transfuser.upsample_mode", "transfuser-seeds / #1"),
                 QString("bilinear"));
    QCOMPARE(cell(compare->configTable(), "policy.transfuser.upsample_mode", "two-variants / #1"), QString("nearest"));
    compare->differencesOnly()->setChecked(true);
    QStringList differing = compare->visibleConfigKeys();
    differing.sort();
    QCOMPARE(differing, QStringList({"policy.transfuser.upsample_mode", "training.optimization.lr"}));
    // The curves: one per trial, each run's own points.
    QTRY_VERIFY(compare->curves()->find("transfuser-seeds / #2"));
    for (const char* key : {"two-variants / #1", "transfuser-seeds / #1", "transfuser-seeds / #2"}) {
        auto* series = qobject_cast<QLineSeries*>(compare->curves()->find(key));
        QVERIFY2(series && series->count() > 10, key);
        QCOMPARE(series->name(), QString(key));
    }
}

void TestCompare::comparesTrialsOfTwoDatabases()
{
    const QByteArray before = fileHash(m_machineB);
    ui::MainWindow window;
    ui::CompareView* compare = openCompare(window, "Baseline", m_machineA);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare), 10000);
    using Ref = ui::TrialRef;
    QCOMPARE(compare->checkedTrials(), QList<Ref>({{"Baseline", 0}}));
    QVERIFY(!compare->removeDatabaseButton()->isEnabled());

    // "Add database…" with the mouse; the test's chooser stands in for the file dialog.
    compare->setDatabaseChooser([this] { return m_machineB; });
    QTest::mouseClick(compare->addDatabaseButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare) && compare->databases().size() == 1, 10000);
    const QString other = QFileInfo(m_machineB).absoluteFilePath();
    QCOMPARE(compare->databases(), QStringList{other});

    // Every study of both databases is listed, each labelled with its database's file name.
    QTreeWidget* tree = compare->picker();
    QTreeWidgetItem* ownBaseline = compare->pickerStudy("Baseline");
    QTreeWidgetItem* otherBaseline = compare->pickerStudy("Baseline", other);
    QVERIFY(ownBaseline && otherBaseline && compare->pickerStudy("Notes", other) && compare->pickerStudy("Notes"));
    QVERIFY2(ownBaseline->text(0).startsWith("results.db / Baseline  (1 "), qPrintable(ownBaseline->text(0)));
    QVERIFY2(otherBaseline->text(0).startsWith("other.db / Baseline  (1 "), qPrintable(otherBaseline->text(0)));
    QVERIFY(!otherBaseline->isExpanded());

    // Open the other database's Baseline with the keyboard and tick its #0 with the mouse.
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(otherBaseline).center());
    QCOMPARE(tree->currentItem(), otherBaseline);
    QVERIFY(compare->removeDatabaseButton()->isEnabled());
    QTest::keyClick(tree->viewport(), Qt::Key_Right);
    QVERIFY(otherBaseline->isExpanded());
    QTreeWidgetItem* otherTrial = compare->pickerItem({"Baseline", 0, other});
    QVERIFY(otherTrial);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, checkBoxCentre(tree, otherTrial));
    QCOMPARE(otherTrial->checkState(0), Qt::Checked);
    QCOMPARE(compare->checkedTrials(), QList<Ref>({{"Baseline", 0}, {"Baseline", 0, other}}));
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare), 10000);

    // The metrics of both, under labels that name the database, the delta against the first and no seed group
    // across databases.
    const QString a = "results.db / Baseline / #0";
    const QString b = "other.db / Baseline / #0";
    const QString bDelta = b + " (Δ vs " + a + ")";
    QTableWidget* metrics = compare->metricsTable();
    QCOMPARE(headers(metrics), QStringList({"Metric", a, bDelta})); // no spread column for a group of one
    QCOMPARE(cell(metrics, "objective", a), QString("0.42"));
    QCOMPARE(cell(metrics, "objective", bDelta), QString("0.37 (-0.05)"));
    QCOMPARE(cell(metrics, "driving_score", a), QString("61.5"));
    QCOMPARE(cell(metrics, "driving_score", bDelta), QString("70.25 (+8.75)"));
    // The configs: each run's own (both databases have a run 1).
    QTRY_COMPARE(cell(compare->configTable(), "policy.transfuser.upsample_mode", b), QString("nearest"));
    QCOMPARE(cell(compare->configTable(), "policy.transfuser.upsample_mode", a), QString("bilinear"));
    // (the text demo::runConfig wrote: std::to_string follows the C locale, "0,001000" under de_DE)
    QCOMPARE(cell(compare->configTable(), "training.optimization.lr", a),
             QString::fromStdString(std::to_string(0.001)));
    QCOMPARE(cell(compare->configTable(), "training.optimization.lr", b),
             QString::fromStdString(std::to_string(0.003)));
    // The curves: one per database, each its own run's points.
    QTRY_VERIFY(compare->curves()->find(b));
    for (const auto& [key, seed] : {std::pair{a, 0}, std::pair{b, 3}}) {
        auto* series = qobject_cast<QLineSeries*>(compare->curves()->find(key));
        QVERIFY2(series && series->count() > 10, qPrintable(key));
        QCOMPARE(series->name(), key);
        QVERIFY2(std::abs(series->at(0).y() - firstLoss(seed)) < 1e-6, qPrintable(key));
    }
    QCOMPARE(fileHash(m_machineB), before); // read, never written

    // "Remove database" (the other database's study is selected) takes it and its trial out again.
    QTest::mouseClick(compare->removeDatabaseButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(compare->databases().isEmpty(), 10000);
    QCOMPARE(compare->checkedTrials(), QList<Ref>({{"Baseline", 0}}));
    QVERIFY(!compare->pickerStudy("Baseline", other));
    QVERIFY(compare->pickerStudy("Baseline")->text(0).startsWith("Baseline  (1 "));
    QTRY_COMPARE(headers(compare->metricsTable()), QStringList({"Metric", "#0"}));
}

void TestCompare::sideBySideColumnsShareTheWidth()
{
    ui::MainWindow window;
    ui::CompareView* compare = openCompare(window, "optuna-digits");
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare) && window.snapshot().focusStudy == "optuna-digits",
                             10000);
    compare->setChecked({0, 1});
    QTRY_VERIFY(window.viewReady(ui::View::Compare));
    for (QSize size : {QSize(1200, 760), QSize(1024, 700)}) {
        window.resize(size);
        QTRY_COMPARE(window.size(), size);
        QTableWidget* config = compare->configTable();
        QTRY_VERIFY(config->rowCount() == 1);
        // Six significant digits, every digit in the tooltip.
        QTableWidgetItem* lr = cellItem(config, "training.optimization.lr", "#0");
        QVERIFY(lr);
        QCOMPARE(lr->text(), QString("0.00430325"));
        QCOMPARE(lr->toolTip(), QString("0.004303254965069589"));
        QCOMPARE(cellItem(config, "training.optimization.lr", "#1")->text(), QString("0.000174999"));
        // Both trials' columns equally wide and inside the table: none is pushed out of sight.
        QCoreApplication::processEvents();
        QVERIFY2(std::abs(config->columnWidth(1) - config->columnWidth(2)) <= 1, // the remainder pixel
                 qPrintable(QStringLiteral("%1 vs %2").arg(config->columnWidth(1)).arg(config->columnWidth(2))));
        QVERIFY2(config->columnViewportPosition(2) + config->columnWidth(2) <= config->viewport()->width(),
                 qPrintable(QStringLiteral("%1 + %2 > %3")
                                .arg(config->columnViewportPosition(2))
                                .arg(config->columnWidth(2))
                                .arg(config->viewport()->width())));
        QVERIFY(config->columnWidth(1) >= config->fontMetrics().horizontalAdvance(lr->text()));
    }
}

void TestCompare::refusesAFileThatIsNotAResultsDatabase_data()
{
    QTest::addColumn<QByteArray>("sql"); // run on a new SQLite file; empty: write `text` instead
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("reason");
    QTest::newRow("text file") << QByteArray() << QByteArray("lr: 0.001\nnotes about a run\n") << "not an SQLite file";
    QTest::newRow("another program's SQLite database")
        << QByteArray("CREATE TABLE recipes(name TEXT, minutes INTEGER); INSERT INTO recipes VALUES('soup', 20);")
        << QByteArray() << "neither a Pitwall nor an Optuna results database (its tables: recipes)";
    QTest::newRow("empty file") << QByteArray() << QByteArray() << "an empty database";
}

void TestCompare::refusesAFileThatIsNotAResultsDatabase()
{
    QFETCH(QByteArray, sql);
    QFETCH(QByteArray, text);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    const QString path = dir.filePath("foreign.db");
    if (!sql.isEmpty()) {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    } else {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
    }
    const QByteArray before = fileHash(path);
    const QStringList filesBefore = QDir(dir.path()).entryList(QDir::Files);

    ui::MainWindow window;
    ui::CompareView* compare = openCompare(window, "Baseline", m_machineA);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Compare), 10000);
    compare->setDatabaseChooser([&] { return path; });
    QTest::mouseClick(compare->addDatabaseButton(), Qt::LeftButton);

    // A message box names the file and says why; the status bar says it too.
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = compare->findChild<QMessageBox*>("compareDatabaseError")) && box->isVisible(),
                             10000);
    QVERIFY2(box->text().contains("foreign.db"), qPrintable(box->text()));
    QVERIFY2(box->informativeText().contains(reason), qPrintable(box->informativeText()));
    bool inStatus = false;
    for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
        inStatus = inStatus || (label->text().contains("foreign.db") && label->text().contains(reason));
    QVERIFY(inStatus);
    QTest::mouseClick(box->button(QMessageBox::Ok), Qt::LeftButton);
    QTRY_VERIFY(!compare->findChild<QMessageBox*>("compareDatabaseError"));

    // Nothing added, nothing written (no byte, no journal beside it), and the comparison goes on.
    QTRY_VERIFY(window.viewReady(ui::View::Compare));
    QVERIFY(compare->databases().isEmpty());
    QCOMPARE(fileHash(path), before);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), filesBefore);
    QCOMPARE(compare->picker()->topLevelItemCount(), 2);
    QCOMPARE(compare->checkedTrials(), QList<ui::TrialRef>({{"Baseline", 0}}));
    QCOMPARE(cell(compare->metricsTable(), "objective", "#0"), QString("0.42"));
}

void TestCompare::flattensYaml()
{
    const auto flat = ui::flattenYaml("a:\n  b: 1\n  c: [1, 2]\nd: x\n");
    QCOMPARE(flat.size(), std::size_t(3));
    QCOMPARE(flat[0].first, QString("a.b"));
    QCOMPARE(flat[1].second, QString("[1, 2]"));
    QCOMPARE(flat[2].first, QString("d"));
}

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
