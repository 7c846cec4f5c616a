// A search whose workers Slurm starts (issue 26), on a one-node cluster and a PostgreSQL server that the test starts
// (tests/support/slurm_cluster.sh, tests/support/postgres.h): `srun -n 4 pitwall worker` on one study reaches the
// study's target; one task killed mid-trial fails that trial as interrupted ("worker vanished") once its heartbeat
// is older than --heartbeat-grace (1 s here: the 11 trials left take at least 3.7 s), the others run one in its
// place, and every trial names the Slurm task that ran it. And workers that outlive a restart of the server in the
// middle of a search; a worker whose clock is ten minutes wrong; and `pitwall hpo --launcher slurm`: the workers as
// one Slurm job that the search follows, and cancels when the search is stopped.
#include "core/pool/hposettings.h"
#include "core/pool/trialstate.h"
#include "core/store/jobstore.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"
#include "tests/support/components.h"
#include "tests/support/postgres.h"
#include "tests/support/slurmcluster.h"
#include "tests/support/testpaths.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <csignal>
#include <map>
#include <set>

using namespace pitwall;

namespace {
bool writeFile(const QString& path, const QByteArray& text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}
} // namespace

class TestSlurmWorkers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void srunWorkersReachTheTargetAfterATaskIsKilled();
    void workersOutliveAServerRestart();
    void heartbeatsUseTheServersClock();
    void workersAndOptunaShareAStudy();
    void hpoLauncherSlurmReachesTheTarget();
    void stoppingTheSearchCancelsTheSlurmJob();
    void badLauncherInputIsRefused();

private:
    // `pitwall hpo` of `script` (x in [-5, 5]) with SQLite file `db` under m_dir and `more`; not yet started.
    std::unique_ptr<QProcess> hpo(const QString& db, const QString& script, const QStringList& more);
    // `count` workers on `study` of the PostgreSQL `location`, started (as by hand, without Slurm).
    std::vector<std::unique_ptr<QProcess>> startWorkers(const std::string& location, const QString& study, int count)
    {
        std::vector<std::unique_ptr<QProcess>> workers;
        for (int i = 0; i < count; ++i) {
            workers.push_back(std::make_unique<QProcess>());
            workers.back()->setProcessChannelMode(QProcess::MergedChannels);
            workers.back()->setWorkingDirectory(m_dir.path());
            workers.back()->start(test::cliPath(), {"worker", "--db", QString::fromStdString(location), "--study",
                                                    study, "--heartbeat-interval", "0.5"});
        }
        return workers;
    }
    // What `scontrol show job -o ID` says of the job's state.
    QString slurmJobState(const QString& id);

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
    const auto workers = startWorkers(location, "restart-search", 3);
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

// A worker on a machine whose clock is ten minutes behind (libfaketime) writes its trial's start and heartbeats in
// the server's clock, so that another machine (this process, on time) sees them fresh and the vanished-worker rule
// leaves the trial alone; with the writers' clocks the heartbeat would look 600 s old.
void TestSlurmWorkers::heartbeatsUseTheServersClock()
{
    const QString faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
    if (!QFile::exists(faketime))
        PITWALL_FAIL_MISSING("libfaketime", "no " + faketime);
    const std::string location = m_server.database("clocks");
    auto store = openStore(location);
    const auto study = makeStudy(*store, "clocks", 1, 4.0);
    QProcess worker;
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert("LD_PRELOAD", faketime);
    environment.insert("FAKETIME", "-600");
    worker.setProcessEnvironment(environment);
    worker.setProcessChannelMode(QProcess::MergedChannels);
    worker.setWorkingDirectory(m_dir.path());
    worker.start(test::cliPath(), {"worker", "--db", QString::fromStdString(location), "--study", "clocks",
                                   "--heartbeat-interval", "0.5"});
    std::optional<TrialRecord> running;
    for (int attempt = 0; attempt < 300 && !running; ++attempt) {
        QTest::qWait(100);
        for (const TrialRecord& trial : store->trials(study))
            if (trial.state == TrialState::Running && trial.heartbeatTime)
                running = trial;
    }
    QVERIFY2(running, qPrintable("the trial did not start running with a heartbeat:\n" + worker.readAll()));
    QTest::qWait(1000);
    const TrialRecord trial = store->trials(study).front();
    QVERIFY(trial.heartbeatTime && trial.startTime);
    const double now = store->now();
    QVERIFY2(std::abs(now - nowSeconds()) < 2, "this machine and the server share a clock here");
    QVERIFY2(now - *trial.heartbeatTime < 3, qPrintable(QString("heartbeat %1 s old").arg(now - *trial.heartbeatTime)));
    QVERIFY2(std::abs(now - *trial.startTime) < 5, qPrintable(QString("started %1 s ago").arg(now - *trial.startTime)));
    QVERIFY(failStaleTrials(*store, study, 5.0).empty());
    QVERIFY(worker.waitForFinished(60000));
    const QString log = QString::fromUtf8(worker.readAll());
    QVERIFY2(worker.exitCode() == 0, qPrintable(log));
    QCOMPARE(store->trials(study).front().state, TrialState::Complete);
}

