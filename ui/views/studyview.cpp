#include "ui/views/studyview.h"

#include "ui/chartview.h"
#include "ui/storepoller.h"
#include "ui/theme.h"
#include "ui/views/parallelcoords.h"
#include "ui/views/studymath.h"
#include "ui/views/studywidgets.h"

#include "core/util/timefmt.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QPainter>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace pitwall::ui {

namespace {
// Running trials' bars grow with the clock, so a study with running work is redrawn even when unchanged.
bool hasRunningRuns(const std::vector<RunRecord>& runs)
{
    return std::any_of(runs.begin(), runs.end(), [](const RunRecord& r) { return r.status == RunStatus::Running; });
}
} // namespace

StudyView::StudyView(QWidget* parent) : QWidget(parent)
{
    setObjectName("studyView");
    m_title = new QLabel(tr("No study selected."), this);
    m_topK = new QSpinBox(this);
    m_topK->setObjectName("studyTopK");
    m_topK->setRange(0, 100000);
    m_topK->setSpecialValueText(tr("all"));
    m_topK->setPrefix(tr("top "));
    m_topK->setToolTip(
        tr("Show only the k best complete trials in parallel coordinates and intermediate values (0: all)."));
    m_selection = new QLabel(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_title, 1);
    bar->addWidget(m_selection);
    bar->addWidget(new QLabel(tr("Filter:"), this));
    bar->addWidget(m_topK);

    m_history = new ChartView(tr("Optimisation history"), this);
    m_history->setAxisTitles(tr("trial"), tr("objective"));
    m_intermediate = new ChartView(tr("Intermediate values"), this);
    m_intermediate->setAxisTitles(tr("step"), tr("value"));
    m_intermediate->chart()->legend()->hide();
    m_parallel = new ParallelCoordinates(this);
    m_importance = new ImportanceBars(this);
    m_timeline = new TrialTimeline(this);

    auto* top = new QSplitter(this);
    top->addWidget(m_history);
    top->addWidget(m_intermediate);
    auto* middle = new QSplitter(this);
    middle->addWidget(m_parallel);
    middle->addWidget(m_importance);
    middle->setStretchFactor(0, 3);
    middle->setStretchFactor(1, 1);
    auto* rows = new QSplitter(Qt::Vertical, this);
    rows->addWidget(top);
    rows->addWidget(middle);
    rows->addWidget(m_timeline);
    rows->setStretchFactor(0, 4);
    rows->setStretchFactor(1, 4);
    rows->setStretchFactor(2, 2);
    rows->setSizes({300, 260, 140});

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(rows, 1);

    m_throttle = new QTimer(this);
    m_throttle->setSingleShot(true);
    m_throttle->setInterval(kMinRedrawMs);
    connect(m_throttle, &QTimer::timeout, this, [this] {
        if (m_pending && isVisible())
            draw();
    });
    connect(m_topK, &QSpinBox::valueChanged, this, [this] { draw(); });
    connect(m_parallel, &ParallelCoordinates::selectionChanged, this,
            [this] { m_selection->setText(tr("%1 trial(s) in the brushes").arg(m_parallel->selected().size())); });
}

void StudyView::setTopK(int k)
{
    m_topK->setValue(k);
}

void StudyView::showSnapshot(const StoreSnapshot& snapshot)
{
    StudyDirection direction = StudyDirection::Minimize;
    for (const StudySummary& s : snapshot.studies)
        if (QString::fromStdString(s.study.name) == snapshot.focusStudy && !s.study.directions.empty())
            direction = s.study.directions[0];
    std::set<std::int64_t> ids;
    for (const TrialRecord& t : snapshot.focusTrials)
        ids.insert(t.id);
    std::vector<RunRecord> runs;
    for (const RunRecord& r : snapshot.runs)
        if (r.trialId && ids.count(*r.trialId))
            runs.push_back(r);
    const std::uint64_t signature = trialsSignature(snapshot.focusTrials) ^ (runsSignature(runs) * 31);
    if (m_drawn && snapshot.focusStudy == m_name && signature == m_signature && !hasRunningRuns(runs))
        return; // metric rows moved the change counter; nothing this view shows changed
    m_signature = signature;
    m_name = snapshot.focusStudy;
    m_direction = direction;
    m_trials = snapshot.focusTrials;
    m_runs = std::move(runs);
    m_pending = true;
    if (isVisible() && !m_throttle->isActive()) {
        if (!m_drawn)
            draw();
        else
            m_throttle->start();
    }
}

