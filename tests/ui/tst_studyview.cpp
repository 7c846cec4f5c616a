// The study view over an HPO study: history with best-so-far, intermediate values with pruned trials,
// parallel coordinates with brushing, correlation-based importance, the timeline per logical device and
// the top-k filter. If these fail, the view misleads about which trials were best and why.
#include "demodb.h"

#include "ui/charts/chartview.h"
#include "ui/charts/markerlayer.h"
#include "ui/mainwindow.h"
#include "ui/poller/storepoller.h"
#include "ui/studies/studiesview.h"
#include "ui/studies/trialspage.h"
#include "ui/studies/trialsview.h"
#include "ui/study/internal/parallelcoords.h"
#include "ui/study/internal/parampicker.h"
#include "ui/study/internal/paretoview.h"
#include "ui/study/internal/studyframe.h"
#include "ui/study/internal/studywidgets.h"
#include "ui/study/studymath.h"
#include "ui/study/studyview.h"
#include "ui/theme.h"

#include "core/store/pareto.h"

#include <QComboBox>
#include <QSpinBox>
#include <QLabel>
#include <QTabWidget>
#include <QLineSeries>
#include <QSettings>
#include <QTemporaryDir>
#include <QXYSeries>
#include "core/hpo/triallabels.h"

#include <QtTest>

#include <QListView>

#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "tests/support/besttrialcases.h"

using namespace pitwall;

Q_DECLARE_METATYPE(pitwall::test::BestTrialCase)

namespace {

// A study with objectives (loss minimised, fps maximised) as Optuna writes it, one complete trial per value pair
// (lr 0.001 × (i + 1)); `infeasible` trials get a constraint of 1, the others -1 (none when empty).
void writeLossFpsStudy(const QString& db, const std::string& name, const std::vector<std::vector<double>>& values,
                       const std::set<std::size_t>& infeasible = {}, bool constraints = false)
{
    auto store = openStore(db.toStdString());
    const auto study = store->createStudy(name, {StudyDirection::Minimize, StudyDirection::Maximize});
    store->setStudySystemAttr(study, kMetricNamesAttr, Json::array({"loss", "fps"}));
    const Distribution lr{Distribution::Kind::Float, 1e-4, 1e-1, true, std::nullopt, {}};
    for (std::size_t i = 0; i < values.size(); ++i) {
        const TrialRecord trial = store->createTrial(study);
        store->setTrialParam(trial.id, "lr", 0.001 * (i + 1), lr);
        if (constraints)
            store->setTrialSystemAttr(trial.id, kConstraintsAttr, Json::array({infeasible.count(i) ? 1.0 : -1.0}));
        store->finishTrial(trial.id, TrialState::Complete, values[i]);
    }
}

} // namespace

class TestStudyView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void drawsTheStudy();
    void brushesAnAxis();
    void filtersTopK();
    void showsASnapshotWithOtherStudiesRuns();
    void ranksImportance();
    void namesTheObjectivesOfATwoObjectiveStudy();
    void drawsTheParetoFrontAndOpensATrial();
    void picksTheObjectivesOfAThreeObjectiveFront();
    void namesTheTrialsOfNamedPoints();
    void drawsTheObjectiveChosenForTheOneObjectiveCharts();
    void greysImportanceFromFewTrials();
    void drawsWholeCurvesOfTrialsReadSummarised();
    void denseLayerKeepsEveryLine();
    void agreesOnTheBestTrial_data();
    void agreesOnTheBestTrial();

private:
    QTemporaryDir m_dir;
    QString m_db;
    std::vector<TrialRecord> m_trials;
};

void TestStudyView::initTestCase()
{
    QCoreApplication::setOrganizationName("PitwallTest");
    QSettings().clear();
    m_db = m_dir.filePath("hpo.db");
    auto store = openStore(m_db.toStdString());
    demo::writeHpoStudy(*store);
    m_trials = store->trials(store->requireStudy("autospeed-hpo").id);
}

// A two-objective study as Optuna writes it (two directions, the metric names as a study system attribute): the
// title, the side bar and the history say which objective each shows and never call it "minimise" alone; no
// best-so-far line (it has no meaning with two objectives).
void TestStudyView::namesTheObjectivesOfATwoObjectiveStudy()
{
    const QString db = m_dir.filePath("two-objectives.db");
    // (loss, fps): #1 and #3 are on the front; #3 dominates #0, #0 dominates #2.
    writeLossFpsStudy(db, "speed-quality", {{1.0, 100}, {0.5, 50}, {2.0, 40}, {0.8, 120}});
    ui::MainWindow window;
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study), 10000);
    auto* title = window.studyView()->findChild<QLabel*>("studyTitle");
    QVERIFY(title);
    QVERIFY2(title->text().endsWith("4 trials, 4 complete, 2 objectives: minimise loss, maximise fps · 2 trials on "
                                    "the Pareto front"),
             qPrintable(title->text()));
    ui::ChartView* history = window.studyView()->history();
    QCOMPARE(history->title(), QString("Optimisation history of loss (objective 1 of 2, minimised)"));
    QXYSeries* best = history->find("best");
    QVERIFY(best && !best->isVisible() && best->count() == 0);
    const QTreeWidgetItem* side = window.studiesView()->topLevelItem(0);
    QCOMPARE(side->text(ui::StudiesView::kBest), QString("front 2"));
    QVERIFY2(side->toolTip(ui::StudiesView::kName).contains("minimise loss, maximise fps"),
             qPrintable(side->toolTip(ui::StudiesView::kName)));
    // One objective again: the best-so-far line is back and the title says only its direction.
    window.focusStudy("autospeed-hpo");
    window.openDatabase(m_db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && window.snapshot().focusStudy == "autospeed-hpo", 10000);
    QTRY_VERIFY(title->text().endsWith(", minimise"));
    QCOMPARE(history->title(), QString("Optimisation history"));
    QVERIFY(history->find("best")->isVisible() && history->find("best")->count() > 0);
}

