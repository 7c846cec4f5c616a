// The worker pool with real `pitwall worker` processes running a small trial script (tests/core/pool/data/
// trial.py): a trial that exits 137, kills itself, prints bad JSON, or whose worker is SIGKILLed fails with the
// right reason while the search goes on; a worker that vanishes is found by its heartbeat; a search whose
// parent and workers were killed is resumed; workers run on their logical device's cores and thread count;
// Optuna continues a study written by `pitwall hpo`; a trial past --trial-timeout, a stopped trial command and a
// stopped worker fail with the reason and leave no process behind; processes a trial leaves running (in a session
// of their own) are stopped when it ends; a flood of output costs its worker little memory and trial.log little
// disk. If this fails, one bad trial can stop a search, a lost or hung trial stays RUNNING forever, a search cannot
// be continued by either tool, or a trial's children outlive the search.
#include "../store/storetestutil.h"
#include "schedtestutil.h"

#include "core/devices/devices.h"
#include "core/hpo/study.h"
#include "core/pool/hposettings.h"
#include "core/util/paths.h"

#include <QJsonDocument>
#include <QProcess>
#include <QtTest>

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <sched.h>

#include <map>
#include <set>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;
using pitwall::test::sourcePath;

using namespace pitwall;
using namespace schedtest;

namespace {

const QString kCrashSpace = sourcePath("/tests/core/pool/data/crash_space.yaml");

// DPX where this machine has two cores for it, else SPX.
QString twoWayPartition()
{
    return processCores().size() >= 2 ? "DPX" : "SPX";
}

std::vector<LogicalDevice> devicesOf(const QString& mode)
{
    return makeCpuBackend()->logicalDevices(*parsePartitionMode(mode.toStdString()));
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

// A one-trial search over the trial script in `mode` (--gate DIR/gate, never opened), study "h", one worker.
CliResult runOneTrial(const QTemporaryDir& dir, const QString& mode, const QStringList& extra)
{
    const QString space =
        writeFile(dir, "space.yaml", "mode: " + mode.toUtf8() + "\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    return runCli(QStringList{"hpo", "--db", dir.filePath("h.db"), "--command",
                              trialCommand("--gate " + dir.filePath("gate")), "--space", space, "--trials", "1",
                              "--partition", "SPX", "--sampler", "random", "--pruner", "none", "--study", "h"} +
                      extra,
                  dir.path());
}

// The pid a trial script wrote to GATE.<suffix>.<trial>.
pid_t pidFile(const QTemporaryDir& dir, const QString& suffix, int trial = 0)
{
    QFile file(dir.filePath("gate." + suffix + "." + QString::number(trial)));
    return file.open(QIODevice::ReadOnly) ? static_cast<pid_t>(file.readAll().trimmed().toInt()) : -1;
}

// Whether a process with this pid exists and is not a zombie.
bool running(pid_t pid)
{
    QFile stat("/proc/" + QString::number(pid) + "/stat");
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const auto close = text.lastIndexOf(')');
    return close >= 0 && close + 2 < text.size() && text[close + 2] != 'Z';
}

} // namespace

class TestPoolWorkers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QFile::exists("/usr/bin/python3"))
            PITWALL_FAIL_MISSING("python3", "the trial script needs /usr/bin/python3");
    }
    void crashesFailOnlyTheirTrial();
    void killedWorkerIsReplaced();
    void prunesByStoppingTheCommand();
    void vanishedWorkerIsFoundByHeartbeat();
    void groupStopCancelsTheTrial();
    void resumesAfterTheParentWasKilled();
    void resumedSearchEqualsUninterrupted();
    void bindsWorkersToTheirCores_data();
    void bindsWorkersToTheirCores();
    void optunaContinuesTheStudy();
    void trialTimeoutStopsAHungTrial();
    void stoppedCommandFailsForNoProgress();
    void stoppedWorkerFailsForNoProgress();
    void leftoverProcessesAreStopped();
    void outputFloodIsBounded();
};

