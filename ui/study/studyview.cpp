#include "ui/study/studyview.h"
#include "ui/wording.h"

#include "ui/charts/chartview.h"
#include "ui/charts/markerlayer.h"
#include "ui/poller/storepoller.h"
#include "ui/study/internal/parallelcoords.h"
#include "ui/study/internal/parampicker.h"
#include "ui/study/internal/paretoview.h"
#include "ui/study/internal/studyframe.h"
#include "ui/study/internal/studywidgets.h"
#include "ui/study/studymath.h"
#include "ui/tasks/taskmanager.h"
#include "ui/theme.h"

#include "core/util/timefmt.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <utility>

namespace pitwall::ui {

StudyView::StudyView(QWidget* parent) : QWidget(parent)
{
    setObjectName("studyView");
    QHBoxLayout* bar = buildBar();
    QSplitter* rows = buildCharts();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(rows, 1);
    connectControls();
}

// The title, the selection count, the objective picker and the top-k filter, in one row.
QHBoxLayout* StudyView::buildBar()
{
    m_title = new QLabel(tr("No study selected."), this);
    m_title->setObjectName("studyTitle");
    m_topK = new QSpinBox(this);
    m_topK->setObjectName("studyTopK");
    m_topK->setRange(0, 100000);
    m_topK->setSpecialValueText(tr("all"));
    m_topK->setPrefix(tr("top "));
    m_topK->setToolTip(
        tr("Show only the k best complete trials in parallel coordinates and intermediate values (0: all)."));
    m_title->setWordWrap(true); // a second line rather than a wider window (1024 px screens)
    m_selection = new QLabel(this);
    m_objective = new QComboBox(this);
    m_objective->setObjectName("studyObjective");
    m_objective->setToolTip(tr("The objective the history, the top-k filter, parallel coordinates and importance "
                               "are about. The Pareto front and the hypervolume count every objective."));
    m_objective->hide();
    m_objectiveLabel = new QLabel(tr("Charts of:"), this);
    m_objectiveLabel->setBuddy(m_objective);
    m_objectiveLabel->hide();
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_title, 1);
    bar->addWidget(m_selection);
    bar->addWidget(m_objectiveLabel);
    bar->addWidget(m_objective);
    bar->addWidget(new QLabel(tr("Filter:"), this));
    bar->addWidget(m_topK);
    return bar;
}

// The charts in resizable rows: history (or the Pareto pages) and intermediate values; parallel coordinates beside
// importance over the parameter picker; the timeline.
QSplitter* StudyView::buildCharts()
{
    m_history = new ChartView(tr("Optimisation history"), this);
    m_history->setAxisTitles(tr("trial"), tr("objective"));
    m_historyMarkers = new MarkerLayer(m_history);
    m_intermediate = new ChartView(tr("Intermediate values"), this);
    m_intermediate->setAxisTitles(tr("step"), tr("value"));
    m_intermediate->chart()->legend()->hide();
    m_parallel = new ParallelCoordinates(this);
    m_importance = new ImportanceBars(this);
    m_picker = new ParamPicker(this);
    m_timeline = new TrialTimeline(this);

    // Several objectives put the Pareto front and the hypervolume before the history (applyPareto); with one, the
    // tab bar hides itself.
    m_historyTabs = new QTabWidget(this);
    m_historyTabs->setObjectName("historyTabs");
    m_historyTabs->setDocumentMode(true);
    m_historyTabs->setTabBarAutoHide(true);
    m_historyTabs->addTab(m_history, tr("History"));
    m_pareto = new ParetoView(this);
    m_pareto->hide();
    m_pareto->hypervolume()->hide();
    connect(m_pareto, &ParetoView::trialActivated, this, &StudyView::trialActivated);
    connect(m_pareto, &ParetoView::axesChanged, this, [this] { draw(); });
    connect(m_pareto, &ParetoView::frontWanted, this, [this] { m_historyTabs->setCurrentWidget(m_pareto); });
    auto* top = new QSplitter(this);
    m_top = top;
    top->addWidget(m_historyTabs);
    top->addWidget(m_intermediate);
    auto* middle = new QSplitter(this);
    middle->addWidget(m_parallel);
    auto* side = new QSplitter(Qt::Vertical, this); // importance over the picker of what is drawn
    side->addWidget(m_importance);
    side->addWidget(m_picker);
    side->setStretchFactor(0, 2);
    side->setStretchFactor(1, 1);
    middle->addWidget(side);
    middle->setStretchFactor(0, 3);
    middle->setStretchFactor(1, 1);
    auto* rows = new QSplitter(Qt::Vertical, this);
    m_rows = rows;
    rows->addWidget(top);
    rows->addWidget(middle);
    rows->addWidget(m_timeline);
    rows->setStretchFactor(0, 4);
    rows->setStretchFactor(1, 4);
    rows->setStretchFactor(2, 2);
    rows->setSizes({280, 340, 120});
    return rows;
}

