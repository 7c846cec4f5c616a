// The Benchmarks view draws what its tables hold, read from a real database through the window's poller:
// LEAD's variants as training time against driving score (one labelled point per variant) and their stage
// times as stacked bars, AutoSpeed's optimisation ladder as FPS bars per rung, and the partition benchmark as
// FPS against batch size, a line per mode. Every value is compared with the figure stored in demodb.h. If this
// fails, a chart shows a variant, rung or mode at a place its table does not (or misses it), for instance
// because a stored "9.1" was read with the desktop's decimal comma.
#include "demodb.h"

#include "ui/benchmarks/benchmarksview.h"
#include "ui/charts/chartview.h"
#include "ui/mainwindow.h"
#include "ui/studies/studiesview.h"

#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QComboBox>
#include <QFontMetricsF>
#include <QDir>
#include <QHeaderView>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace pitwall;

namespace {

// A bar chart's category labels: the variants' names when every one fits its bar, else their numbers 1..n with the
// names in the chart's tooltip ("2  Logits"). Either way each bar can be told apart.
bool labelsTellBarsApart(const ui::BarChartView* bars, const QStringList& names)
{
    const QStringList categories = bars->categories();
    if (categories == names) {
        const QFontMetricsF metrics(bars->chart()->axes(Qt::Horizontal).value(0)->labelsFont());
        for (const QString& name : names)
            if (metrics.horizontalAdvance(name) > bars->chart()->plotArea().width() / names.size())
                return false; // a name that does not fit is elided
        return true;
    }
    for (int i = 0; i < names.size(); ++i)
        if (categories.value(i) != QString::number(i + 1) ||
            !bars->toolTip().contains(QString::number(i + 1) + "  " + names[i]))
            return false;
    return categories.size() == names.size();
}

// The bar set labelled `label`: its values by category.
QList<double> barValues(ui::BarChartView* chart, const QString& label)
{
    QList<double> out;
    for (QBarSet* set : chart->series()->barSets())
        if (set->label() == label)
            for (int i = 0; i < set->count(); ++i)
                out << set->at(i);
    return out;
}

void compareValues(const QList<double>& actual, const QList<double>& expected)
{
    QCOMPARE(actual.size(), expected.size());
    for (int i = 0; i < actual.size(); ++i)
        QCOMPARE(actual[i], expected[i]);
}
} // namespace

class TestBenchmarks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void variantsAsTimeAgainstDrivingScore();
    void variantsStageTimesAsStackedBars();
    void ladderAsBarsPerRung();
    void partitionsAsALinePerMode();
    void otherSuitesHaveNoChart();
    void longVariantNamesKeepTheFiguresInSight();

private:
    QTemporaryDir m_dir;
    QString m_db;
    ui::MainWindow* m_window = nullptr;
    ui::BenchmarksView* m_view = nullptr;
};

void TestBenchmarks::initTestCase()
{
    QCoreApplication::setOrganizationName("PitwallTest");
    QSettings().clear();
    m_db = m_dir.filePath("benchmarks.db");
    demo::writeDemoDatabase(m_db);
    // Variants named by their whole override strings, as `bench variants` names unnamed ones; the last two have
    // the same configuration.
    auto store = openStore(m_db.toStdString());
    const std::vector<std::pair<std::string, Json>> variants{
        {"Baseline", Json::object()},
        {"+ policy.transfuser.upsample_perspective_logits=true",
         Json{{"policy.transfuser.upsample_perspective_logits", true}}},
        {"+ policy.transfuser.upsample_mode=nearest", Json{{"policy.transfuser.upsample_mode", "nearest"}}},
        {"policy.transfuser.upsample_perspective_logits=true, policy.transfuser.upsample_mode=nearest",
         Json{{"policy.transfuser.upsample_perspective_logits", true}, {"policy.transfuser.upsample_mode", "nearest"}}},
        {"policy.transfuser.upsample_mode=nearest, policy.transfuser.upsample_perspective_logits=true",
         Json{{"policy.transfuser.upsample_mode", "nearest"}, {"policy.transfuser.upsample_perspective_logits", true}}}};
    for (std::size_t i = 0; i < variants.size(); ++i) {
        BenchmarkRecord b;
        b.suite = "variants";
        b.name = "long-names/" + variants[i].first;
        b.parameters = variants[i].second;
        b.parameters["experiment.name"] = b.name;
        b.results = Json{{"Variant", variants[i].first}, {"Pretrain (s)", "5.0"}, {"Post-train (s)", "3.0"},
                         {"Total (s)", "8.0"}, {"Compute FPS", "120.5"}, {"Full FPS", "118.2"},
                         {"Waypoint L1 (m) \xE2\x86\x93", "1.1"}, {"Driving Score \xE2\x86\x91", "44.0 \xC2\xB1 2.0"},
                         {"driving_score_stderr", 2.0}, {"study", b.name}};
        b.host = "vm";
        b.time = demo::kStart + static_cast<double>(i);
        store->addBenchmark(b);
        store->createStudy(b.name, {StudyDirection::Minimize}); // each variant's study, named the same
    }
}