// The Pareto view of a two-objective study (loss minimised, fps maximised), on values worked out by hand:
//   #0 (1.0, 100)  dominated by #3     #1 (0.5, 50)  front     #2 (2.0, 40) dominated
//   #3 (0.8, 120)  front               #4 (0.6, 110) front     #5 (0.3, 200) infeasible (a constraint of 1)
// The knee: scaled to the front's ranges #1 is (0, 1), #3 (1, 0), #4 (1/3, 1/7): #4. The reference: loss 2.0 + 10 %
// of 1.5 = 2.15, fps 40 - 10 % of 80 = 32; the front's hypervolume from it 0.1·18 + 0.2·78 + 1.35·88 = 136.2, and
// 1.15·68 = 78.2 after trial #0 alone. A click on #4's marker opens trial #4 in the Studies view. If this fails, the
// window shows a wrong front, an infeasible trial on it, or a click that opens nothing.
void TestStudyView::drawsTheParetoFrontAndOpensATrial()
{
    const QString db = m_dir.filePath("pareto.db");
    writeLossFpsStudy(db, "fast-and-good", {{1.0, 100}, {0.5, 50}, {2.0, 40}, {0.8, 120}, {0.6, 110}, {0.3, 200}}, {5},
                      true);
    ui::MainWindow window;
    window.resize(1200, 760);
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && window.snapshot().focusStudy == "fast-and-good", 10000);
    ui::StudyView* view = window.studyView();
    QTabWidget* tabs = view->historyTabs();
    QCOMPARE(tabs->count(), 3);
    QCOMPARE(tabs->tabText(0), QString("Pareto front"));
    QCOMPARE(tabs->tabText(1), QString("Hypervolume"));
    QCOMPARE(tabs->tabText(2), QString("History of loss"));
    QVERIFY(tabs->tabBar()->isVisible());
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(view->pareto()));

    ui::ParetoView* pareto = view->pareto();
    const ui::ParetoFrame& frame = pareto->frame();
    QCOMPARE(frame.frontTrials, (std::vector<int>{1, 3, 4}));
    QCOMPARE(frame.dominated, (QList<QPointF>{{1.0, 100}, {2.0, 40}}));
    QCOMPARE(frame.infeasible, (QList<QPointF>{{0.3, 200}}));
    QCOMPARE(frame.kneeTrial, std::optional<int>(4));
    // The staircase in loss order: #1, the corner (0.6, 50), #4, the corner (0.8, 110), #3.
    QCOMPARE(frame.staircase, (QList<QPointF>{{0.5, 50}, {0.6, 50}, {0.6, 110}, {0.8, 110}, {0.8, 120}}));
    QCOMPARE(pareto->markers()->count(0), 2); // dominated
    QCOMPARE(pareto->markers()->count(1), 1); // infeasible, grey
    QCOMPARE(pareto->markers()->count(2), 3); // the front
    QVERIFY(!pareto->xPicker()->isVisible()); // two objectives: nothing to pick
    QCOMPARE(pareto->front()->title(), QString("Pareto front: 3 of 6 trials, knee #4"));
    QCOMPARE(pareto->front()->find("knee")->name(), QString("knee: #4"));

    QCOMPARE(frame.reference.size(), std::size_t(2));
    QCOMPARE(frame.reference[0], 2.15);
    QCOMPARE(frame.reference[1], 32.0);
    QCOMPARE(frame.hypervolume.size(), 5); // trials 0-4; the infeasible #5 is not counted
    QCOMPARE(frame.hypervolume.front().x(), 0.0);
    QVERIFY(std::abs(frame.hypervolume.front().y() - 78.2) < 1e-9);
    QCOMPARE(frame.hypervolume.back().x(), 4.0);
    QVERIFY2(std::abs(frame.hypervolume.back().y() - 136.2) < 1e-9, qPrintable(QString::number(frame.hypervolume.back().y())));
    QCOMPARE(pareto->hypervolume()->title(), QString("Hypervolume from (2.15, 32)"));
    QCOMPARE(pareto->hypervolume()->find("hypervolume")->count(), 5);

    // A click on #4's marker opens trial #4; a click on empty plot opens nothing.
    ui::ChartView* chart = pareto->front();
    QTRY_VERIFY(!chart->chart()->plotArea().isEmpty());
    QCOMPARE(pareto->trialAt(chart->viewPosAt(0.6, 110)), std::optional<int>(4));
    QVERIFY(!pareto->trialAt(chart->viewPosAt(1.6, 190)));
    QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, chart->viewPosAt(0.6, 110));
    QTRY_COMPARE(window.currentView(), ui::View::Studies);
    QTRY_COMPARE(window.trialsPage()->trials()->selectedTrial(), 4);

    // One objective again: the Pareto pages go and the tab bar with them.
    window.focusStudy("autospeed-hpo");
    window.openDatabase(m_db);
    window.showView(ui::View::Study);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && window.snapshot().focusStudy == "autospeed-hpo", 10000);
    QTRY_COMPARE(tabs->count(), 1);
    QCOMPARE(tabs->tabText(0), QString("History"));
    QVERIFY(!tabs->tabBar()->isVisible());
}

