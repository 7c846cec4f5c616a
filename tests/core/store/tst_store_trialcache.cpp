// TrialCache (core/store/trialcache.h) keeps a live reader's trials and reads again only what changed. If this fails,
// the window shows trials that differ from the file (a finished trial's late driving score missing, a finished
// trial still running) or reads every trial on every change.
#include "storetestutil.h"

#include "core/store/sqlitestore.h"
#include "core/store/store.h"
#include "core/store/trialcache.h"

#include <QtTest>

#include "tests/support/testpaths.h"

using namespace pitwall;
using namespace storetest;
using pitwall::test::sourcePath;

namespace {

std::vector<TrialCache::StudyKey> keysOf(Store& store)
{
    std::vector<TrialCache::StudyKey> keys;
    for (const StudySummary& s : store.listStudies())
        keys.push_back({s.study.id, s.study.name, s.total()});
    return keys;
}

// The cache's trials equal a full read, field by field (the heartbeat aside, as the cache documents).
void verifySameAsFullRead(Store& store, const std::vector<TrialCache::Shared>& cached)
{
    const auto keys = keysOf(store);
    QCOMPARE(cached.size(), keys.size());
    for (std::size_t s = 0; s < keys.size(); ++s) {
        const std::vector<TrialRecord> full = store.trials(keys[s].id);
        QCOMPARE(cached[s]->size(), full.size());
        for (std::size_t i = 0; i < full.size(); ++i)
            QVERIFY2(sameTrial((*cached[s])[i], full[i]),
                     qPrintable(QStringLiteral("study %1, trial %2").arg(keys[s].name.c_str()).arg(i)));
    }
}

void finishComplete(Store& store, std::int64_t studyId, double value)
{
    const auto t = store.createTrial(studyId);
    store.setTrialParam(t.id, "x", value, floatDist(-10, 10));
    store.reportIntermediate(t.id, 0, value + 1);
    store.finishTrial(t.id, TrialState::Complete, {value});
}

} // namespace

class TestStoreTrialCache : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void readsOnlyWhatChanged();
    void revisionsOnlyForFinishedTrials();
    void olderSchemaReadsEverything();
    void optunaFileIsIncremental();
    void readsOlderTrialsSummarised();
    void scanningReadsWhatLookingUpReads();

private:
    QTemporaryDir m_dir;
};

void TestStoreTrialCache::readsOnlyWhatChanged()
{
    const auto path = m_dir.filePath("cache.db").toStdString();
    auto writer = openStore(path);
    const auto a = writer->createStudy("a", {StudyDirection::Minimize});
    const auto b = writer->createStudy("b", {StudyDirection::Maximize});
    for (int i = 0; i < 3; ++i)
        finishComplete(*writer, a, i);
    const auto running = writer->createTrial(a);
    const auto waiting = writer->createTrial(a, TrialState::Waiting);
    finishComplete(*writer, b, 5);
    finishComplete(*writer, b, 6);

    auto reader = openStore(path, OpenMode::ReadOnly);
    TrialCache cache;
    const auto first = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(7)); // everything, the first time
    verifySameAsFullRead(*reader, first);

    // Nothing changed: only the two unfinished trials are read, and both studies keep their vectors.
    const auto second = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(2));
    QCOMPARE(second[0], first[0]);
    QCOMPARE(second[1], first[1]);

    // The running trial reports and finishes, a trial is added, a finished trial of a gets a late attribute.
    writer->reportIntermediate(running.id, 0, 4.5);
    writer->finishTrial(running.id, TrialState::Complete, {4.0});
    finishComplete(*writer, a, 9);
    writer->setTrialUserAttr((*first[0])[1].id, "driving_score", 71.5);
    const auto third = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(4)); // the 2 unfinished, the new one, the revised one
    QVERIFY(third[0] != first[0]);
    QCOMPARE(third[1], first[1]); // b did not change
    QCOMPARE(third[0]->size(), std::size_t(6));
    QCOMPARE((*third[0])[1].userAttrs.value("driving_score", Json()), Json(71.5));
    QCOMPARE((*third[0])[3].state, TrialState::Complete);
    QCOMPARE((*third[0])[3].intermediateValues.at(0), 4.5);
    QCOMPARE((*first[0])[3].state, TrialState::Running); // a vector handed out never changes
    verifySameAsFullRead(*reader, third);

    // A revision of b's trial changes b only; the waiting trial starting changes a. Both read, nothing else.
    writer->setTrialSystemAttr((*first[1])[0].id, "fail_reason", "late note");
    writer->finishTrial(waiting.id, TrialState::Running, {});
    const auto fourth = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(2));
    QVERIFY(fourth[1] != third[1]);
    QCOMPARE((*fourth[0])[4].state, TrialState::Running);
    verifySameAsFullRead(*reader, fourth);

    // A new study is read whole; a study gone is forgotten; clear() reads everything again.
    finishComplete(*writer, writer->createStudy("c", {StudyDirection::Minimize}), 1);
    const auto fifth = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(fifth.size(), std::size_t(3));
    QCOMPARE(cache.lastRead(), std::size_t(1 + 1)); // c's trial and a's unfinished one
    verifySameAsFullRead(*reader, fifth);
    cache.clear();
    cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(6 + 2 + 1));

    // Fewer trials than the listing counted (a study made again under the same id and name): all read again.
    auto keys = keysOf(*reader);
    keys[1].listedTrials += 5;
    cache.refresh(*reader, keys);
    QCOMPARE(cache.lastRead(), std::size_t(1 + 2)); // a's unfinished one, then b whole
    // More trials kept than the listing counts (a study deleted and made again, with fewer trials): b read whole.
    keys = keysOf(*reader);
    keys[1].listedTrials = 1;
    cache.refresh(*reader, keys);
    QCOMPARE(cache.lastRead(), std::size_t(1 + 2));
}