void TestBenchmarks::init()
{
    m_window = new ui::MainWindow;
    m_window->showView(ui::View::Benchmarks);
    m_window->show();
    m_window->openDatabase(m_db);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->viewReady(ui::View::Benchmarks), 10000);
    m_view = m_window->benchmarksView();
    QTRY_VERIFY(m_view->suites().contains("partitions"));
}

void TestBenchmarks::cleanup()
{
    // Set PITWALL_UI_SCREENSHOT_DIR to look at what each test checked.
    const QString dir = qEnvironmentVariable("PITWALL_UI_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        QTest::qWait(100); // lets the charts lay out their legends
        m_window->grab().save(
            QDir(dir).filePath(QStringLiteral("benchmarks-%1.png").arg(QTest::currentTestFunction())));
    }
    delete m_window;
    m_window = nullptr;
}

void TestBenchmarks::variantsAsTimeAgainstDrivingScore()
{
    m_view->showSuite("variants");
    QCOMPARE(m_view->benchmarks(), QStringList({"lead-speed", "autospeed-optimizations", "long-names"}));
    m_view->showBenchmark("lead-speed");
    QCOMPARE(m_view->table()->rowCount(), 3); // the table holds the chosen benchmark's variants only
    auto* chart = m_view->findChild<ui::ChartView*>("benchmarkTradeoff");
    QVERIFY(chart && chart->isVisible());
    QCOMPARE(chart->title(), QString("Training time vs driving score"));
    QVERIFY(chart->chart()->title().startsWith(chart->title())); // shown, with the y axis's title when it moved there
    const QStringList variants = {"Baseline", "Logits", "Logits+Nearest"};
    QCOMPARE(chart->chart()->series().size(), variants.size());
    for (int i = 0; i < variants.size(); ++i) {
        auto* point = qobject_cast<QScatterSeries*>(chart->find(variants[i]));
        QVERIFY2(point, qPrintable(variants[i]));
        QCOMPARE(point->name(), QString::number(i + 1) + "  " + variants[i]); // the legend: number and name
        QCOMPARE(point->count(), 1);
        QCOMPARE(point->at(0).x(), 16.6 - i);                // "Total (s)"
        QCOMPARE(point->at(0).y(), demo::kDrivingScores[i]); // "Driving Score ↑", the mean of "42.0 ± 1.5"
        QVERIFY(point->pointLabelsVisible());
        QCOMPARE(point->pointLabelsFormat(), QString::number(i + 1)); // numbers never print over each other
    }
}

void TestBenchmarks::variantsStageTimesAsStackedBars()
{
    m_view->showSuite("variants");
    m_view->showBenchmark("lead-speed");
    auto* bars = m_view->findChild<ui::BarChartView*>("benchmarkStageTimes");
    QVERIFY(bars && bars->isVisible());
    QCOMPARE(bars->series()->type(), QAbstractSeries::SeriesTypeStackedBar);
    QVERIFY2(labelsTellBarsApart(bars, {"Baseline", "Logits", "Logits+Nearest"}), qPrintable(bars->categories().join('|')));
    compareValues(barValues(bars, "Pretrain (s)"), {9.1, 8.1, 7.1});
    compareValues(barValues(bars, "Post-train (s)"), {7.5, 7.5, 7.5});
    QVERIFY(!m_view->findChild<ui::BarChartView*>("benchmarkLadder")->isVisible()); // not a ladder
}