// The redraw throttle and what the controls do.
void StudyView::connectControls()
{
    m_throttle = new QTimer(this);
    m_throttle->setSingleShot(true);
    m_throttle->setInterval(kMinRedrawMs);
    connect(m_throttle, &QTimer::timeout, this, [this] {
        if (m_pending && isVisible())
            draw();
    });
    connect(m_topK, &QSpinBox::valueChanged, this, [this] { draw(); });
    connect(m_objective, &QComboBox::activated, this, [this](int index) {
        if (index < 0 || static_cast<std::size_t>(index) == m_shown)
            return;
        showObjective(static_cast<std::size_t>(index));
        draw();
    });
    connect(m_picker, &ParamPicker::picked, this, [this](const QStringList& names) { setPickedParams(names); });
    connect(m_picker, &ParamPicker::automaticRequested, this, [this] { setPickedParams(std::nullopt); });
    connect(m_parallel, &ParallelCoordinates::selectionChanged, this,
            [this] { m_selection->setText(
                tr("%1 in the brushes").arg(counted(static_cast<qint64>(m_parallel->selected().size()), "trial", "trials"))); });
}

StudyView::~StudyView()
{
    if (m_frameTask)
        m_frameTask->cancel(); // the computation owns its input; it stops at its next stage, unheard
    releaseRetired();
}

void StudyView::replaceData(std::shared_ptr<const std::vector<TrialRecord>> trials,
                            std::shared_ptr<const std::vector<RunRecord>> runs)
{
    if (trials != m_trials)
        m_params.reset(); // computed again with the next frame
    if (m_trials)
        m_retired.push_back(std::exchange(m_trials, std::move(trials)));
    else
        m_trials = std::move(trials);
    if (m_runs)
        m_retired.push_back(std::exchange(m_runs, std::move(runs)));
    else
        m_runs = std::move(runs);
}

void StudyView::releaseRetired()
{
    if (m_retired.empty())
        return;
    QThreadPool::globalInstance()->start([retired = std::move(m_retired)]() mutable { retired.clear(); });
    m_retired.clear();
}

void StudyView::setTopK(int k)
{
    m_topK->setValue(k);
}

void StudyView::setPickedParams(std::optional<QStringList> names)
{
    m_picked = std::move(names);
    draw();
}

