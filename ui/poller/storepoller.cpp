#include "ui/poller/storepoller.h"

#include "core/store/store.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <set>

namespace pitwall::ui {

namespace {
// Destroying thousands of records (maps, JSON, strings) takes milliseconds: done on a pool thread; a few
// are destroyed where they are dropped (a pool task would cost more).
constexpr std::size_t kDestroyInlineBelow = 256;
template <typename T> std::shared_ptr<const std::vector<T>> share(std::vector<T> records)
{
    return std::shared_ptr<const std::vector<T>>(new std::vector<T>(std::move(records)), [](const std::vector<T>* v) {
        QThreadPool* pool = QCoreApplication::instance() ? QThreadPool::globalInstance() : nullptr;
        if (v->size() < kDestroyInlineBelow || !pool)
            delete v;
        else
            pool->start([v] { delete v; });
    });
}
} // namespace

SharedTrials shareRecords(std::vector<TrialRecord> trials)
{
    return share(std::move(trials));
}

SharedRuns shareRecords(std::vector<RunRecord> runs)
{
    return share(std::move(runs));
}

namespace {
constexpr std::size_t kPageRows = 50000;
constexpr qint64 kMaxLiveRowsPerRead = 400000; // then the rest on the next turn of the event loop

bool sameRunState(const RunRecord& a, const RunRecord& b)
{
    return a.status == b.status && a.endTime == b.endTime && a.exitCode == b.exitCode && a.message == b.message;
}

// The study list, the trials of every study (the focus study's also as focusTrials; read again only where they
// changed) and every run, config text left out.
void readStudiesAndRuns(Store& store, TrialCache& cache, StoreSnapshot& snapshot)
{
    snapshot.studies = store.listStudies();
    std::vector<TrialCache::StudyKey> keys;
    for (const StudySummary& summary : snapshot.studies)
        keys.push_back({summary.study.id, summary.study.name, summary.total()});
    std::vector<SharedTrials> trials = cache.refresh(store, keys);
    for (std::size_t i = 0; i < trials.size(); ++i) {
        const QString name = QString::fromStdString(snapshot.studies[i].study.name);
        if (name == snapshot.focusStudy)
            snapshot.focusTrials = trials[i];
        snapshot.studyTrials.emplace(name, std::move(trials[i]));
    }
    std::vector<RunRecord> runs = store.runs();
    for (RunRecord& run : runs)
        std::string().swap(run.configYaml);
    snapshot.runs = shareRecords(std::move(runs));
}
} // namespace

bool RunRef::operator<(const RunRef& other) const
{
    return database != other.database ? database < other.database : id < other.id;
}

StorePoller::StorePoller(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<StoreSnapshot>();
    qRegisterMetaType<LiveDelta>();
    qRegisterMetaType<TrialDetails>();
    qRegisterMetaType<CompareData>();
    qRegisterMetaType<RunRef>();
    qRegisterMetaType<QList<RunRef>>();
    qRegisterMetaType<QList<StoreSnapshot>>();
}

StorePoller::~StorePoller() = default;

void StorePoller::openDatabase(const QString& location, const QString& focus)
{
    m_location = location;
    m_focus = focus;
    m_store.reset();
    m_trials.clear();
    m_studyIds.clear();
    m_lastCounter = -1;
    m_liveRun = 0;
    m_detailsTrial = 0;
    m_compareRuns.clear();
    m_compareLive = false;
    const auto same = [&](const CompareDatabase& db) { return db.location == location; };
    if (std::any_of(m_compareDatabases.begin(), m_compareDatabases.end(), same)) {
        std::erase_if(m_compareDatabases, same); // now the window's own
        emitCompareDatabases();
    }
    LiveDelta reset;
    reset.reset = true;
    Q_EMIT liveDelta(reset);
    poll(true);
}

void StorePoller::setFocusStudy(const QString& name)
{
    m_focus = name;
    poll(true);
}

void StorePoller::setLiveRun(qint64 runId)
{
    if (runId == m_liveRun)
        return;
    m_liveRun = runId;
    m_liveCursor = 0;
    m_liveEventId = 0;
    m_liveRecord.reset();
    m_liveBuilder.clear();
    QString error;
    if (!ensureStore(error) || runId == 0) {
        LiveDelta reset;
        reset.reset = true;
        Q_EMIT liveDelta(reset);
        return;
    }
    readLive(true);
}

void StorePoller::setDetailsTrial(qint64 trialId)
{
    m_detailsTrial = trialId;
    QString error;
    if (ensureStore(error))
        readDetails();
}

void StorePoller::requestCompare(const QList<RunRef>& runs, const QString& metric, quint64 requestId)
{
    m_compareRuns = runs;
    m_compareMetric = metric;
    m_compareRequest = requestId;
    readCompare();
}

void StorePoller::addCompareDatabase(const QString& location)
{
    if (location == m_location || std::any_of(m_compareDatabases.begin(), m_compareDatabases.end(),
                                              [&](const CompareDatabase& db) { return db.location == location; })) {
        Q_EMIT compareDatabaseRefused(location, tr("%1: already open in this window").arg(location));
        return;
    }
    CompareDatabase db;
    db.location = location;
    db.snapshot.location = location;
    try {
        db.store = openStore(location.toStdString(), OpenMode::ReadOnly);
        db.lastCounter = db.store->changeCounter();
        readStudiesAndRuns(*db.store, db.trials, db.snapshot);
    } catch (const std::exception& e) {
        Q_EMIT compareDatabaseRefused(location, QString::fromStdString(e.what()));
        return;
    }
    m_compareDatabases.push_back(std::move(db));
    emitCompareDatabases();
}

void StorePoller::removeCompareDatabase(const QString& location)
{
    if (std::erase_if(m_compareDatabases, [&](const CompareDatabase& db) { return db.location == location; }))
        emitCompareDatabases();
}

void StorePoller::emitCompareDatabases()
{
    QList<StoreSnapshot> databases;
    for (const CompareDatabase& db : m_compareDatabases)
        databases << db.snapshot;
    Q_EMIT compareDatabasesReady(databases);
}

void StorePoller::pollCompareDatabases(bool force)
{
    bool changed = false;
    for (CompareDatabase& db : m_compareDatabases) {
        try {
            if (!db.store)
                db.store = openStore(db.location.toStdString(), OpenMode::ReadOnly);
            const qint64 counter = db.store->changeCounter();
            if (!force && counter == db.lastCounter && db.snapshot.error.isEmpty())
                continue;
            StoreSnapshot snapshot;
            snapshot.location = db.location;
            readStudiesAndRuns(*db.store, db.trials, snapshot);
            db.snapshot = std::move(snapshot);
            db.lastCounter = counter;
        } catch (const std::exception& e) {
            const QString error = QString::fromStdString(e.what());
            db.store.reset();
            db.trials.clear(); // the file may be another one when it opens again
            if (db.snapshot.error == error)
                continue;
            db.snapshot = StoreSnapshot{};
            db.snapshot.location = db.location;
            db.snapshot.error = error;
        }
        changed = true;
    }
    if (!changed)
        return;
    emitCompareDatabases();
    if (m_compareLive)
        readCompare();
}

Store* StorePoller::compareStore(const QString& database)
{
    if (database.isEmpty()) {
        QString error;
        return ensureStore(error) ? m_store.get() : nullptr;
    }
    for (CompareDatabase& db : m_compareDatabases)
        if (db.location == database)
            return db.store.get();
    return nullptr;
}

void StorePoller::start(int intervalMs)
{
    if (!m_timer) {
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, [this] { poll(false); });
    }
    m_timer->start(intervalMs);
}