void TestStoreTrialCache::revisionsOnlyForFinishedTrials()
{
    const auto path = m_dir.filePath("revisions.db").toStdString();
    auto store = openStore(path);
    const auto study = store->createStudy("s", {StudyDirection::Minimize});
    const auto trial = store->createTrial(study);
    store->setTrialUserAttr(trial.id, "seed", 3); // running: readers read it again anyway
    QCOMPARE(scalar(path, "SELECT COUNT(*) FROM pitwall_trial_revisions"), std::string("0"));
    const auto start = store->trialRevisionsSince(std::nullopt);
    QVERIFY(start.tracked && start.trials.empty());
    store->finishTrial(trial.id, TrialState::Complete, {1.0});
    store->setTrialUserAttr(trial.id, "driving_score", 50.0);
    store->setTrialUserAttr(trial.id, "driving_score", 52.0);
    store->setStudyUserAttr(study, "note", "studies are read whole");
    QCOMPARE(scalar(path, "SELECT COUNT(*) FROM pitwall_trial_revisions"), std::string("2"));
    const auto revised = store->trialRevisionsSince(start.latest);
    QCOMPARE(revised.trials.size(), std::size_t(1)); // revised twice, listed once
    QCOMPARE(revised.trials[0].studyId, study);
    QCOMPARE(revised.trials[0].number, 0);
    QCOMPARE(revised.latest, start.latest + 2);
    QVERIFY(store->trialRevisionsSince(revised.latest).trials.empty());
    const auto numbered = store->trialsNumbered(study, {0, 7, 0});
    QCOMPARE(numbered.size(), std::size_t(1));
    QCOMPARE(numbered[0].userAttrs.value("driving_score", Json()), Json(52.0));
}

void TestStoreTrialCache::olderSchemaReadsEverything()
{
    // Schema 5 has no revisions: an older Pitwall may change a finished trial unrecorded, so every refresh reads all.
    const auto path = m_dir.filePath("v5.db").toStdString();
    std::int64_t study = 0;
    {
        SqliteStore store(path, OpenMode::ReadWrite, AutoMigrate::No);
        QCOMPARE(store.migrateTo(5), 5);
        study = store.createStudy("old", {StudyDirection::Minimize});
        finishComplete(store, study, 1);
        finishComplete(store, study, 2);
    }
    auto reader = openStore(path, OpenMode::ReadOnly);
    QVERIFY(!reader->trialRevisionsSince(0).tracked);
    TrialCache cache;
    cache.refresh(*reader, keysOf(*reader));
    const auto again = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(2));
    // Once a current Pitwall migrates the file, revisions count and the reader is incremental again.
    auto writer = openStore(path);
    writer->setTrialUserAttr(again[0]->at(0).id, "driving_score", 10.0);
    const auto migrated = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(2)); // all, once more: the reader had no revision to start from
    QCOMPARE(migrated[0]->at(0).userAttrs.value("driving_score", Json()), Json(10.0));
    writer->setTrialUserAttr(again[0]->at(1).id, "driving_score", 20.0);
    const auto incremental = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(1));
    QCOMPARE(incremental[0]->at(1).userAttrs.value("driving_score", Json()), Json(20.0));
}

