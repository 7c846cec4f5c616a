#include "ui/live/liveview.h"

#include "ui/charts/chartview.h"
#include "ui/live/livemodel.h"
#include "ui/poller/storepoller.h"
#include "ui/study/studymath.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSlider>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <set>

namespace pitwall::ui {

namespace {

struct ChartSpec {
    const char* title;
    const char* yTitle;
    std::vector<const char*> keys; // exact keys; "loss/" takes every per-head loss
    double scale = 1.0;
};

const std::vector<ChartSpec>& chartSpecs()
{
    static const std::vector<ChartSpec> specs = {
        {"Loss", "loss", {"loss", "loss/"}}, {"Throughput", "samples/s", {"compute_fps", "full_fps"}},
        {"Learning rate", "lr", {"lr"}},     {"Data wait", "ms per batch", {"data_wait_ms"}},
        {"CPU", "%", {"cpu_percent"}},       {"Peak memory", "MiB", {"peak_memory_bytes"}, 1.0 / (1024.0 * 1024.0)},
    };
    return specs;
}

bool specWants(const ChartSpec& spec, const QString& key)
{
    for (const char* k : spec.keys) {
        const QLatin1String want(k);
        if (want.endsWith(QLatin1Char('/')) ? key.startsWith(want) : key == want)
            return true;
    }
    return false;
}

QString seriesLabel(const QString& key)
{
    if (key == QLatin1String("compute_fps"))
        return QObject::tr("compute FPS");
    if (key == QLatin1String("full_fps"))
        return QObject::tr("full FPS");
    if (key == QLatin1String("loss"))
        return QObject::tr("total");
    if (key.startsWith(QLatin1String("loss/")))
        return key.mid(5);
    return key;
}

QString runLabel(const RunRecord& run)
{
    return QObject::tr("run %1 · seed %2 · %3 · %4")
        .arg(run.id)
        .arg(run.seed)
        .arg(QString::fromStdString(run.logicalDevice.empty() ? std::string("?") : run.logicalDevice),
             QString::fromUtf8(runStatusName(run.status).data()));
}

// The x axis choices of the run bar, in its order.
struct XChoice {
    const char* label;
    const char* title; // the axis title
    ChartView::XAxis kind;
};
const std::vector<XChoice>& xChoices()
{
    static const std::vector<XChoice> choices = {
        {QT_TR_NOOP("step"), QT_TR_NOOP("step"), ChartView::XAxis::Linear},
        {QT_TR_NOOP("step (log)"), QT_TR_NOOP("step"), ChartView::XAxis::Log},
        {QT_TR_NOOP("relative time"), QT_TR_NOOP("time since the first row"), ChartView::XAxis::Elapsed},
        {QT_TR_NOOP("wall time"), QT_TR_NOOP("time of day"), ChartView::XAxis::Clock},
    };
    return choices;
}

} // namespace

LiveView::LiveView(LiveModel* model, QWidget* parent) : QWidget(parent), m_model(model)
{
    setObjectName("liveView");
    QHBoxLayout* top = buildRunBar();
    QHBoxLayout* progress = buildProgressRow();
    QWidget* grid = buildCharts();
    m_events = new QPlainTextEdit(this);
    m_events->setObjectName("liveEvents");
    m_events->setReadOnly(true);
    m_events->setMaximumBlockCount(LiveModel::kMaxEvents);
    m_events->setPlaceholderText(tr("Events of the run appear here."));

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(grid);
    splitter->addWidget(m_events);
    splitter->setStretchFactor(0, 5);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(progress);
    layout->addWidget(splitter, 1);

    m_throttle = new QTimer(this);
    m_throttle->setSingleShot(true);
    m_throttle->setInterval(kRedrawIntervalMs);
    connect(m_throttle, &QTimer::timeout, this, &LiveView::refresh);
    connect(m_model, &LiveModel::changed, this, &LiveView::scheduleRedraw);
    connect(m_model, &LiveModel::runChanged, this, [this] {
        for (ChartView* chart : m_charts)
            chart->removeAll();
        m_events->clear();
        m_lastEventId = 0;
    });
    connect(m_log, &QCheckBox::toggled, this, [this](bool on) {
        for (ChartView* chart : m_charts)
            chart->setLogY(on);
        redraw();
    });
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this](int i) {
        const XChoice& choice = xChoices()[static_cast<std::size_t>(std::max(0, i))];
        const auto& specs = chartSpecs();
        for (std::size_t c = 0; c < m_charts.size(); ++c) {
            m_charts[c]->setAxisTitles(tr(choice.title), tr(specs[c].yTitle));
            m_charts[c]->setXAxis(choice.kind);
        }
        redraw();
    });
    connect(m_runs, &QComboBox::activated, this, [this](int i) {
        m_pinned = m_runs->itemData(i).toLongLong();
        pickRun();
    });
}

