// One training run across the tasks of a Slurm step (issue 26), on a one-node cluster the test starts
// (tests/support/slurmcluster.h): `srun -n 2 pitwall train` is one data-parallel run of two ranks that meet over a
// TCP store, with the same losses, step by step, as the two-process run `pitwall train` starts itself on one
// machine (training.distribution.logical_devices=2), one run and one job in the store; and a rank 0 that fails
// stops the other rank with its reason, leaving no results file.
#include "core/store/jobstore.h"
#include "core/store/store.h"
#include "tests/support/components.h"
#include "tests/support/slurmcluster.h"
#include "tests/support/testpaths.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <tuple>

using namespace pitwall;

namespace {

using RowKey = std::tuple<std::string, std::int64_t, std::string>; // stage, step, key

// Every loss row of the store's one run.
std::map<RowKey, double> lossRows(const QString& db)
{
    std::map<RowKey, double> rows;
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    for (const RunRecord& run : store->runs())
        for (const MetricRow& r : store->metricsSince(run.id, 0))
            if (r.sample.key.rfind("loss", 0) == 0)
                rows[{r.sample.stage, r.sample.step, r.sample.key}] = r.sample.value;
    return rows;
}

const QStringList kSmall = {"training.optimization.num_threads=1", "training.stages.posttrain.epochs=0",
                            "training.stages.pretrain.epochs=1", "experiment.seeds=[3]"};

} // namespace

class TestSlurmTraining : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void srunRunEqualsTheTwoProcessRun();
    void aFailingRankZeroStopsTheOthers();

private:
    // `srun -n 2 -O pitwall train` of the smoke config in `folder` with `args`; the exit code, the output in `out`.
    int srunTrain(const QString& folder, const QStringList& args, QByteArray& out);

    QTemporaryDir m_dir;
    test::SlurmCluster m_cluster;
};

void TestSlurmTraining::initTestCase()
{
    QVERIFY(m_dir.isValid());
    PITWALL_START_SLURM(m_cluster, m_dir.filePath("cluster"));
}

int TestSlurmTraining::srunTrain(const QString& folder, const QStringList& args, QByteArray& out)
{
    QDir().mkpath(folder);
    QProcess srun;
    srun.setProcessEnvironment(m_cluster.environment());
    srun.setProcessChannelMode(QProcess::MergedChannels);
    srun.setWorkingDirectory(folder);
    // -O (--overcommit): two tasks whatever the node's CPUs.
    srun.start("srun", QStringList{"-n", "2", "-O", test::cliPath(), "train",
                                   test::sourcePath("/configs/transfuser/smoke.yaml")} +
                           args);
    if (!srun.waitForFinished(300000)) {
        srun.kill();
        srun.waitForFinished();
    }
    out = srun.readAll();
    return srun.exitStatus() == QProcess::NormalExit ? srun.exitCode() : -1;
}

void TestSlurmTraining::srunRunEqualsTheTwoProcessRun()
{
    const QString slurmDir = m_dir.filePath("slurm");
    QByteArray out;
    QCOMPARE(srunTrain(slurmDir, QStringList{"--db", "r.db"} + kSmall, out), 0);
    // Only rank 0 prints the result.
    QCOMPARE(out.count("final validation:"), 1);

    const QString localDir = m_dir.filePath("local");
    QDir().mkpath(localDir);
    QProcess local;
    local.setWorkingDirectory(localDir);
    local.setProcessChannelMode(QProcess::MergedChannels);
    local.start(test::cliPath(),
                QStringList{"train", test::sourcePath("/configs/transfuser/smoke.yaml"), "--db", "r.db",
                            "training.distribution.logical_devices=2", "device.partition_mode=DPX"} +
                    kSmall);
    QVERIFY(local.waitForFinished(300000));
    QVERIFY2(local.exitCode() == 0, local.readAll().constData());

    // One run, written by rank 0 of 2, and one job: the other task only trained.
    const QString slurmDb = slurmDir + "/r.db";
    auto store = openStore(slurmDb.toStdString(), OpenMode::ReadOnly);
    const auto runs = store->runs();
    QCOMPARE(runs.size(), std::size_t(1));
    QVERIFY2(runs[0].logicalDevice.find("(rank 0 of 2)") != std::string::npos, runs[0].logicalDevice.c_str());
    QCOMPARE(runs[0].seed, std::int64_t(3));
    QCOMPARE(JobStore(slurmDb.toStdString(), OpenMode::ReadOnly).jobs(true).size(), std::size_t(1));

    // Step by step the same losses as the two ranks `pitwall train` starts itself: the same data split, the
    // same averaged gradients.
    const auto fromSlurm = lossRows(slurmDb);
    const auto fromLocal = lossRows(localDir + "/r.db");
    QVERIFY(fromSlurm.size() > 20);
    QCOMPARE(fromSlurm.size(), fromLocal.size());
    for (const auto& [key, value] : fromSlurm) {
        const auto other = fromLocal.find(key);
        QVERIFY2(other != fromLocal.end(), std::get<2>(key).c_str());
        QVERIFY2(value == other->second, qPrintable(QString("%1 step %2: %3 under srun, %4 on one machine")
                                                        .arg(QString::fromStdString(std::get<2>(key)))
                                                        .arg(std::get<1>(key))
                                                        .arg(value, 0, 'g', 17)
                                                        .arg(other->second, 0, 'g', 17)));
    }
}

void TestSlurmTraining::aFailingRankZeroStopsTheOthers()
{
    const QString folder = m_dir.filePath("failing");
    QByteArray out;
    QVERIFY(srunTrain(folder, {"--db", "r.db", "data.root=" + m_dir.filePath("no-such-folder")}, out) != 0);
    // Rank 0's reason, and the other rank's: rank 0 stopped the run with it.
    QVERIFY2(out.contains("is not a folder"), out.constData());
    QVERIFY2(out.contains("rank 0 stopped the run: data.root"), out.constData());
    QVERIFY2(!QFile::exists(folder + "/r.db"), out.constData()); // bad input leaves no results file

    // Each task is one rank: asking for logical devices as well is bad input on every task (exit 2).
    QCOMPARE(srunTrain(folder, {"--db", "r.db", "training.distribution.logical_devices=2"}, out), 2);
    QVERIFY2(out.contains("under srun each task is one rank"), out.constData());
    QVERIFY(!QFile::exists(folder + "/r.db"));
}

PITWALL_TEST_MAIN(TestSlurmTraining)
#include "tst_slurm_training.moc"