void TestStoreTrialCache::optunaFileIsIncremental()
{
    // An Optuna file (no Pitwall tables): Optuna never changes a finished trial, so nothing needs revisions.
    const auto path = copyFile(sourcePath("/tests/data/optuna/optuna-3.1-study.db"), m_dir, "optuna.db");
    auto reader = openStore(path, OpenMode::ReadOnly);
    TrialCache cache;
    const auto first = cache.refresh(*reader, keysOf(*reader));
    const std::size_t all = cache.lastRead();
    QVERIFY(all > 0);
    const auto second = cache.refresh(*reader, keysOf(*reader));
    QVERIFY(cache.lastRead() < all);
    for (std::size_t i = 0; i < first.size(); ++i)
        QCOMPARE(second[i], first[i]);
    verifySameAsFullRead(*reader, second);
}

// A reader that draws a few curves (the window) reads the older trials summarised: their last intermediate value and
// vector alone (Store::trialsSummarised). The cache reads the newest `completeTail` trials whole, and on demand the
// summarised trials whose curves are drawn; a trial read again for a change comes whole.
void TestStoreTrialCache::readsOlderTrialsSummarised()
{
    const auto path = m_dir.filePath("summarised.db").toStdString();
    auto writer = openStore(path);
    const auto single = writer->createStudy("single", {StudyDirection::Minimize});
    for (int i = 0; i < 6; ++i) {
        const auto t = writer->createTrial(single);
        writer->setTrialParam(t.id, "x", i, floatDist(-10, 10));
        for (int step = 0; step < 5; ++step)
            writer->reportIntermediate(t.id, step, i * 10 + step);
        writer->finishTrial(t.id, TrialState::Complete, {i * 1.0});
    }
    writer->finishTrial(writer->createTrial(single).id, TrialState::Fail, {}); // no intermediate values
    const auto pair = writer->createStudy("pair", {StudyDirection::Minimize, StudyDirection::Maximize});
    for (int i = 0; i < 3; ++i) {
        const auto t = writer->createTrial(pair);
        for (int step = 0; step < 3; ++step)
            writer->reportIntermediates(t.id, step, {i + step * 0.5, -1.0 * step});
        writer->finishTrial(t.id, TrialState::Pruned, {});
    }

    auto reader = openStore(path, OpenMode::ReadOnly);
    QCOMPARE(verifySummarised(*reader, single, 4), 4);
    QCOMPARE(verifySummarised(*reader, single, 0), 0);
    QCOMPARE(verifySummarised(*reader, single, 100), 6); // the failed trial has nothing to summarise
    QCOMPARE(verifySummarised(*reader, pair, 2), 2);
    QCOMPARE(reader->trialsSummarised(pair, 2)[0].intermediateVectors.at(2), (std::vector<double>{1.0, -2.0}));

    TrialCache cache({}, 2);
    const auto first = cache.refresh(*reader, keysOf(*reader));
    const TrialRecord& oldest = (*first[0])[0];
    QVERIFY(!oldest.allIntermediates);
    QCOMPARE(oldest.intermediateValues, (StepValues{{4, 4.0}}));
    QVERIFY((*first[0])[5].allIntermediates); // the newest 2 (numbers 5 and 6) whole
    QCOMPARE((*first[0])[5].intermediateValues.size(), std::size_t(5));
    QVERIFY(!(*first[0])[4].allIntermediates);

    // Trial 0's curve is wanted: the next refresh reads it (5 and 99 are passed over: whole, and not kept), whole.
    cache.completeIntermediates(single, {0, 5, 99});
    const auto second = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(1));
    QVERIFY(second[0] != first[0]);
    QCOMPARE(second[1], first[1]);
    QVERIFY((*second[0])[0].allIntermediates);
    QVERIFY(sameTrial((*second[0])[0], *reader->trial(single, 0)));
    QVERIFY(!(*second[0])[1].allIntermediates);
    // Asked once: nothing more to read.
    const auto third = cache.refresh(*reader, keysOf(*reader));
    QCOMPARE(cache.lastRead(), std::size_t(0));
    QCOMPARE(third[0], second[0]);

    // A summarised trial revised late is read again, whole.
    writer->setTrialUserAttr(writer->trial(single, 1)->id, "driving_score", 80.0);
    const auto fourth = cache.refresh(*reader, keysOf(*reader));
    QVERIFY((*fourth[0])[1].allIntermediates);
    QCOMPARE((*fourth[0])[1].userAttrs.value("driving_score", Json()), Json(80.0));
    // Reading everything again (clear, View > Refresh) summarises again, except the trial asked whole before.
    cache.clear();
    const auto fifth = cache.refresh(*reader, keysOf(*reader));
    QVERIFY((*fifth[0])[0].allIntermediates);
    QVERIFY(sameTrial((*fifth[0])[0], *reader->trial(single, 0)));
    QVERIFY(!(*fifth[0])[2].allIntermediates);
    QCOMPARE(cache.lastRead(), std::size_t(7 + 3 + 1)); // and trial 0 again, whole
}