void StorePoller::stop()
{
    if (m_timer)
        m_timer->stop();
}

void StorePoller::completeIntermediates(const QString& study, const QList<int>& numbers)
{
    if (const auto it = m_studyIds.find(study); it != m_studyIds.end())
        m_trials.completeIntermediates(it->second, std::vector<int>(numbers.begin(), numbers.end()));
    poll(true); // a snapshot answers, even for a study gone meanwhile
}

void StorePoller::refreshNow()
{
    m_trials.clear(); // a refresh the user asked for reads every trial
    poll(true);
}

bool StorePoller::ensureStore(QString& error)
{
    if (m_location.isEmpty())
        return false;
    try {
        if (!m_store)
            m_store = openStore(m_location.toStdString(), OpenMode::ReadOnly);
        return true;
    } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
        return false;
    }
}

void StorePoller::poll(bool force)
{
    if (QThread::currentThread()->isInterruptionRequested())
        return;
    pollCompareDatabases(force);
    if (m_location.isEmpty())
        return;
    StoreSnapshot snapshot;
    snapshot.location = m_location;
    snapshot.focusStudy = m_focus;
    try {
        if (!ensureStore(snapshot.error)) {
            Q_EMIT snapshotReady(snapshot);
            return;
        }
        const qint64 counter = m_store->changeCounter();
        const bool changed = counter != m_lastCounter;
        if (!force && !changed && !m_livePending)
            return;
        m_lastCounter = counter;
        if (force || changed) {
            snapshot.changeCounter = counter;
            readStudiesAndRuns(*m_store, m_trials, snapshot);
            m_studyIds.clear();
            for (const StudySummary& summary : snapshot.studies)
                m_studyIds.emplace(QString::fromStdString(summary.study.name), summary.study.id);
            snapshot.benchmarks = m_store->benchmarks();
            Q_EMIT snapshotReady(snapshot);
        }
        if (m_liveRun != 0)
            readLive(false);
        if (m_detailsTrial != 0 && (force || changed))
            readDetails();
        if (m_compareLive && changed)
            readCompare();
    } catch (const std::exception& e) {
        m_store.reset();
        m_trials.clear(); // the file may be another one when it opens again
        snapshot.error = QString::fromStdString(e.what());
        Q_EMIT snapshotReady(snapshot);
    }
}

