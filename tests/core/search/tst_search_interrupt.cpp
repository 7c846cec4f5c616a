// Ctrl-C on a real search, with trial commands that ignore Ctrl-C and SIGTERM (as a trial busy writing a
// checkpoint does): the first signal is graceful (each running command is asked to stop with SIGTERM, and is
// given --term-grace to finish), the second stops everything at once: `pitwall hpo`, its workers and their
// commands are gone without waiting out the grace. Both ways a signal arrives are checked: Ctrl-C in a terminal
// (the whole process group) and `kill -INT` to the hpo process alone (a script, a scheduler), where the workers
// are not in a group the hpo leads. Afterwards `pitwall hpo --resume` completes the study. If this fails, a
// second Ctrl-C leaves trial processes running on the machine, or an interrupted search cannot be continued.
#include "../pool/schedtestutil.h"
#include "tests/support/components.h"

#include "core/devices/devices.h"
#include "core/util/process.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <vector>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;

using namespace pitwall;
using namespace schedtest;

namespace {

// Alive and not a zombie waiting for a parent to reap it.
bool running(pid_t pid)
{
    if (!processAlive(pid))
        return false;
    QFile stat(QString("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const int close = text.lastIndexOf(')');
    return close < 0 || text.mid(close + 2, 1) != "Z";
}

// The pids the stubborn trial commands wrote beside the gate (one per running trial).
std::vector<pid_t> commandPids(const QTemporaryDir& dir)
{
    std::vector<pid_t> out;
    for (const QString& name : QDir(dir.path()).entryList({"gate.pid.*"}, QDir::Files)) {
        QFile file(dir.filePath(name));
        if (file.open(QIODevice::ReadOnly))
            if (const int pid = file.readAll().trimmed().toInt(); pid > 0)
                out.push_back(pid);
    }
    return out;
}

int termNotes(const QTemporaryDir& dir)
{
    return static_cast<int>(QDir(dir.path()).entryList({"gate.term.*"}, QDir::Files).size());
}

} // namespace

class TestSearchInterrupt : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QFile::exists("/usr/bin/python3"))
            PITWALL_FAIL_MISSING("python3", "the trial script needs /usr/bin/python3");
    }
    void secondSignalStopsEverythingAtOnce_data();
    void secondSignalStopsEverythingAtOnce();
};

void TestSearchInterrupt::secondSignalStopsEverythingAtOnce_data()
{
    QTest::addColumn<bool>("wholeGroup");
    QTest::newRow("Ctrl-C in a terminal (the process group)") << true;
    QTest::newRow("kill -INT to pitwall hpo alone") << false;
}

void TestSearchInterrupt::secondSignalStopsEverythingAtOnce()
{
    QFETCH(bool, wholeGroup);
    QTemporaryDir dir;
    const QString db = dir.filePath("i.db"), gate = dir.filePath("gate");
    const QString space = writeFile(dir, "space.yaml", "mode: stubborn\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    const QString partition = processCores().size() >= 2 ? "DPX" : "SPX";
    const std::size_t workers = partition == "DPX" ? 2 : 1;
    QProcess hpo;
    hpo.setWorkingDirectory(dir.path());
    if (wholeGroup)
        hpo.setChildProcessModifier([] { ::setpgid(0, 0); }); // as a shell starts a job: its own group
    // A term grace far beyond this test's waits: whatever stops the commands below is the second signal.
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
                          partition,
                          "--sampler",
                          "random",
                          "--pruner",
                          "none",
                          "--study",
                          "si",
                          "--term-grace",
                          "600",
                          "--heartbeat-interval",
                          "0.2"});
    QVERIFY(hpo.waitForStarted());
    const pid_t target = wholeGroup ? -static_cast<pid_t>(hpo.processId()) : static_cast<pid_t>(hpo.processId());
    QVERIFY2(waitFor([&] { return commandPids(dir).size() == workers; }, 120000), "the trials did not start");
    const std::vector<pid_t> commands = commandPids(dir);

    // First signal: graceful. Every running command is asked to stop (SIGTERM, which it notes and ignores).
    QCOMPARE(::kill(target, SIGINT), 0);
    QVERIFY2(waitFor([&] { return termNotes(dir) == static_cast<int>(workers); }, 120000),
             "the first Ctrl-C did not ask the running commands to stop");
    QCOMPARE(hpo.state(), QProcess::Running); // waiting out the commands' grace
    for (pid_t pid : commands)
        QVERIFY2(running(pid), "a stubborn command ended before its grace");

    // Second signal: everything stops at once, without the 600 s grace.
    QCOMPARE(::kill(target, SIGINT), 0);
    QVERIFY2(hpo.waitForFinished(120000), "pitwall hpo did not stop on the second Ctrl-C");
    for (pid_t pid : commands)
        QVERIFY2(waitFor([&] { return !running(pid); }, 120000),
                 qPrintable(QString("trial command %1 outlived the second Ctrl-C").arg(pid)));
    QVERIFY(!QFile::exists(gate)); // nothing let them finish

    // Nothing is lost: the resumed search fails the lost trials (interrupted, not counted) and runs all 4.
    writeFile(dir, "gate", "");
    const CliResult r = runCli({"hpo", "--resume", "si", "--db", db, "--heartbeat-grace", "3"}, dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    int complete = 0, interrupted = 0;
    for (const TrialRecord& t : trials(db, "si")) {
        if (t.state == TrialState::Complete)
            ++complete;
        else
            interrupted += t.state == TrialState::Fail && isInterrupted(t) ? 1 : 0;
    }
    QCOMPARE(complete, 4);
    QCOMPARE(interrupted, static_cast<int>(workers));
}

QTEST_GUILESS_MAIN(TestSearchInterrupt)
#include "tst_search_interrupt.moc"
