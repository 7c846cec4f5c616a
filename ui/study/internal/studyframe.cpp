#include "ui/study/internal/studyframe.h"

#include "ui/study/studymath.h"

#include "core/store/besttrial.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace pitwall::ui {

namespace {

// One marker per cell of kThinCellPx pixels of the plot, in data units from the points' bounds (the fitted
// axes are a few per cent wider, so a cell is at most that on screen). Markers are 7.5 px discs: among
// thousands, one shifted by under 2 px changes nothing visible.
constexpr double kThinCellPx = 2;
void thinMarkers(QList<QPointF>& a, QList<QPointF>& b, QSizeF plot)
{
    if (a.size() + b.size() < kThinMarkersFrom || plot.width() < 1 || plot.height() < 1)
        return;
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const QList<QPointF>* list : {&a, &b})
        for (const QPointF& p : *list) {
            x0 = std::min(x0, p.x()), x1 = std::max(x1, p.x());
            y0 = std::min(y0, p.y()), y1 = std::max(y1, p.y());
        }
    const double cellX = x1 > x0 ? (x1 - x0) * kThinCellPx / plot.width() : 1;
    const double cellY = y1 > y0 ? (y1 - y0) * kThinCellPx / plot.height() : 1;
    for (QList<QPointF>* list : {&a, &b}) {
        if (list->size() < kThinMarkersFrom / 4)
            continue;
        std::unordered_set<std::uint64_t> seen;
        seen.reserve(static_cast<std::size_t>(list->size()));
        QList<QPointF> kept;
        kept.reserve(list->size());
        for (const QPointF& p : std::as_const(*list)) {
            const auto cx = static_cast<std::uint64_t>((p.x() - x0) / cellX);
            const auto cy = static_cast<std::uint64_t>((p.y() - y0) / cellY);
            if (seen.insert(cx << 32 | (cy & 0xffffffffu)).second)
                kept.append(p);
        }
        *list = std::move(kept);
    }
}

// The best-so-far step line, by core/store/besttrial.h's rule. It has a corner where the best improves and ends at
// the last trial: the trials in between lie on its flat runs (drawing and hit-testing 20,000 collinear points costs
// milliseconds). An infinite best cannot be drawn: the line stops where the best became infinite.
QList<QPointF> bestLine(const std::vector<TrialRecord>& trials, StudyDirection direction)
{
    QList<QPointF> line;
    BestTracker best(direction);
    int lastNumber = 0;
    for (const TrialRecord& t : trials) {
        const std::optional<double> before = best.value();
        if (best.offer(t)) {
            if (before && std::isfinite(*before) && !line.isEmpty())
                line.append(QPointF(t.number, *before)); // a step: flat until it improves
            if (std::isfinite(*best.value()))
                line.append(QPointF(t.number, *best.value()));
        }
        if (best.value())
            lastNumber = t.number;
    }
    if (best.value() && std::isfinite(*best.value()) && !line.isEmpty() && line.back().x() != lastNumber)
        line.append(QPointF(lastNumber, *best.value()));
    return line;
}

