#pragma once
// The compare view: pick two or more trials of any studies of the database (a tree of studies and their trials;
// a variant benchmark stores each variant as its own study) and see their configs side by side (from
// the runs' resolved config_yaml; parameters and recorded config changes for trials without runs, such as
// Optuna's) with a "differences only" switch, the curves of one chosen metric overlaid (smoothing, zoom,
// crosshair and export of ChartView), and a metrics table with deltas against the first trial (coloured
// green when better, red when worse: core/report/metricsense.h, the objective by its study's direction) and
// mean ± std per group of two or more seeds (trials whose parameters and config changes are the same apart
// from the seed). Columns share the width; numbers show 5-6 significant digits, the full value in a tooltip.
// Trials may also come from other databases added to the comparison ("Add database…", opened read-only by
// the poller): their studies are listed labelled with the database's file name, and trials of several
// databases are labelled "file / study / #n".
// Data: trials and runs from the poller's snapshot (and the added databases' snapshots); configs and series
// through a compare request.

#include "core/report/metricsense.h"
#include "core/store/records.h"
#include "ui/poller/storepoller.h"

#include <QList>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;
class QTableWidget;
class QTableWidgetItem;
class QTabWidget;

namespace pitwall::ui {

class ChartView;
struct CompareData;

// One trial of one study of the window's database (database empty) or of an added one (its location).
struct TrialRef {
    QString study;
    int number = 0;
    QString database = {};
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
    // The databases added to the comparison, as the poller read them (in the order added).
    void showDatabases(const QList<StoreSnapshot>& databases);
    // Why a database could not be added: a (non-blocking) message box and the hint line.
    void showDatabaseError(const QString& location, const QString& error);
    // Another database for the window: forget its trials, runs and answers (added databases stay).
    void forget();
    // Asks for `location` (a file path) to be added to the comparison.
    void addDatabase(const QString& location);
    // The file "Add database…" asks for; by default a file dialog. Tests set one that returns a path.
    void setDatabaseChooser(std::function<QString()> chooser) { m_chooser = std::move(chooser); }
    // Asks for a file to add (the chooser) and adds it.
    void chooseDatabase();
    // The locations of the added databases, in the order added.
    QStringList databases() const;
    // The name a database (empty: the window's) goes by in the picker and the labels: its file name, with its
    // folder where two opened databases share a file name.
    QString databaseLabel(const QString& database) const;
    // Checks exactly these trials of the study in focus (by number) and asks for their data.
    void setChecked(const QList<int>& trialNumbers);
    // The numbers of the checked trials of the study in focus.
    QList<int> checked() const;
    // Checks exactly these trials, of any studies, and asks for their data.
    void setCheckedTrials(const QList<TrialRef>& trials);
    // The checked trials in the picker's order (studies as listed, trials by number).
    QList<TrialRef> checkedTrials() const { return m_checked; }
    // The label of a checked trial in the tables and the curves' legend: "#n", "study / #n", or
    // "file / study / #n" when the checked trials come from several databases.
    QString labelOf(const TrialRef& trial) const;

    QTreeWidget* picker() const { return m_picker; }
    QPushButton* addDatabaseButton() const { return m_addDatabase; }
    QPushButton* removeDatabaseButton() const { return m_removeDatabase; }
    // The picker's row of a study (of the window's database when `database` is empty), or null.
    QTreeWidgetItem* pickerStudy(const QString& study, const QString& database = {}) const;
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
    // The window forwards these to StorePoller::requestCompare, addCompareDatabase and removeCompareDatabase.
    void compareRequested(const QList<pitwall::ui::RunRef>& runs, const QString& metric, quint64 requestId);
    void databaseAddRequested(const QString& location);
    void databaseRemoveRequested(const QString& location);

protected:
    void showEvent(QShowEvent* event) override;

private:
    QWidget* buildPickerPane(); // the study and trial picker under its database buttons
    QWidget* buildConfigPage();
    QWidget* buildCurvesPage();
    void buildMetricsTable();
    // The picker's ticks, expansions and selection, and the database buttons.
    void connectPicker();
    // Asks for the checked trials' runs; unless forced, only when they changed.
    void request(bool force = false);
    void fillConfig();
    void fillMetrics();
    void drawCurves();
    void applyDiffFilter();
    void fillPicker();
    // Fills the picker now when the view is shown, else when it is next shown: a study of 100,000 trials is 100,000
    // rows, too many to build on every change of a view nobody looks at.
    void refillPicker();
    // The studies of one database, as its snapshot had them.
    struct Source {
        QString database; // empty: the window's database
        QString error;    // set when an added database could no longer be read
        QStringList studyOrder;
        std::map<QString, SharedTrials> trials;                    // by study, shared with the snapshot
        std::map<std::int64_t, std::int64_t> lastRunOfTrial;       // trial id -> latest run id
        std::map<QString, std::vector<StudyDirection>> directions; // by study
    };
    static Source sourceOf(const QString& database, const StoreSnapshot& snapshot);
    const Source* source(const QString& database) const;
    // The checked trials that the snapshots hold, in m_checked's order, with their latest run.
    struct Picked {
        TrialRef ref;
        const TrialRecord* trial;
        std::optional<RunRef> run;
    };
    std::vector<Picked> picked() const;
    // Which way `metric` is better for these trials (the objective: their studies' direction).
    MetricSense senseOf(const QString& metric, const std::vector<Picked>& trials) const;
    // A metric's cell: the value (5 significant digits; every digit in the tooltip), and against `reference` its
    // delta, coloured by `sense` (green better, red worse).
    QTableWidgetItem* metricItem(std::optional<double> value, std::optional<double> reference, MetricSense sense) const;
    const TrialRecord* trial(const TrialRef& ref) const;
    // Drops the checked trials that no snapshot holds any more.
    void dropVanished();

    QString m_study;               // in focus
    QString m_location;            // of the window's database
    std::vector<Source> m_sources; // the window's database first, then the added ones
    std::set<QString> m_expanded;  // studies whose trials the picker shows (database + '\n' + study)
    QStringList m_adding;          // locations asked for, not answered yet
    std::function<QString()> m_chooser;
    QList<TrialRef> m_checked;
    QList<RunRef> m_requestRuns;
    quint64 m_requestId = 0;
    quint64 m_answered = 0;
    std::map<RunRef, QString> m_configs;       // run -> YAML
    std::map<RunRef, QList<QPointF>> m_series; // run -> metric points
    bool m_haveSnapshot = false;
    bool m_pickerStale = false; // refillPicker() waited for the view to be shown
    std::uint64_t m_signature = 0;
    std::map<QString, std::pair<SharedTrials, std::uint64_t>> m_trialSignatures; // by study, of the own database

    QTreeWidget* m_picker = nullptr;
    QPushButton* m_addDatabase = nullptr;
    QPushButton* m_removeDatabase = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableWidget* m_config = nullptr;
    QCheckBox* m_diffOnly = nullptr;
    QComboBox* m_metric = nullptr;
    ChartView* m_curves = nullptr;
    QTableWidget* m_metrics = nullptr;
    QLabel* m_hint = nullptr;
};

} // namespace pitwall::ui
