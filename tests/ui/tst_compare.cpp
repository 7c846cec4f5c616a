// The compare view over a real database: configs side by side from the runs' config_yaml, "differences
// only" showing exactly the keys whose values differ, the chosen metric's curves, and mean ± std per group of
// seeds; trials ticked (with the mouse and the keyboard) in two different studies side by side, labelled
// "study / #n". If this fails, a comparison hides a difference that explains a result, shows noise as one, or
// cannot put two variants of a benchmark (each its own study) next to each other.
#include "demodb.h"

#include "ui/chartview.h"
#include "ui/mainwindow.h"
#include "ui/views/compareview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineSeries>
#include <QSettings>
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
} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void differencesOnlyShowsExactlyTheDifferingKeys();
    void overlaysTheChosenMetric();
    void summarisesGroupsOfSeeds();
    void comparesTrialsOfTwoStudies();
    void flattensYaml();

private:
    // Shows `window`'s Compare view on `study` of the test database and returns the view (still loading).
    ui::CompareView* openCompare(ui::MainWindow& window, const char* study);

    QTemporaryDir m_dir;
    QString m_db;
};

ui::CompareView* TestCompare::openCompare(ui::MainWindow& window, const char* study)
{
    window.focusStudy(study);
    window.showView(ui::View::Compare);
    window.show();
    window.openDatabase(m_db);
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
    QTRY_COMPARE(compare->curves()->chart()->axes(Qt::Vertical).value(0)->titleText(), QString("data_wait_ms"));
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
                          "transfuser-seeds / #2 (Δ vs two-variants / #1)", "mean ± std (two-variants / #1)",
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