// The rows of the complete trials (within the top k) on the drawn axes, and their dense layer.
void parallelFrame(const StudyInput& input, const std::vector<TrialRecord>& trials,
                   const std::vector<std::optional<double>>& objective, const std::unordered_set<int>& wanted,
                   const ParamTable& table, const std::vector<std::size_t>& drawn, StudyFrame& frame)
{
    for (std::size_t a : drawn) {
        const ParamAxis& p = table.axes[a];
        frame.axes.push_back({p.name, p.log, p.categories, p.low, p.high});
    }
    ParallelCoordinates::Axis axis{input.objectiveName.isEmpty()
                                       ? QCoreApplication::translate("pitwall::ui::StudyView", "objective")
                                       : input.objectiveName,
                                   false, {}, 0, 1};
    bool first = true;
    for (std::size_t i = 0; i < trials.size(); ++i) {
        const TrialRecord& t = trials[i];
        const auto& v = objective[i];
        if (!v || t.state != TrialState::Complete || (!wanted.empty() && !wanted.count(t.number)))
            continue;
        std::vector<double> row;
        row.reserve(drawn.size() + 1);
        for (std::size_t a : drawn)
            row.push_back(table.values[i][a]);
        row.push_back(*v);
        axis.low = first ? *v : std::min(axis.low, *v);
        axis.high = first ? *v : std::max(axis.high, *v);
        first = false;
        frame.rows.push_back(std::move(row));
        frame.labels.push_back(t.number);
    }
    frame.axes.push_back(axis);
    if (frame.rows.size() > ParallelCoordinates::kDenseFrom && !input.parallelStyle.pixelSize.isEmpty()) {
        // The widget keeps its brushes while the axes keep their names (ParallelCoordinates::setData).
        const bool sameAxes = std::equal(frame.axes.begin(), frame.axes.end(), input.parallelAxes.begin(),
                                         input.parallelAxes.end(),
                                         [](const auto& axis, const QString& name) { return axis.name == name; });
        const ParallelCoordinates::Brushes brushes =
            sameAxes ? input.parallelBrushes : ParallelCoordinates::Brushes(frame.axes.size());
        frame.parallelLayer = ParallelCoordinates::renderDenseLayer(
            frame.axes, frame.rows, brushes, input.direction == StudyDirection::Minimize, input.parallelStyle);
        frame.parallelStyle = input.parallelStyle;
        frame.parallelBrushes = brushes;
    }
}

// History: markers of the trials with an objective and the best-so-far step line, thinned for the plot.
void historyFrame(const StudyInput& input, const std::vector<TrialRecord>& trials,
                  const std::vector<std::optional<double>>& objective, StudyFrame& frame)
{
    frame.complete.reserve(static_cast<qsizetype>(trials.size()));
    for (std::size_t i = 0; i < trials.size(); ++i)
        if (const auto& v = objective[i])
            (trials[i].state == TrialState::Complete ? frame.complete : frame.pruned)
                .append(QPointF(trials[i].number, *v));
    frame.best = bestLine(trials, input.direction);
    thinMarkers(frame.complete, frame.pruned, input.historyPlot);
}

// The history's markers as one image, on the ranges the history's fitAxes will set (its series' bounds are these
// points' bounds).
void historyMarkers(const StudyInput& input, StudyFrame& frame)
{
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const QList<QPointF>* list : {&frame.complete, &frame.pruned, &frame.best})
        for (const QPointF& p : *list)
            if (std::isfinite(p.x()) && std::isfinite(p.y())) {
                x0 = std::min(x0, p.x()), x1 = std::max(x1, p.x());
                y0 = std::min(y0, p.y()), y1 = std::max(y1, p.y());
            }
    frame.historyGeometry.plotSize = input.historyPlot;
    frame.historyGeometry.ranges =
        ChartView::fittedRanges(x0, x1, y0, y1, false, tickBudget(input.historyPlot, input.historyLabelHeight));
    frame.historyGeometry.ranges.xStep = frame.historyGeometry.ranges.yStep = 0;
    frame.historyGeometry.devicePixelRatio = input.historyPixelRatio;
    frame.completeColor = input.completeColor;
    frame.prunedColor = input.prunedColor;
    frame.historyMarkers = MarkerLayer::render(
        {{frame.complete, input.completeColor}, {frame.pruned, input.prunedColor}}, frame.historyGeometry);
}

// Intermediate values of the newest trials (within the top k), newest first.
std::vector<StudyFrame::Curve> intermediateCurves(const StudyInput& input, const std::vector<TrialRecord>& trials,
                                                  const std::unordered_set<int>& wanted)
{
    std::vector<StudyFrame::Curve> curves;
    for (auto it = trials.rbegin(); it != trials.rend() && static_cast<int>(curves.size()) < input.maxCurves; ++it) {
        if (it->intermediateValues.empty() || (!wanted.empty() && !wanted.count(it->number)))
            continue;
        StudyFrame::Curve curve{it->number, it->state, {}, !it->allIntermediates};
        for (const auto& [step, value] : it->intermediateValues)
            if (std::isfinite(value))
                curve.points.append(QPointF(static_cast<double>(step), value));
        curves.push_back(std::move(curve));
    }
    return curves;
}

// A trial state's name, made once per state.
class StateNames {
public:
    const QString& operator()(TrialState state)
    {
        QString& name = m_names[static_cast<int>(state) & 7];
        if (name.isEmpty())
            name = QString::fromUtf8(trialStateName(state).data());
        return name;
    }

private:
    QString m_names[8];
};