void TestPoolWorkers::crashesFailOnlyTheirTrial()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("c.db");
    const CliResult r =
        runCli({"hpo", "--db", db, "--command", trialCommand(), "--space", kCrashSpace, "--trials", "4", "--partition",
                twoWayPartition(), "--sampler", "grid", "--pruner", "none", "--study", "crash", "--json"},
               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto all = trials(db, "crash");
    QCOMPARE(all.size(), std::size_t(4)); // one per behaviour: the search went on after each failure
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    std::set<std::string> seen;
    for (const TrialRecord& t : all) {
        const std::string mode = param(t, "mode").get<std::string>();
        const std::string reason = failReason(t);
        seen.insert(mode);
        if (mode == "ok") {
            QCOMPARE(t.state, TrialState::Complete);
            QVERIFY(std::abs(t.values.front() - 0.04) < 1e-12);
            QCOMPARE(t.intermediateValues.size(), std::size_t(2));
            QCOMPARE(t.userAttrs["metrics"]["x"].get<double>(), 0.5);
            continue;
        }
        QCOMPARE(t.state, TrialState::Fail);
        QVERIFY(!isInterrupted(t)); // the trial's own fault: it counts against the target
        if (mode == "exit137") {
            QVERIFY2(contains(reason, "exit status 137") && contains(reason, "simulated out of memory"),
                     reason.c_str());
        } else if (mode == "kill9") {
            QVERIFY2(contains(reason, "killed by signal 9 (SIGKILL)"), reason.c_str());
        } else {
            QVERIFY2(contains(reason, "without printing {\"objective\": V}") &&
                         contains(reason, "not valid protocol JSON, the first: '{\"objective\": 0.3'"),
                     reason.c_str());
        }
        // The log keeps stderr and the non-JSON output; the reason is an error event of the trial's run.
        const std::string log = readTextFile(t.userAttrs["log_file"].get<std::string>());
        QVERIFY2(mode != "exit137" || contains(log, "simulated out of memory"), log.c_str());
        QVERIFY2(mode != "badjson" || contains(log, "{\"objective\": 0.3"), log.c_str());
        const auto runs = store->runs(t.id);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, RunStatus::Failed);
        const auto events = store->eventsSince(runs[0].id, 0);
        QVERIFY(!events.empty() && events.back().level == EventLevel::Error);
    }
    QCOMPARE(seen, (std::set<std::string>{"ok", "exit137", "kill9", "badjson"}));
    const QJsonDocument json = QJsonDocument::fromJson(r.out.toUtf8());
    QCOMPARE(json["best"]["number"].toInt(), [&] {
        for (const TrialRecord& t : all)
            if (t.state == TrialState::Complete)
                return t.number;
        return -1;
    }());
}

void TestPoolWorkers::killedWorkerIsReplaced()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("k.db"), gate = dir.filePath("gate");
    const QString space = writeFile(dir, "space.yaml", "mode: wait\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    QProcess hpo;
    hpo.setWorkingDirectory(dir.path());
    hpo.start(cliPath(), {"hpo", "--db", db, "--command", trialCommand("--gate " + gate), "--space", space, "--trials",
                          "3", "--partition", "SPX", "--sampler", "random", "--pruner", "none", "--study", "k"});
    // The first trial waits for the gate; kill its worker as an out-of-memory killer would.
    std::optional<TrialRecord> victim;
    QVERIFY(waitFor([&] {
        for (const TrialRecord& t : trials(db, "k"))
            if (t.state == TrialState::Running && t.systemAttrs.contains(kWorkerAttr))
                victim = t;
        return victim.has_value();
    }));
    const auto pid = victim->systemAttrs[kWorkerAttr]["pid"].get<pid_t>();
    QCOMPARE(::kill(pid, SIGKILL), 0);
    QVERIFY(
        waitFor([&] { return trials(db, "k")[static_cast<std::size_t>(victim->number)].state == TrialState::Fail; }));
    writeFile(dir, "gate", "");
    QVERIFY(hpo.waitForFinished(120000));
    QVERIFY2(hpo.exitCode() == 0, hpo.readAllStandardError().constData());
    const auto all = trials(db, "k");
    QCOMPARE(all.size(), std::size_t(3));
    const TrialRecord& killed = all[static_cast<std::size_t>(victim->number)];
    const std::string reason = failReason(killed);
    QVERIFY2(contains(reason, "worker on cpu:0.0 (pid " + std::to_string(pid) + ") ended with killed by signal 9"),
             reason.c_str());
    QVERIFY(!isInterrupted(killed));
    int complete = 0;
    for (const TrialRecord& t : all)
        complete += t.state == TrialState::Complete;
    QCOMPARE(complete, 2);                                                   // the replacement worker ran the rest
    QVERIFY(QFile::exists(dir.filePath("runs/k/hpo/worker_cpu-0.0.2.log"))); // the replacement's own log
}

