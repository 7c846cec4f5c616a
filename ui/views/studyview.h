#pragma once
// The study view: optimisation history with the best value so far, intermediate values per trial (pruned
// trials dashed), parallel coordinates with brushing, parameter importance (fANOVA-lite: each parameter's
// main-effect share of the objective's variance, see parameterImportance), and a timeline of trials per logical device
// (from the runs' logical_device and start/end; the trials' own times when a study has no runs, as Optuna's).
// A top-k filter restricts parallel coordinates and intermediate curves to the k best complete trials.
// Data: the poller's snapshot of the study in focus. Drawn only while visible, at most every kMinRedrawMs.

#include "core/store/records.h"

#include <QWidget>

#include <cstdint>
#include <vector>

class QLabel;
class QSpinBox;
class QTimer;

namespace pitwall::ui {

class ChartView;
class ImportanceBars;
class ParallelCoordinates;
class TrialTimeline;
struct ParamTable;
struct StoreSnapshot;

class StudyView : public QWidget {
    Q_OBJECT
public:
    explicit StudyView(QWidget* parent = nullptr);

    static constexpr int kMaxCurves = 60; // intermediate-value curves drawn at most
    static constexpr int kMinRedrawMs = 250;

    void showSnapshot(const StoreSnapshot& snapshot);
    // Sets the study shown and draws it now (benchmarks and tests call this directly).
    void showStudy(const QString& name, StudyDirection direction, std::vector<TrialRecord> trials,
                   std::vector<RunRecord> runs);
    void setTopK(int k);
    bool ready() const { return m_drawn && !m_pending; }

    ChartView* history() const { return m_history; }
    ChartView* intermediate() const { return m_intermediate; }
    ParallelCoordinates* parallel() const { return m_parallel; }
    ImportanceBars* importance() const { return m_importance; }
    TrialTimeline* timeline() const { return m_timeline; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void draw();
    void drawHistory();
    void drawIntermediate(const std::vector<int>& shown);
    void drawParallel(const ParamTable& table, const std::vector<int>& shown);
    void drawTimeline();

    QString m_name;
    StudyDirection m_direction = StudyDirection::Minimize;
    std::vector<TrialRecord> m_trials;
    std::vector<RunRecord> m_runs;
    bool m_pending = false;
    std::uint64_t m_signature = 0;
    bool m_drawn = false;
    QLabel* m_title = nullptr;
    QSpinBox* m_topK = nullptr;
    QTimer* m_throttle = nullptr;
    ChartView* m_history = nullptr;
    ChartView* m_intermediate = nullptr;
    ParallelCoordinates* m_parallel = nullptr;
    ImportanceBars* m_importance = nullptr;
    TrialTimeline* m_timeline = nullptr;
    QLabel* m_selection = nullptr;
};

} // namespace pitwall::ui