// Three `pitwall worker` processes and an Optuna process (RDBStorage over psycopg2) on one study at once: trial
// numbers unique and without gaps, every trial complete, and Optuna's best trial is Pitwall's.
void TestSlurmWorkers::workersAndOptunaShareAStudy()
{
    const std::string location = m_server.database("shared");
    qputenv("PITWALL_OPTUNA_SCHEMA", "3.1"); // Debian's Optuna reads the tables it would make itself
    auto store = openStore(location);
    qunsetenv("PITWALL_OPTUNA_SCHEMA");
    const auto study = makeStudy(*store, "shared", 18, 0.2);
    const auto workers = startWorkers(location, "shared", 3);
    // One connection per process, whatever it opens inside (the loop's store, the heartbeat thread's, a trial's run
    // and metrics): the server lists each as "pitwall PID".
    std::map<std::string, int> most;
    for (int sample = 0; sample < 100 && most.size() < 4; ++sample) {
        QTest::qWait(100);
        for (const auto& row : m_server.query("shared", "SELECT application_name, count(*) FROM pg_stat_activity "
                                                        "WHERE datname = 'shared' AND application_name LIKE "
                                                        "'pitwall %' GROUP BY application_name"))
            most[row[0]] = std::max(most[row[0]], std::stoi(row[1]));
    }
    QCOMPARE(most.size(), std::size_t(4)); // the three workers and this test's store
    for (const auto& [process, connections] : most)
        QVERIFY2(connections == 1, qPrintable(QString("%1: %2 connections").arg(process.c_str()).arg(connections)));
    const QString optunaLocation = QString::fromStdString(m_server.location("shared", true));
    const auto python = [&](const char* script) {
        QProcess process;
        process.start("/usr/bin/python3", {"-c", script, optunaLocation});
        process.waitForFinished(180000);
        return std::make_pair(process.exitCode(), QString::fromUtf8(process.readAllStandardOutput() +
                                                                     process.readAllStandardError()));
    };
    const auto optimised = python(R"py(
import optuna, sys
optuna.logging.set_verbosity(optuna.logging.WARNING)
study = optuna.load_study(study_name="shared", storage=sys.argv[1])
study.optimize(lambda t: (t.suggest_float("x", -5, 5) - 1) ** 2, n_trials=6)
)py");
    QVERIFY2(optimised.first == 0, qPrintable(optimised.second));
    for (auto& worker : workers) {
        QVERIFY(worker->waitForFinished(240000));
        QVERIFY2(worker->exitCode() == 0, worker->readAll().constData());
    }

    const auto trials = store->trials(study);
    QVERIFY2(trials.size() >= 18 && trials.size() <= 24, qPrintable(QString::number(trials.size())));
    std::set<int> numbers;
    int fromOptuna = 0;
    for (const TrialRecord& trial : trials) {
        numbers.insert(trial.number);
        QCOMPARE(trial.state, TrialState::Complete);
        fromOptuna += !trial.systemAttrs.contains(kWorkerAttr);
    }
    QCOMPARE(numbers.size(), trials.size());
    QCOMPARE(*numbers.rbegin(), static_cast<int>(trials.size()) - 1);
    QCOMPARE(fromOptuna, 6);
    const auto best = std::min_element(trials.begin(), trials.end(), [](const TrialRecord& a, const TrialRecord& b) {
        return a.values.front() < b.values.front();
    });
    const auto optunaBest = python(R"py(
import optuna, sys
study = optuna.load_study(study_name="shared", storage=sys.argv[1])
print(study.best_trial.number, repr(study.best_value), len(study.trials))
)py");
    QVERIFY2(optunaBest.first == 0, qPrintable(optunaBest.second));
    const QStringList said = optunaBest.second.trimmed().split(' '); // number, value (repr: exact), trials
    QCOMPARE(said.size(), 3);
    QCOMPARE(said[0].toInt(), best->number);
    QCOMPARE(said[1].toDouble(), best->values.front());
    QCOMPARE(said[2].toULongLong(), static_cast<qulonglong>(trials.size()));
}