void StudyView::showSnapshot(const StoreSnapshot& snapshot)
{
    StudyDirection direction = StudyDirection::Minimize;
    std::vector<StudyDirection> directions{StudyDirection::Minimize};
    std::vector<std::string> names{"objective"};
    std::optional<int> paretoSize;
    std::vector<TrialLabel> labels;
    for (const StudySummary& s : snapshot.studies)
        if (QString::fromStdString(s.study.name) == snapshot.focusStudy && !s.study.directions.empty()) {
            direction = s.study.directions[0];
            directions = s.study.directions;
            names = objectiveNames(s.study);
            paretoSize = s.paretoSize;
            labels = trialLabelsFromJson(s.study.userAttrs.value(kLabelsAttr, Json()));
        }
    m_awaitingWhole = false;
    if (snapshot.focusStudy != m_name)
        m_askedWhole.clear();
    const bool otherObjectives = directions != m_directions || names != m_objectiveNames;
    const bool objectivesChanged = otherObjectives || paretoSize != m_paretoSize || labels.size() != m_labels.size();
    m_labels = std::move(labels);
    m_directions = directions;
    m_objectiveNames = names;
    m_paretoSize = paretoSize;
    if (otherObjectives || snapshot.focusStudy != m_name)
        showObjective(0);
    // The trials and every run are shared with the snapshot, not copied: the frame's timeline keeps only the
    // runs of these trials. The signature and the running check look at those runs only.
    if (snapshot.focusTrials != m_indexedTrials) {
        m_trialIds.clear();
        m_idsIndexed = false;
        m_trialsSignature = trialsSignature(*snapshot.focusTrials);
        if (m_indexedTrials)
            m_retired.push_back(std::exchange(m_indexedTrials, snapshot.focusTrials)); // released off this thread
        else
            m_indexedTrials = snapshot.focusTrials;
    }
    if (!m_idsIndexed && !snapshot.runs->empty()) { // the ids pick this study's runs: none, none needed
        m_trialIds.reserve(snapshot.focusTrials->size());
        for (const TrialRecord& t : *snapshot.focusTrials)
            m_trialIds.insert(t.id);
        m_idsIndexed = true;
    }
    const std::unordered_set<std::int64_t>& ids = m_trialIds;
    // Running trials' bars grow with the clock, so a study with running work is redrawn even when unchanged.
    const bool running = std::any_of(snapshot.runs->begin(), snapshot.runs->end(), [&](const RunRecord& r) {
        return r.status == RunStatus::Running && r.trialId && ids.count(*r.trialId);
    });
    const std::uint64_t signature = m_trialsSignature ^ (runsSignature(*snapshot.runs, ids) * 31);
    if (m_drawn && snapshot.focusStudy == m_name && signature == m_signature && !running && !objectivesChanged) {
        releaseRetired();
        return; // metric rows moved the change counter; nothing this view shows changed
    }
    m_signature = signature;
    if (snapshot.focusStudy != m_name)
        m_picked.reset(); // another study: its most important parameters
    m_name = snapshot.focusStudy;
    m_direction = direction;
    replaceData(snapshot.focusTrials, snapshot.runs);
    m_pending = true;
    if (isVisible() && !m_throttle->isActive()) {
        // At most every kMinRedrawMs: now when the last draw is older, else when that much time has passed.
        const qint64 since = m_lastDraw.isValid() ? m_lastDraw.elapsed() : qint64(kMinRedrawMs);
        if (!m_drawn || since >= kMinRedrawMs)
            draw();
        else
            m_throttle->start(static_cast<int>(kMinRedrawMs - since));
    }
}

void StudyView::showStudy(const QString& name, StudyDirection direction, std::vector<TrialRecord> trials,
                          std::vector<RunRecord> runs)
{
    if (name != m_name)
        m_picked.reset(); // another study: its most important parameters
    m_name = name;
    m_direction = direction;
    m_directions = {direction};
    m_objectiveNames = {"objective"};
    m_paretoSize.reset();
    showObjective(0);
    replaceData(std::make_shared<const std::vector<TrialRecord>>(std::move(trials)),
                std::make_shared<const std::vector<RunRecord>>(std::move(runs)));
    releaseRetired(); // no computation follows to take them
    m_pending = false;
    if (m_frameTask)
        m_frameTask->cancel(); // a frame in flight is stale now
    applyFrame(computeStudyFrame(makeInput()));
}

void StudyView::setStudy(const QString& name, StudyDirection direction, std::vector<TrialRecord> trials,
                         std::vector<RunRecord> runs)
{
    if (name != m_name)
        m_picked.reset(); // another study: its most important parameters
    m_name = name;
    m_direction = direction;
    m_directions = {direction};
    m_objectiveNames = {"objective"};
    m_paretoSize.reset();
    showObjective(0);
    replaceData(std::make_shared<const std::vector<TrialRecord>>(std::move(trials)),
                std::make_shared<const std::vector<RunRecord>>(std::move(runs)));
    draw();
}

