#pragma once
// The compare view: pick two or more trials of any studies of the database (a tree of studies and their trials;
// a variant benchmark stores each variant as its own study) and see their configs side by side (from
// the runs' resolved config_yaml; parameters and recorded config changes for trials without runs, such as
// Optuna's) with a "differences only" switch, the curves of one chosen metric overlaid (LTTB down-sampled),
// and a metrics table with deltas against the first trial and mean ± std per group of seeds (trials whose
// parameters and config changes are the same apart from the seed).
// Data: trials and runs from the poller's snapshot; configs and series through a compare request.

#include "core/store/records.h"
#include "ui/storepoller.h"

#include <QList>
#include <QWidget>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;
class QTableWidget;
class QTabWidget;

namespace pitwall::ui {

class ChartView;
struct CompareData;

// One trial of one study.
struct TrialRef {
    QString study;
    int number = 0;
    bool operator==(const TrialRef&) const = default;
};

// A YAML document as (dotted key, flow text of the value) in document order.
std::vector<std::pair<QString, QString>> flattenYaml(const QString& yaml);

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);

    void showSnapshot(const StoreSnapshot& snapshot);
    void showData(const CompareData& data);
    // Another database: forget the trials, runs and answers.
    void forget();
    // Checks exactly these trials of the study in focus (by number) and asks for their data.
    void setChecked(const QList<int>& trialNumbers);
    // The numbers of the checked trials of the study in focus.
    QList<int> checked() const;
    // Checks exactly these trials, of any studies, and asks for their data.
    void setCheckedTrials(const QList<TrialRef>& trials);
    // The checked trials in the picker's order (studies as listed, trials by number).
    QList<TrialRef> checkedTrials() const { return m_checked; }
    // The label of a checked trial in the tables and the curves' legend: "#n" or "study / #n".
    QString labelOf(const TrialRef& trial) const;

    QTreeWidget* picker() const { return m_picker; }
    // The picker's row of a trial (a child of its study's row), or null.
    QTreeWidgetItem* pickerItem(const TrialRef& trial) const;
    bool ready() const;

    QTableWidget* configTable() const { return m_config; }
    QTableWidget* metricsTable() const { return m_metrics; }
    QCheckBox* differencesOnly() const { return m_diffOnly; }
    ChartView* curves() const { return m_curves; }
    QComboBox* metricChooser() const { return m_metric; }
    // Keys of the config rows now visible.
    QStringList visibleConfigKeys() const;

Q_SIGNALS:
    // The window forwards this to StorePoller::requestCompare.
    void compareRequested(const QList<qint64>& runIds, const QString& metric, quint64 requestId);

private:
    // Asks for the checked trials' runs; unless forced, only when they changed.
    void request(bool force = false);
    void fillConfig();
    void fillMetrics();
    void drawCurves();
    void applyDiffFilter();
    void fillPicker();
    // The checked trials that the snapshot holds, in m_checked's order.
    struct Picked {
        TrialRef ref;
        const TrialRecord* trial;
    };
    std::vector<Picked> picked() const;
    const TrialRecord* trial(const TrialRef& ref) const;

    QString m_study; // in focus
    QStringList m_studyOrder;
    std::map<QString, SharedTrials> m_trials;              // by study, shared with the snapshot
    std::set<QString> m_expanded;                          // studies whose trials the picker shows
    std::map<std::int64_t, std::int64_t> m_lastRunOfTrial; // trial id -> latest run id
    QList<TrialRef> m_checked;
    QList<qint64> m_requestRuns;
    quint64 m_requestId = 0;
    quint64 m_answered = 0;
    std::map<qint64, QString> m_configs;       // run id -> YAML
    std::map<qint64, QList<QPointF>> m_series; // run id -> metric points
    bool m_haveSnapshot = false;
    std::uint64_t m_signature = 0;

    QTreeWidget* m_picker = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableWidget* m_config = nullptr;
    QCheckBox* m_diffOnly = nullptr;
    QComboBox* m_metric = nullptr;
    ChartView* m_curves = nullptr;
    QTableWidget* m_metrics = nullptr;
    QLabel* m_hint = nullptr;
};

} // namespace pitwall::ui