// The study's labels (hpo --labels) name the trials with their values: "small lr" is lr 0.001 (trial #0), "mid lr"
// lr 0.003 (#2), "absent" a value no trial has (not drawn). Each named label is a ring with its number and a legend
// entry naming its trials; the front's tooltip lists them too. If this fails, LEAD's variants are not found on the
// front of a speed-quality search.
void TestStudyView::namesTheTrialsOfNamedPoints()
{
    const QString db = m_dir.filePath("named.db");
    writeLossFpsStudy(db, "named", {{1.0, 100}, {0.5, 50}, {2.0, 40}, {0.8, 120}});
    {
        auto store = openStore(db.toStdString());
        const std::vector<TrialLabel> labels{{"absent", {{"lr", 0.5}}}, {"small lr", {{"lr", 0.001}}},
                                             {"mid lr", {{"lr", 0.003}}}};
        store->setStudyUserAttr(store->requireStudy("named").id, kLabelsAttr, trialLabelsJson(labels));
    }
    ui::MainWindow window;
    window.resize(1200, 760);
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && window.snapshot().focusStudy == "named", 10000);
    ui::ParetoView* pareto = window.studyView()->pareto();
    QTRY_COMPARE(pareto->frame().named.size(), std::size_t(2));
    const ui::ParetoFrame& frame = pareto->frame();
    QCOMPARE(frame.named[0].name, QString("small lr"));
    QCOMPARE(frame.named[0].trials, std::vector<int>{0});
    QCOMPARE(frame.named[0].points, (QList<QPointF>{{1.0, 100}}));
    QCOMPARE(frame.named[1].name, QString("mid lr"));
    QCOMPARE(frame.named[1].points, (QList<QPointF>{{2.0, 40}}));
    QXYSeries* first = pareto->front()->find("named:0");
    QVERIFY(first);
    QCOMPARE(first->name(), QString("1  small lr (#0)"));
    QCOMPARE(first->points(), (QList<QPointF>{{1.0, 100}}));
    QCOMPARE(first->pointLabelsFormat(), QString("1"));
    QCOMPARE(pareto->front()->find("named:1")->name(), QString("2  mid lr (#2)"));
    QVERIFY2(pareto->front()->toolTip().contains("1  small lr (#0)\n2  mid lr (#2)"),
             qPrintable(pareto->front()->toolTip()));
    // The front keeps the Study view's larger share for a study of several objectives.
    QVERIFY(window.studyView()->historyTabs()->height() > window.studyView()->height() / 3);
}

