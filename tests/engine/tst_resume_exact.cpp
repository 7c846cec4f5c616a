// A resumed training equals the uninterrupted one, tested the way runs die: a real `pitwall train` killed with
// SIGKILL in the middle of an epoch, or in the middle of writing a checkpoint, continued with `pitwall train
// --resume`, and every stored loss row and the final metrics compared with an uninterrupted run of the same config,
// seed and thread count.

#include "core/store/store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <QDirIterator>

#include <csignal>
#include <map>
#include <tuple>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;
using pitwall::test::sourcePath;

using namespace pitwall;

namespace {

const QStringList kConfig{sourcePath("/configs/transfuser/smoke.yaml"),
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
    p.start(cliPath(), QStringList{"train"} + kConfig + QStringList{"--db", db} + extra);
    if (!p.waitForFinished(600000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QStringLiteral("pitwall train failed (%1): %2").arg(p.exitCode()).arg(QString::fromUtf8(p.readAll()));
    return {};
}

// The files under `dir` (recursively) whose names are `name`.
QStringList filesNamed(const QString& dir, const QString& name)
{
    QStringList found;
    QDirIterator it(dir, {name}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        found << it.next();
    return found;
}

} // namespace

class TestResumeExact : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void sigkillMidEpochThenResumeEqualsUninterrupted();
    void sigkillDuringCheckpointWriteThenResumeEqualsUninterrupted();

private:
    // Every determined row of the uninterrupted run, exactly, and nothing else; empty when so, else what differs.
    QString differencesFromReference(const QString& db) const;

    QTemporaryDir m_dir;
    std::map<RowKey, double> m_reference; // the uninterrupted run's determined rows
    std::int64_t m_lastPosttrainStep = 0;
    std::int64_t m_stepsPerEpoch = 0; // pretrain
};

void TestResumeExact::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString whole = m_dir.filePath("whole.db");
    QVERIFY(QDir(m_dir.path()).mkpath("whole"));
    const QString error = train(m_dir.filePath("whole"), whole);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    m_reference = determinedRows(whole);
    m_stepsPerEpoch = lastStep(whole, "pretrain") / 3;
    m_lastPosttrainStep = lastStep(whole, "posttrain");
    QVERIFY(m_stepsPerEpoch >= 4);
    QVERIFY(m_reference.count({"posttrain", m_lastPosttrainStep, "loss"}));
}

QString TestResumeExact::differencesFromReference(const QString& db) const
{
    const std::map<RowKey, double> continued = determinedRows(db);
    if (continued.size() != m_reference.size())
        return QStringLiteral("%1 determined rows, the uninterrupted run has %2")
            .arg(continued.size())
            .arg(m_reference.size());
    for (const auto& [key, value] : m_reference) {
        const QString row = QStringLiteral("%1 step %2 %3")
                                .arg(QString::fromStdString(std::get<0>(key)))
                                .arg(std::get<1>(key))
                                .arg(QString::fromStdString(std::get<2>(key)));
        const auto it = continued.find(key);
        if (it == continued.end())
            return row + " missing";
        if (it->second != value)
            return QStringLiteral("%1: resumed %2, uninterrupted %3")
                .arg(row)
                .arg(it->second, 0, 'g', 17)
                .arg(value, 0, 'g', 17);
    }
    return {};
}

void TestResumeExact::sigkillMidEpochThenResumeEqualsUninterrupted()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString killed = dir.filePath("killed.db");
    QVERIFY(QDir(dir.path()).mkpath("b"));
    const std::int64_t stepsPerEpoch = m_stepsPerEpoch;