void TestBenchmarks::ladderAsBarsPerRung()
{
    m_view->showSuite("variants");
    m_view->showBenchmark("lead-speed");
    // The user picks the other benchmark file with the keyboard.
    auto* file = m_view->findChild<QComboBox*>("benchmarkFile");
    QVERIFY(file && file->isVisible());
    file->setFocus();
    QTest::keyClick(file, Qt::Key_Down);
    QCOMPARE(file->currentText(), QString(ui::kLadderBenchmark));
    QCOMPARE(m_view->table()->rowCount(), 5);

    auto* ladder = m_view->findChild<ui::BarChartView*>("benchmarkLadder");
    QVERIFY(ladder && ladder->isVisible());
    QStringList rungs;
    QList<double> compute, full, seconds;
    for (std::size_t i = 0; i < std::size(demo::kLadderRungs); ++i) {
        rungs << demo::kLadderRungs[i];
        compute << demo::kLadderComputeFps[i];
        full << QString::number(demo::kLadderComputeFps[i] * 0.8, 'f', 1).toDouble(); // stored with one decimal
        seconds << demo::kLadderSeconds[i];
    }
    QVERIFY2(labelsTellBarsApart(ladder, rungs), qPrintable(ladder->categories().join('|')));
    QCOMPARE(ladder->series()->type(), QAbstractSeries::SeriesTypeBar);
    compareValues(barValues(ladder, "Compute FPS"), compute);
    compareValues(barValues(ladder, "Full FPS"), full);
    compareValues(barValues(m_view->stageTimesChart(), "Pretrain (s)"), seconds);
    // No driving score in the ladder: time against its quality column.
    auto* tradeoff = m_view->tradeoffChart();
    QCOMPARE(tradeoff->chart()->title(), QString("Training time vs mAP50-95 \u2191"));
    QCOMPARE(tradeoff->chart()->series().size(), rungs.size());
    auto* last = qobject_cast<QScatterSeries*>(tradeoff->find("All"));
    QVERIFY(last && last->count() == 1);
    QCOMPARE(last->at(0), QPointF(12.0, 0.412));
}

void TestBenchmarks::partitionsAsALinePerMode()
{
    m_view->showSuite("partitions");
    QCOMPARE(m_view->table()->rowCount(), 6);
    QVERIFY(!m_view->tradeoffChart()->isVisible());
    auto* compute = m_view->findChild<ui::ChartView*>("benchmarkComputeFps");
    auto* full = m_view->findChild<ui::ChartView*>("benchmarkFullFps");
    QVERIFY(compute && full && compute->isVisible() && full->isVisible());
    for (ui::ChartView* chart : {compute, full}) {
        QCOMPARE(chart->chart()->series().size(), 2);
        for (const char* mode : {"SPX", "CPX"}) {
            auto* line = qobject_cast<QLineSeries*>(chart->find(mode));
            QVERIFY2(line, mode);
            QCOMPARE(line->count(), 3);
            const int batches[] = {8, 16, 32};
            for (int i = 0; i < 3; ++i) {
                const double fps = demo::partitionComputeFps(mode, batches[i]) * (chart == full ? 0.75 : 1.0);
                QCOMPARE(line->at(i), QPointF(batches[i], fps));
            }
        }
    }
}

void TestBenchmarks::otherSuitesHaveNoChart()
{
    m_view->showSuite("loader");
    QCOMPARE(m_view->table()->rowCount(), 1);
    for (const char* name :
         {"benchmarkTradeoff", "benchmarkStageTimes", "benchmarkLadder", "benchmarkComputeFps", "benchmarkFullFps"})
        QVERIFY2(!m_view->findChild<QWidget*>(name)->isVisible(), name);
    QVERIFY(!m_view->findChild<QComboBox*>("benchmarkFile")->isVisible());
}

