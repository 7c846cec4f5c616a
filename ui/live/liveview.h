#pragma once
// The live view of one run (by default it follows the newest running run of the database, else the newest run
// of the study in focus; the picker pins another): loss (total and per head), compute vs full FPS, learning rate, data
// wait, CPU % and peak memory, with the stage boundaries marked; x by step (linear or log), relative time or
// wall time; a log y toggle; progress through stages and
// epochs; the run's latest events (and why it failed). Data comes from a LiveModel fed by the poller.
// Redraws are throttled (at most every kRedrawIntervalMs); each curve goes to its chart whole (ChartView::setCurve
// smooths it by the Smoothing slider and down-samples it to an envelope that keeps every spike).

#include "core/store/records.h"

#include <QWidget>

#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QSlider;
class QTimer;

namespace pitwall::ui {

class ChartView;
class LiveModel;
struct StoreSnapshot;

class LiveView : public QWidget {
    Q_OBJECT
public:
    explicit LiveView(LiveModel* model, QWidget* parent = nullptr);

    static constexpr int kRedrawIntervalMs = 100;

    // Offers the runs of the snapshot (those of the study in focus when it has any) in the run picker.
    void showSnapshot(const StoreSnapshot& snapshot);
    // Follows this run (it becomes the picker's choice); 0 follows the latest run again.
    void showRun(qint64 runId);
    // Another database: forget the runs and the choice (run ids start again there).
    void forgetRuns();
    // Redraws from the model now, whether or not it changed (the throttle calls refresh(), which skips hidden
    // views and unchanged models); public for benchmarks and tests.
    void redraw();
    std::vector<ChartView*> charts() const { return m_charts; }
    qint64 shownRun() const { return m_requested; }
    // True once the chosen run's rows have all arrived and been drawn.
    bool ready() const;

Q_SIGNALS:
    // The run to stream; the window forwards it to StorePoller::setLiveRun.
    void runRequested(qint64 runId);

protected:
    void showEvent(QShowEvent* event) override;

private:
    QHBoxLayout* buildRunBar();      // run picker, x axis, log y switch, smoothing and status line
    QHBoxLayout* buildProgressRow(); // stage and epoch progress
    QWidget* buildCharts();          // the chart grid, one chart per chartSpecs() entry
    void scheduleRedraw();
    void refresh();
    void pickRun();
    void updateStatus();

    LiveModel* m_model;
    QComboBox* m_runs = nullptr;
    QCheckBox* m_log = nullptr;
    QComboBox* m_xAxis = nullptr;
    QSlider* m_smoothing = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_stageLabel = nullptr;
    QProgressBar* m_stageBar = nullptr;
    QProgressBar* m_epochBar = nullptr;
    QPlainTextEdit* m_events = nullptr;
    QTimer* m_throttle = nullptr;
    std::vector<ChartView*> m_charts;
    std::vector<RunRecord> m_runList;
    std::uint64_t m_pickerSignature = 0;
    // The ids of the focus study's trials, kept while the poller hands the same vector (a set of 100,000 ids took
    // about 30 ms to build on every snapshot).
    std::shared_ptr<const std::vector<TrialRecord>> m_indexedTrials;
    std::unordered_set<qint64> m_focusTrialIds;
    qint64 m_latestRunning = 0; // newest running run of the whole database
    qint64 m_pinned = 0;        // the user's choice; 0 follows the latest run
    qint64 m_requested = 0;     // what the poller was asked for
    quint64 m_drawnRevision = 0;
    qint64 m_lastEventId = 0;
};

} // namespace pitwall::ui