std::unique_ptr<QProcess> TestSlurmWorkers::hpo(const QString& db, const QString& script, const QStringList& more)
{
    const QString space = m_dir.filePath("launcher-space.yaml");
    if (!writeFile(space, "x: {type: uniform, min: -5, max: 5}\n"))
        return nullptr;
    auto process = std::make_unique<QProcess>();
    process->setProcessEnvironment(m_cluster.environment());
    process->setProcessChannelMode(QProcess::MergedChannels);
    process->setWorkingDirectory(m_dir.path());
    process->setProgram(test::cliPath());
    process->setArguments(QStringList{"hpo", "--db", m_dir.filePath(db), "--command", "python3 " + script + " {x}",
                                      "--space", space} +
                          more);
    return process;
}

QString TestSlurmWorkers::slurmJobState(const QString& id)
{
    QProcess scontrol;
    scontrol.setProcessEnvironment(m_cluster.environment());
    scontrol.start("scontrol", {"show", "job", "-o", id});
    scontrol.waitForFinished(30000);
    const QString out = QString::fromUtf8(scontrol.readAllStandardOutput());
    const int at = out.indexOf("JobState=");
    return at < 0 ? QString() : out.mid(at + 9).section(' ', 0, 0);
}

void TestSlurmWorkers::hpoLauncherSlurmReachesTheTarget()
{
    const QString script = m_dir.filePath("quick.py");
    QVERIFY(writeFile(script, "import json, sys, time\ntime.sleep(0.3)\n"
                              "print(json.dumps({'objective': (float(sys.argv[1]) - 1) ** 2}))\n"));
    // --ntasks in --slurm-args wins over Pitwall's one task per logical device.
    auto search = hpo("launcher.db", script, {"--trials", "9", "--launcher", "slurm", "--slurm-args", "-O --ntasks=3"});
    search->start();
    QVERIFY(search->waitForFinished(240000));
    const QString out = QString::fromUtf8(search->readAll());
    QVERIFY2(search->exitCode() == 0, qPrintable(out));
    QVERIFY2(out.contains("RUNNING: 3 task(s)") && out.contains("on 3 worker(s)"), qPrintable(out));

    auto store = openStore(m_dir.filePath("launcher.db").toStdString(), OpenMode::ReadOnly);
    const auto trials = store->trials(store->requireStudy("hpo").id);
    QCOMPARE(trials.size(), std::size_t(9));
    std::set<std::string> tasks;
    for (const TrialRecord& trial : trials) {
        QCOMPARE(trial.state, TrialState::Complete);
        const std::string worker = trial.systemAttrs.value(kWorkerAttr, Json::object()).value("id", "");
        QVERIFY2(worker.find(" of 3)") != std::string::npos, worker.c_str());
        tasks.insert(worker.substr(worker.find(" task ")));
    }
    QVERIFY2(tasks.size() >= 2, "the trials ran in one task only");
    // The search's job records its Slurm job, which ran to its end.
    const auto jobs = JobStore(m_dir.filePath("launcher.db").toStdString(), OpenMode::ReadOnly).jobs(true);
    QCOMPARE(jobs.size(), std::size_t(1));
    const QString slurmJob = QString::fromStdString(jobs[0].spec.value("slurm_job", ""));
    QVERIFY2(!slurmJob.isEmpty(), jobs[0].spec.dump().c_str());
    QVERIFY2(out.contains("slurm job " + slurmJob + ": COMPLETED"), qPrintable(out));
    QCOMPARE(slurmJobState(slurmJob), QString("COMPLETED"));
}