void TestPoolWorkers::prunesByStoppingTheCommand()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("p.db");
    const QString space = writeFile(dir, "space.yaml", "mode: prunable\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    // One worker, so trial 0 completes before trial 1 reports a worse first value: the median pruner stops it.
    const CliResult r = runCli({"hpo", "--db", db, "--command", trialCommand("--gate " + dir.filePath("gate")),
                                "--space", space, "--trials", "2", "--partition", "SPX", "--sampler", "random",
                                "--pruner", "median", "--pruner-startup-trials", "1", "--study", "p"},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto all = trials(db, "p");
    QCOMPARE(all.size(), std::size_t(2));
    QCOMPARE(all[0].state, TrialState::Complete);
    QCOMPARE(all[1].state, TrialState::Pruned);
    QCOMPARE(all[1].values, std::vector<double>{10.0}); // a pruned trial keeps its last value, as in Optuna
    QVERIFY(QFile::exists(dir.filePath("sigterm_1")));  // stopped with SIGTERM, not left to finish
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    const auto runs = store->runs(all[1].id);
    QCOMPARE(runs.size(), std::size_t(1));
    QCOMPARE(runs[0].status, RunStatus::Cancelled);
    QCOMPARE(runs[0].message, std::string("pruned"));
}

void TestPoolWorkers::vanishedWorkerIsFoundByHeartbeat()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("h.db"), gate = dir.filePath("gate");
    const QString space = writeFile(dir, "space.yaml", "mode: wait\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    QCOMPARE(runCli({"study", "create", "--db", db, "--study", "hb"}).exitCode, 0);
    // A worker started by hand (as a cluster job would), with no pool watching it.
    QProcess worker;
    worker.setWorkingDirectory(dir.path());
    worker.start(cliPath(),
                 {"worker", "--db", db, "--study", "hb", "--command", trialCommand("--gate " + gate), "--space", space,
                  "--trials-left", "1", "--heartbeat-interval", "0.2", "--log-dir", dir.filePath("logs")});
    QVERIFY(waitFor([&] {
        const auto all = trials(db, "hb");
        return !all.empty() && all[0].state == TrialState::Running && all[0].heartbeatTime.has_value();
    }));
    auto store = openStore(db.toStdString());
    const std::int64_t study = store->requireStudy("hb").id;
    QVERIFY(failStaleTrials(*store, study, 0.5).empty()); // its worker is alive: never failed, however silent
    worker.kill();                                        // SIGKILL: no chance to tell anything
    QVERIFY(worker.waitForFinished());
    std::vector<StaleTrial> failed;
    QVERIFY(waitFor([&] { return !(failed = failStaleTrials(*store, study, 0.5)).empty(); }, 30000));
    QCOMPARE(failed.size(), std::size_t(1));
    const TrialRecord t = *store->trial(study, failed[0].number);
    QCOMPARE(t.state, TrialState::Fail);
    QVERIFY(isInterrupted(t)); // not the trial's fault: a resumed search runs a replacement
    QVERIFY2(failReason(t).rfind("worker vanished: no heartbeat for ", 0) == 0, failReason(t).c_str());
}

// A stop sent to a whole group (scancel signals every process of a Slurm step) may kill the command before the
// worker hears of it: the command ends by SIGTERM, the worker gets its own SIGTERM 300 ms later, and the trial is
// cancelled (interrupted), not failed for the signal.
void TestPoolWorkers::groupStopCancelsTheTrial()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("g.db");
    const QString space = writeFile(dir, "space.yaml", "x: {type: uniform, min: 0.0, max: 1.0}\n");
    const QString command = writeFile(dir, "stopped.py",
                                      "import os, signal, subprocess, sys\n"
                                      "worker = os.getppid()\n"
                                      "subprocess.Popen(['sh', '-c', 'sleep 0.3; kill -TERM %d' % worker],\n"
                                      "                 start_new_session=True, stdin=subprocess.DEVNULL,\n"
                                      "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
                                      "os.kill(os.getpid(), signal.SIGTERM)\n");
    QCOMPARE(runCli({"study", "create", "--db", db, "--study", "g"}).exitCode, 0);
    QProcess worker;
    worker.setWorkingDirectory(dir.path());
    worker.start(cliPath(), {"worker", "--db", db, "--study", "g", "--command", "/usr/bin/python3 " + command + " {x}",
                             "--space", space, "--trials-left", "1", "--log-dir", dir.filePath("logs")});
    QVERIFY(worker.waitForFinished(60000));
    const auto all = trials(db, "g");
    QCOMPARE(all.size(), std::size_t(1));
    QCOMPARE(all[0].state, TrialState::Fail);
    QVERIFY2(failReason(all[0]) == "cancelled", failReason(all[0]).c_str());
    QVERIFY(isInterrupted(all[0]));
}