// Timeline: the trials' runs on their logical devices; the trials' own times when the study has no runs (runs may
// hold other studies' runs).
std::vector<TrialTimeline::Bar> timelineBars(const StudyInput& input, const std::vector<TrialRecord>& trials,
                                             const std::vector<RunRecord>& runs)
{
    std::unordered_map<std::int64_t, const TrialRecord*> byId;
    byId.reserve(trials.size());
    for (const TrialRecord& t : trials)
        byId[t.id] = &t;
    std::unordered_map<std::string, QString> lanes; // one QString per device
    StateNames stateName;
    std::vector<TrialTimeline::Bar> bars;
    bars.reserve(runs.empty() ? trials.size() : runs.size());
    for (const RunRecord& r : runs) {
        const auto trial = r.trialId ? byId.find(*r.trialId) : byId.end();
        if (trial == byId.end())
            continue;
        auto lane = lanes.try_emplace(r.logicalDevice);
        if (lane.second)
            lane.first->second = QString::fromStdString(r.logicalDevice.empty() ? std::string("?") : r.logicalDevice);
        bars.push_back({lane.first->second, r.startTime,
                        r.endTime.value_or(r.status == RunStatus::Running ? input.nowSeconds : r.startTime),
                        trial->second->number, stateName(trial->second->state)});
    }
    if (!bars.empty())
        return bars;
    const QString noDevice = QCoreApplication::translate("pitwall::ui::StudyView", "(no device recorded)");
    for (const TrialRecord& t : trials)
        if (t.startTime)
            bars.push_back({noDevice, *t.startTime,
                            t.completeTime.value_or(t.state == TrialState::Running ? input.nowSeconds : *t.startTime),
                            t.number, stateName(t.state)});
    return bars;
}

} // namespace

StudyFrame computeStudyFrame(const StudyInput& input, const std::function<bool()>& cancelled)
{
    auto stop = [&] { return cancelled && cancelled(); };
    StudyFrame frame;
    frame.generation = input.generation;
    static const std::vector<TrialRecord> kNoTrials;
    static const std::vector<RunRecord> kNoRuns;
    const std::vector<TrialRecord>& original = input.trials ? *input.trials : kNoTrials;
    std::vector<TrialRecord> projected;
    if (input.objectiveIndex > 0)
        projected = projectObjective(original, input.objectiveIndex);
    const std::vector<TrialRecord>& trials = input.objectiveIndex > 0 ? projected : original;
    const std::vector<RunRecord>& runs = input.runs ? *input.runs : kNoRuns;
    frame.trialCount = trials.size();

    // The objective of every trial, read once.
    std::vector<std::optional<double>> objective(trials.size());
    for (std::size_t i = 0; i < trials.size(); ++i) {
        objective[i] = objectiveOf(trials[i]);
        frame.completeCount += trials[i].state == TrialState::Complete ? 1 : 0;
    }
    std::unordered_set<int> wanted;
    if (input.topK > 0)
        for (int n : topTrials(trials, input.topK, input.direction))
            wanted.insert(n);

    historyFrame(input, trials, objective, frame);
    if (input.directions.size() > 1)
        frame.pareto = computeParetoFrame(original, input.directions, input.paretoAxes.first, input.paretoAxes.second,
                                          input.labels);
    if (input.completeColor.isValid() && input.prunedColor.isValid())
        historyMarkers(input, frame);
    if (stop())
        return frame;
    frame.curves = intermediateCurves(input, trials, wanted);

    // Parallel coordinates: complete trials (within the top k), the drawn parameters then the objective.
    frame.params = input.params ? input.params : std::make_shared<const StudyParams>(studyParams(trials));
    if (stop())
        return frame;
    const std::vector<std::size_t> drawn = drawnParams(*frame.params, input.maxParams, input.pickedParams);
    for (std::size_t a : drawn)
        frame.importance.push_back(frame.params->importance[a]);
    if (!drawn.empty())
        parallelFrame(input, trials, objective, wanted, frame.params->table, drawn, frame);
    if (stop())
        return frame;
    frame.bars = timelineBars(input, trials, runs);
    return frame;
}

} // namespace pitwall::ui