void StorePoller::readLive(bool reset)
{
    LiveDelta delta;
    delta.runId = m_liveRun;
    delta.reset = reset;
    try {
        auto record = m_store->run(m_liveRun);
        if (record && (!m_liveRecord || reset || !sameRunState(*record, *m_liveRecord))) {
            m_liveRecord = record;
            delta.run = record;
        }
        qint64 read = 0;
        m_livePending = false;
        while (true) {
            const auto rows = m_store->metricsSince(m_liveRun, m_liveCursor, kPageRows);
            if (rows.empty())
                break;
            m_liveCursor = rows.back().cursor;
            m_liveBuilder.add(rows, delta);
            read += static_cast<qint64>(rows.size());
            if (rows.size() < kPageRows)
                break;
            if (read >= kMaxLiveRowsPerRead) {
                m_livePending = true;
                break;
            }
        }
        delta.events = m_store->eventsSince(m_liveRun, m_liveEventId);
        if (!delta.events.empty())
            m_liveEventId = delta.events.back().id;
    } catch (const std::exception&) {
        m_livePending = false;
    }
    delta.caughtUp = !m_livePending;
    if (delta.reset || delta.run || delta.rows > 0 || !delta.events.empty())
        Q_EMIT liveDelta(delta);
    if (m_livePending)
        QTimer::singleShot(0, this, [this] { poll(false); });
}

void StorePoller::readDetails()
{
    TrialDetails details;
    details.trialId = m_detailsTrial;
    try {
        details.runs = m_store->runs(m_detailsTrial);
        for (const RunRecord& run : details.runs) {
            auto events = m_store->eventsSince(run.id, 0);
            details.eventsTail.insert(details.eventsTail.end(), events.begin(), events.end());
        }
        std::stable_sort(details.eventsTail.begin(), details.eventsTail.end(),
                         [](const EventRecord& a, const EventRecord& b) { return a.time < b.time; });
        if (details.eventsTail.size() > static_cast<std::size_t>(kEventsTail))
            details.eventsTail.erase(details.eventsTail.begin(), details.eventsTail.end() - kEventsTail);
    } catch (const std::exception&) {
    }
    Q_EMIT trialDetailsReady(details);
}

void StorePoller::readCompare()
{
    CompareData data;
    data.requestId = m_compareRequest;
    data.runs = m_compareRuns;
    data.metric = m_compareMetric;
    std::set<QString> keys;
    m_compareLive = false;
    try {
        for (const RunRef& ref : m_compareRuns) {
            Store* store = compareStore(ref.database);
            if (!store) {
                data.configs << QString();
                data.series.emplace_back();
                continue;
            }
            const qint64 runId = ref.id;
            const auto record = store->run(runId);
            data.configs << (record ? QString::fromStdString(record->configYaml) : QString());
            if (record && record->status == RunStatus::Running)
                m_compareLive = true;
            LiveSeriesBuilder builder;
            QList<QPointF> series;
            qint64 cursor = 0;
            while (true) {
                const auto rows = store->metricsSince(runId, cursor, kPageRows);
                if (rows.empty())
                    break;
                cursor = rows.back().cursor;
                LiveDelta page;
                builder.add(rows, page);
                for (SeriesChunk& chunk : page.chunks) {
                    keys.insert(chunk.key);
                    if (chunk.key == m_compareMetric)
                        series.append(chunk.points);
                }
                if (rows.size() < kPageRows)
                    break;
            }
            data.series.push_back(std::move(series));
        }
    } catch (const std::exception&) {
    }
    data.metricKeys = QStringList(keys.begin(), keys.end());
    Q_EMIT compareReady(data);
}

} // namespace pitwall::ui