void TestPoolWorkers::resumesAfterTheParentWasKilled()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db"), gate = dir.filePath("gate");
    const QString space = writeFile(dir, "space.yaml", "mode: wait\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    const std::size_t workers = devicesOf(twoWayPartition()).size();
    QProcess hpo;
    hpo.setWorkingDirectory(dir.path());
    hpo.setChildProcessModifier([] { ::setpgid(0, 0); }); // its own group: killed with its workers below
    hpo.start(cliPath(), {"hpo",
                          "--db",
                          db,
                          "--command",
                          trialCommand("--gate " + gate),
                          "--space",
                          space,
                          "--trials",
                          "4",
                          "--partition",
                          twoWayPartition(),
                          "--sampler",
                          "random",
                          "--pruner",
                          "none",
                          "--study",
                          "rs",
                          "--heartbeat-interval",
                          "0.2",
                          "--heartbeat-grace",
                          "1"});
    std::set<int> ghosts;
    QVERIFY(waitFor([&] {
        ghosts.clear();
        for (const TrialRecord& t : trials(db, "rs"))
            if (t.state == TrialState::Running && t.heartbeatTime)
                ghosts.insert(t.number);
        return ghosts.size() == workers;
    }));
    // The whole job dies at once (node crash, scancel): parent and workers get SIGKILL.
    QCOMPARE(::kill(-static_cast<pid_t>(hpo.processId()), SIGKILL), 0);
    QVERIFY(hpo.waitForFinished());
    for (const TrialRecord& t : trials(db, "rs"))
        QVERIFY(!ghosts.count(t.number) || t.state == TrialState::Running); // nobody left to fail them
    writeFile(dir, "gate", "");
    // A grace of 3 s (not 1): the resumed search's own workers must not look vanished on a busy machine.
    const CliResult r = runCli({"hpo", "--resume", "rs", "--db", db, "--heartbeat-grace", "3", "--json"}, dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    int complete = 0, vanished = 0;
    for (const TrialRecord& t : trials(db, "rs")) {
        if (ghosts.count(t.number)) {
            QCOMPARE(t.state, TrialState::Fail);
            QVERIFY2(failReason(t).rfind("worker vanished: no heartbeat for ", 0) == 0, failReason(t).c_str());
            QVERIFY(isInterrupted(t));
            ++vanished;
        } else {
            QVERIFY2(t.state == TrialState::Complete, failReason(t).c_str());
            ++complete;
        }
    }
    QCOMPARE(vanished, static_cast<int>(workers));
    QCOMPARE(complete, 4); // the lost trials did not count: the resumed search ran all 4
}

// A seeded search killed with SIGKILL (parent and workers) while trial 2 runs and continued with `pitwall hpo
// --resume` ends like the same search run without a kill. What may differ, and only that: the killed trial 2 stays
// in the study as FAIL (interrupted, not counted) and a replacement runs under the next number. The seeded random
// sampler draws from (seed, trial number), so every trial of the resumed study has the parameters of the
// uninterrupted search's trial of that number (run there one trial longer to have trial 5) and every completed one
// the same value. If this fails, a resumed search samples other points than the search it continues, loses a
// finished trial or counts the lost one.
void TestPoolWorkers::resumedSearchEqualsUninterrupted()
{
    QTemporaryDir dir;
    const QString gate = dir.filePath("gate");
    const QString space = writeFile(
        dir, "space.yaml", "mode: ok\nx: {type: uniform, min: 0.0, max: 1.0}\ny: {type: int, min: 0, max: 9}\n");
    const QString command = trialCommand("--y {y} --hold-trial 2 --gate " + gate);
    const auto hpoArguments = [&](const QString& db, int trials) {
        return QStringList{"hpo",
                           "--db",
                           db,
                           "--command",
                           command,
                           "--space",
                           space,
                           "--trials",
                           QString::number(trials),
                           "--partition",
                           "SPX",
                           "--sampler",
                           "random",
                           "--seed",
                           "7",
                           "--pruner",
                           "none",
                           "--study",
                           "same",
                           "--heartbeat-interval",
                           "0.2",
                           "--heartbeat-grace",
                           "1"};
    };
    // The uninterrupted search (the gate open: trial 2 does not wait), one trial longer than the target below.
    const QString whole = dir.filePath("whole.db");
    writeFile(dir, "gate", "");
    const CliResult reference = runCli(hpoArguments(whole, 5), dir.path());
    QVERIFY2(reference.exitCode == 0, qPrintable(reference.err));
    QFile::remove(gate);
    const auto expected = trials(whole, "same");
    QCOMPARE(expected.size(), std::size_t(5));

    // The same search with a target of 4, killed while trial 2 holds.
    const QString killed = dir.filePath("killed.db");
    QProcess hpo;
    hpo.setWorkingDirectory(dir.path());
    hpo.setChildProcessModifier([] { ::setpgid(0, 0); }); // its own group: killed with its worker below
    hpo.start(cliPath(), hpoArguments(killed, 4));
    QVERIFY(waitFor([&] {
        const auto all = trials(killed, "same");
        return all.size() == 3 && all[2].state == TrialState::Running && all[2].intermediateValues.size() == 2;
    }));
    QCOMPARE(::kill(-static_cast<pid_t>(hpo.processId()), SIGKILL), 0);
    QVERIFY(hpo.waitForFinished());
    const CliResult resumed =
        runCli({"hpo", "--resume", "same", "--db", killed, "--heartbeat-grace", "3", "--json"}, dir.path());
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));

    const auto all = trials(killed, "same");
    QCOMPARE(all.size(), std::size_t(5)); // 0, 1, the killed 2, and 3, 4 in place of 2, 3
    int complete = 0;
    for (const TrialRecord& t : all) {
        const TrialRecord& same = expected[static_cast<std::size_t>(t.number)];
        QCOMPARE(param(t, "x"), param(same, "x"));
        QCOMPARE(param(t, "y"), param(same, "y"));
        if (t.number == 2) {
            QCOMPARE(t.state, TrialState::Fail);
            QVERIFY(isInterrupted(t));
            QCOMPARE(t.intermediateValues, same.intermediateValues); // what it reported before the kill
            continue;
        }
        QVERIFY2(t.state == TrialState::Complete, failReason(t).c_str());
        QCOMPARE(t.values, same.values);
        QCOMPARE(t.intermediateValues, same.intermediateValues);
        ++complete;
    }
    QCOMPARE(complete, 4);
    // The best trial is the uninterrupted search's best among the trials both ran to completion.
    const QJsonDocument json = QJsonDocument::fromJson(resumed.out.toUtf8());
    int best = -1;
    for (const TrialRecord& t : expected)
        if (t.number != 2 && (best < 0 || t.values.front() < expected[static_cast<std::size_t>(best)].values.front()))
            best = t.number;
    QCOMPARE(json["best"]["number"].toInt(), best);
}