// Long variant names elide in the middle at a third of the table: every figure column, the driving score's
// included, stays in sight at the default size and at 1024x700; the charts label by number; a variant with the
// same configuration as an earlier one is flagged.
void TestBenchmarks::longVariantNamesKeepTheFiguresInSight()
{
    for (QSize size : {QSize(1200, 760), QSize(1024, 700)}) {
        m_window->resize(size);
        QTRY_COMPARE(m_window->size(), size);
        m_view->showSuite("variants");
        m_view->showBenchmark("long-names");
        QTableWidget* table = m_view->table();
        QTRY_COMPARE(table->rowCount(), 5);
        QCoreApplication::processEvents();
        QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
        for (const QString& column : {QString("Total (s)"), QString("Full FPS"), QString("Waypoint L1 (m) \u2193"),
                                      QString("Driving Score \u2191")}) {
            int c = -1;
            for (int i = 0; i < table->columnCount(); ++i)
                if (table->horizontalHeaderItem(i)->text().replace('\n', ' ') == column)
                    c = i;
            QVERIFY2(c >= 0, qPrintable(column));
            QVERIFY2(table->columnViewportPosition(c) + table->columnWidth(c) <= table->viewport()->width(),
                     qPrintable(QStringLiteral("%1 at %2x%3: %4 + %5 > %6")
                                    .arg(column)
                                    .arg(size.width())
                                    .arg(size.height())
                                    .arg(table->columnViewportPosition(c))
                                    .arg(table->columnWidth(c))
                                    .arg(table->viewport()->width())));
        }
        // The full name in the tooltip of the elided cell.
        QVERIFY(table->item(3, 2)->toolTip().contains(
            "policy.transfuser.upsample_perspective_logits=true, policy.transfuser.upsample_mode=nearest"));
    }
    // The same configuration (keys in another order) is flagged, the others are not.
    QTableWidget* table = m_view->table();
    QCOMPARE(table->horizontalHeaderItem(0)->text(), QString("#"));
    QCOMPARE(table->item(0, 0)->text(), QString("1"));
    QCOMPARE(table->item(3, 0)->text(), QString("4"));
    QCOMPARE(table->item(4, 0)->text(), QString("5 \u2261 #4"));
    QVERIFY(table->item(4, 1)->toolTip().startsWith("The same configuration as #4"));
    // Charts: numbered points and bars (the names are too long to print side by side).
    auto* tradeoff = m_view->tradeoffChart();
    auto* point = qobject_cast<QScatterSeries*>(tradeoff->find("+ policy.transfuser.upsample_mode=nearest"));
    QVERIFY(point);
    QCOMPARE(point->pointLabelsFormat(), QString("3"));
    QCOMPARE(m_view->stageTimesChart()->categories(), QStringList({"1", "2", "3", "4", "5"}));
    QVERIFY(m_view->stageTimesChart()->toolTip().contains("3  + policy.transfuser.upsample_mode=nearest"));

    // The side bar at the default size: the variants' studies' names elide in the middle so that Kind, State, Best
    // and Done stay in sight; the full name is in the tooltip.
    m_window->resize(1200, 760);
    QTRY_COMPARE(m_window->size(), QSize(1200, 760));
    ui::StudiesView* side = m_window->studiesView();
    QCoreApplication::processEvents();
    QCOMPARE(side->textElideMode(), Qt::ElideMiddle);
    const QString longest =
        "long-names/policy.transfuser.upsample_perspective_logits=true, policy.transfuser.upsample_mode=nearest";
    QTreeWidgetItem* row = nullptr;
    for (int i = 0; i < side->topLevelItemCount(); ++i)
        if (side->topLevelItem(i)->text(ui::StudiesView::kName) == longest)
            row = side->topLevelItem(i);
    QVERIFY(row);
    QVERIFY(row->toolTip(ui::StudiesView::kName).startsWith(longest + "\n"));
    QVERIFY(side->columnWidth(ui::StudiesView::kName) < side->fontMetrics().horizontalAdvance(longest));
    const int done = ui::StudiesView::kComplete;
    QVERIFY2(side->header()->sectionViewportPosition(done) + side->columnWidth(done) <= side->viewport()->width(),
             qPrintable(QStringLiteral("Done at %1 + %2 > %3")
                            .arg(side->header()->sectionViewportPosition(done))
                            .arg(side->columnWidth(done))
                            .arg(side->viewport()->width())));
    QVERIFY(!side->isColumnHidden(ui::StudiesView::kKind) && !side->isColumnHidden(ui::StudiesView::kState));

    // At 1024x700 the side bar is too narrow for every column: Kind and State give way (the name's tooltip says
    // both), Best and Done stay in sight.
    m_window->resize(1024, 700);
    QTRY_COMPARE(m_window->size(), QSize(1024, 700));
    QCoreApplication::processEvents();
    for (int column : {int(ui::StudiesView::kBest), done}) {
        QVERIFY(!side->isColumnHidden(column));
        QVERIFY2(side->header()->sectionViewportPosition(column) + side->columnWidth(column) <= side->viewport()->width(),
                 qPrintable(QStringLiteral("column %1 at %2 + %3 > %4")
                                .arg(column)
                                .arg(side->header()->sectionViewportPosition(column))
                                .arg(side->columnWidth(column))
                                .arg(side->viewport()->width())));
    }
    QVERIFY(side->isColumnHidden(ui::StudiesView::kKind));
    QVERIFY(row->toolTip(ui::StudiesView::kName).contains(row->text(ui::StudiesView::kKind) + " · " +
                                                          row->text(ui::StudiesView::kState)));
    m_window->resize(1200, 760);
    QTRY_COMPARE(m_window->size(), QSize(1200, 760));
    QCoreApplication::processEvents();
    QVERIFY(!side->isColumnHidden(ui::StudiesView::kKind) && !side->isColumnHidden(ui::StudiesView::kState));
}

QTEST_MAIN(TestBenchmarks)
#include "tst_benchmarks.moc"
