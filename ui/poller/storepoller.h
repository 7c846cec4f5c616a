#pragma once
// Reads the results store off the GUI thread. Lives in its own QThread; polls the store's cheap change
// counter and, only when it moved (or when asked), reads what the views show and delivers it through queued
// signals. The GUI thread never waits on the store: it asks through the slots (queued) and gets answers
// through the signals.
//
// - snapshotReady: the study list, the trials of every study (the one in focus also on its own), every run
//   (config text left out) and the benchmark records.
// - liveDelta: the live run's metric rows read with metricsSince(run, cursor), so only new rows travel,
//   already turned into chart points (LiveSeriesBuilder), plus new events and run-record changes.
// - trialDetailsReady: the runs (with config) and the last events of one trial, for failure reports.
// - compareReady: configs and one metric's series of several runs, for the compare view.
// - compareDatabasesReady: the databases added to the comparison (opened read-only, never written), each
//   read like the window's own (studies, trials, runs), whenever one was added, removed or changed.

#include "core/store/records.h"
#include "core/store/trialcache.h"
#include "ui/poller/liveseries.h"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <vector>

class QTimer;

namespace pitwall {
class Store;
}

namespace pitwall::ui {

// Trials and runs travel shared and immutable: views keep the pointer instead of copying 10,000 records on
// the GUI thread. Never null. Made by shareRecords, whose deleter destroys them on a pool thread, wherever
// the last reference is dropped.
using SharedTrials = std::shared_ptr<const std::vector<TrialRecord>>;
using SharedRuns = std::shared_ptr<const std::vector<RunRecord>>;
SharedTrials shareRecords(std::vector<TrialRecord> trials);
SharedRuns shareRecords(std::vector<RunRecord> runs);
inline SharedTrials shareTrials(std::vector<TrialRecord> trials)
{
    return shareRecords(std::move(trials));
}

struct StoreSnapshot {
    QString location;
    QString error; // non-empty when the store could not be read
    std::vector<StudySummary> studies;
    QString focusStudy;
    SharedTrials focusTrials = shareRecords(std::vector<TrialRecord>{});
    // The trials of every study of `studies`, by study name (the focus study's are focusTrials itself), for
    // views that take trials from several studies (Compare).
    std::map<QString, SharedTrials> studyTrials;
    SharedRuns runs = shareRecords(std::vector<RunRecord>{}); // every run, oldest first; configYaml left empty
    std::vector<BenchmarkRecord> benchmarks;
    qint64 changeCounter = 0;
};

struct TrialDetails {
    qint64 trialId = 0;
    std::vector<RunRecord> runs;         // with configYaml
    std::vector<EventRecord> eventsTail; // the last events of its runs, oldest first
};

// A run of the window's database (database empty) or of a database added to the comparison (its location).
struct RunRef {
    QString database;
    qint64 id = 0;
    bool operator==(const RunRef&) const = default;
    bool operator<(const RunRef& other) const;
};

struct CompareData {
    quint64 requestId = 0;
    QList<RunRef> runs;
    QStringList configs; // the runs' resolved configs (YAML), by runs
    QString metric;
    std::vector<QList<QPointF>> series; // by runs: (global step, value) of `metric`
    QStringList metricKeys;             // every key the runs logged, sorted
};

class StorePoller : public QObject {
    Q_OBJECT
public:
    explicit StorePoller(QObject* parent = nullptr);
    ~StorePoller() override;

    static constexpr int kEventsTail = 40;

public Q_SLOTS:
    // All slots run in the poller's thread (call through queued connections).
    // Reads `location` from now on, with `focus` the study in focus (empty: none yet; the window picks the first):
    // nothing of the previous database's focus carries over.
    void openDatabase(const QString& location, const QString& focus = {});
    void setFocusStudy(const QString& name);
    // The run whose metrics stream as liveDelta; 0 stops streaming. Restarts from the first row.
    void setLiveRun(qint64 runId);
    void setDetailsTrial(qint64 trialId);
    void requestCompare(const QList<pitwall::ui::RunRef>& runs, const QString& metric, quint64 requestId);
    // Opens another database read-only for the comparison: answered by compareDatabasesReady, or by
    // compareDatabaseRefused (not a results database, unreadable, or already open) with nothing kept.
    void addCompareDatabase(const QString& location);
    void removeCompareDatabase(const QString& location);
    void start(int intervalMs);
    void stop();
    void refreshNow();
    // Reads whole the intermediate values of these trials of the study (the poller reads the older trials of a
    // study summarised: their last intermediate value alone, TrialRecord::allIntermediates false); a snapshot
    // follows. For the curves a view draws.
    void completeIntermediates(const QString& study, const QList<int>& numbers);

Q_SIGNALS:
    void snapshotReady(const pitwall::ui::StoreSnapshot& snapshot);
    void liveDelta(const pitwall::ui::LiveDelta& delta);
    void trialDetailsReady(const pitwall::ui::TrialDetails& details);
    void compareReady(const pitwall::ui::CompareData& data);
    // The added databases in the order added; an entry's error is set when it could no longer be read.
    void compareDatabasesReady(const QList<pitwall::ui::StoreSnapshot>& databases);
    void compareDatabaseRefused(const QString& location, const QString& error);

private:
    struct CompareDatabase {
        QString location;
        std::unique_ptr<Store> store;
        qint64 lastCounter = -1;
        StoreSnapshot snapshot;
        TrialCache trials{shareTrials, 0}; // summarised: the comparison draws no intermediate values
    };

    void poll(bool force);
    bool ensureStore(QString& error);
    // Re-reads the added databases that changed (all when forced); tells the view when one did.
    void pollCompareDatabases(bool force);
    // The store holding a compared run: the window's (database empty) or an added one; null when not open.
    Store* compareStore(const QString& database);
    void emitCompareDatabases();
    void readLive(bool reset);
    void readDetails();
    void readCompare();

    // How many of a study's newest trials are read whole at first (the rest summarised): the Study view draws the
    // curves of the newest trials with intermediate values (StudyView::kMaxCurves).
    static constexpr int kCompleteTail = 200;

    std::unique_ptr<Store> m_store;
    // The window's database's trials, read again only where they changed.
    TrialCache m_trials{shareTrials, kCompleteTail};
    std::map<QString, qint64> m_studyIds; // the window's database's studies, as last read
    QString m_location;
    QString m_focus;
    qint64 m_lastCounter = -1;
    QTimer* m_timer = nullptr;

    qint64 m_liveRun = 0;
    qint64 m_liveCursor = 0;
    qint64 m_liveEventId = 0;
    bool m_livePending = false; // rows left to read after a capped read
    std::optional<RunRecord> m_liveRecord;
    LiveSeriesBuilder m_liveBuilder;

    qint64 m_detailsTrial = 0;

    std::vector<CompareDatabase> m_compareDatabases;
    QList<RunRef> m_compareRuns;
    QString m_compareMetric;
    quint64 m_compareRequest = 0;
    bool m_compareLive = false; // some compared run is still running: re-read on change
};

} // namespace pitwall::ui

Q_DECLARE_METATYPE(pitwall::ui::StoreSnapshot)
Q_DECLARE_METATYPE(pitwall::ui::TrialDetails)
Q_DECLARE_METATYPE(pitwall::ui::CompareData)
Q_DECLARE_METATYPE(pitwall::ui::RunRef)