QHBoxLayout* LiveView::buildRunBar()
{
    auto* top = new QHBoxLayout;
    m_runs = new QComboBox(this);
    m_runs->setObjectName("liveRunPicker");
    m_runs->setMinimumContentsLength(30);
    m_runs->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_runs->addItem(tr("Latest run (follow)"), qint64(0));
    m_log = new QCheckBox(tr("&Log y"), this);
    m_log->setObjectName("liveLogScale");
    m_log->setToolTip(tr("Every chart's y axis on a log scale (values <= 0 are not drawn)"));
    // The x axis of every chart: the global step (stages one after the other), on a log scale, the time since
    // the run's first row, or the time of day.
    m_xAxis = new QComboBox(this);
    m_xAxis->setObjectName("liveXAxis");
    for (const XChoice& choice : xChoices())
        m_xAxis->addItem(tr(choice.label));
    m_xAxis->setToolTip(tr("x axis of every chart: step, step on a log scale, time since the run's first row, or the "
                           "time of day"));
    auto* xLabel = new QLabel(tr("&x:"), this);
    xLabel->setBuddy(m_xAxis);
    // Smoothing of every curve (debiased exponential moving average, the raw curve faint behind).
    m_smoothing = new QSlider(Qt::Horizontal, this);
    m_smoothing->setObjectName("liveSmoothing");
    m_smoothing->setRange(0, 99);
    m_smoothing->setFixedWidth(90);
    m_smoothing->setToolTip(tr("Smoothing weight: each point is an exponential moving average of the points before "
                               "it (debiased); the raw curve stays faint behind"));
    auto* smoothingValue = new QLabel(QStringLiteral("0.00"), this);
    smoothingValue->setObjectName("liveSmoothingValue");
    connect(m_smoothing, &QSlider::valueChanged, this, [this, smoothingValue](int v) {
        smoothingValue->setText(QString::number(v / 100.0, 'f', 2));
        for (ChartView* chart : m_charts)
            chart->setSmoothing(v / 100.0);
    });
    auto* smoothingLabel = new QLabel(tr("S&moothing"), this);
    smoothingLabel->setBuddy(m_smoothing);
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(new QLabel(tr("Run:"), this));
    top->addWidget(m_runs);
    top->addWidget(xLabel);
    top->addWidget(m_xAxis);
    top->addWidget(m_log);
    top->addWidget(smoothingLabel);
    top->addWidget(m_smoothing);
    top->addWidget(smoothingValue);
    top->addStretch(1);
    return top;
}

QHBoxLayout* LiveView::buildProgressRow()
{
    auto* progress = new QHBoxLayout;
    m_stageLabel = new QLabel(tr("Stage –"), this);
    m_stageBar = new QProgressBar(this);
    m_stageBar->setFormat(tr("stage %v/%m"));
    m_epochBar = new QProgressBar(this);
    m_epochBar->setFormat(tr("epoch %v/%m"));
    progress->addWidget(m_stageLabel);
    progress->addWidget(m_stageBar, 1);
    progress->addWidget(m_epochBar, 2);
    progress->addWidget(m_status); // the run, its state and rows, beside its progress
    return progress;
}

