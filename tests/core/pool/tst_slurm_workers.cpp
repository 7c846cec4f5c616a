// A search whose workers Slurm starts (issue 26), on a one-node cluster and a PostgreSQL server that the test starts
// (tests/support/slurm_cluster.sh, tests/support/postgres.h): `srun -n 4 pitwall worker` on one study reaches the
// study's target; one task killed mid-trial fails that trial as interrupted ("worker vanished") once its heartbeat
// is older than --heartbeat-grace (1 s here: the 11 trials left take at least 3.7 s), the others run one in its
// place, and every trial names the Slurm task that ran it. And workers that outlive a restart of the server in the
// middle of a search.
#include "core/pool/hposettings.h"
#include "core/pool/trialstate.h"
#include "core/store/store.h"
#include "tests/support/components.h"
#include "tests/support/postgres.h"
#include "tests/support/slurmcluster.h"
#include "tests/support/testpaths.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <set>

using namespace pitwall;

class TestSlurmWorkers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void srunWorkersReachTheTargetAfterATaskIsKilled();
    void workersOutliveAServerRestart();

private:
    // A study on `database` with pitwall hpo's settings: `target` trials of a command that takes `seconds`.
    std::int64_t makeStudy(Store& store, const std::string& name, int target, double seconds);

    test::PostgresServer m_server;
    QTemporaryDir m_dir;
    test::SlurmCluster m_cluster;
};

void TestSlurmWorkers::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (const QString why = m_server.start(); !why.isEmpty())
        PITWALL_FAIL_MISSING("postgresql", why);
    PITWALL_START_SLURM(m_cluster, m_dir.filePath("cluster"));
}

std::int64_t TestSlurmWorkers::makeStudy(Store& store, const std::string& name, int target, double seconds)
{
    const QString objective = m_dir.filePath(QString::fromStdString(name) + ".py");
    QFile script(objective);
    if (!script.open(QIODevice::WriteOnly))
        throw std::runtime_error("cannot write " + objective.toStdString());
    script.write(QString("import json, sys, time\ntime.sleep(%1)\nx = float(sys.argv[1])\n"
                         "print(json.dumps({'objective': (x - 1) ** 2}))\n")
                     .arg(seconds)
                     .toUtf8());
    script.close();
    const QString space = m_dir.filePath("space.yaml");
    QFile spaceFile(space);
    if (!spaceFile.open(QIODevice::WriteOnly))
        throw std::runtime_error("cannot write " + space.toStdString());
    spaceFile.write("x: {type: uniform, min: -5, max: 5}\n");
    spaceFile.close();
    const auto study = store.createStudy(name, {StudyDirection::Minimize});
    HpoSettings settings;
    settings.targetTrials = target;
    settings.spacePath = space.toStdString();
    settings.command = "python3 " + objective.toStdString() + " {x}";
    settings.objective = "objective";
    settings.logDir = m_dir.filePath(QString::fromStdString(name) + "-logs").toStdString();
    writeHpoSettings(store, study, settings);
    return study;
}

