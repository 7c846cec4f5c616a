// The machine-load meter of benchmarks (core/util/machineload.h): CPU time that another process burns while it
// measures counts as other processes' load, the report line and its WARNING, and the busy threshold.
#include "core/util/machineload.h"

#include <QtTest>

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

using namespace pitwall;

namespace {

double threadCpuSeconds(clockid_t clock)
{
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Burns `seconds` of this process's CPU time.
void burn(double seconds)
{
    const double start = threadCpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
    volatile double sink = 0;
    while (threadCpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - start < seconds)
        for (int i = 0; i < 10000; ++i)
            sink = sink + i * 0.5;
}

} // namespace

class TestMachineLoad : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void anotherProcessesCpuCountsAsOtherLoad();
    void reportLineAndWarning();
};

void TestMachineLoad::anotherProcessesCpuCountsAsOtherLoad()
{
    // A grandchild (not ours to wait for, so its CPU time never reaches this process tree's) burns 0.6 s of CPU
    // while the meter runs, and this process burns 0.3 s itself: at least the grandchild's time is other
    // processes' load, whatever else the machine runs and however long it takes.
    int done[2];
    QVERIFY(pipe(done) == 0);
    const MachineLoadMeter meter;
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        if (fork() == 0) {
            burn(0.6);
            const char byte = 1;
            (void)!write(done[1], &byte, 1);
        }
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    burn(0.3);
    char byte = 0;
    QCOMPARE(read(done[0], &byte, 1), ssize_t(1));
    const MachineLoad load = meter.finish();
    close(done[0]);
    close(done[1]);
    QVERIFY(load.measured);
    QVERIFY(load.cores >= 1);
    QVERIFY(load.seconds >= 0.3);
    const double otherSeconds = load.otherCores * load.seconds;
    QVERIFY2(otherSeconds >= 0.5, qPrintable(QString("other processes' CPU seconds %1").arg(otherSeconds)));
    QVERIFY(load.busy() == (load.otherCores >= MachineLoad::kBusyOtherCores));
}

void TestMachineLoad::reportLineAndWarning()
{
    MachineLoad load;
    QCOMPARE(load.text(), std::string()); // not measured: nothing to say
    load.measured = true;
    load.loadBefore = 0.08;
    load.loadAfter = 1.93;
    load.otherCores = 0.02;
    load.cores = 2;
    QVERIFY(!load.busy());
    QCOMPARE(load.text(), std::string("Machine: load average 0.08 before, 1.93 after; other processes kept 0.02 of 2 "
                                      "cores busy on average while it ran.\n"));
    load.otherCores = 0.25;
    QVERIFY(load.busy());
    const std::string text = load.text();
    QVERIFY(text.find("\nWARNING: the machine was busy (other processes kept 0.25 of 2 cores busy)") !=
            std::string::npos);
    QVERIFY(text.ends_with("before reading effects from this table.\n"));
}

QTEST_GUILESS_MAIN(TestMachineLoad)
#include "tst_machineload.moc"