void StudyView::showStudy(const QString& name, StudyDirection direction, std::vector<TrialRecord> trials,
                          std::vector<RunRecord> runs)
{
    m_name = name;
    m_direction = direction;
    m_trials = std::move(trials);
    m_runs = std::move(runs);
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
    m_drawn = true;
    if (m_name.isEmpty()) {
        m_title->setText(tr("No study selected: pick one in the side bar."));
    } else {
        int complete = 0;
        for (const TrialRecord& t : m_trials)
            complete += t.state == TrialState::Complete ? 1 : 0;
        m_title->setText(tr("<b>%1</b> — %2 trials, %3 complete, %4")
                             .arg(m_name.toHtmlEscaped())
                             .arg(m_trials.size())
                             .arg(complete)
                             .arg(m_direction == StudyDirection::Minimize ? tr("minimise") : tr("maximise")));
    }
    std::vector<int> shown;
    if (m_topK->value() > 0)
        shown = topTrials(m_trials, m_topK->value(), m_direction);
    const ParamTable table = paramTable(m_trials);
    drawHistory();
    drawIntermediate(shown);
    drawParallel(table, shown);
    m_importance->setValues(
        parameterImportance(m_trials, table),
        tr("fANOVA-lite: variance share of each parameter's main effect (ε², numbers in quantile bins), normalised"));
    drawTimeline();
}

void StudyView::drawHistory()
{
    const QPalette pal = palette();
    // Markers only: a line series without a line, its points painted as a light marker image. Qt Charts'
    // scatter series makes a graphics item per point, five times slower at 10,000 trials.
    auto scatter = [&](const QString& key, const QString& label, const char* state) {
        QLineSeries* series = m_history->line(key, label);
        const QColor color = stateColor(state, pal);
        if (series->pen().color() != color || series->lightMarker().isNull()) {
            series->setPen(QPen(color, 5, Qt::NoPen)); // the width sizes the markers (1.5 × width)
            series->setPointsVisible(true);
            QImage marker(8, 8, QImage::Format_ARGB32_Premultiplied);
            marker.fill(Qt::transparent);
            QPainter painter(&marker);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setPen(Qt::NoPen);
            painter.setBrush(color);
            painter.drawEllipse(QRectF(0.5, 0.5, 7, 7));
            painter.end();
            series->setLightMarker(marker);
        }
        return series;
    };
    QLineSeries* complete = scatter(QStringLiteral("complete"), tr("complete"), "COMPLETE");
    QLineSeries* pruned = scatter(QStringLiteral("pruned"), tr("pruned"), "PRUNED");
    QLineSeries* best = m_history->line(QStringLiteral("best"), tr("best so far"));
    best->setPen(QPen(stateColor("BEST", pal), 2));
    QList<QPointF> done, cut, line;
    const auto bests = bestSoFar(m_trials, m_direction);
    for (std::size_t i = 0; i < m_trials.size(); ++i) {
        const TrialRecord& t = m_trials[i];
        if (auto v = objectiveOf(t))
            (t.state == TrialState::Complete ? done : cut).append(QPointF(t.number, *v));
        if (bests[i]) {
            if (!line.isEmpty())
                line.append(QPointF(t.number, line.back().y())); // a step: flat until it improves
            line.append(QPointF(t.number, *bests[i]));
        }
    }
    m_history->setPoints(complete, done);
    m_history->setPoints(pruned, cut);
    m_history->setPoints(best, line);
    m_history->fitAxes();
}