// Three objectives (all minimised): the front counts all three, the pickers choose the pair drawn. (1, 1, 9) and
// (9, 9, 1) are both on the front although (1, 1, 9) dominates (9, 9, 1) in the first two; (2, 2, 9) is dominated
// by (1, 1, 9). Picking objective 3 for y (Down on the y picker) draws (objective 1, objective 3), and there is no
// staircase (the front's edge in a projection would mislead). If this fails, the projection hides front trials.
void TestStudyView::picksTheObjectivesOfAThreeObjectiveFront()
{
    const QString db = m_dir.filePath("three.db");
    {
        auto store = openStore(db.toStdString());
        const auto study = store->createStudy("three", std::vector<StudyDirection>(3, StudyDirection::Minimize));
        for (const std::vector<double>& v : {std::vector<double>{1, 1, 9}, {9, 9, 1}, {2, 2, 9}}) {
            const TrialRecord trial = store->createTrial(study);
            store->finishTrial(trial.id, TrialState::Complete, v);
        }
    }
    ui::MainWindow window;
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && window.snapshot().focusStudy == "three", 10000);
    ui::ParetoView* pareto = window.studyView()->pareto();
    QCOMPARE(pareto->frame().frontTrials, (std::vector<int>{0, 1}));
    QCOMPARE(pareto->frame().dominated, (QList<QPointF>{{2, 2}}));
    QVERIFY(pareto->frame().staircase.isEmpty());
    QTRY_VERIFY(pareto->yPicker()->isVisible());
    QCOMPARE(pareto->yPicker()->count(), 3);
    QCOMPARE(pareto->yPicker()->currentIndex(), 1);
    QTest::keyClick(pareto->yPicker(), Qt::Key_Down);
    QTRY_COMPARE(pareto->frame().y, 2);
    QTRY_VERIFY(window.viewReady(ui::View::Study));
    QCOMPARE(pareto->frame().front, (QList<QPointF>{{1, 9}, {9, 1}}));
    QCOMPARE(pareto->front()->chart()->axes(Qt::Vertical).value(0)->titleText().isEmpty()
                 ? pareto->front()->chart()->title().contains("objective 3 (minimised)")
                 : pareto->front()->chart()->axes(Qt::Vertical).value(0)->titleText() == "objective 3 (minimised)",
             true);

    // The scatter matrix: a tab after the hypervolume, every trial in every pair, the front's two in green; its
    // diagonal names the objectives; a click on the cell of row 1 (objective 2) and column 2 (objective 3) draws
    // that pair on the front page.
    QTabWidget* tabs = window.studyView()->historyTabs();
    ui::ParetoMatrix* matrix = pareto->matrix();
    QCOMPARE(tabs->indexOf(matrix), 2);
    QCOMPARE(tabs->tabText(2), QString("Scatter matrix"));
    QCOMPARE(matrix->objectives(), 3);
    QCOMPARE(matrix->points().size(), std::size_t(3));
    QCOMPARE(std::count_if(matrix->points().begin(), matrix->points().end(),
                           [](const ui::ParetoMatrix::Point& p) { return p.kind == ui::ParetoMatrix::Kind::Front; }),
             2);
    QCOMPARE(matrix->chosen(), (std::pair<int, int>{0, 2}));
    tabs->setCurrentWidget(matrix);
    QTRY_VERIFY(matrix->isVisible() && matrix->width() > 100);
    // Trial #2 (2, 2, 9) where the matrix draws it in the cell of objective 1 (x) against objective 2 (y).
    const QPointF at = matrix->position(1, 0, 2, 2);
    QCOMPARE(matrix->trialAt(at.toPoint()), std::optional<int>(2));
    QTest::mouseClick(matrix, Qt::LeftButton, {}, matrix->cellRect(1, 2).center());
    QTRY_COMPARE(pareto->frame().x, 2);
    QTRY_COMPARE(pareto->frame().y, 1);
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(pareto));
    QTRY_VERIFY(window.viewReady(ui::View::Study));
    QCOMPARE(pareto->frame().front, (QList<QPointF>{{9, 1}, {1, 9}}));
    QCOMPARE(matrix->chosen(), (std::pair<int, int>{2, 1}));
}

// Several objectives: "Charts of:" picks the objective the history, parallel coordinates and importance are about.
// Picking fps (objective 2, maximised) draws the trials' fps in the history (100, 50, 40, 120), names it in the
// titles and the history's tab, and colours parallel coordinates by it; the Pareto front still counts both. If this
// fails, a user reading the second objective's chart sees the first one's values.
void TestStudyView::drawsTheObjectiveChosenForTheOneObjectiveCharts()
{
    const QString db = m_dir.filePath("chosen.db");
    writeLossFpsStudy(db, "chosen", {{1.0, 100}, {0.5, 50}, {2.0, 40}, {0.8, 120}});
    ui::MainWindow window;
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && window.snapshot().focusStudy == "chosen", 10000);
    ui::StudyView* view = window.studyView();
    auto yValues = [view] {
        QList<double> ys;
        for (const QPointF& p : view->historyMarkers()->sets().at(0).points)
            ys << p.y();
        return ys;
    };
    QComboBox* picker = view->objectivePicker();
    QVERIFY(picker->isVisible());
    QCOMPARE(picker->count(), 2);
    QCOMPARE(picker->itemText(1), QString("fps (maximised)"));
    QCOMPARE(yValues(), (QList<double>{1.0, 0.5, 2.0, 0.8}));
    QCOMPARE(view->parallel()->axisNames().last(), QString("loss"));

    QTest::keyClick(picker, Qt::Key_Down);
    QTRY_COMPARE(yValues(), (QList<double>{100, 50, 40, 120}));
    QTRY_VERIFY(view->ready());
    QCOMPARE(view->history()->title(), QString("Optimisation history of fps (objective 2 of 2, maximised)"));
    QCOMPARE(view->historyTabs()->tabText(2), QString("History of fps"));
    QCOMPARE(view->parallel()->axisNames().last(), QString("fps"));
    QCOMPARE(view->pareto()->frame().frontTrials, (std::vector<int>{1, 3}));
    // Another study: the first objective again.
    window.focusStudy("autospeed-hpo");
    window.openDatabase(m_db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && window.snapshot().focusStudy == "autospeed-hpo", 10000);
    QVERIFY(!picker->isVisible());
}