void TestPoolWorkers::bindsWorkersToTheirCores_data()
{
    QTest::addColumn<QString>("mode");
    QTest::newRow("SPX") << "SPX";
    QTest::newRow("DPX") << "DPX"; // always a row: on one core it is a visible skip, never a silent drop
}

void TestPoolWorkers::bindsWorkersToTheirCores()
{
    QFETCH(QString, mode);
    // The cores this process may use, from the kernel (not the backend under test); workers inherit the mask.
    cpu_set_t mask;
    CPU_ZERO(&mask);
    QCOMPARE(sched_getaffinity(0, sizeof mask, &mask), 0);
    std::set<int> allowed;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mask))
            allowed.insert(c);
    if (mode == "DPX" && allowed.size() < 2)
        PITWALL_SKIP_OPTIONAL("DPX needs a second core; this process may use one");
    QTemporaryDir dir;
    const QString db = dir.filePath("b.db");
    const QString space = writeFile(dir, "space.yaml", "mode: affinity\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    const std::vector<LogicalDevice> devices = devicesOf(mode);
    const CliResult r = runCli({"hpo", "--db", db, "--command", trialCommand(), "--space", space, "--trials",
                                QString::number(2 * devices.size()), "--partition", mode, "--sampler", "random",
                                "--pruner", "none", "--study", "bind"},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // Two workers that finish together may both ask for the last trial; the later one is failed as interrupted
    // ("not run") by design (trialloop.cpp) and does not count. Everything else must have run and completed.
    std::vector<TrialRecord> all;
    for (const TrialRecord& t : trials(db, "bind")) {
        if (t.state == TrialState::Fail && isInterrupted(t) && failReason(t).rfind("not run: ", 0) == 0)
            continue;
        all.push_back(t);
    }
    QCOMPARE(all.size(), 2 * devices.size());
    std::map<std::string, std::set<int>> coresOf; // logical device -> the cores its trials saw
    for (const TrialRecord& t : all) {
        QVERIFY2(t.state == TrialState::Complete, failReason(t).c_str());
        const std::string device = t.systemAttrs[kWorkerAttr]["device"].get<std::string>();
        const auto d =
            std::find_if(devices.begin(), devices.end(), [&](const LogicalDevice& l) { return l.id == device; });
        QVERIFY2(d != devices.end(), device.c_str());
        const Json& seen = t.userAttrs["metrics"];
        QCOMPARE(seen["cpus"].get<std::vector<int>>(), d->cpuSet);
        QCOMPARE(seen["omp"].get<std::string>(), std::to_string(d->threads));
        QCOMPARE(seen["trial_env"].get<std::string>(), std::to_string(t.number));
        const auto cpus = seen["cpus"].get<std::vector<int>>();
        coresOf[device].insert(cpus.begin(), cpus.end());
    }
    // Against the kernel's mask, not the backend: the cores the trials saw on different devices are disjoint,
    // and the devices' sets (each equal to what its trials saw, above) make up the mask. One fast worker may run
    // every trial, so not every device need have been seen.
    std::set<int> covered;
    for (const auto& [device, cores] : coresOf)
        for (int c : cores)
            QVERIFY2(covered.insert(c).second, qPrintable(QStringLiteral("core %1 bound to two devices").arg(c)));
    for (const LogicalDevice& d : devices)
        if (!coresOf.count(d.id))
            covered.insert(d.cpuSet.begin(), d.cpuSet.end());
    QCOMPARE(covered, allowed);
}

void TestPoolWorkers::optunaContinuesTheStudy()
{
    QTemporaryDir dir;
    if (const QString why = storetest::optunaUnavailableReason(dir.path()); !why.isEmpty())
        PITWALL_FAIL_MISSING_OPTUNA(why);
    const QString db = dir.filePath("o.db");
    const QString space = writeFile(dir, "space.yaml", "mode: ok\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    const QStringList common{
        "--db", db, "--command", trialCommand(), "--space", space, "--partition", twoWayPartition(), "--study", "op"};
    QCOMPARE(
        runCli(QStringList{"hpo", "--trials", "3", "--sampler", "tpe", "--seed", "1"} + common, dir.path()).exitCode,
        0);
    const auto python = storetest::runPython(
        {"-c",
         "import json, os, subprocess, sys, optuna\n"
         "optuna.logging.set_verbosity(optuna.logging.WARNING)\n"
         "url = 'sqlite:///' + sys.argv[1]\n"
         "rdb = optuna.storages.RDBStorage(url, skip_compatibility_check=True)\n"
         "if rdb.get_current_version() not in rdb.get_all_versions():\n"
         "    # Pitwall's file has the tables of every Optuna since 3.2; Debian's 3.1 gets its own, as its user does\n"
         "    rdb.engine.dispose()\n"
         "    subprocess.run([os.environ['PITWALL_CLI'], 'db', 'migrate', '--db', sys.argv[1], '--optuna-schema', "
         "'3.1'], check=True, stdout=subprocess.DEVNULL)\n"
         "elif rdb.get_current_version() != rdb.get_head_version():\n"
         "    rdb.upgrade()\n"
         "s = optuna.load_study(study_name='op', storage=url)\n"
         "before = len(s.trials)\n"
         "s.optimize(lambda t: (t.suggest_float('x', 0.0, 1.0) - 0.3) ** 2, n_trials=2)\n"
         "print(json.dumps({'before': before, 'after': len(s.trials), 'complete': sum(t.state.name == 'COMPLETE'"
         " for t in s.trials), 'intermediate': len(s.trials[0].intermediate_values)}))\n",
         db},
        dir.path());
    QVERIFY2(python.exitCode == 0, python.err.constData());
    const Json out = Json::parse(python.out.trimmed().split('\n').back().toStdString());
    QCOMPARE(out["before"].get<int>(), 3);
    QCOMPARE(out["after"].get<int>(), 5);
    QCOMPARE(out["complete"].get<int>(), 5);
    QCOMPARE(out["intermediate"].get<int>(), 2); // Pitwall's reported steps read back as Optuna's
    // ... and Pitwall continues after Optuna.
    const CliResult resumed = runCli({"hpo", "--resume", "op", "--db", db, "--trials", "7"}, dir.path());
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QCOMPARE(trials(db, "op").size(), std::size_t(7));
}

// A trial that never ends (it ignores SIGTERM, too) fails at --trial-timeout with the reason, counts, and its
// command is gone afterwards; the limit is stored with the study. Before: it ran until someone killed it.
void TestPoolWorkers::trialTimeoutStopsAHungTrial()
{
    QTemporaryDir dir;
    const CliResult r = runOneTrial(dir, "stubborn", {"--trial-timeout", "1", "--term-grace", "1"});
    QCOMPARE(r.exitCode, 1); // no trial completed
    const auto all = trials(dir.filePath("h.db"), "h");
    QCOMPARE(all.size(), std::size_t(1));
    QCOMPARE(all[0].state, TrialState::Fail);
    QVERIFY(!isInterrupted(all[0])); // it counts: a command that always hangs is not retried forever
    QVERIFY2(failReason(all[0]).rfind("exceeded --trial-timeout 1 s (ran ", 0) == 0, failReason(all[0]).c_str());
    QVERIFY2(r.err.contains("trial 0 FAIL: exceeded --trial-timeout 1 s"), qPrintable(r.err));
    const pid_t command = pidFile(dir, "pid");
    QVERIFY(command > 0);
    QVERIFY(!running(command));
    auto store = openStore(dir.filePath("h.db").toStdString(), OpenMode::ReadOnly);
    QCOMPARE(readHpoSettings(store->requireStudy("h"))->trialTimeoutSeconds.value_or(0), 1.0);
}

// A trial command that stops itself (SIGSTOP) while its worker is fine: the worker stops beating, the pool fails the
// trial naming the stopped process and stops it. Before: RUNNING for as long as it stayed stopped.
void TestPoolWorkers::stoppedCommandFailsForNoProgress()
{
    QTemporaryDir dir;
    const CliResult r =
        runOneTrial(dir, "stop", {"--heartbeat-interval", "0.2", "--heartbeat-grace", "1", "--term-grace", "1"});
    QCOMPARE(r.exitCode, 1);
    const auto all = trials(dir.filePath("h.db"), "h");
    QCOMPARE(all.size(), std::size_t(1));
    QCOMPARE(all[0].state, TrialState::Fail);
    const pid_t command = pidFile(dir, "pid");
    const std::string reason = failReason(all[0]);
    QVERIFY2(
        reason.rfind("no progress for ", 0) == 0 &&
            contains(reason, " s (stopped?): pid " + std::to_string(command) + " (python3) of the trial is stopped"),
        reason.c_str());
    QVERIFY(!running(command));
}

// A worker stopped by SIGSTOP (here by its own trial command, so it happens at a known point): its process exists,
// so the old rule (worker gone) never fired. Now the trial fails naming the stopped worker, and the worker and the
// command end.
void TestPoolWorkers::stoppedWorkerFailsForNoProgress()
{
    QTemporaryDir dir;
    const CliResult r = runOneTrial(
        dir, "stopworker", {"--heartbeat-interval", "0.2", "--heartbeat-grace", "1", "--term-grace", "1", "--json"});
    QCOMPARE(r.exitCode, 1);
    const auto all = trials(dir.filePath("h.db"), "h");
    QCOMPARE(all.size(), std::size_t(1));
    QCOMPARE(all[0].state, TrialState::Fail);
    const auto worker = all[0].systemAttrs[kWorkerAttr]["pid"].get<pid_t>();
    const std::string reason = failReason(all[0]);
    QVERIFY2(reason.rfind("no progress for ", 0) == 0 &&
                 contains(reason, " s (stopped?): its worker (pid " + std::to_string(worker) + ") is stopped"),
             reason.c_str());
    QVERIFY(!running(worker));
    QVERIFY(!running(pidFile(dir, "pid")));
}

// A command that starts a process in a session of its own (setsid) and exits: when its trial ends, the worker stops
// that process too, and the trial's log names it. Before: it ran on after the search had ended.
void TestPoolWorkers::leftoverProcessesAreStopped()
{
    QTemporaryDir dir;
    const CliResult r = runOneTrial(dir, "orphan", {});
    const pid_t orphan = pidFile(dir, "orphan");
    const bool leftRunning = running(orphan);
    if (leftRunning)
        ::kill(orphan, SIGKILL); // the test's own cleanup
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(orphan > 0);
    QVERIFY(!leftRunning);
    const auto all = trials(dir.filePath("h.db"), "h");
    QCOMPARE(all.size(), std::size_t(1));
    QCOMPARE(all[0].state, TrialState::Complete);
    const std::string log = readTextFile(all[0].userAttrs["log_file"].get<std::string>());
    QVERIFY2(contains(log, "[pitwall] stopped 1 process(es) that trial 0 left running: pid " + std::to_string(orphan) +
                               " (sleep)"),
             log.c_str());
}

// 40 MiB on stderr and a 40 MiB stdout line without a newline: the worker's peak memory grows by far less than the
// line (before: by several times it), trial.log keeps its head and tail and says what it left out, and the
// objective that follows still counts.
void TestPoolWorkers::outputFloodIsBounded()
{
    QTemporaryDir dir;
    const CliResult r = runOneTrial(dir, "flood", {});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto all = trials(dir.filePath("h.db"), "h");
    QCOMPARE(all.size(), std::size_t(1));
    QVERIFY2(all[0].state == TrialState::Complete, failReason(all[0]).c_str());
    const std::int64_t growthKb = all[0].userAttrs["metrics"]["hwm_growth_kb"].get<std::int64_t>();
    QVERIFY2(growthKb < 16 * 1024, std::to_string(growthKb).c_str());
    const QString logPath = QString::fromStdString(all[0].userAttrs["log_file"].get<std::string>());
    const qint64 size = QFileInfo(logPath).size();
    QVERIFY2(size < 3 * 1024 * 1024 + 64 * 1024, std::to_string(size).c_str());
    const std::string log = readTextFile(logPath.toStdString());
    QVERIFY(contains(log, "bytes of output left out here"));
    QVERIFY(contains(log, "[pitwall] the line above was 41943040 bytes long: only its first 1048576 are kept"));
    QVERIFY(contains(log, "[pitwall] the command ended with exit status 0"));
}

PITWALL_TEST_MAIN(TestPoolWorkers)
#include "tst_pool_workers.moc"
