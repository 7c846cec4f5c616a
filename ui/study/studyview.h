#pragma once
// The study view: optimisation history with the best value so far, intermediate values per trial (pruned
// trials dashed), parallel coordinates with brushing, parameter importance (fANOVA-lite: each parameter's
// main-effect share of the objective's variance, see parameterImportance), and a timeline of trials per logical device
// (from the runs' logical_device and start/end; the trials' own times when a study has no runs, as Optuna's).
// Parallel coordinates and importance draw at most kMaxDrawnParams parameters, the most important first
// (computed once per revision of the trials); the parameter picker beside them adds others or takes them off.
// A top-k filter restricts parallel coordinates and intermediate curves to the k best complete trials.
// Data: the poller's snapshot of the study in focus. Drawn only while visible, at most every kMinRedrawMs.
// What is drawn (a StudyFrame: points, rows, importance, bars, the dense parallel-coordinates layer) is
// computed by a task off the GUI thread, one computation at a time; the GUI thread only swaps the frame in. A
// change of the data cancels the computation in flight (its frame is dropped) and computes again.

#include "core/hpo/triallabels.h"
#include "core/store/records.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

class QComboBox;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTimer;

class QHBoxLayout;
class QSplitter;

namespace pitwall::ui {

class ChartView;
class ImportanceBars;
class MarkerLayer;
class ParallelCoordinates;
class ParamPicker;
class ParetoView;
class TrialTimeline;
struct StoreSnapshot;
struct StudyFrame;
struct StudyInput;
struct StudyParams;

class Task;

class StudyView : public QWidget {
    Q_OBJECT
public:
    explicit StudyView(QWidget* parent = nullptr);
    ~StudyView() override;

    static constexpr int kMaxCurves = 60; // intermediate-value curves drawn at most
    static constexpr int kMinRedrawMs = 250;
    static constexpr int kMaxDrawnParams = 16; // parameters drawn unless picked (parallel coordinates, importance)

    void showSnapshot(const StoreSnapshot& snapshot);
    // Sets the study shown and draws it now, computing on the calling (GUI) thread (tests call this directly).
    void showStudy(const QString& name, StudyDirection direction, std::vector<TrialRecord> trials,
                   std::vector<RunRecord> runs);
    // Sets the study shown; it is computed off the GUI thread and drawn when ready() (drawn() is emitted).
    void setStudy(const QString& name, StudyDirection direction, std::vector<TrialRecord> trials,
                  std::vector<RunRecord> runs);
    // Changes the top-k filter; drawn as setStudy.
    void setTopK(int k);
    // Draws exactly these parameters (nullopt: the kMaxDrawnParams most important); drawn as setStudy.
    void setPickedParams(std::optional<QStringList> names);
    // True once the latest data is drawn, with no computation pending or in flight and no curve asked for whole
    // (intermediatesWanted) still unanswered.
    bool ready() const;

    ChartView* history() const { return m_history; }
    // The history's markers: set 0 the complete trials, set 1 the pruned ones (thinned as StudyFrame says).
    // Its "complete" and "pruned" series carry no points: they are the legend entries.
    MarkerLayer* historyMarkers() const { return m_historyMarkers; }
    ChartView* intermediate() const { return m_intermediate; }
    ParallelCoordinates* parallel() const { return m_parallel; }
    ImportanceBars* importance() const { return m_importance; }
    TrialTimeline* timeline() const { return m_timeline; }
    ParamPicker* picker() const { return m_picker; }
    // Several objectives: the Pareto front and hypervolume pages, shown as the first tabs of historyTabs().
    ParetoView* pareto() const { return m_pareto; }
    QTabWidget* historyTabs() const { return m_historyTabs; }
    // Several objectives: which one the history, top k, parallel coordinates and importance are about.
    QComboBox* objectivePicker() const { return m_objective; }

Q_SIGNALS:
    // A frame was drawn (GUI thread).
    void drawn();
    // The user clicked a trial's marker (the Pareto front): open that trial of the study shown.
    void trialActivated(int number);
    // Curves to draw belong to trials read summarised (TrialRecord::allIntermediates false): read them whole (the
    // poller's completeIntermediates; a snapshot follows). Asked once per trial and study shown.
    void intermediatesWanted(const QString& study, const QList<int>& numbers);

protected:
    void showEvent(QShowEvent* event) override;

private:
    // The constructor's parts, called in this order.
    QHBoxLayout* buildBar();
    QSplitter* buildCharts();
    void connectControls();
    // Sets the data shown; the replaced data is retired: destroying 10,000 trial records (maps, JSON) takes
    // milliseconds, so the last references are dropped on a pool thread (releaseRetired, or the next frame's
    // computation).
    void replaceData(std::shared_ptr<const std::vector<TrialRecord>> trials,
                     std::shared_ptr<const std::vector<RunRecord>> runs);
    void releaseRetired();
    void draw(); // asynchronous: computed off the GUI thread
    void requestFrame();
    StudyInput makeInput() const;
    void applyFrame(StudyFrame frame);
    void applyParams(const StudyFrame& frame);
    void applyHistory(const StudyFrame& frame);
    void applyIntermediate(const StudyFrame& frame);
    void applyPareto(StudyFrame& frame);
    // Shows the one-objective charts of objective `index` (0 when out of range) from the next frame; the picker follows.
    void showObjective(std::size_t index); // several objectives: the Pareto pages shown and drawn, else taken away

