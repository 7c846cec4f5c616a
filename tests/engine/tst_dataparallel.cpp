// Data-parallel training: the c10d group averages gradients and broadcasts weights, and a run spanning two
// logical devices trains in two processes with one run in the store.
#include "core/engine/train/dataparallel.h"
#include "core/store/store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>
#include <unistd.h>

using namespace pitwall;
using namespace pitwall::engine;

class TestDataParallel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void averagesGradientsAndBroadcasts();
    void runSpansTwoLogicalDevices();
};

void TestDataParallel::averagesGradientsAndBroadcasts()
{
    QTemporaryDir dir;
    const std::string rendezvous = dir.filePath("rv").toStdString();
    torch::Tensor grads[2], weights[2], untouched[2];
    auto rank = [&](int r) {
        DataParallel group(r, 2, rendezvous, std::chrono::seconds(60));
        auto w = torch::full({3}, static_cast<float>(r + 1)).requires_grad_(true);
        auto unused = torch::zeros({2}).requires_grad_(true); // no gradient: must stay without one
        (w * torch::tensor({1.0f, 2.0f, 3.0f}) * static_cast<float>(r + 1)).sum().backward();
        group.averageGradients({w, unused});
        grads[r] = w.grad().clone();
        untouched[r] = unused.grad().defined() ? unused.grad() : torch::Tensor();
        group.broadcast({w});
        weights[r] = w.detach().clone();
        const auto total = group.sum({1.0, static_cast<double>(r)});
        QCOMPARE(total, (std::vector<double>{2.0, 1.0}));
    };
    std::thread other(rank, 1);
    rank(0);
    other.join();
    // Rank gradients are [1,2,3]*1 and [1,2,3]*2: the average is [1.5, 3, 4.5] on both.
    for (int r = 0; r < 2; ++r) {
        QVERIFY(torch::allclose(grads[r], torch::tensor({1.5f, 3.0f, 4.5f})));
        QVERIFY(!untouched[r].defined());
        QVERIFY(torch::equal(weights[r], torch::full({3}, 1.0f))); // rank 0's values everywhere
    }
}

void TestDataParallel::runSpansTwoLogicalDevices()
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        QSKIP("needs two cores for two logical devices (DPX)");
    QTemporaryDir dir;
    QProcess cli;
    cli.setWorkingDirectory(dir.path());
    cli.start(PITWALL_CLI, {"train", PITWALL_SOURCE_DIR "/configs/transfuser/smoke.yaml", "--db", dir.filePath("r.db"),
                            "--json", "training.distribution.logical_devices=2", "device.partition_mode=DPX",
                            "training.stages.posttrain.epochs=0", "training.stages.pretrain.epochs=1"});
    QVERIFY(cli.waitForFinished(300000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
    auto store = openStore(dir.filePath("r.db").toStdString(), OpenMode::ReadOnly);
    const auto runs = store->runs();
    QCOMPARE(runs.size(), std::size_t(1)); // one run, written by rank 0
    QVERIFY2(runs[0].logicalDevice.find("rank 0 of 2") != std::string::npos, runs[0].logicalDevice.c_str());
    QVERIFY(QFile::exists(dir.filePath("runs/transfuser-smoke/trial_0/ranks/result_1.json")));
    // Too many logical devices for the mode is bad input, found before anything runs.
    QProcess bad;
    bad.setWorkingDirectory(dir.path());
    bad.start(PITWALL_CLI, {"train", PITWALL_SOURCE_DIR "/configs/transfuser/smoke.yaml", "--db", dir.filePath("bad.db"),
                            "training.distribution.logical_devices=2", "device.partition_mode=SPX"});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("gives 1 logical device(s)"));
    QVERIFY(!QFile::exists(dir.filePath("bad.db")));
}

QTEST_GUILESS_MAIN(TestDataParallel)
#include "tst_dataparallel.moc"