    // The same training, killed half-way through its second epoch (its first epoch's checkpoint is on disk).
    QProcess victim;
    victim.setWorkingDirectory(dir.filePath("b"));
    victim.setProcessChannelMode(QProcess::MergedChannels);
    victim.start(cliPath(), QStringList{"train"} + kConfig + QStringList{"--db", killed});
    QVERIFY(victim.waitForStarted());
    const std::int64_t killAt = stepsPerEpoch + stepsPerEpoch / 2;
    // The victim creates the file before its tables: until they are there it has no steps.
    const auto stepsSoFar = [&] {
        try {
            return QFile::exists(killed) ? lastStep(killed, "pretrain") : 0;
        } catch (const std::exception&) {
            return std::int64_t(0);
        }
    };
    QTRY_VERIFY_WITH_TIMEOUT(stepsSoFar() >= killAt, 300000);
    ::kill(static_cast<pid_t>(victim.processId()), SIGKILL);
    QVERIFY(victim.waitForFinished(30000));
    QCOMPARE(victim.exitStatus(), QProcess::CrashExit);
    const std::int64_t reached = lastStep(killed, "pretrain");
    QVERIFY2(reached < 2 * stepsPerEpoch, "killed too late: the second epoch had finished");

    const QString resumed = train(dir.filePath("b"), killed, {"--resume"});
    QVERIFY2(resumed.isEmpty(), qPrintable(resumed));
    const QString differences = differencesFromReference(killed);
    QVERIFY2(differences.isEmpty(), qPrintable(differences));
    QVERIFY(m_reference.size() > 4 * static_cast<std::size_t>(stepsPerEpoch));
}

// Killed while it writes the second pretrain epoch's checkpoint: the test hook of checkpoint.h makes the writer
// SIGKILL itself with that epoch's model file in place and its optimiser file half written, at the same point on
// every run (no timing). The half checkpoint must not count: --resume continues from the first epoch's and ends
// equal to the uninterrupted run. If this fails, a crash while saving corrupts the run it should protect.
void TestResumeExact::sigkillDuringCheckpointWriteThenResumeEqualsUninterrupted()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString killed = dir.filePath("killed.db"), cwd = dir.filePath("c");
    QVERIFY(QDir(dir.path()).mkpath("c"));
    QProcess victim;
    victim.setWorkingDirectory(cwd);
    victim.setProcessChannelMode(QProcess::MergedChannels);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PITWALL_TEST_CRASH_IN_CHECKPOINT", "pretrain:1"); // kCrashInCheckpointVariable (torch-free here)
    victim.setProcessEnvironment(env);
    victim.start(cliPath(), QStringList{"train"} + kConfig + QStringList{"--db", killed});
    QVERIFY(victim.waitForFinished(600000));
    const QString output = QString::fromUtf8(victim.readAll());
    QVERIFY2(victim.exitStatus() == QProcess::CrashExit, qPrintable(output));
    // What the kill left: epoch 1's model whole, its optimiser state a half-written temporary, no marker.
    QCOMPARE(filesNamed(cwd, "epoch_0001.model.pt").size(), 1);
    const QStringList partial = filesNamed(cwd, "epoch_0001.optim.pt.partial");
    QCOMPARE(partial.size(), 1);
    QVERIFY(QFileInfo(partial[0]).size() > 0);
    QVERIFY(filesNamed(cwd, "epoch_0001.optim.pt").isEmpty());
    QVERIFY(filesNamed(cwd, "epoch_0001.json").isEmpty());
    QCOMPARE(filesNamed(cwd, "epoch_0000.json").size(), 1);
    QCOMPARE(lastStep(killed, "pretrain"), 2 * m_stepsPerEpoch); // the epoch was trained, then the save died

    const QString resumed = train(cwd, killed, {"--resume"});
    QVERIFY2(resumed.isEmpty(), qPrintable(resumed));
    const QString differences = differencesFromReference(killed);
    QVERIFY2(differences.isEmpty(), qPrintable(differences));
    QVERIFY(filesNamed(cwd, "epoch_0001.optim.pt.partial").isEmpty()); // the resumed save replaced it
}

QTEST_GUILESS_MAIN(TestResumeExact)
#include "tst_resume_exact.moc"