void TestStudyView::drawsTheStudy()
{
    ui::MainWindow window;
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(m_db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study), 10000);
    ui::StudyView* view = window.studyView();
    int complete = 0, pruned = 0;
    for (const TrialRecord& t : m_trials) {
        complete += t.state == TrialState::Complete;
        pruned += t.state == TrialState::Pruned;
    }
    // History markers: one per complete and per pruned trial, drawn as one image (the marker layer).
    ui::MarkerLayer* markers = view->historyMarkers();
    QCOMPARE(markers->count(0), complete);
    QCOMPARE(markers->count(1), pruned);
    QCOMPARE(markers->sets()[0].color, ui::stateColor("COMPLETE", view->palette()));
    QCOMPARE(markers->sets()[1].color, ui::stateColor("PRUNED", view->palette()));
    // On screen: after a paint the image matches the chart's plot and axes, and every marker's centre has its
    // colour (the pruned markers are drawn last, so each pruned centre is exactly the pruned colour).
    (void)view->history()->grab();
    const ui::MarkerLayer::Geometry geometry = markers->geometryNow();
    QVERIFY(markers->imageGeometry() == geometry);
    QCOMPARE(markers->image().size(), ui::MarkerLayer::render({}, geometry).size());
    const QRectF plot = view->history()->chart()->plotArea();
    for (std::size_t set : {std::size_t(0), std::size_t(1)}) {
        int centres = 0;
        for (const QPointF& p : markers->sets()[set].points) {
            // Where Qt Charts puts this point, relative to the plot area: the layer must agree with the axes.
            const QPointF at =
                (view->history()->chart()->mapToPosition(p) - plot.topLeft()) * markers->image().devicePixelRatio();
            const QColor c = markers->image().pixelColor(static_cast<int>(at.x()), static_cast<int>(at.y()));
            if (set == 1)
                QCOMPARE(c, markers->sets()[1].color);
            centres += c == markers->sets()[0].color || c == markers->sets()[1].color;
        }
        QCOMPARE(centres, markers->sets()[set].points.size());
    }
    QCOMPARE(qobject_cast<QXYSeries*>(view->history()->find("complete"))->count(), 0); // legend entries only
    QCOMPARE(qobject_cast<QXYSeries*>(view->history()->find("pruned"))->count(), 0);
    // Best so far never gets worse (minimise) and ends at the best complete value.
    auto* best = qobject_cast<QLineSeries*>(view->history()->find("best"));
    QVERIFY(best->count() > 0);
    for (int i = 1; i < best->count(); ++i)
        QVERIFY(best->at(i).y() <= best->at(i - 1).y());
    const auto top = ui::topTrials(m_trials, 1, StudyDirection::Minimize);
    QCOMPARE(best->at(best->count() - 1).y(), m_trials[static_cast<std::size_t>(top[0])].values[0]);
    // Intermediate curves: one per trial with values, pruned ones included.
    bool prunedCurve = false;
    for (QAbstractSeries* s : view->intermediate()->chart()->series())
        if (s->isVisible() && s->name() == "trial 5") // trial 5 was pruned: drawn dashed
            prunedCurve = qobject_cast<QLineSeries*>(s)->pen().style() == Qt::DashLine;
    QVERIFY(prunedCurve);
    // Parallel coordinates: 4 parameters + the objective; complete trials only.
    QCOMPARE(view->parallel()->axisCount(), 5);
    QCOMPARE(view->parallel()->selected().size(), complete);
    // Timeline: every run on its logical device.
    QCOMPARE(view->timeline()->lanes(), QStringList({"cpu:0.0", "cpu:0.1", "cpu:0.2", "cpu:0.3"}));
    QCOMPARE(view->timeline()->bars().size(), m_trials.size());
}

void TestStudyView::brushesAnAxis()
{
    ui::StudyView view;
    view.resize(1000, 700);
    view.show();
    view.showStudy("autospeed-hpo", StudyDirection::Minimize, m_trials, {});
    ui::ParallelCoordinates* pc = view.parallel();
    // Axes are sorted by name: box, lr, optimizer, warmup_epochs, objective.
    pc->setBrush(0, 6.0, 8.0);
    QList<int> expected;
    for (const TrialRecord& t : m_trials)
        if (t.state == TrialState::Complete) {
            const double box = *ui::paramValue(t, "box");
            if (box >= 6.0 && box <= 8.0)
                expected << t.number;
        }
    QVERIFY(!expected.isEmpty());
    QCOMPARE(pc->selected(), expected);
    // A second brush on the categorical axis (index 1 = adamw) narrows it further.
    pc->setBrush(2, 0.5, 1.5);
    QList<int> both;
    for (int n : expected)
        if (*ui::paramValue(m_trials[static_cast<std::size_t>(n)], "optimizer") == 1.0)
            both << n;
    QCOMPARE(pc->selected(), both);
    // Brushing with the mouse: a drag along the first axis replaces that brush.
    const QRect r = pc->rect();
    const int x = 48; // the first axis sits at the left margin
    QTest::mousePress(pc, Qt::LeftButton, {}, QPoint(x, r.height() / 2));
    QTest::mouseMove(pc, QPoint(x, r.height() / 2 + 60));
    QTest::mouseRelease(pc, Qt::LeftButton, {}, QPoint(x, r.height() / 2 + 60));
    QVERIFY(pc->brush(0));
    QVERIFY(pc->brush(0)->second < 8.0);
    // A click on an axis clears its brush.
    QTest::mouseClick(pc, Qt::LeftButton, {}, QPoint(x, r.height() / 2));
    QVERIFY(!pc->brush(0));
}

