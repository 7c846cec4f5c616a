// MetricsWriter takes samples from training threads without waiting on the database and stores all of them.
// If this fails, a training loop would stall behind another process's write lock, or lose metric rows.
#include "storetestutil.h"

#include "core/store/metricswriter.h"
#include "core/store/store.h"
#include "core/util/error.h"

#include <QtTest>

#include <thread>

using namespace pitwall;

class TestStoreMetricsWriter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void manyThreadsAddEverythingIsStored();
    void fullBatchIsWrittenWithoutFlush();
    void intervalWritesWithoutFlush();
    void destructorFlushes();
    void addNeverWaitsOnTheDatabase();
    void errorsSurfaceOnFlush();

private:
    QTemporaryDir m_dir;
    std::string m_path;
    std::unique_ptr<Store> m_store;
    std::int64_t m_runId = 0;
    int m_case = 0;
};

void TestStoreMetricsWriter::init()
{
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath(QString("writer%1.db").arg(++m_case)).toStdString();
    m_store = openStore(m_path);
    RunRecord run;
    run.kind = "train";
    m_runId = m_store->createRun(run);
}

void TestStoreMetricsWriter::manyThreadsAddEverythingIsStored()
{
    constexpr int kThreads = 4, kPerThread = 5000;
    MetricsWriter writer(m_path, 256, 50);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i)
                writer.add({m_runId, "pretrain", i, "loss" + std::to_string(t), t * 1e6 + i, 1.0 * i});
        });
    for (auto& thread : threads)
        thread.join();
    writer.flush();
    QCOMPARE(writer.rowsWritten(), std::int64_t(kThreads * kPerThread));
    QCOMPARE(writer.rowsDropped(), std::int64_t(0));
    const auto rows = m_store->metricsSince(m_runId, 0, 1000000);
    QCOMPARE(rows.size(), std::size_t(kThreads * kPerThread));
    std::map<std::string, double> sums;
    std::map<std::string, int> counts;
    for (const auto& row : rows) {
        sums[row.sample.key] += row.sample.value;
        ++counts[row.sample.key];
    }
    for (int t = 0; t < kThreads; ++t) {
        const auto key = "loss" + std::to_string(t);
        QCOMPARE(counts[key], kPerThread);
        QCOMPARE(sums[key], t * 1e6 * kPerThread + kPerThread * (kPerThread - 1) / 2.0);
    }
}

void TestStoreMetricsWriter::fullBatchIsWrittenWithoutFlush()
{
    MetricsWriter writer(m_path, 100, 600000); // the interval (10 min) never comes during the test
    for (int i = 0; i < 250; ++i)
        writer.add({m_runId, "s", i, "k", 1.0, 0.0});
    // Not a timing goal: the wait is long so that a loaded machine (a sanitizer build, two tests at a time) passes;
    // it ends as soon as the two full batches are in.
    QTRY_VERIFY_WITH_TIMEOUT(m_store->metricsSince(m_runId, 0).size() >= 200, 120000);
    writer.flush();
    QCOMPARE(m_store->metricsSince(m_runId, 0).size(), std::size_t(250));
}

void TestStoreMetricsWriter::intervalWritesWithoutFlush()
{
    MetricsWriter writer(m_path, 100000, 50);
    for (int i = 0; i < 5; ++i)
        writer.add({m_runId, "s", i, "k", i * 0.5, 0.0});
    QTRY_COMPARE_WITH_TIMEOUT(m_store->metricsSince(m_runId, 0).size(), std::size_t(5), 5000);
    QCOMPARE(writer.rowsWritten(), std::int64_t(5));
}

void TestStoreMetricsWriter::destructorFlushes()
{
    {
        MetricsWriter writer(m_path, 100000, 60000);
        std::vector<MetricSample> samples;
        for (int i = 0; i < 123; ++i)
            samples.push_back({m_runId, "s", i, "k", 2.0, 0.0});
        writer.add(std::move(samples));
    }
    QCOMPARE(m_store->metricsSince(m_runId, 0).size(), std::size_t(123));
}

void TestStoreMetricsWriter::addNeverWaitsOnTheDatabase()
{
    MetricsWriter writer(m_path, 50, 10);
    // Another connection holds the write lock, like a busy sibling process.
    sqlite3* blocker = nullptr;
    QCOMPARE(sqlite3_open(m_path.c_str(), &blocker), SQLITE_OK);
    QCOMPARE(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    // The lock is held until after the loop: had add() waited on the database, the loop could not end (or the
    // writes would fail). No clock: that every add() returned while the lock was held is the proof.
    for (int i = 0; i < 20000; ++i)
        writer.add({m_runId, "s", i, "k", 1.0, 0.0});
    QCOMPARE(writer.rowsWritten(), std::int64_t(0));
    QCOMPARE(sqlite3_exec(blocker, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(blocker);
    writer.flush();
    QCOMPARE(writer.rowsWritten(), std::int64_t(20000));
    QCOMPARE(m_store->metricsSince(m_runId, 0, 1000000).size(), std::size_t(20000));
}

void TestStoreMetricsWriter::errorsSurfaceOnFlush()
{
    MetricsWriter writer(m_path, 10, 10);
    writer.add({987654, "s", 0, "k", 1.0, 0.0});
    try {
        writer.flush();
        QFAIL("flush() did not report the unknown run");
    } catch (const InputError& error) {
        QVERIFY2(QString(error.what()).contains("no run with id 987654"), error.what());
    }
    QCOMPARE(writer.rowsDropped(), std::int64_t(1));
    writer.add({m_runId, "s", 0, "k", 1.0, 0.0});
    writer.flush(); // the error was reported once; the writer keeps working
    QCOMPARE(writer.rowsWritten(), std::int64_t(1));
    QVERIFY_THROWS_EXCEPTION(InputError, MetricsWriter(m_dir.filePath("missing/dir/x.db").toStdString()));
}

QTEST_GUILESS_MAIN(TestStoreMetricsWriter)
#include "tst_store_metricswriter.moc"
