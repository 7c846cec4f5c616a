// The partition mode chosen by measurement (`pitwall hpo --partition auto`, `pitwall bench partitions --recommend`):
// - the workload key ignores what a measurement or a search sets for itself (batch size, epochs, names, the
//   partition mode) and changes with anything else (the model, the learning rate, precision);
// - stored measurements count only for the same host, backend and workload and a mode available now, the newest
//   of each mode and batch size; the recommendation is the partition rule's on those (fixture records, no timing);
// - a real search with --partition auto and nothing stored measures first (the records carry the workload key the
//   search computes), trains with the recommended mode, and a second search reuses the measurement; --check says
//   what it would measure; a --command search is refused.
// If this fails, a search reuses a measurement of another model or machine, measures every time, or trains with a
// mode the measurement did not recommend.
#include "../pool/schedtestutil.h"

#include "core/config/schema.h"
#include "core/config/workload.h"
#include "core/pool/hposettings.h"
#include "core/search/partitionauto.h"
#include "core/store/store.h"
#include "core/util/process.h"

#include <QtTest>

#include "tests/support/components.h"

using namespace pitwall;
using namespace schedtest;

namespace {

std::string keyWith(const std::vector<std::string>& overrides)
{
    return workloadKey(resolveConfigText(builtinSchema(), "experiment:\n  name: a\n", "test.yaml", overrides));
}

BenchmarkRecord cell(const std::string& mode, long long batch, double fullFps, double time,
                     const std::string& host = "node1", const std::string& backend = "cpu",
                     const std::string& workload = "w1", int devices = 1)
{
    BenchmarkRecord r;
    r.suite = "partitions";
    r.name = mode + "/bs" + std::to_string(batch);
    r.host = host;
    r.time = time;
    r.parameters = {{"mode", mode},
                    {"batch_size", batch},
                    {"logical_devices", devices},
                    {"backend", backend},
                    {"device_memory_bytes", 1000}};
    if (!workload.empty())
        r.parameters["workload"] = workload;
    r.results = {{"compute_fps", fullFps * 1.1}, {"full_fps", fullFps}};
    return r;
}

const QString kSmoke = pitwall::test::sourcePath("/configs/transfuser/smoke.yaml");
const QString kSpace = pitwall::test::sourcePath("/configs/transfuser/hpo/speed_space.yaml");

QStringList autoSearch(const QString& db, const QString& study, const QStringList& extra = {})
{
    return QStringList{"hpo",      "--config",  kSmoke,        "--space", kSpace, "--trials", "2",
                       "--epochs", "1",         "--partition", "auto",    "--db", db,         "--study",
                       study,      "--sampler", "random",      "--seed",  "1"} +
           extra;
}

std::vector<BenchmarkRecord> partitionRecords(const QString& db)
{
    return openStore(db.toStdString())->benchmarks("partitions");
}

} // namespace

class TestSearchPartitionAuto : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void workloadKeyIgnoresWhatAMeasurementSets();
    void storedChoiceMatchesHostBackendAndWorkload();
    void autoMeasuresOnceThenReuses();

private:
    QTemporaryDir m_dir;
};

void TestSearchPartitionAuto::workloadKeyIgnoresWhatAMeasurementSets()
{
    const std::string base = keyWith({});
    QCOMPARE(base.size(), std::size_t(16));
    for (const char* same : {"training.optimization.batch_size=64", "training.stages.pretrain.epochs=7",
                             "experiment.name=other", "experiment.output_dir=elsewhere", "device.partition_mode=DPX",
                             "hpo.objective=val/waypoint_l1", "data.hpo_split=true"})
        QCOMPARE(keyWith({same}), base);
    for (const char* other : {"training.optimization.lr=0.5", "training.optimization.precision=bf16"})
        QVERIFY2(keyWith({other}) != base, other);
    QVERIFY(isWorkloadKey("experiment.model"));
    QVERIFY(!isWorkloadKey("autospeed.epochs"));
    QVERIFY(!isWorkloadKey("autospeed.val_batch_size"));
    QVERIFY(isWorkloadKey("policy.transfuser.upsample_mode"));
}