void TestStudyView::filtersTopK()
{
    ui::StudyView view;
    view.resize(1000, 700);
    view.show();
    view.showStudy("autospeed-hpo", StudyDirection::Minimize, m_trials, {});
    view.setTopK(5); // drawn when its frame, computed off the GUI thread, arrives
    QTRY_VERIFY_WITH_TIMEOUT(view.ready(), 10000);
    const auto top = ui::topTrials(m_trials, 5, StudyDirection::Minimize);
    QCOMPARE(top.size(), std::size_t(5));
    QList<int> selected = view.parallel()->selected();
    std::sort(selected.begin(), selected.end());
    QList<int> expected(top.begin(), top.end());
    std::sort(expected.begin(), expected.end());
    QCOMPARE(selected, expected);
    // No run records here (as in Optuna's files): the timeline falls back to the trials' own times.
    QCOMPARE(view.timeline()->lanes().size(), 1);
}

void TestStudyView::showsASnapshotWithOtherStudiesRuns()
{
    // The snapshot shares every run of the store with the view; runs of another study's trials must neither
    // appear in the timeline nor hide this study's fallback to its trials' own times.
    ui::StudyView view;
    view.resize(1000, 700);
    view.show();
    ui::StoreSnapshot snapshot;
    snapshot.focusStudy = "autospeed-hpo";
    snapshot.focusTrials = ui::shareRecords(m_trials);
    RunRecord other;
    other.id = 1;
    other.trialId = 1000000; // a trial of another study
    other.logicalDevice = "cuda:7";
    other.startTime = 1.7e9;
    other.endTime = 1.7e9 + 10;
    other.status = RunStatus::Succeeded;
    snapshot.runs = ui::shareRecords(std::vector<RunRecord>{other});
    view.showSnapshot(snapshot);
    QTRY_VERIFY_WITH_TIMEOUT(view.ready(), 10000);
    QCOMPARE(view.timeline()->lanes().size(), 1);
    QVERIFY(!view.timeline()->lanes().contains("cuda:7"));
    int withTimes = 0;
    for (const TrialRecord& t : m_trials)
        withTimes += t.startTime ? 1 : 0;
    QCOMPARE(view.timeline()->bars().size(), std::size_t(withTimes));
    int complete = 0;
    for (const TrialRecord& t : m_trials)
        complete += t.state == TrialState::Complete;
    QCOMPARE(view.historyMarkers()->count(0), complete);
}

void TestStudyView::ranksImportance()
{
    const auto importance = ui::parameterImportance(m_trials);
    QCOMPARE(importance.size(), std::size_t(4));
    double sum = 0;
    QString top;
    double topValue = -1;
    for (const auto& [name, value] : importance) {
        sum += value;
        if (value > topValue)
            topValue = value, top = name;
    }
    QVERIFY(std::abs(sum - 1.0) < 1e-9);
    // The demo objective is quadratic in log10(lr) around 1e-3 (not monotonic: a rank correlation would
    // miss it), 0.1 worse with sgd, and nearly flat in box.
    QCOMPARE(top, QString("lr"));
    QVERIFY(topValue > 0.5);
    for (const auto& [name, value] : importance)
        if (name == "box")
            QVERIFY(value < 0.2);
}