// A study that holds most of the file's trials is read by scanning each table whole (other studies' rows passed
// over), one with few by looking its trials' rows up: both give what reading the same trials by number gives.
void TestStoreTrialCache::scanningReadsWhatLookingUpReads()
{
    const auto path = m_dir.filePath("scan.db").toStdString();
    auto writer = openStore(path);
    const auto big = writer->createStudy("big", {StudyDirection::Minimize});
    const auto small = writer->createStudy("small", {StudyDirection::Minimize, StudyDirection::Maximize});
    // Interleaved, so that each table's rows of the two studies alternate.
    for (int i = 0; i < 12; ++i) {
        const bool inSmall = i % 4 == 3;
        const auto t = writer->createTrial(inSmall ? small : big);
        writer->setTrialParam(t.id, "x", i, floatDist(-20, 20));
        writer->setTrialParam(t.id, "optimizer", i % 2, optimizerDist());
        if (inSmall) {
            writer->reportIntermediates(t.id, 0, {i * 1.0, -i * 1.0});
            writer->setTrialSystemAttr(t.id, "constraints", Json::array({i - 5.0}));
            writer->finishTrial(t.id, TrialState::Complete, {i * 1.0, 2.0 * i});
        } else {
            writer->reportIntermediate(t.id, 0, i + 0.5);
            writer->reportIntermediate(t.id, 1, i + 0.25);
            writer->setTrialUserAttr(t.id, "tags", Json::array({"a", i}));
            if (i % 5 == 0)
                writer->heartbeat(t.id); // still running
            else
                writer->finishTrial(t.id, TrialState::Complete, {i * 1.0});
        }
    }
    auto reader = openStore(path, OpenMode::ReadOnly);
    for (const auto study : {big, small}) {
        const std::vector<TrialRecord> all = reader->trials(study);
        std::vector<int> numbers;
        for (const TrialRecord& t : all)
            numbers.push_back(t.number);
        const std::vector<TrialRecord> looked = reader->trialsNumbered(study, numbers);
        QCOMPARE(all.size(), study == big ? std::size_t(9) : std::size_t(3));
        QCOMPARE(looked.size(), all.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
            QVERIFY2(sameTrial(all[i], looked[i]), qPrintable(QStringLiteral("trial %1").arg(all[i].number)));
            QCOMPARE(all[i].heartbeatTime.has_value(), looked[i].heartbeatTime.has_value());
            QCOMPARE(all[i].params.size(), std::size_t(2));
            QCOMPARE(all[i].params[0].name, std::string("x")); // in the order they were set
        }
    }
    QCOMPARE(reader->trials(small)[1].intermediateVectors.at(0), (std::vector<double>{7.0, -7.0}));
    QCOMPARE(reader->trials(big)[0].userAttrs.value("tags", Json()), Json::array({"a", 0}));
    QVERIFY(reader->trials(big)[0].heartbeatTime.has_value());
    QCOMPARE(verifySummarised(*reader, big, 5), 5);
}

QTEST_GUILESS_MAIN(TestStoreTrialCache)
#include "tst_store_trialcache.moc"
