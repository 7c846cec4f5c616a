// A resumed training equals the uninterrupted one, tested the way runs die: a real `pitwall train` killed with
// SIGKILL in the middle of an epoch, continued with `pitwall train --resume`, and every stored loss row and the
// final metrics compared with an uninterrupted run of the same config, seed and thread count.

#include "core/store/store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <map>
#include <tuple>

using namespace pitwall;

namespace {

const QStringList kConfig{PITWALL_SOURCE_DIR "/configs/transfuser/smoke.yaml",
                          "training.stages.pretrain.epochs=3",
                          "training.stages.posttrain.epochs=1",
                          "training.optimization.num_threads=1",
                          "training.experiment.log_scalars_every_n_steps=1",
                          "experiment.name=resume-exact"};

using RowKey = std::tuple<std::string, std::int64_t, std::string>; // stage, step, key

// What training determines (losses, learning rate, validation); timings and throughput are left out.
bool determined(const std::string& key)
{
    return key.rfind("loss", 0) == 0 || key.rfind("val/", 0) == 0 || key == "lr";
}

// The last value of every determined (stage, step, key) of the database's runs, in run order (a resumed run's
// rows replace the killed run's rows of the same steps).
std::map<RowKey, double> determinedRows(const QString& db)
{
    std::map<RowKey, double> rows;
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    for (const RunRecord& run : store->runs()) {
        std::int64_t cursor = 0;
        for (;;) {
            const auto batch = store->metricsSince(run.id, cursor);
            if (batch.empty())
                break;
            for (const MetricRow& r : batch)
                if (determined(r.sample.key))
                    rows[{r.sample.stage, r.sample.step, r.sample.key}] = r.sample.value;
            cursor = batch.back().cursor;
        }
    }
    return rows;
}

std::int64_t lastStep(const QString& db, const std::string& stage)
{
    std::int64_t last = 0;
    for (const auto& [key, value] : determinedRows(db))
        if (std::get<0>(key) == stage)
            last = std::max(last, std::get<1>(key));
    return last;
}

QString train(const QString& cwd, const QString& db, const QStringList& extra = {})
{
    QProcess p;
    p.setWorkingDirectory(cwd);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(PITWALL_CLI, QStringList{"train"} + kConfig + QStringList{"--db", db} + extra);
    if (!p.waitForFinished(600000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QStringLiteral("pitwall train failed (%1): %2").arg(p.exitCode()).arg(QString::fromUtf8(p.readAll()));
    return {};
}

} // namespace

class TestResumeExact : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sigkillMidEpochThenResumeEqualsUninterrupted();
};

void TestResumeExact::sigkillMidEpochThenResumeEqualsUninterrupted()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString whole = dir.filePath("whole.db"), killed = dir.filePath("killed.db");
    QVERIFY(QDir(dir.path()).mkpath("a") && QDir(dir.path()).mkpath("b"));
    const QString error = train(dir.filePath("a"), whole);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const std::map<RowKey, double> reference = determinedRows(whole);
    const std::int64_t stepsPerEpoch = lastStep(whole, "pretrain") / 3;
    QVERIFY(stepsPerEpoch >= 4);

    // The same training, killed half-way through its second epoch (its first epoch's checkpoint is on disk).
    QProcess victim;
    victim.setWorkingDirectory(dir.filePath("b"));
    victim.setProcessChannelMode(QProcess::MergedChannels);
    victim.start(PITWALL_CLI, QStringList{"train"} + kConfig + QStringList{"--db", killed});
    QVERIFY(victim.waitForStarted());
    const std::int64_t killAt = stepsPerEpoch + stepsPerEpoch / 2;
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(killed) && lastStep(killed, "pretrain") >= killAt, 300000);
    ::kill(static_cast<pid_t>(victim.processId()), SIGKILL);
    QVERIFY(victim.waitForFinished(30000));
    QCOMPARE(victim.exitStatus(), QProcess::CrashExit);
    const std::int64_t reached = lastStep(killed, "pretrain");
    QVERIFY2(reached < 2 * stepsPerEpoch, "killed too late: the second epoch had finished");

    const QString resumed = train(dir.filePath("b"), killed, {"--resume"});
    QVERIFY2(resumed.isEmpty(), qPrintable(resumed));
    const std::map<RowKey, double> continued = determinedRows(killed);

    // Every determined row of the uninterrupted run, exactly, and nothing else.
    QCOMPARE(continued.size(), reference.size());
    int compared = 0;
    for (const auto& [key, value] : reference) {
        const auto it = continued.find(key);
        QVERIFY2(it != continued.end(), qPrintable(QString::fromStdString(std::get<0>(key) + " step " +
                                                                         std::to_string(std::get<1>(key)) + " " +
                                                                         std::get<2>(key) + " missing")));
        if (it->second != value)
            QFAIL(qPrintable(QStringLiteral("%1 step %2 %3: resumed %4, uninterrupted %5")
                                 .arg(QString::fromStdString(std::get<0>(key)))
                                 .arg(std::get<1>(key))
                                 .arg(QString::fromStdString(std::get<2>(key)))
                                 .arg(it->second, 0, 'g', 17)
                                 .arg(value, 0, 'g', 17)));
        ++compared;
    }
    QVERIFY(compared > 4 * static_cast<int>(stepsPerEpoch));
    QVERIFY(reference.count({"posttrain", lastStep(whole, "posttrain"), "loss"}));
}

QTEST_GUILESS_MAIN(TestResumeExact)
#include "tst_resume_exact.moc"
