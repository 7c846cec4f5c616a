#pragma once
// Everything the study view draws, derived from a study's trials and runs in one pass off the GUI thread:
// the GUI thread only swaps the prepared frame in (StudyView::applyFrame). Pure: any thread.

#include "ui/charts/markerlayer.h"
#include "ui/study/internal/paretoview.h"
#include "ui/study/internal/parallelcoords.h"
#include "ui/study/internal/studywidgets.h"
#include "ui/study/studymath.h"

#include "core/store/records.h"

#include <QImage>
#include <QList>
#include <QPointF>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace pitwall::ui {

// What a frame is computed from; trials and runs are shared, never copied per frame.
struct StudyInput {
    std::uint64_t generation = 0; // the view's count of data changes; older frames are dropped
    StudyDirection direction = StudyDirection::Minimize;
    std::vector<StudyDirection> directions; // several: the Pareto frame is computed too
    std::pair<int, int> paretoAxes{0, 1};   // the objectives the Pareto front is drawn in
    std::vector<TrialLabel> labels;         // the study's named points (triallabels.h): the front names them
    // Several objectives: the one the history, top k, parallel coordinates and importance are about (projectObjective;
    // `direction` and `objectiveName` are its own).
    std::size_t objectiveIndex = 0;
    QString objectiveName; // the parallel coordinates' colour axis (empty: "objective")
    std::shared_ptr<const std::vector<TrialRecord>> trials;
    std::shared_ptr<const std::vector<RunRecord>> runs; // may hold other trials' runs: they are skipped
    int topK = 0;           // 0: all trials
    int maxCurves = 60;     // intermediate-value curves at most
    double nowSeconds = 0;  // Unix seconds, the end of running bars
    QSizeF historyPlot;     // the history chart's plot area in pixels (empty: not laid out, no thinning)
    double historyLabelHeight = 0; // its axis labels' line height (for the tick budget its axes are fitted with)
    qreal historyPixelRatio = 1;
    QColor completeColor, prunedColor; // the history's markers; invalid: no marker image made
    ParallelCoordinates::LayerStyle parallelStyle; // empty pixelSize: no dense layer made
    QStringList parallelAxes; // the widget's axis names now, and its brushes on them
    ParallelCoordinates::Brushes parallelBrushes;
    // Parameters drawn in parallel coordinates and importance: `pickedParams` when set (the user's choice),
    // otherwise the maxParams most important.
    std::size_t maxParams = 16;
    std::optional<QStringList> pickedParams;
    // The parameters and their importance for these trials when known (null: computed with the frame).
    std::shared_ptr<const StudyParams> params;
};

struct StudyFrame {
    std::uint64_t generation = 0;
    std::size_t trialCount = 0;
    int completeCount = 0;
    // History: markers of complete and pruned trials (thinned to one per 2 × 2 pixels above kThinMarkersFrom) and the
    // best-so-far step line.
    QList<QPointF> complete, pruned, best;
    // The markers (complete, then pruned) drawn for historyPlot and the axis ranges the chart fits to these
    // points (ChartView::fittedRanges); null when the plot is not laid out or no colours were given.
    QImage historyMarkers;
    MarkerLayer::Geometry historyGeometry;
    QColor completeColor, prunedColor; // what historyMarkers is drawn with
    struct Curve {
        int trial = 0;
        TrialState state = TrialState::Complete;
        QList<QPointF> points;
        bool partial = false; // the trial was read summarised: its last intermediate value alone
    };
    std::vector<Curve> curves; // newest first
    std::vector<ParallelCoordinates::Axis> axes; // parameters, then the objective; empty without parameters
    std::vector<std::vector<double>> rows;
    std::vector<int> labels;
    QImage parallelLayer; // rendered for parallelStyle and parallelBrushes when rows exceed kDenseFrom
    ParallelCoordinates::LayerStyle parallelStyle;
    ParallelCoordinates::Brushes parallelBrushes;
    std::vector<std::pair<QString, double>> importance; // of the drawn parameters, in drawing order
    std::shared_ptr<const StudyParams> params;           // every parameter: the input's, or computed
    std::vector<TrialTimeline::Bar> bars;
    ParetoFrame pareto; // studies with several objectives
};

// Above this many markers in the history, keep one per 2 × 2 pixels of the plot: the screen shows no more.
constexpr int kThinMarkersFrom = 2000;

// `cancelled` is polled between the stages; a cancelled computation returns a partial frame.
StudyFrame computeStudyFrame(const StudyInput& input, const std::function<bool()>& cancelled = {});

} // namespace pitwall::ui
