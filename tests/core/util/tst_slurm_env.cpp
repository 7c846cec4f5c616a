// What a Slurm task learns from its environment (core/util/slurm.h): whether `pitwall train` is one rank of a step,
// the first host of a compressed host list, where the ranks meet (and MASTER_ADDR/MASTER_PORT over it), and the GPU
// of each local rank when a task sees several.
#include "core/util/error.h"
#include "core/util/slurm.h"

#include <QtTest>

#include <cstdlib>

using namespace pitwall;

namespace {
void setTask(const char* job, const char* step, const char* rank, const char* tasks, const char* nodes)
{
    ::setenv("SLURM_JOB_ID", job, 1);
    step ? ::setenv("SLURM_STEP_ID", step, 1) : ::unsetenv("SLURM_STEP_ID");
    ::setenv("SLURM_PROCID", rank, 1);
    ::setenv("SLURM_LOCALID", rank, 1);
    ::setenv("SLURM_NTASKS", tasks, 1);
    ::setenv("SLURM_STEP_NODELIST", nodes, 1);
}
} // namespace

class TestSlurmEnv : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        for (const char* name : {"SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS",
                                 "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "PITWALL_SLURM_WORLD", "MASTER_ADDR",
                                 "MASTER_PORT", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"})
            ::unsetenv(name);
    }

    void trainingTaskOnlyInAStepOfSeveralTasks()
    {
        QVERIFY(!slurmTrainingTask()); // outside Slurm
        setTask("812", nullptr, "0", "4", "gpu[01-02]");
        QVERIFY(!slurmTrainingTask()); // a batch script, not a step
        setTask("812", "0", "0", "1", "gpu01");
        QVERIFY(!slurmTrainingTask()); // a step of one task
        setTask("812", "3", "2", "4", "gpu[01-02]");
        const auto task = slurmTrainingTask();
        QVERIFY(task);
        QCOMPARE(task->rank, 2);
        QCOMPARE(task->tasks, 4);
        QCOMPARE(task->nodeList, std::string("gpu[01-02]"));
        QCOMPARE(slurmTaskLabel(), std::string(" (slurm job 812.3 task 2 of 4)"));
        keepChildrenOutOfSlurmWorld(); // what a worker does for its trial commands
        QVERIFY(!slurmTrainingTask());
    }

    void firstHostOfAHostList()
    {
        QCOMPARE(firstSlurmHost("vm"), std::string("vm"));
        QCOMPARE(firstSlurmHost("node7,node9"), std::string("node7"));
        QCOMPARE(firstSlurmHost("gpu[003-010,12],cpu1"), std::string("gpu003"));
        QCOMPARE(firstSlurmHost("gpu[7,9]"), std::string("gpu7"));
        QCOMPARE(firstSlurmHost("rack[2-3]-n[01-4]"), std::string("rack2-n01"));
        QCOMPARE(firstSlurmHost("cpu1,gpu[1-2]"), std::string("cpu1"));
        QVERIFY_THROWS_EXCEPTION(InputError, firstSlurmHost(""));
        QVERIFY_THROWS_EXCEPTION(InputError, firstSlurmHost("gpu[01-02"));
        QVERIFY_THROWS_EXCEPTION(InputError, firstSlurmHost("[01-02]"));
        QVERIFY_THROWS_EXCEPTION(InputError, firstSlurmHost("gpu[a-b]"));
    }

    void ranksMeetOnTheFirstHost()
    {
        setTask("123456", "2", "1", "8", "gpu[017-020]");
        SlurmRendezvous where = slurmRendezvous(*slurmTask());
        QCOMPARE(where.host, std::string("gpu017"));
        QCOMPARE(where.port, 29500 + (123456 % 4000) * 8 + 2);
        ::setenv("MASTER_ADDR", "10.1.2.3", 1);
        ::setenv("MASTER_PORT", "40000", 1);
        where = slurmRendezvous(*slurmTask());
        QCOMPARE(where.host, std::string("10.1.2.3"));
        QCOMPARE(where.port, 40000);
        for (const char* bad : {"0", "65536", "http", "-1"}) {
            ::setenv("MASTER_PORT", bad, 1);
            QVERIFY_THROWS_EXCEPTION(InputError, slurmRendezvous(*slurmTask()));
        }
    }

    void eachLocalRankGetsItsOwnGpu()
    {
        setTask("9", "0", "3", "4", "n1");
        ::setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
        ::setenv("ROCR_VISIBLE_DEVICES", "GPU-aa", 1); // one device: left alone
        QCOMPARE(narrowVisibleDevicesToTask(*slurmTask()), std::string("CUDA_VISIBLE_DEVICES=1"));
        QCOMPARE(std::string(std::getenv("CUDA_VISIBLE_DEVICES")), std::string("1"));
        QCOMPARE(std::string(std::getenv("ROCR_VISIBLE_DEVICES")), std::string("GPU-aa"));
        QCOMPARE(narrowVisibleDevicesToTask(*slurmTask()), std::string()); // now one: nothing to narrow
    }
};

QTEST_GUILESS_MAIN(TestSlurmEnv)
#include "tst_slurm_env.moc"