void StudyView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_pending)
        draw();
}

void StudyView::draw()
{
    m_pending = false;
    m_lastDraw.start();
    requestFrame();
}

StudyInput StudyView::makeInput() const
{
    StudyInput input;
    input.direction = m_directions[m_shown];
    input.objectiveIndex = m_shown;
    if (m_directions.size() > 1) {
        input.directions = m_directions;
        input.paretoAxes = m_pareto->axes();
        input.labels = m_labels;
    }
    input.objectiveName = QString::fromStdString(m_objectiveNames[m_shown]);
    input.trials = m_trials;
    input.runs = m_runs;
    input.topK = m_topK->value();
    input.maxCurves = kMaxCurves;
    input.nowSeconds = nowSeconds();
    input.historyPlot = m_history->chart()->plotArea().size();
    input.historyLabelHeight = m_history->labelHeight();
    input.historyPixelRatio = m_history->devicePixelRatioF();
    input.completeColor = stateColor("COMPLETE", palette());
    input.prunedColor = stateColor("PRUNED", palette());
    if (m_parallel->isVisible()) // a hidden widget has no final size yet: its layer is made when painted
        input.parallelStyle = m_parallel->layerStyle();
    input.parallelAxes = m_parallel->axisNames();
    input.parallelBrushes = m_parallel->brushes();
    input.maxParams = kMaxDrawnParams;
    input.pickedParams = m_picked;
    input.params = m_params;
    return input;
}

void StudyView::requestFrame()
{
    // One computation at a time: a newer request cancels the one in flight (its frame is of stale data and is
    // dropped) and runs when it has returned. Replaced data is released by the computation before it starts:
    // one pool task per refresh, and not while the GUI thread applies and paints the frame.
    auto input = std::make_shared<const StudyInput>(makeInput());
    m_frameTask = TaskManager::instance()->start(
        {tr("Drawing study %1").arg(m_name), TaskManager::keyFor(this, QStringLiteral("study-frame")),
         Supersede::Running},
        this,
        [input, retired = std::move(m_retired)](TaskContext& context) mutable {
            retired.clear();
            return computeStudyFrame(*input, [&context] { return context.canceled(); });
        },
        [this](StudyFrame frame) {
            m_frameTask.clear(); // the latest (a newer request would have cancelled this one)
            applyFrame(std::move(frame));
        });
    m_retired.clear(); // moved from: valid again
}

bool StudyView::ready() const
{
    return m_drawn && !m_pending && !m_awaitingWhole && !(m_frameTask && m_frameTask->isActive());
}

void StudyView::applyFrame(StudyFrame frame)
{
    m_drawn = true;
    if (m_name.isEmpty()) {
        m_title->setText(tr("No study selected: pick one in the side bar."));
    } else {
        m_title->setText(tr("<b>%1</b> — %2 trials, %3 complete, %4")
                             .arg(m_name.toHtmlEscaped())
                             .arg(frame.trialCount)
                             .arg(frame.completeCount)
                             .arg(objectivesText().toHtmlEscaped()));
    }
    applyHistory(frame);
    nameObjectives();
    applyPareto(frame);
    applyIntermediate(frame);
    m_parallel->setData(std::move(frame.axes), std::move(frame.rows), std::move(frame.labels),
                        m_directions[m_shown] == StudyDirection::Minimize, std::move(frame.parallelLayer), frame.parallelStyle,
                        frame.parallelBrushes);
    applyParams(frame);
    QString method =
        tr("fANOVA-lite: variance share of each parameter's main effect (ε², numbers in quantile bins), normalised");
    if (m_directions.size() > 1)
        method = tr("For %1 (objective %2 of %3). ")
                     .arg(QString::fromStdString(m_objectiveNames[m_shown]))
                     .arg(m_shown + 1)
                     .arg(m_directions.size()) +
                 method;
    m_importance->setValues(std::move(frame.importance), method, frame.completeCount);
    m_timeline->setBars(std::move(frame.bars));
    Q_EMIT drawn();
}

