// Data-parallel training: the c10d group averages gradients and broadcasts weights, and a run spanning two
// logical devices trains in two processes with one run in the store.
#include "core/engine/train/dataparallel.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "tests/support/components.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>
#include <unistd.h>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;
using pitwall::test::sourcePath;

using namespace pitwall;
using namespace pitwall::engine;

namespace {
// `pitwall train` of the smoke config in `dir` with `args` after it; returns the exit code, stderr in `err`.
int trainSmoke(const QTemporaryDir& dir, const QStringList& args, QByteArray& err, int timeoutMs)
{
    QProcess cli;
    cli.setWorkingDirectory(dir.path());
    cli.start(cliPath(), QStringList{"train", sourcePath("/configs/transfuser/smoke.yaml")} + args);
    if (!cli.waitForFinished(timeoutMs))
        return -1;
    err = cli.readAllStandardError();
    return cli.exitCode();
}
} // namespace

class TestDataParallel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void averagesGradientsAndBroadcasts();
    void runSpansTwoLogicalDevices();
    void processGroupBackendIsChecked();
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
        PITWALL_SKIP_OPTIONAL("needs two cores for two logical devices (DPX)");
    QTemporaryDir dir;
    QByteArray err;
    QVERIFY2(trainSmoke(dir,
                        {"--db", dir.filePath("r.db"), "--json", "training.distribution.logical_devices=2",
                         "device.partition_mode=DPX", "training.stages.posttrain.epochs=0",
                         "training.stages.pretrain.epochs=1"},
                        err, 300000) == 0,
             err.constData());
    auto store = openStore(dir.filePath("r.db").toStdString(), OpenMode::ReadOnly);
    const auto runs = store->runs();
    QCOMPARE(runs.size(), std::size_t(1)); // one run, written by rank 0
    QVERIFY2(runs[0].logicalDevice.find("rank 0 of 2") != std::string::npos, runs[0].logicalDevice.c_str());
    QVERIFY(QFile::exists(dir.filePath("runs/transfuser-smoke/trial_0/ranks/result_1.json")));
    // Too many logical devices for the mode is bad input, found before anything runs.
    QCOMPARE(trainSmoke(dir,
                        {"--db", dir.filePath("bad.db"), "training.distribution.logical_devices=2",
                         "device.partition_mode=SPX"},
                        err, 60000),
             2);
    QVERIFY(err.contains("gives 1 logical device(s)"));
    QVERIFY(!QFile::exists(dir.filePath("bad.db")));
}

void TestDataParallel::processGroupBackendIsChecked()
{
    const torch::Device gpu(torch::kCUDA, 0); // a device value only
    QVERIFY(collectiveBackendFor("auto", torch::kCPU, "SPX") == CollectiveBackend::Gloo);
    QVERIFY(collectiveBackendFor("gloo", gpu, "SPX") == CollectiveBackend::Gloo);
    QVERIFY(collectiveBackendFor("auto", gpu, "DPX") == CollectiveBackend::Gloo); // partitions of one GPU
    QVERIFY(collectiveBackendFor("auto", gpu, "SPX") ==
            (ncclBuiltIn() ? CollectiveBackend::Nccl : CollectiveBackend::Gloo));
    QVERIFY_THROWS_EXCEPTION(InputError, collectiveBackendFor("nccl", torch::kCPU, "SPX"));
    // The CUDA build (PITWALL_WITH_CUDA) links a LibTorch with NCCL; asked for, it serves partitions as well.
    QCOMPARE(ncclBuiltIn(), bool(PITWALL_TEST_EXPECT_CUDA));
    if (ncclBuiltIn())
        QVERIFY(collectiveBackendFor("nccl", gpu, "DPX") == CollectiveBackend::Nccl);
    else
        QVERIFY_THROWS_EXCEPTION(InputError, collectiveBackendFor("nccl", gpu, "SPX"));

    // From the command line: bad input (exit 2) before any store or data exists.
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        PITWALL_SKIP_OPTIONAL("needs two cores for two logical devices (DPX)");
    QTemporaryDir dir;
    QByteArray err;
    QVERIFY2(trainSmoke(dir,
                        {"--db", dir.filePath("bad.db"), "training.distribution.logical_devices=2",
                         "device.partition_mode=DPX", "training.distribution.backend=nccl", "device.backend=cpu"},
                        err, 120000) == 2,
             err.constData());
    QVERIFY2(err.contains("training.distribution.backend=nccl needs a GPU run"), err.constData());
    QVERIFY(!QFile::exists(dir.filePath("bad.db")));
}

PITWALL_TEST_MAIN(TestDataParallel)
#include "tst_dataparallel.moc"