void StudyView::drawIntermediate(const std::vector<int>& shown)
{
    std::set<int> wanted(shown.begin(), shown.end());
    std::vector<const TrialRecord*> curves;
    for (auto it = m_trials.rbegin(); it != m_trials.rend() && static_cast<int>(curves.size()) < kMaxCurves; ++it)
        if (!it->intermediateValues.empty() && (wanted.empty() || wanted.count(it->number)))
            curves.push_back(&*it);
    const QPalette pal = palette();
    // A pool of kMaxCurves series, reused: creating and deleting series is what costs, not their points.
    for (int i = 0; i < kMaxCurves; ++i) {
        QLineSeries* series = m_intermediate->line(QStringLiteral("curve %1").arg(i));
        if (i >= static_cast<int>(curves.size())) {
            series->setVisible(false);
            continue;
        }
        const TrialRecord* t = curves[static_cast<std::size_t>(i)];
        QList<QPointF> points;
        for (const auto& [step, value] : t->intermediateValues)
            if (std::isfinite(value))
                points.append(QPointF(static_cast<double>(step), value));
        series->setName(tr("trial %1").arg(t->number));
        QPen pen(t->state == TrialState::Pruned ? stateColor("PRUNED", pal)
                 : t->state == TrialState::Fail ? stateColor("FAIL", pal)
                                                : stateColor("COMPLETE", pal),
                 1.4);
        if (t->state == TrialState::Pruned)
            pen.setStyle(Qt::DashLine);
        if (series->pen() != pen)
            series->setPen(pen);
        series->setPointsVisible(points.size() < 30);
        m_intermediate->setPoints(series, points);
        series->setVisible(true);
    }
    m_intermediate->fitAxes();
}

void StudyView::drawParallel(const ParamTable& table, const std::vector<int>& shown)
{
    std::set<int> wanted(shown.begin(), shown.end());
    std::vector<ParallelCoordinates::Axis> axes;
    for (const ParamAxis& p : table.axes)
        axes.push_back({p.name, p.log, p.categories, p.low, p.high});
    ParallelCoordinates::Axis objective{tr("objective"), false, {}, 0, 1};
    bool first = true;
    std::vector<std::vector<double>> rows;
    std::vector<int> labels;
    for (std::size_t i = 0; i < m_trials.size(); ++i) {
        const TrialRecord& t = m_trials[i];
        const auto v = objectiveOf(t);
        if (!v || t.state != TrialState::Complete || (!wanted.empty() && !wanted.count(t.number)))
            continue;
        std::vector<double> row = table.values[i];
        row.push_back(*v);
        objective.low = first ? *v : std::min(objective.low, *v);
        objective.high = first ? *v : std::max(objective.high, *v);
        first = false;
        rows.push_back(std::move(row));
        labels.push_back(t.number);
    }
    axes.push_back(objective);
    if (table.axes.empty())
        axes.clear(), rows.clear(), labels.clear();
    m_parallel->setData(std::move(axes), std::move(rows), std::move(labels), m_direction == StudyDirection::Minimize);
}

void StudyView::drawTimeline()
{
    std::map<std::int64_t, const TrialRecord*> byId;
    for (const TrialRecord& t : m_trials)
        byId[t.id] = &t;
    const double now = nowSeconds();
    std::vector<TrialTimeline::Bar> bars;
    for (const RunRecord& r : m_runs) {
        const auto trial = r.trialId ? byId.find(*r.trialId) : byId.end();
        if (trial == byId.end())
            continue;
        bars.push_back({QString::fromStdString(r.logicalDevice.empty() ? std::string("?") : r.logicalDevice),
                        r.startTime, r.endTime.value_or(r.status == RunStatus::Running ? now : r.startTime),
                        trial->second->number, QString::fromUtf8(trialStateName(trial->second->state).data())});
    }
    if (m_runs.empty())
        for (const TrialRecord& t : m_trials)
            if (t.startTime)
                bars.push_back({tr("(no device recorded)"), *t.startTime,
                                t.completeTime.value_or(t.state == TrialState::Running ? now : *t.startTime), t.number,
                                QString::fromUtf8(trialStateName(t.state).data())});
    m_timeline->setBars(std::move(bars));
}

} // namespace pitwall::ui