void TestSlurmWorkers::stoppingTheSearchCancelsTheSlurmJob()
{
    const QString script = m_dir.filePath("slow.py");
    QVERIFY(writeFile(script, "import json, time\ntime.sleep(120)\nprint(json.dumps({'objective': 1.0}))\n"));
    auto search = hpo("stopped.db", script, {"--trials", "6", "--launcher", "slurm", "--slurm-args", "-O --ntasks=2"});
    search->start();
    const std::string db = m_dir.filePath("stopped.db").toStdString();
    // Both tasks run a trial; then the search is stopped the user's way.
    int running = 0;
    for (int attempt = 0; attempt < 600 && running < 2; ++attempt) {
        QTest::qWait(100);
        if (!QFile::exists(QString::fromStdString(db)))
            continue;
        std::unique_ptr<Store> store;
        try {
            store = openStore(db, OpenMode::ReadOnly);
        } catch (const InputError&) {
            continue; // made, its tables not yet: "an empty database, not a results database yet"
        }
        running = 0;
        if (const auto study = store->findStudy("hpo"))
            for (const TrialRecord& trial : store->trials(study->id))
                running += trial.state == TrialState::Running;
    }
    QVERIFY2(running == 2, "two trials did not start within a minute");
    QCOMPARE(QProcess::execute(test::cliPath(), {"jobs", "stop", "1", "--db", QString::fromStdString(db)}), 0);
    QVERIFY(search->waitForFinished(180000));
    const QString out = QString::fromUtf8(search->readAll());
    QVERIFY2(search->exitCode() == 130, qPrintable(out)); // cancelled

    const auto jobs = JobStore(db, OpenMode::ReadOnly).jobs(true);
    QCOMPARE(jobs.size(), std::size_t(1));
    const QString slurmJob = QString::fromStdString(jobs[0].spec.value("slurm_job", ""));
    QCOMPARE(slurmJobState(slurmJob), QString("CANCELLED"));
    auto store = openStore(db, OpenMode::ReadOnly);
    const auto trials = store->trials(store->requireStudy("hpo").id);
    QCOMPARE(trials.size(), std::size_t(2));
    for (const TrialRecord& trial : trials) {
        const std::string reason = trial.systemAttrs.value(kFailReasonAttr, "");
        QVERIFY2(trial.state == TrialState::Fail && reason == "cancelled", reason.c_str());
    }
}

void TestSlurmWorkers::badLauncherInputIsRefused()
{
    const auto refused = [&](const QStringList& more, const QString& expected) {
        auto search = hpo("refused.db", m_dir.filePath("quick.py"), QStringList{"--trials", "3"} + more);
        search->start();
        if (!search->waitForFinished(120000))
            return QString("did not finish");
        const QString out = QString::fromUtf8(search->readAll());
        if (search->exitCode() != 2 || !out.contains(expected))
            return QString("exit %1, expected '%2' in:\n%3").arg(search->exitCode()).arg(expected, out);
        if (QFile::exists(m_dir.filePath("refused.db")))
            return QString("a results file was left behind");
        return QString();
    };
    QString why = refused({"--launcher", "slurm", "--slurm-args", "--partition=no-such-partition"},
                          "sbatch refused the workers' job");
    QVERIFY2(why.isEmpty(), qPrintable(why));
    why = refused({"--launcher", "slurm", "--slurm-args", "--time='1"}, "--slurm-args:");
    QVERIFY2(why.isEmpty(), qPrintable(why));
    why = refused({"--slurm-args", "-O"}, "--slurm-args are sbatch options for --launcher slurm");
    QVERIFY2(why.isEmpty(), qPrintable(why));
    why = refused({"--launcher", "cluster"}, "--launcher is local (workers on this machine) or slurm");
    QVERIFY2(why.isEmpty(), qPrintable(why));
}

PITWALL_TEST_MAIN(TestSlurmWorkers)
#include "tst_slurm_workers.moc"