QString StudyView::objectivesText() const
{
    return describeObjectives(m_directions, m_objectiveNames, m_paretoSize);
}

void StudyView::nameObjectives()
{
    // Several objectives: the history, the parallel coordinates' colour and the importance are about the first one
    // (until the Pareto view exists); its name and direction are in the titles, and a best-so-far line, which has no
    // meaning with several objectives, is not drawn.
    const bool several = m_directions.size() > 1;
    const QString first = QString::fromStdString(m_objectiveNames[m_shown]);
    const QString verb = m_directions[m_shown] == StudyDirection::Minimize ? tr("minimised") : tr("maximised");
    m_history->setTitle(several ? tr("Optimisation history of %1 (objective %2 of %3, %4)").arg(first).arg(m_shown + 1).arg(m_directions.size()).arg(verb)
                                : tr("Optimisation history"));
    m_history->setAxisTitles(tr("trial"), first);
    if (QXYSeries* best = m_history->find(QStringLiteral("best"))) {
        if (several)
            m_history->setPoints(best, {});
        best->setVisible(!several);
        for (QLegendMarker* marker : m_history->chart()->legend()->markers(best))
            marker->setVisible(!several);
    }
}

void StudyView::showObjective(std::size_t index)
{
    if (index >= m_directions.size())
        index = 0;
    if (index != m_shown)
        m_params.reset(); // importance is of the objective shown
    m_shown = index;
    ParetoView::setPickerItems(m_objective, ParetoView::objectiveLabels(m_objectiveNames, m_directions),
                               static_cast<int>(index));
    const bool several = m_directions.size() > 1;
    m_objective->setVisible(several);
    m_objectiveLabel->setVisible(several);
}

void StudyView::resizeRows(bool pareto)
{
    const QList<int> rows = m_rows->sizes(), top = m_top->sizes();
    int height = 0, width = 0;
    for (int h : rows)
        height += h;
    for (int w : top)
        width += w;
    if (height <= 0)
        height = 740;
    if (width <= 0)
        width = 800;
    m_rows->setSizes(pareto ? QList<int>{height * 50 / 100, height * 34 / 100, height * 16 / 100}
                            : QList<int>{height * 280 / 740, height * 340 / 740, height * 120 / 740});
    m_top->setSizes(pareto ? QList<int>{width * 2 / 3, width / 3} : QList<int>{width / 2, width / 2});
}

void StudyView::applyPareto(StudyFrame& frame)
{
    const bool several = m_directions.size() > 1;
    const bool shown = m_historyTabs->indexOf(m_pareto) >= 0;
    if (several && !shown) {
        m_historyTabs->insertTab(0, m_pareto, tr("Pareto front"));
        m_historyTabs->insertTab(1, m_pareto->hypervolume(), tr("Hypervolume"));
        m_historyTabs->setCurrentIndex(0);
        // The front is what a study of several objectives is read by: the top row gets half the height and the
        // front two thirds of its width (the splitters still move).
        resizeRows(true);
    } else if (!several && shown) {
        m_historyTabs->removeTab(m_historyTabs->indexOf(m_pareto->hypervolume()));
        m_historyTabs->removeTab(m_historyTabs->indexOf(m_pareto));
        m_pareto->hide();
        m_pareto->hypervolume()->hide();
        resizeRows(false);
    }
    // Three or more objectives: the scatter matrix of every pair, after the hypervolume.
    const bool matrix = m_directions.size() > 2;
    const int matrixAt = m_historyTabs->indexOf(m_pareto->matrix());
    if (matrix && matrixAt < 0)
        m_historyTabs->insertTab(m_historyTabs->indexOf(m_pareto->hypervolume()) + 1, m_pareto->matrix(),
                                 tr("Scatter matrix"));
    else if (!matrix && matrixAt >= 0) {
        m_historyTabs->removeTab(matrixAt);
        m_pareto->matrix()->hide();
    }
    m_historyTabs->setTabText(m_historyTabs->indexOf(m_history),
                              several ? tr("History of %1").arg(QString::fromStdString(m_objectiveNames[m_shown]))
                                      : tr("History"));
    if (several)
        m_pareto->setFrame(std::move(frame.pareto), m_directions, m_objectiveNames);
}