QWidget* LiveView::buildCharts()
{
    auto* grid = new QWidget(this);
    auto* gridLayout = new QGridLayout(grid);
    gridLayout->setContentsMargins(0, 0, 0, 0);
    gridLayout->setSpacing(4);
    int index = 0;
    for (const ChartSpec& spec : chartSpecs()) {
        auto* chart = new ChartView(tr(spec.title), grid);
        chart->setAxisTitles(tr("step"), tr(spec.yTitle));
        // Loss (with a legend of every head) and throughput get half the width each on the first row; the four
        // single-series charts share the second.
        if (index < 2)
            gridLayout->addWidget(chart, 0, index * 2, 1, 2);
        else
            gridLayout->addWidget(chart, 1, index - 2);
        m_charts.push_back(chart);
        ++index;
    }
    return grid;
}

void LiveView::showSnapshot(const StoreSnapshot& snapshot)
{
    if (snapshot.focusTrials != m_indexedTrials && !snapshot.runs->empty()) {
        m_focusTrialIds.clear();
        m_focusTrialIds.reserve(snapshot.focusTrials->size());
        for (const TrialRecord& t : *snapshot.focusTrials)
            m_focusTrialIds.insert(t.id);
        m_indexedTrials = snapshot.focusTrials;
    }
    const std::unordered_set<qint64>& focusTrials = m_focusTrialIds; // runs only when there are runs
    m_runList.clear();
    m_latestRunning = 0;
    for (const RunRecord& run : *snapshot.runs)
        if (run.status == RunStatus::Running)
            m_latestRunning = std::max<qint64>(m_latestRunning, run.id);
    for (const RunRecord& run : *snapshot.runs)
        if (run.trialId && focusTrials.count(*run.trialId))
            m_runList.push_back(run);
    if (m_runList.empty())
        m_runList = *snapshot.runs;

    // The picker is rebuilt only when its runs changed (metric rows move the change counter all the time, and
    // a rebuild would close an open drop-down).
    const std::uint64_t signature = runsSignature(m_runList);
    if (signature == m_pickerSignature && m_runs->count() == static_cast<int>(m_runList.size()) + 1) {
        pickRun();
        return;
    }
    m_pickerSignature = signature;
    const QSignalBlocker blocker(m_runs);
    while (m_runs->count() > 1)
        m_runs->removeItem(1);
    for (auto it = m_runList.rbegin(); it != m_runList.rend(); ++it)
        m_runs->addItem(runLabel(*it), qint64(it->id));
    const int pinned = m_runs->findData(m_pinned);
    m_runs->setCurrentIndex(pinned >= 0 ? pinned : 0);
    if (pinned < 0)
        m_pinned = 0;
    pickRun();
}

void LiveView::showRun(qint64 runId)
{
    m_pinned = runId;
    const int index = m_runs->findData(runId);
    if (index < 0 && runId != 0) {
        m_runs->addItem(tr("run %1").arg(runId), runId);
        m_runs->setCurrentIndex(m_runs->count() - 1);
    } else {
        m_runs->setCurrentIndex(std::max(index, 0));
    }
    pickRun();
}

void LiveView::forgetRuns()
{
    m_pickerSignature = 0;
    m_runList.clear();
    m_latestRunning = 0;
    m_pinned = 0;
    m_requested = 0;
    const QSignalBlocker blocker(m_runs);
    while (m_runs->count() > 1)
        m_runs->removeItem(1);
    m_runs->setCurrentIndex(0);
}

void LiveView::pickRun()
{
    // Following: the newest running run anywhere in the database (work just launched, or re-attached after
    // the window reopened), else the newest run of the study in focus.
    qint64 target = m_pinned;
    if (target == 0) {
        target = m_latestRunning;
        if (target == 0)
            for (const RunRecord& run : m_runList)
                target = std::max<qint64>(target, run.id);
    }
    if (target != m_requested) {
        m_requested = target;
        Q_EMIT runRequested(target);
    }
}

