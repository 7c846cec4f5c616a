// Several real processes write the same results file at once, as workers on logical devices do, while this
// process reads only what is new. Every row must arrive exactly once, trial numbers must stay 0..M-1 without
// duplicates, and no writer may fail with "database is locked".
#include "core/store/store.h"

#include <QtTest>

#include <map>
#include <memory>
#include <set>

#include "tests/support/testpaths.h"

using pitwall::test::pathFromEnvironment;

using namespace pitwall;

namespace {
constexpr int kWorkers = 4;
constexpr int kTrialsPerWorker = 10;
constexpr int kRowsPerWorker = 20000;
constexpr int kBatchRows = 20;
} // namespace

class TestStoreConcurrency : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void workersWriteAtOnce();
};

void TestStoreConcurrency::workersWriteAtOnce()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto path = dir.filePath("shared.db").toStdString();
    auto reader = openStore(path);
    const auto studyId = reader->createStudy("concurrent", {StudyDirection::Minimize});

    std::vector<std::unique_ptr<QProcess>> children;
    for (int worker = 0; worker < kWorkers; ++worker) {
        auto process = std::make_unique<QProcess>();
        process->start(pathFromEnvironment("STORE_CHILD_WRITER"),
                       {QString::fromStdString(path), "concurrent", QString::number(worker),
                        QString::number(kTrialsPerWorker), QString::number(kRowsPerWorker),
                        QString::number(kBatchRows)});
        QVERIFY2(process->waitForStarted(10000), qPrintable(process->errorString()));
        children.push_back(std::move(process));
    }

    // Poll like a live view: read only when the counter moved, and only rows after the cursor.
    std::int64_t cursor = 0, lastCounter = -1, rowsSeen = 0;
    std::map<std::int64_t, double> valueSumByRun;
    std::map<std::int64_t, std::int64_t> rowsByRun;
    auto pollOnce = [&] {
        const auto counter = reader->changeCounter();
        if (counter == lastCounter)
            return;
        lastCounter = counter;
        for (;;) {
            const auto rows = reader->metricsSince(0, cursor, 5000);
            for (const auto& row : rows) {
                QVERIFY(row.cursor > cursor); // strictly increasing, so nothing is read twice
                cursor = row.cursor;
                valueSumByRun[row.sample.runId] += row.sample.value;
                ++rowsByRun[row.sample.runId];
                ++rowsSeen;
            }
            if (rows.size() < 5000)
                break;
        }
    };
    QElapsedTimer timer;
    timer.start();
    for (bool running = true; running;) {
        running = false;
        for (auto& child : children)
            running = running || child->state() != QProcess::NotRunning;
        pollOnce();
        if (running) {
            QTest::qWait(20);
            for (auto& child : children)
                child->waitForFinished(0);
        }
        QVERIFY2(timer.elapsed() < 120000, "children did not finish within 2 minutes");
    }
    lastCounter = -1;
    pollOnce();

    std::set<std::int64_t> runIds;
    for (int worker = 0; worker < kWorkers; ++worker) {
        auto& child = *children[worker];
        const QString err = QString::fromUtf8(child.readAllStandardError());
        const QString out = QString::fromUtf8(child.readAllStandardOutput()).trimmed();
        QVERIFY2(child.exitStatus() == QProcess::NormalExit, qPrintable("worker crashed: " + err));
        QVERIFY2(child.exitCode() == 0,
                 qPrintable(QString("worker %1 exit %2: %3").arg(worker).arg(child.exitCode()).arg(err)));
        QVERIFY2(!err.contains("locked"), qPrintable(err));
        QVERIFY2(out.startsWith("run "), qPrintable(out));
        runIds.insert(out.mid(4).toLongLong());
    }
    QCOMPARE(runIds.size(), std::size_t(kWorkers));

    // Every row present, exactly once, in the file and in what the poller saw.
    const double rowIndexSum = kRowsPerWorker * (kRowsPerWorker - 1) / 2.0;
    QCOMPARE(rowsSeen, std::int64_t(kWorkers) * kRowsPerWorker);
    QCOMPARE(reader->info().metricRows, std::int64_t(kWorkers) * kRowsPerWorker);
    for (const auto runId : runIds) {
        const auto run = reader->run(runId);
        QVERIFY(run);
        const int worker = static_cast<int>(run->seed);
        const double expectedSum = worker * 1e6 * kRowsPerWorker + rowIndexSum;
        QCOMPARE(rowsByRun[runId], std::int64_t(kRowsPerWorker));
        QCOMPARE(valueSumByRun[runId], expectedSum);
        const auto stored = reader->metricsSince(runId, 0, 1000000);
        QCOMPARE(stored.size(), std::size_t(kRowsPerWorker));
        double storedSum = 0;
        std::int64_t stepSum = 0;
        for (const auto& row : stored) {
            storedSum += row.sample.value;
            stepSum += row.sample.step;
        }
        QCOMPARE(storedSum, expectedSum);
        QCOMPARE(stepSum, std::int64_t(rowIndexSum));
    }

    // Trial numbers 0..M-1, each once; every worker's trials complete with their values.
    const auto trials = reader->trials(studyId);
    QCOMPARE(trials.size(), std::size_t(kWorkers * kTrialsPerWorker));
    std::map<int, int> trialsPerWorker;
    std::set<double> values;
    for (std::size_t i = 0; i < trials.size(); ++i) {
        QCOMPARE(trials[i].number, static_cast<int>(i));
        QCOMPARE(trials[i].state, TrialState::Complete);
        QCOMPARE(trials[i].params.size(), std::size_t(1));
        ++trialsPerWorker[trials[i].params[0].value().get<int>()];
        values.insert(trials[i].values.at(0));
    }
    for (int worker = 0; worker < kWorkers; ++worker)
        QCOMPARE(trialsPerWorker[worker], kTrialsPerWorker);
    QCOMPARE(values.size(), trials.size());
}

QTEST_GUILESS_MAIN(TestStoreConcurrency)
#include "tst_store_concurrency.moc"