void StudyView::applyParams(const StudyFrame& frame)
{
    m_params = frame.params; // frames of the current generation are computed from m_trials
    QStringList drawn;
    for (const auto& [name, value] : frame.importance)
        drawn << name;
    std::vector<ParamListModel::Entry> entries;
    if (m_params) {
        entries.reserve(m_params->byImportance.size());
        for (std::size_t a : m_params->byImportance)
            entries.push_back(m_params->importance[a]);
    }
    m_picker->setParams(m_params, std::move(entries), drawn, !m_picked.has_value(), frame.completeCount);
}

void StudyView::applyHistory(const StudyFrame& frame)
{
    const QPalette pal = palette();
    // The markers are one image (MarkerLayer, rendered with the frame): Qt Charts would build a hit-test shape
    // and paint a marker per point on the GUI thread. Their series stay empty, as legend entries (a line
    // series without a line, shown by a light marker image), and give fitAxes the markers' bounds.
    const QColor completeColor = stateColor("COMPLETE", pal);
    const QColor prunedColor = stateColor("PRUNED", pal);
    QLineSeries* complete = MarkerLayer::legendEntry(m_history, QStringLiteral("complete"), tr("complete"), completeColor);
    QLineSeries* pruned = MarkerLayer::legendEntry(m_history, QStringLiteral("pruned"), tr("pruned"), prunedColor);
    QLineSeries* best = m_history->line(QStringLiteral("best"), tr("best so far"));
    best->setPen(QPen(stateColor("BEST", pal), 2));
    m_history->setBoundsOnly(complete, frame.complete);
    m_history->setBoundsOnly(pruned, frame.pruned);
    m_history->setPoints(best, frame.best);
    m_history->fitAxes();
    // An image made for other colours (the palette changed meanwhile) is dropped: rendered when painted.
    const bool sameColors = frame.completeColor == completeColor && frame.prunedColor == prunedColor;
    QImage image = sameColors ? frame.historyMarkers : QImage();
    std::vector<MarkerLayer::Set> sets{{frame.complete, completeColor}, {frame.pruned, prunedColor}};
    m_historyMarkers->setMarkers(std::move(sets), std::move(image), frame.historyGeometry);
}

void StudyView::applyIntermediate(const StudyFrame& frame)
{
    const QPalette pal = palette();
    // A pool of kMaxCurves series, reused: creating and deleting series is what costs, not their points.
    for (int i = 0; i < kMaxCurves; ++i) {
        QLineSeries* series = m_intermediate->line(QStringLiteral("curve %1").arg(i));
        if (i >= static_cast<int>(frame.curves.size())) {
            series->setVisible(false);
            continue;
        }
        const StudyFrame::Curve& curve = frame.curves[static_cast<std::size_t>(i)];
        series->setName(tr("trial %1").arg(curve.trial));
        QPen pen(curve.state == TrialState::Pruned ? stateColor("PRUNED", pal)
                 : curve.state == TrialState::Fail ? stateColor("FAIL", pal)
                                                   : stateColor("COMPLETE", pal),
                 1.4);
        if (curve.state == TrialState::Pruned)
            pen.setStyle(Qt::DashLine);
        if (series->pen() != pen)
            series->setPen(pen);
        series->setPointsVisible(curve.points.size() < 30);
        m_intermediate->setPoints(series, curve.points);
        series->setVisible(true);
    }
    m_intermediate->fitAxes();
    QList<int> wanted;
    for (const StudyFrame::Curve& curve : frame.curves)
        if (curve.partial && m_askedWhole.insert(curve.trial).second)
            wanted << curve.trial;
    if (!wanted.isEmpty() && !m_name.isEmpty()) {
        m_awaitingWhole = true;
        Q_EMIT intermediatesWanted(m_name, wanted);
    }
}

} // namespace pitwall::ui