bool LiveView::ready() const
{
    if (m_requested == 0)
        return m_runList.empty();
    return m_model->runId() == m_requested && m_model->caughtUp() && m_drawnRevision == m_model->revision();
}

void LiveView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    scheduleRedraw();
}

void LiveView::scheduleRedraw()
{
    if (!m_throttle->isActive())
        m_throttle->start();
}

void LiveView::refresh()
{
    if (!isVisible() || m_drawnRevision == m_model->revision())
        return; // hidden views are drawn when shown again
    redraw();
}

void LiveView::redraw()
{
    const auto& specs = chartSpecs();
    // On a time axis each step is drawn at the time its row was written (relative: since the first row).
    const ChartView::XAxis kind = xChoices()[static_cast<std::size_t>(std::max(0, m_xAxis->currentIndex()))].kind;
    const bool inTime = kind == ChartView::XAxis::Elapsed || kind == ChartView::XAxis::Clock;
    const double origin = kind == ChartView::XAxis::Elapsed ? m_model->firstTime() : 0.0;
    std::vector<StageMark> marks = m_model->stages();
    if (inTime)
        for (StageMark& mark : marks)
            mark.x = m_model->timeAt(mark.x) - origin;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        ChartView* chart = m_charts[i];
        for (const QString& key : m_model->keys()) {
            if (!specWants(specs[i], key))
                continue;
            QLineSeries* series = chart->line(key, seriesLabel(key));
            if (key == QLatin1String("loss")) {
                QPen pen = series->pen();
                pen.setWidthF(2.5);
                series->setPen(pen);
            }
            QList<QPointF> points = m_model->overview(key);
            if (specs[i].scale != 1.0)
                for (QPointF& p : points)
                    p.setY(p.y() * specs[i].scale);
            if (inTime)
                points = m_model->inTime(points, origin);
            series->setPointsVisible(points.size() < 64);
            chart->setCurve(series, points);
        }
        chart->setMarks(marks);
        chart->fitAxes();
    }
    m_drawnRevision = m_model->revision();
    updateStatus();
}

void LiveView::updateStatus()
{
    const auto& run = m_model->run();
    if (!run) {
        m_status->setText(m_requested ? tr("Reading run %1…").arg(m_requested) : tr("No run in this database."));
    } else {
        QString text = runLabel(*run) + tr(" · %L1 rows").arg(m_model->rowCount());
        QString full = text;
        if (run->status == RunStatus::Failed || run->status == RunStatus::Cancelled) {
            // The whole message in the tooltip and the events below; the bar keeps its width.
            const QString message = QString::fromStdString(run->message);
            full += QStringLiteral(" · ") + message;
            text += QStringLiteral(" · ") + (message.size() > 60 ? message.left(59) + QChar(0x2026) : message);
        }
        m_status->setText(text);
        m_status->setToolTip(full);
        m_status->setStyleSheet(run->status == RunStatus::Failed ? QStringLiteral("color: #d04040;") : QString());
    }
    const LiveProgress p = m_model->progress();
    m_stageLabel->setText(p.stage.isEmpty() ? tr("Stage –") : tr("Stage %1").arg(p.stage));
    m_stageBar->setRange(0, std::max(1, p.stages));
    m_stageBar->setValue(p.stage.isEmpty() ? 0 : p.stageIndex + 1);
    m_epochBar->setRange(0, std::max(1, p.epochs));
    m_epochBar->setValue(std::min(p.epochsDone, std::max(1, p.epochs)));

    for (const EventRecord& e : m_model->events()) {
        if (e.id <= m_lastEventId)
            continue;
        m_events->appendPlainText(QStringLiteral("[%1] %2").arg(QString::fromUtf8(eventLevelName(e.level).data()),
                                                                QString::fromStdString(e.message)));
        m_lastEventId = e.id;
    }
}

} // namespace pitwall::ui