// Importance says how many complete trials it rests on and is grey below ImportanceBars::kSettledTrials: the
// demo search (24 complete) is settled; its first 5 trials are not.
void TestStudyView::greysImportanceFromFewTrials()
{
    ui::MainWindow window;
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(m_db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study), 10000);
    ui::ImportanceBars* bars = window.studyView()->importance();
    int complete = 0;
    for (const TrialRecord& t : m_trials)
        complete += t.state == TrialState::Complete;
    QVERIFY(complete >= ui::ImportanceBars::kSettledTrials);
    QCOMPARE(bars->trials(), complete);
    QVERIFY(bars->settled());
    QVERIFY2(bars->caption().startsWith(QStringLiteral("From %1 complete trials. fANOVA-lite").arg(complete)),
             qPrintable(bars->caption()));
    // The parameter picker's numbers are in the list's normal colour.
    QListView* list = window.studyView()->picker()->list();
    QVERIFY(list->model()->rowCount() > 0);
    const QModelIndex firstParam = list->model()->index(0, 0);
    QVERIFY(!list->model()->data(firstParam, Qt::ForegroundRole).isValid());
    QVERIFY(!list->model()->data(firstParam, Qt::ToolTipRole).toString().contains("not settled"));

    // The first five trials only: grey bars and a caption that says so.
    std::vector<TrialRecord> few(m_trials.begin(), m_trials.begin() + 5);
    int fewComplete = 0;
    for (const TrialRecord& t : few)
        fewComplete += t.state == TrialState::Complete;
    window.studyView()->setStudy("autospeed-hpo", StudyDirection::Minimize, few, {});
    QTRY_VERIFY(window.studyView()->ready());
    QCOMPARE(bars->trials(), fewComplete);
    QVERIFY(!bars->settled());
    QVERIFY2(bars->caption().startsWith(
                 QStringLiteral("From %1 complete trials only: not settled below 10.").arg(fewComplete)),
             qPrintable(bars->caption()));
    QVERIFY(!bars->values().empty());
    // The bars are drawn in the palette's grey (Mid), not the series colour.
    const QImage image = bars->grab().toImage();
    bool grey = false, coloured = false;
    const QColor placeholder = bars->palette().color(QPalette::Mid);
    const QColor series = ui::seriesColor(0, bars->palette());
    for (int x = 0; x < image.width(); ++x)
        for (int y = 0; y < image.height(); ++y) {
            const QColor c = image.pixelColor(x, y);
            grey = grey || c.rgb() == placeholder.rgb();
            coloured = coloured || c.rgb() == series.rgb();
        }
    QVERIFY2(grey && !coloured, qPrintable(QStringLiteral("grey %1, coloured %2").arg(grey).arg(coloured)));
    // The picker's importance numbers are grey too, and their tooltip says what they rest on.
    QTRY_VERIFY(!window.studyView()->picker()->model()->settled());
    const QModelIndex row = list->model()->index(0, 0);
    QCOMPARE(list->model()->data(row, Qt::ForegroundRole).value<QColor>(), list->palette().color(QPalette::PlaceholderText));
    QVERIFY2(list->model()->data(row, Qt::ToolTipRole)
                 .toString()
                 .contains(QStringLiteral("from %1 complete trials only, not settled below 10").arg(fewComplete)),
             qPrintable(list->model()->data(row, Qt::ToolTipRole).toString()));
}

void TestStudyView::agreesOnTheBestTrial_data()
{
    QTest::addColumn<test::BestTrialCase>("c");
    for (const test::BestTrialCase& c : test::bestTrialCases())
        QTest::newRow(c.name.c_str()) << c;
}

void TestStudyView::agreesOnTheBestTrial()
{
    // The edge cases tst_hpo_best holds the store, the study and the job counts to (NaN, ±inf, ties, unfinished
    // trials with values): the top-k filter starts with the same trial, and the best-so-far line ends at its value
    // on the last trial. An infinite best cannot be drawn: the line then stops where the best became infinite.
    QFETCH(test::BestTrialCase, c);
    const std::vector<TrialRecord> trials = test::caseTrials(c);
    const std::vector<int> top = ui::topTrials(trials, 1, c.direction);
    QCOMPARE(top.empty() ? std::optional<int>() : std::optional<int>(top.front()), c.bestNumber);
    const std::vector<int> all = ui::topTrials(trials, 0, c.direction);
    QCOMPARE(all.empty() ? std::optional<int>() : std::optional<int>(all.front()), c.bestNumber);

    ui::StudyInput input;
    input.direction = c.direction;
    input.trials = std::make_shared<const std::vector<TrialRecord>>(trials);
    const ui::StudyFrame frame = ui::computeStudyFrame(input);
    for (const QPointF& p : frame.best)
        QVERIFY(std::isfinite(p.y()));
    if (!c.bestValue) {
        QVERIFY(frame.best.isEmpty());
    } else if (std::isfinite(*c.bestValue)) {
        QVERIFY(!frame.best.isEmpty());
        QCOMPARE(frame.best.back().y(), *c.bestValue);
        QCOMPARE(frame.best.back().x(), double(trials.back().number));
    } else {
        QVERIFY(frame.best.isEmpty() || frame.best.back().x() <= *c.bestNumber);
    }
}