void TestSlurmWorkers::srunWorkersReachTheTargetAfterATaskIsKilled()
{
    constexpr int kTarget = 12;
    const std::string location = m_server.database("slurm");
    auto store = openStore(location);
    const auto study = makeStudy(*store, "slurm-search", kTarget, 1.0);

    QProcess srun;
    srun.setProcessEnvironment(m_cluster.environment());
    srun.setProcessChannelMode(QProcess::MergedChannels);
    srun.setWorkingDirectory(m_dir.path());
    // -O (--overcommit): four tasks on a node of two CPUs, as on a test machine.
    srun.start("srun", {"-n", "4", "-O", "--kill-on-bad-exit=0", test::cliPath(), "worker", "--db",
                        QString::fromStdString(location), "--study", "slurm-search", "--heartbeat-interval", "0.5",
                        "--heartbeat-grace", "1"});
    QVERIFY(srun.waitForStarted());

    // Kill one worker (the process of one Slurm task) while its trial runs.
    qint64 killed = 0;
    int killedTrial = -1;
    for (int attempt = 0; attempt < 600 && !killed; ++attempt) {
        QTest::qWait(100);
        for (const TrialRecord& trial : store->trials(study)) {
            const Json& worker = trial.systemAttrs.value(kWorkerAttr, Json());
            if (trial.state == TrialState::Running && worker.is_object() && worker.contains("pid")) {
                killed = worker["pid"].get<qint64>();
                killedTrial = trial.number;
                QVERIFY(::kill(static_cast<pid_t>(killed), SIGKILL) == 0);
                break;
            }
        }
    }
    if (!killed) {
        srun.kill();
        srun.waitForFinished();
    }
    QVERIFY2(killed > 0, qPrintable("no trial started running within a minute; srun said:\n" + srun.readAll()));
    QVERIFY2(srun.waitForFinished(240000), srun.readAll().constData());
    const QString log = QString::fromUtf8(srun.readAll());

    const auto trials = store->trials(study);
    int complete = 0;
    std::set<int> numbers;
    std::set<std::string> tasks;
    for (const TrialRecord& trial : trials) {
        numbers.insert(trial.number);
        complete += trial.state == TrialState::Complete;
        const std::string worker = trial.systemAttrs.value(kWorkerAttr, Json::object()).value("id", "");
        QVERIFY2(worker.find("(slurm job ") != std::string::npos && worker.find(" of 4)") != std::string::npos,
                 worker.c_str());
        tasks.insert(worker.substr(worker.find(" task ")));
        if (trial.number == killedTrial) {
            QCOMPARE(trial.state, TrialState::Fail);
            const std::string reason = trial.systemAttrs.value(kFailReasonAttr, "");
            QVERIFY2(reason.find("worker vanished") != std::string::npos, reason.c_str());
            QCOMPARE(trial.systemAttrs.value(kInterruptedAttr, false), true);
        }
    }
    QVERIFY2(complete == kTarget,
             qPrintable(QString("%1 complete of %2 trials; srun said:\n%3").arg(complete).arg(trials.size()).arg(log)));
    QCOMPARE(trials.size(), std::size_t(kTarget + 1)); // the killed trial, failed, and 12 that count
    QCOMPARE(numbers.size(), trials.size());
    QCOMPARE(*numbers.rbegin(), kTarget);
    QCOMPARE(tasks.size(), std::size_t(4)); // every task ran trials
}

// The server restarted in the middle of a search (every connection cut): the workers reconnect, retry what failed,
// and the study reaches its target with every trial complete.
void TestSlurmWorkers::workersOutliveAServerRestart()
{
    constexpr int kTarget = 9;
    const std::string location = m_server.database("restart_search");
    auto store = openStore(location);
    const auto study = makeStudy(*store, "restart-search", kTarget, 0.5);
    std::vector<std::unique_ptr<QProcess>> workers;
    for (int i = 0; i < 3; ++i) {
        workers.push_back(std::make_unique<QProcess>());
        workers.back()->setProcessChannelMode(QProcess::MergedChannels);
        workers.back()->setWorkingDirectory(m_dir.path());
        workers.back()->start(test::cliPath(), {"worker", "--db", QString::fromStdString(location), "--study",
                                                "restart-search", "--heartbeat-interval", "0.5"});
    }
    // Once a trial has completed, the server goes down and comes back.
    bool restarted = false;
    for (int attempt = 0; attempt < 600 && !restarted; ++attempt) {
        QTest::qWait(100);
        for (const TrialRecord& trial : store->trials(study))
            if (trial.state == TrialState::Complete) {
                const QString why = m_server.restart();
                QVERIFY2(why.isEmpty(), qPrintable(why));
                restarted = true;
                break;
            }
    }
    QVERIFY2(restarted, "no trial completed within a minute");
    for (auto& worker : workers) {
        QVERIFY(worker->waitForFinished(240000));
        QVERIFY2(worker->exitCode() == 0, worker->readAll().constData());
    }
    const auto trials = store->trials(study); // this store reconnects too
    QCOMPARE(trials.size(), std::size_t(kTarget));
    for (const TrialRecord& trial : trials)
        QVERIFY2(trial.state == TrialState::Complete,
                 qPrintable(QString("trial %1: %2 (%3)")
                                .arg(trial.number)
                                .arg(trialStateName(trial.state).data())
                                .arg(QString::fromStdString(trial.systemAttrs.value(kFailReasonAttr, "")))));
}

PITWALL_TEST_MAIN(TestSlurmWorkers)
#include "tst_slurm_workers.moc"