void TestSearchPartitionAuto::storedChoiceMatchesHostBackendAndWorkload()
{
    const std::vector<BenchmarkRecord> records{
        cell("SPX", 8, 60, 100),
        cell("DPX", 8, 200, 100, "node1", "cpu", "w1", 2),
        cell("DPX", 8, 150, 200, "node1", "cpu", "w1", 2),  // newer: replaces the 200 above
        cell("DPX", 16, 90, 150, "node1", "cpu", "w1", 2),  // another batch size: its own cell
        cell("QPX", 8, 900, 300, "node1", "cpu", "w2", 4),  // another workload
        cell("QPX", 8, 950, 300, "node2", "cpu", "w1", 4),  // another host
        cell("QPX", 8, 990, 300, "node1", "cuda", "w1", 4), // another backend
        cell("CPX", 8, 999, 300, "node1", "cpu", "w1", 8),  // a mode not available now
        cell("QPX", 8, 995, 300, "node1", "cpu", "", 4),    // recorded before workloads were: never matches
    };
    const PartitionWorkload w{"node1", "cpu", "w1", {"SPX", "DPX", "QPX"}};
    double newest = 0;
    const std::vector<PartitionMeasurement> cells = matchingPartitionMeasurements(records, w, &newest);
    QCOMPARE(cells.size(), std::size_t(3));
    QCOMPARE(cells[1].mode, std::string("DPX"));
    QCOMPARE(cells[1].fullFps, 150.0);
    QCOMPARE(cells[1].devices, 2);
    QCOMPARE(cells[1].memoryBytes, std::int64_t(1000));
    QCOMPARE(newest, 200.0);

    const auto stored = storedPartitionChoice(records, w);
    QVERIFY(stored);
    QCOMPARE(stored->cells, std::size_t(3));
    QCOMPARE(stored->choice.recommended.value_or(""), std::string("DPX"));
    QCOMPARE(stored->choice.reason,
             std::string("DPX (batch 8): 150.0 samples/s full FPS, 2.50x the next best, SPX (60.0)"));
    QVERIFY(
        QString::fromStdString(describeStoredChoice(*stored)).startsWith("DPX (measured 1970-01-01 00:03 UTC on 3"));

    QVERIFY(!storedPartitionChoice(records, {"node3", "cpu", "w1", {"SPX", "DPX"}}));
    // Every matching cell failed: a choice without a recommendation (the search refuses it).
    const auto failed = storedPartitionChoice({cell("SPX", 8, -1, 10)}, {"node1", "cpu", "w1", {"SPX"}});
    QVERIFY(failed && !failed->choice.recommended);
}

void TestSearchPartitionAuto::autoMeasuresOnceThenReuses()
{
    QVERIFY(m_dir.isValid());
    const QString db = m_dir.filePath("auto.db");
    // --check writes nothing and says what the search would measure.
    const CliResult check = runCli(autoSearch(db, "first") + QStringList{"--check"}, m_dir.path());
    QVERIFY2(check.exitCode == 0, qPrintable(check.err + check.out));
    QVERIFY2(check.out.contains("partition auto: no measurement of this workload on"), qPrintable(check.out));
    QVERIFY(!QFile::exists(db));

    const CliResult first = runCli(autoSearch(db, "first"), m_dir.path());
    QVERIFY2(first.exitCode == 0, qPrintable(first.err + first.out));
    QVERIFY2(first.err.contains("measuring the partition modes first"), qPrintable(first.err));
    const std::vector<BenchmarkRecord> measured = partitionRecords(db);
    QVERIFY(!measured.empty());
    const std::string workload = measured.front().parameters.value("workload", std::string());
    QCOMPARE(workload.size(), std::size_t(16));
    // What the rule recommends from the stored cells is what the search trained with.
    PartitionWorkload w{hostName(), "cpu", workload, {}};
    for (const BenchmarkRecord& r : measured) {
        QCOMPARE(r.parameters.value("workload", std::string()), workload);
        QCOMPARE(r.parameters.value("batch_size", 0LL), 8LL); // smoke.yaml's batch size, 1 epoch
        QCOMPARE(r.parameters.value("epochs", 0LL), 1LL);
        w.modes.push_back(r.parameters.value("mode", std::string()));
    }
    const auto stored = storedPartitionChoice(measured, w);
    QVERIFY(stored && stored->choice.recommended);
    const std::string mode = *stored->choice.recommended;
    const HpoSettings settings = *readHpoSettings(openStore(db.toStdString())->requireStudy("first"));
    QCOMPARE(settings.partition, mode);
    QVERIFY2(first.err.contains(QString::fromStdString("partition auto: " + mode + " (measured")),
             qPrintable(first.err));
    QCOMPARE(trials(db, "first").size(), std::size_t(2));

    // The same workload again (another batch size and study name do not change it): no new measurement.
    const CliResult second = runCli(autoSearch(db, "second", {"training.optimization.batch_size=4"}), m_dir.path());
    QVERIFY2(second.exitCode == 0, qPrintable(second.err + second.out));
    QVERIFY2(!second.err.contains("measuring the partition modes"), qPrintable(second.err));
    QCOMPARE(partitionRecords(db).size(), measured.size());
    QCOMPARE(readHpoSettings(openStore(db.toStdString())->requireStudy("second"))->partition, mode);

    // Another workload: the check says it would measure again.
    const CliResult other = runCli(autoSearch(db, "third", {"training.optimization.lr=0.01", "--check"}), m_dir.path());
    QVERIFY2(other.exitCode == 0, qPrintable(other.err + other.out));
    QVERIFY2(other.out.contains("would first measure"), qPrintable(other.out));

    // A command search has no config to measure.
    const CliResult command = runCli({"hpo", "--db", db, "--command", trialCommand(), "--space",
                                      writeFile(m_dir, "space.yaml", "mode: ok\nx: {type: uniform, min: 0, max: 1}\n"),
                                      "--partition", "auto", "--trials", "1"},
                                     m_dir.path());
    QCOMPARE(command.exitCode, 2);
    QVERIFY2(command.err.contains("--partition auto measures the config's training"), qPrintable(command.err));
}

QTEST_GUILESS_MAIN(TestSearchPartitionAuto)
#include "tst_search_partitionauto.moc"