// The window reads a study's older trials summarised (their last intermediate value alone: a twentieth of the rows at
// 20 steps) and the newest ones whole. Curves it draws of older trials (the top k) are read whole on demand: each has
// all its steps, never the one point a summarised record has.
void TestStudyView::drawsWholeCurvesOfTrialsReadSummarised()
{
    const QString db = m_dir.filePath("summarised.db");
    constexpr int kTrials = 300; // more than the poller reads whole at first (StorePoller::kCompleteTail)
    constexpr int kSteps = 5;
    {
        auto store = openStore(db.toStdString());
        const auto study = store->createStudy("long", {StudyDirection::Minimize});
        std::vector<TrialRecord> trials(kTrials);
        for (int i = 0; i < kTrials; ++i) {
            TrialRecord& t = trials[static_cast<std::size_t>(i)];
            t.state = TrialState::Complete;
            t.values = {static_cast<double>(i)}; // the oldest trials are the best
            Distribution x;
            x.low = 0, x.high = 1000;
            t.params.push_back({"x", static_cast<double>(i), x});
            for (int step = 0; step < kSteps; ++step)
                t.intermediateValues[step] = i + 10.0 * (kSteps - step);
        }
        store->addTrials(study, trials);
    }
    const auto curvesDrawn = [](ui::StudyView* view) {
        std::map<QString, qsizetype> points; // "trial N" -> points
        for (int i = 0; i < ui::StudyView::kMaxCurves; ++i)
            if (QXYSeries* s = view->intermediate()->find(QStringLiteral("curve %1").arg(i)); s && s->isVisible())
                points[s->name()] = s->count();
        return points;
    };
    ui::MainWindow window;
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && window.snapshot().focusStudy == "long", 10000);
    const ui::SharedTrials read = window.snapshot().focusTrials;
    QCOMPARE(read->size(), std::size_t(kTrials));
    QVERIFY(!read->front().allIntermediates); // read summarised...
    QCOMPARE(read->front().intermediateValues.size(), std::size_t(1));
    QCOMPARE(read->front().intermediateValues.at(kSteps - 1), 10.0); // ...to its last step
    QVERIFY(read->back().allIntermediates);
    auto drawn = curvesDrawn(window.studyView());
    QCOMPARE(drawn.size(), std::size_t(ui::StudyView::kMaxCurves)); // the newest, whole from the start
    QCOMPARE(drawn.count(QStringLiteral("trial %1").arg(kTrials - 1)), std::size_t(1));
    for (const auto& [name, count] : drawn)
        QVERIFY2(count == kSteps, qPrintable(name));

    // The 3 best are the oldest: typed into the top-k box, their curves come whole.
    auto* topK = window.studyView()->findChild<QSpinBox*>("studyTopK");
    QVERIFY(topK);
    topK->selectAll();
    QTest::keyClicks(topK, "3");
    QTest::keyClick(topK, Qt::Key_Enter);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) && curvesDrawn(window.studyView()).size() == 3, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study) &&
                                 curvesDrawn(window.studyView())[QStringLiteral("trial 0")] == kSteps,
                             10000);
    drawn = curvesDrawn(window.studyView());
    for (int i = 0; i < 3; ++i)
        QCOMPARE(drawn[QStringLiteral("trial %1").arg(i)], qsizetype(kSteps));
    QVERIFY((*window.snapshot().focusTrials)[0].allIntermediates);
    QVERIFY(!(*window.snapshot().focusTrials)[3].allIntermediates); // only what is drawn is read whole

    // View > Refresh reads every trial again: the curves drawn stay whole.
    const ui::SharedTrials beforeRefresh = window.snapshot().focusTrials;
    QTest::keyClick(&window, Qt::Key_F5);
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot().focusTrials != beforeRefresh && window.viewReady(ui::View::Study), 10000);
    QVERIFY((*window.snapshot().focusTrials)[0].allIntermediates);
    QVERIFY(!(*window.snapshot().focusTrials)[3].allIntermediates);
    drawn = curvesDrawn(window.studyView());
    for (int i = 0; i < 3; ++i)
        QCOMPARE(drawn[QStringLiteral("trial %1").arg(i)], qsizetype(kSteps));
}

// The dense parallel-coordinates layer (many lines as a density image) draws every line: one outlier among 100,000
// lines that share their ends still colours the pixels it crosses, in its own colour, and pixels no line crosses keep
// the base colour. Lines that share their ends are rasterised once with their count (SegmentBins).
void TestStudyView::denseLayerKeepsEveryLine()
{
    std::vector<ui::ParallelCoordinates::Axis> axes(2);
    axes[0].name = "x";
    axes[1].name = "objective";
    std::vector<std::vector<double>> rows(100000, std::vector<double>{0.9, 0.9}); // the bundle: high x, a bad value
    rows.push_back({0.0, 0.0});                                                   // the outlier: low x, the best value
    ui::ParallelCoordinates::LayerStyle style;
    style.pixelSize = QSize(300, 200);
    style.plot = QRectF(20, 20, 260, 160);
    style.base = qRgb(255, 255, 255);
    style.good = qRgb(0, 160, 0);
    style.bad = qRgb(200, 0, 0);
    style.text = qRgb(0, 0, 0);
    const QImage layer = ui::ParallelCoordinates::renderDenseLayer(axes, rows, {}, true, style);
    QCOMPARE(layer.size(), style.pixelSize);
    // The outlier runs along the bottom of the plot (y = 180), the bundle near its top (y = 36).
    const QRgb outlier = layer.pixel(150, 180), bundle = layer.pixel(150, 36), empty = layer.pixel(150, 100);
    QCOMPARE(empty, style.base);
    QVERIFY2(outlier != style.base, "the one outlying line is missing");
    QVERIFY2(qGreen(outlier) > qRed(outlier), "the outlier has the bundle's colour, not its own (good)");
    QVERIFY(qRed(bundle) > qGreen(bundle));
    // The bundle is more opaque than one line: further from the base colour.
    QVERIFY(255 - qBlue(bundle) > 255 - qBlue(outlier));
}

QTEST_MAIN(TestStudyView)
#include "tst_studyview.moc"