    // The objectives as the title and the charts name them: "minimise", "minimise loss", or for several
    // "minimise a, maximise b".
    QString objectivesText() const;
    // The chart titles, axis titles and legend entries that depend on the study's objectives.
    void nameObjectives();

    QString m_name;
    StudyDirection m_direction = StudyDirection::Minimize; // the first objective's
    std::vector<StudyDirection> m_directions{StudyDirection::Minimize};
    std::vector<std::string> m_objectiveNames{"objective"};
    std::optional<int> m_paretoSize; // several objectives: trials on the Pareto front
    std::vector<TrialLabel> m_labels; // the study's named points (core/hpo/triallabels.h)
    QSplitter* m_rows = nullptr;      // the charts, parallel coordinates, the timeline
    QSplitter* m_top = nullptr;       // the history (or front) tabs beside the intermediate values
    // Proportions for a study of several objectives (the front larger) or of one.
    void resizeRows(bool pareto);
    std::size_t m_shown = 0;         // the objective the one-objective charts are about (objectivePicker)
    QComboBox* m_objective = nullptr;
    QLabel* m_objectiveLabel = nullptr;
    std::shared_ptr<const std::vector<TrialRecord>> m_trials;
    std::shared_ptr<const std::vector<RunRecord>> m_runs;
    std::vector<std::shared_ptr<const void>> m_retired;
    std::shared_ptr<const StudyParams> m_params; // of m_trials, once a frame computed them
    std::optional<QStringList> m_picked;         // the user's choice of parameters drawn
    QPointer<Task> m_frameTask;                  // the latest frame's computation, until it ended
    bool m_pending = false;
    std::uint64_t m_signature = 0;
    // The last snapshot's trials, their ids and signature: the poller hands the same vector while they are unchanged
    // (core/store/trialcache.h), and then neither is computed again.
    std::shared_ptr<const std::vector<TrialRecord>> m_indexedTrials;
    std::unordered_set<std::int64_t> m_trialIds; // made when there are runs to pick (m_idsIndexed)
    bool m_idsIndexed = false;
    std::uint64_t m_trialsSignature = 0;
    bool m_drawn = false;
    std::unordered_set<int> m_askedWhole; // trials of m_name whose intermediate values were asked for whole
    bool m_awaitingWhole = false;         // asked, and no snapshot came since
    QLabel* m_title = nullptr;
    QSpinBox* m_topK = nullptr;
    QTimer* m_throttle = nullptr;
    QElapsedTimer m_lastDraw; // since the last draw() (the throttle's measure)
    QTabWidget* m_historyTabs = nullptr;
    ParetoView* m_pareto = nullptr;
    ChartView* m_history = nullptr;
    MarkerLayer* m_historyMarkers = nullptr;
    ChartView* m_intermediate = nullptr;
    ParallelCoordinates* m_parallel = nullptr;
    ImportanceBars* m_importance = nullptr;
    ParamPicker* m_picker = nullptr;
    TrialTimeline* m_timeline = nullptr;
    QLabel* m_selection = nullptr;
};

} // namespace pitwall::ui
