#include "ui/views/studyview.h"

#include "ui/chartview.h"
#include "ui/storepoller.h"
#include "ui/theme.h"
#include "ui/views/parallelcoords.h"
#include "ui/views/studyframe.h"
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
#include <QFutureWatcher>
#include <QPromise>
#include <QThreadPool>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <utility>

namespace pitwall::ui {

namespace {
// Destroying 10,000 trial records (maps, JSON) takes milliseconds: the last reference to replaced data is
// dropped on a pool thread.
template <typename T> void releaseElsewhere(std::shared_ptr<const T>& data, std::shared_ptr<const T> replacement)
{
    std::shared_ptr<const T> old = std::exchange(data, std::move(replacement));
    if (old)
        QThreadPool::globalInstance()->start([old = std::move(old)]() mutable { old.reset(); });
}

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
    m_watcher = new QFutureWatcher<StudyFrame>(this);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &StudyView::frameFinished);
    connect(m_topK, &QSpinBox::valueChanged, this, [this] { draw(); });
    connect(m_parallel, &ParallelCoordinates::selectionChanged, this,
            [this] { m_selection->setText(tr("%1 trial(s) in the brushes").arg(m_parallel->selected().size())); });
}

StudyView::~StudyView()
{
    m_watcher->future().cancel(); // the computation owns its input; it stops at its next stage
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
    std::unordered_set<std::int64_t> ids;
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
    releaseElsewhere(m_trials, std::make_shared<const std::vector<TrialRecord>>(snapshot.focusTrials));
    releaseElsewhere(m_runs, std::make_shared<const std::vector<RunRecord>>(std::move(runs)));
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
    releaseElsewhere(m_trials, std::make_shared<const std::vector<TrialRecord>>(std::move(trials)));
    releaseElsewhere(m_runs, std::make_shared<const std::vector<RunRecord>>(std::move(runs)));
    m_pending = false;
    m_again = false;
    ++m_generation; // a frame in flight is stale now
    applyFrame(computeStudyFrame(makeInput()));
}

void StudyView::setStudy(const QString& name, StudyDirection direction, std::vector<TrialRecord> trials,
                         std::vector<RunRecord> runs)
{
    m_name = name;
    m_direction = direction;
    releaseElsewhere(m_trials, std::make_shared<const std::vector<TrialRecord>>(std::move(trials)));
    releaseElsewhere(m_runs, std::make_shared<const std::vector<RunRecord>>(std::move(runs)));
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
    ++m_generation;
    requestFrame();
}

StudyInput StudyView::makeInput() const
{
    StudyInput input;
    input.generation = m_generation;
    input.direction = m_direction;
    input.trials = m_trials;
    input.runs = m_runs;
    input.topK = m_topK->value();
    input.maxCurves = kMaxCurves;
    input.nowSeconds = nowSeconds();
    input.historyPlot = m_history->chart()->plotArea().size();
    if (m_parallel->isVisible()) // a hidden widget has no final size yet: its layer is made when painted
        input.parallelStyle = m_parallel->layerStyle();
    input.parallelAxes = m_parallel->axisNames();
    input.parallelBrushes = m_parallel->brushes();
    return input;
}

void StudyView::requestFrame()
{
    if (m_computing) {
        m_again = true; // one computation at a time; the latest data is computed when this one ends
        return;
    }
    m_again = false;
    m_computing = true;
    auto input = std::make_shared<const StudyInput>(makeInput());
    auto promise = std::make_shared<QPromise<StudyFrame>>();
    m_watcher->setFuture(promise->future());
    promise->start();
    QThreadPool::globalInstance()->start([input, promise] {
        if (!promise->isCanceled())
            promise->addResult(computeStudyFrame(*input, [&promise] { return promise->isCanceled(); }));
        promise->finish();
    });
}

void StudyView::frameFinished()
{
    m_computing = false;
    QFuture<StudyFrame> future = m_watcher->future();
    if (!future.isCanceled() && future.resultCount() > 0) {
        StudyFrame frame = future.takeResult();
        if (frame.generation == m_generation)
            applyFrame(std::move(frame));
    }
    if (m_again)
        requestFrame();
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
                             .arg(m_direction == StudyDirection::Minimize ? tr("minimise") : tr("maximise")));
    }
    applyHistory(frame);
    applyIntermediate(frame);
    m_parallel->setData(std::move(frame.axes), std::move(frame.rows), std::move(frame.labels),
                        m_direction == StudyDirection::Minimize, std::move(frame.parallelLayer), frame.parallelStyle,
                        frame.parallelBrushes);
    m_importance->setValues(
        std::move(frame.importance),
        tr("fANOVA-lite: variance share of each parameter's main effect (ε², numbers in quantile bins), normalised"));
    m_timeline->setBars(std::move(frame.bars));
    Q_EMIT drawn();
}

void StudyView::applyHistory(const StudyFrame& frame)
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
    m_history->setPoints(complete, frame.complete);
    m_history->setPoints(pruned, frame.pruned);
    m_history->setPoints(best, frame.best);
    m_history->fitAxes();
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
}

} // namespace pitwall::ui
