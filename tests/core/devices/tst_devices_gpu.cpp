// CUDA and HIP backends built from real nvidia-smi and amd-smi outputs (tests/data/vendor-tools/), the
// partition commands and their error reports, discovery through fake tools, and `pitwall devices` with
// vendor tools on PATH. If this fails, a worker on a GPU node binds to the wrong device (or none), a MIG or
// CPX machine is described wrongly, or a failed partition change is reported without amd-smi's reason.
#include "../../cli/clitestutil.h"

#include "core/devices/gpubackends.h"
#include "core/util/error.h"
#include "core/util/paths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <unistd.h>

#include <map>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;

namespace {

const QString kData = sourcePath("/tests/data/vendor-tools/");

std::string fixture(const QString& name)
{
    return readTextFile((kData + name).toStdString());
}

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

// Answers commands with recorded outputs; a command without an answer fails like a missing subcommand.
class FakeRunner final : public ToolRunner {
public:
    std::map<std::string, ToolResult> answers; // by commandText(argv)
    mutable std::vector<std::string> ran;
    std::vector<std::string> tools;

    void answer(const std::vector<std::string>& argv, const std::string& out, int exitCode = 0)
    {
        ToolResult r;
        r.started = true;
        r.exitCode = exitCode;
        r.out = out;
        answers[commandText(argv)] = r;
    }
    bool available(const std::string& tool) const override
    {
        return std::find(tools.begin(), tools.end(), tool) != tools.end();
    }
    ToolResult run(const std::vector<std::string>& argv, std::chrono::milliseconds) const override
    {
        ran.push_back(commandText(argv));
        const auto it = answers.find(commandText(argv));
        if (it != answers.end())
            return it->second;
        ToolResult r;
        r.started = true;
        r.exitCode = 2;
        r.err = "usage: unknown command";
        return r;
    }
};

const std::vector<int> kCores = {0, 1, 2, 3, 4, 5, 6, 7};

} // namespace

class TestDevicesGpu : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nvidiaList_data();
    void nvidiaList();
    void nvidiaQuery();
    void cudaLogicalDevices();
    void amdStaticPartition_data();
    void amdStaticPartition();
    void amdPartitionTables();
    void amdProfilesAndModes();
    void amdSetOutputs_data();
    void amdSetOutputs();
    void applyRunsTheCommandOnlyWhenAsked();
    void discoveryThroughTools();
    void systemRunnerTimesOut();
    void cliShowsEveryBackend();
};

void TestDevicesGpu::nvidiaList_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("firstName");
    QTest::addColumn<QList<int>>("migPerGpu");
    QTest::newRow("h100 no mig") << "nvidia-smi__L__h100-80gb-nomig__drv590.48.01__uo-capture.txt"
                                 << "NVIDIA H100 80GB HBM3" << QList<int>{0};
    QTest::newRow("h100 mig 4") << "nvidia-smi__L__h100-80gb-mig-3g-2g-1g-1g__drv590.48.01__uo-capture.txt"
                                << "NVIDIA H100 80GB HBM3" << QList<int>{4};
    QTest::newRow("h200 shared gi") << "nvidia-smi__L__h200-mig-shared-gi-ci__drv590.48.01__uo-capture.txt"
                                    << "NVIDIA H200" << QList<int>{5};
    QTest::newRow("a100 x4, one in mig")
        << "nvidia-smi__L__a100-sxm4-80gb-x4-one-gpu-mig-4x-1g.20gb__telegraf-issue5812.txt"
        << "NVIDIA A100-SXM4-80GB" << QList<int>{4, 0, 0, 0};
    QTest::newRow("a100 7x1g") << "nvidia-smi__L__a100-sxm4-80gb-mig-7x-1g.10gb__drv535.216.01__datadog-pr33120.txt"
                               << "NVIDIA A100-SXM4-80GB" << QList<int>{7};
    QTest::newRow("a100 old uuids") << "nvidia-smi__L__a100-sxm4-40gb-mig-old-uuid-format__alcf-thetagpu.txt"
                                    << "A100-SXM4-40GB" << QList<int>{2};
}

void TestDevicesGpu::nvidiaList()
{
    QFETCH(QString, file);
    QFETCH(QString, firstName);
    QFETCH(QList<int>, migPerGpu);
    const NvidiaSmiList list = parseNvidiaSmiList(fixture(file));
    QVERIFY(list.unrecognised.empty());
    QCOMPARE(static_cast<int>(list.gpus.size()), migPerGpu.size());
    QCOMPARE(QString::fromStdString(list.gpus[0].name), firstName);
    for (int i = 0; i < migPerGpu.size(); ++i) {
        QCOMPARE(list.gpus[i].index, i);
        QVERIFY(list.gpus[i].uuid.rfind("GPU-", 0) == 0);
        QCOMPARE(static_cast<int>(list.gpus[i].migDevices.size()), migPerGpu[i]);
        for (const NvidiaMigDevice& mig : list.gpus[i].migDevices)
            QVERIFY2(mig.uuid.rfind("MIG-", 0) == 0, mig.uuid.c_str());
    }
}

void TestDevicesGpu::nvidiaQuery()
{
    auto h100 =
        parseNvidiaSmiList(fixture("nvidia-smi__L__h100-80gb-mig-3g-2g-1g-1g__drv590.48.01__uo-capture.txt")).gpus;
    QCOMPARE(h100[0].migDevices[1].profile, std::string("2g.20gb"));
    QCOMPARE(h100[0].migDevices[1].memoryBytes, 20 * kGiB);
    QVERIFY(applyNvidiaSmiQuery(
        fixture("nvidia-smi__query-gpu-allfields-csv__h100-80gb-mig__drv590.48.01__uo-capture.txt"), h100));
    QCOMPARE(h100[0].memoryBytes, 81559LL * 1024 * 1024);
    QCOMPARE(h100[0].memoryFreeBytes, 81022LL * 1024 * 1024);
    QCOMPARE(h100[0].migEnabled.value(), true);
    auto h200 = parseNvidiaSmiList(fixture("nvidia-smi__L__h200-nomig__drv590.48.01__uo-capture.txt")).gpus;
    QVERIFY(applyNvidiaSmiQuery(fixture("nvidia-smi__query-gpu-allfields-csv__h200-mig__drv590.48.01__uo-capture.txt"),
                                h200));
    QCOMPARE(h200[0].memoryBytes, 143771LL * 1024 * 1024);
    auto plain = parseNvidiaSmiList(fixture("nvidia-smi__L__h100-80gb-nomig__drv590.48.01__uo-capture.txt")).gpus;
    QVERIFY(applyNvidiaSmiQuery(
        fixture("nvidia-smi__query-gpu-allfields-csv__h100-80gb-nomig__drv590.48.01__uo-capture.txt"), plain));
    QCOMPARE(plain[0].migEnabled.value(), false);
    QVERIFY(!applyNvidiaSmiQuery("No devices were found\n", plain));
    // The old MIG UUID form is kept whole: CUDA_VISIBLE_DEVICES takes it as it is.
    const auto old =
        parseNvidiaSmiList(fixture("nvidia-smi__L__a100-sxm4-40gb-mig-old-uuid-format__alcf-thetagpu.txt")).gpus;
    QCOMPARE(old[0].migDevices[1].uuid, std::string("MIG-GPU-2fa5cf01-9520-1bc1-995b-cc0c6d9bca7c/2/0"));
    QCOMPARE(old[0].migDevices[1].profile, std::string("1c.3g.20gb"));
}

void TestDevicesGpu::cudaLogicalDevices()
{
    // Without MIG: MPS shares of each GPU.
    auto plain = parseNvidiaSmiList(fixture("nvidia-smi__L__h100-80gb-nomig__drv590.48.01__uo-capture.txt")).gpus;
    applyNvidiaSmiQuery(fixture("nvidia-smi__query-gpu-allfields-csv__h100-80gb-nomig__drv590.48.01__uo-capture.txt"),
                        plain);
    const auto cuda = makeCudaBackend(plain, kCores);
    QCOMPARE(cuda->name(), std::string("cuda"));
    const auto qpx = cuda->logicalDevices(PartitionMode::QPX);
    QCOMPARE(qpx.size(), std::size_t(4));
    for (const LogicalDevice& d : qpx) {
        QCOMPARE(d.environment.at("CUDA_VISIBLE_DEVICES"), std::string("0"));
        QCOMPARE(d.environment.at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), std::string("25"));
        QCOMPARE(d.memoryBytes, 81559LL * 1024 * 1024 / 4);
        QCOMPARE(d.cpuSet.size(), std::size_t(2));
    }
    QCOMPARE(cuda->logicalDevices(PartitionMode::CPX)[7].environment.at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
             std::string("12"));
    QVERIFY(!cuda->logicalDevices(PartitionMode::SPX)[0].environment.count("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"));

    // With MIG: the MIG devices, whatever the mode.
    const auto mig = makeCudaBackend(
        parseNvidiaSmiList(fixture("nvidia-smi__L__h100-80gb-mig-3g-2g-1g-1g__drv590.48.01__uo-capture.txt")).gpus,
        kCores);
    for (PartitionMode mode : allPartitionModes()) {
        const auto devices = mig->logicalDevices(mode);
        QCOMPARE(devices.size(), std::size_t(4));
        QCOMPARE(devices[0].environment.at("CUDA_VISIBLE_DEVICES"),
                 std::string("MIG-00000000-0000-0000-0000-000000000000"));
        QCOMPARE(devices[0].memoryBytes, 40 * kGiB);
        QCOMPARE(devices[3].id, std::string("cuda:0.3"));
    }
    QVERIFY(mig->notes().front().find("split by MIG into 4 devices (3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb)") !=
            std::string::npos);

    // Mixed: GPU 0 by MIG (4 devices), GPUs 1-3 shared by 2 in DPX.
    const auto mixed = makeCudaBackend(
        parseNvidiaSmiList(fixture("nvidia-smi__L__a100-sxm4-80gb-x4-one-gpu-mig-4x-1g.20gb__telegraf-issue5812.txt"))
            .gpus,
        {0, 1});
    const auto dpx = mixed->logicalDevices(PartitionMode::DPX);
    QCOMPARE(dpx.size(), std::size_t(4 + 3 * 2));
    QCOMPARE(dpx[4].environment.at("CUDA_VISIBLE_DEVICES"), std::string("1"));
    QCOMPARE(dpx[9].id, std::string("cuda:3.1"));
    QCOMPARE(dpx[9].cpuSet.size(), std::size_t(1)); // more devices than cores: one core each, round-robin
}

void TestDevicesGpu::amdStaticPartition_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("devices");
    QTest::addColumn<QString>("compute");
    QTest::addColumn<QString>("memory");
    QTest::newRow("spx rocm 6.4.2 name") << "amd-smi__static-partition__spx-nps1__rocm6.4.2-changelog.txt" << 1 << 1
                                         << "SPX"
                                         << "NPS1";
    QTest::newRow("spx old name") << "amd-smi__static-partition__spx-nps1-old-fieldname__rocm6.4.1-changelog.txt" << 1
                                  << 1 << "SPX"
                                  << "NPS1";
    QTest::newRow("mi300x cpx nps4 64") << "amd-smi__static-partition__mi300x-cpx-nps4-64-logical__instinct-docs.txt"
                                        << 64 << 8 << "CPX"
                                        << "NPS4";
    QTest::newRow("mi300a 4 apus") << "amd-smi__static-partition__mi300a-4apu-spx-nps1__rocm6.3.3__issue4477.txt" << 4
                                   << 4 << "SPX"
                                   << "NPS1";
}

void TestDevicesGpu::amdStaticPartition()
{
    QFETCH(QString, file);
    QFETCH(int, gpus);
    QFETCH(int, devices);
    QFETCH(QString, compute);
    QFETCH(QString, memory);
    const AmdSmiReport report = parseAmdSmiStaticPartition(fixture(file));
    QCOMPARE(static_cast<int>(report.gpus.size()), gpus);
    const auto grouped = groupAmdDevices(report);
    QCOMPARE(static_cast<int>(grouped.size()), devices);
    for (const AmdDevice& d : grouped) {
        QCOMPARE(QString::fromStdString(d.computePartition), compute);
        QCOMPARE(QString::fromStdString(d.memoryPartition), memory);
        QCOMPARE(static_cast<int>(d.gpuIds.size()), gpus / devices);
    }
    const auto hip = makeHipBackend(report, kCores);
    QCOMPARE(QString(partitionModeName(hip->currentMode().value())), compute);
    const auto logical = hip->logicalDevices(*hip->currentMode());
    QCOMPARE(static_cast<int>(logical.size()), gpus);
    QCOMPARE(logical.back().environment.at("HIP_VISIBLE_DEVICES"), std::to_string(gpus - 1));
}

void TestDevicesGpu::amdPartitionTables()
{
    // ROCm 6.4 `partition --current`: one partition id per GPU; old format: the ids listed on the primary.
    for (const char* file : {"amd-smi__partition-current__mi300x-cpx-nps1__rocm6.4-changelog.txt",
                             "amd-smi__partition-current__mi300x-cpx-nps1-old-format__rocm6.4-changelog.txt"}) {
        const auto grouped = groupAmdDevices(parseAmdSmiPartition(fixture(file)));
        QCOMPARE(grouped.size(), std::size_t(2)); // the fragment shows GPUs 0-10
        QCOMPARE(grouped[0].gpuIds, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        QCOMPARE(grouped[1].gpuIds, (std::vector<int>{8, 9, 10}));
        QCOMPARE(grouped[0].computePartition, std::string("CPX"));
        QCOMPARE(grouped[1].memoryPartition, std::string("NPS1"));
    }
    // `partition -c -m`: 8 devices in SPX, memory from both tables.
    const auto mi35x = groupAmdDevices(parseAmdSmiPartition(
        fixture("amd-smi__partition-c-m__mi35x-8gpu-spx-nps1-caps-nps1-nps2__rocm7.1__rocm-blog-multi-inf.txt")));
    QCOMPARE(mi35x.size(), std::size_t(8));
    QCOMPARE(mi35x[7].computePartition, std::string("SPX"));
    // MI300A on ROCm 6.3.3: everything N/A, mixed with "GPU: n" blocks: 4 devices, compute unknown.
    const AmdSmiReport na =
        parseAmdSmiPartition(fixture("amd-smi__partition__mi300a-4apu-all-na__rocm6.3.3__issue4477.txt"));
    const auto apus = groupAmdDevices(na);
    QCOMPARE(apus.size(), std::size_t(4));
    QCOMPARE(apus[2].computePartition, std::string());
    QCOMPARE(apus[2].memoryPartition, std::string("NPS1"));
    QVERIFY(!makeHipBackend(na, kCores)->currentMode().has_value());
    // Without root the profiles are all N/A and amd-smi says why.
    const AmdSmiReport nonroot =
        parseAmdSmiPartition(fixture("amd-smi__partition-accelerator__nonroot-warning__rocm6.4-changelog.txt"));
    QCOMPARE(nonroot.warnings,
             std::vector<std::string>{"ACCELERATOR_PARTITION_PROFILES requires sudo/root permissions to "
                                      "run. Please run the command with sudo permissions to get "
                                      "accurate results."});
    QVERIFY(nonroot.profiles.empty());
    // amd-smi list -e adds BDF and HIP ids.
    AmdSmiReport listed;
    mergeAmdSmiList(fixture("amd-smi__list-e__mi300x-cpx__rocm6.4.1-changelog.txt"), listed);
    QCOMPARE(listed.gpus.size(), std::size_t(2));
    QCOMPARE(listed.gpus[1].bdf, std::string("0000:0c:00.1"));
    QCOMPARE(listed.gpus[1].hipId.value(), 1);
    QCOMPARE(groupAmdDevices(listed).size(), std::size_t(1)); // partition ids 0 and 1 of one device
    AmdSmiReport plainList;
    mergeAmdSmiList(fixture("amd-smi__list__mi3xx__rocm6.3-changelog.txt"), plainList);
    QCOMPARE(groupAmdDevices(plainList).size(), std::size_t(2));
}

void TestDevicesGpu::amdProfilesAndModes()
{
    // 8 MI300X in DPX (16 logical GPUs), seen through `partition --accelerator` only.
    const AmdSmiReport dpx = parseAmdSmiPartition(
        fixture("amd-smi__partition-accelerator__mi300x-8gpu-dpx-16-logical__rocm7.0.2__amdsmi-issue132.txt"));
    const auto devices = groupAmdDevices(dpx);
    QCOMPARE(devices.size(), std::size_t(8));
    QCOMPARE(devices[3].gpuIds, (std::vector<int>{6, 7}));
    QCOMPARE(devices[0].profiles.size(), std::size_t(4));
    QCOMPARE(devices[0].profiles[3].type, std::string("CPX"));
    QCOMPARE(devices[0].profiles[3].partitions, 8);
    QCOMPARE(devices[0].profiles[3].memoryCaps, (std::vector<std::string>{"NPS1", "NPS4"}));
    QVERIFY(devices[0].profiles[1].current);
    const auto hip = makeHipBackend(dpx, kCores);
    QCOMPARE(hip->currentMode().value(), PartitionMode::DPX);
    const auto logical = hip->logicalDevices(PartitionMode::DPX);
    QCOMPARE(logical.size(), std::size_t(16));
    QCOMPARE(logical[5].id, std::string("hip:2.1"));
    QCOMPARE(logical[5].environment.at("HIP_VISIBLE_DEVICES"), std::string("5"));
    for (const ModeAvailability& m : hip->modes()) {
        QCOMPARE(m.available, m.mode == PartitionMode::DPX);
        if (m.mode == PartitionMode::CPX)
            QVERIFY2(m.why.find(
                         "the GPUs are in DPX; switching needs `sudo amd-smi set --gpu all --compute-partition CPX`") !=
                         std::string::npos,
                     m.why.c_str());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, hip->logicalDevices(PartitionMode::SPX));

    // MI300A: SPX/TPX/CPX profiles (TPX is not one of Pitwall's modes), current partition not reported.
    const auto mi300a =
        makeHipBackend(parseAmdSmiPartition(fixture(
                           "amd-smi__partition__mi300a-4apu-spx-profiles-blank-caps__rocm6.4.0__issue4477.txt")),
                       kCores);
    QCOMPARE(mi300a->physicalDevices().size(), std::size_t(4));
    for (const ModeAvailability& m : mi300a->modes()) {
        QVERIFY(!m.available);
        if (m.mode == PartitionMode::DPX)
            QCOMPARE(m.why, std::string("DPX is not among the accelerator profiles amd-smi reports (SPX, TPX, CPX)"));
        if (m.mode == PartitionMode::CPX)
            QVERIFY2(m.why.find("compute partition is unknown") != std::string::npos, m.why.c_str());
    }
    // An MI325X VF reports its profiles with NUM_PARTITIONS 1/2/4/8, SPX current.
    const AmdSmiReport vf =
        parseAmdSmiPartition(fixture("amd-smi__partition-g0__mi325x-vf-spx-nps1__device-metrics-exporter.txt"));
    QCOMPARE(vf.profiles.size(), std::size_t(4));
    QCOMPARE(vf.profiles[2].partitions, 4);
    QVERIFY(vf.profiles[0].memoryCaps.empty()); // N/A
    QCOMPARE(makeHipBackend(vf, kCores)->currentMode().value(), PartitionMode::SPX);
}

void TestDevicesGpu::amdSetOutputs_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<int>("gpusSet");
    QTest::addColumn<QString>("error");
    QTest::newRow("cpx success") << "amd-smi__set-compute-partition-CPX__mi300x-8gpu-success__instinct-docs.txt" << 0
                                 << true << 8 << "";
    QTest::newRow("spx success") << "amd-smi__set-compute-partition-SPX__mi300x-8gpu-success__instinct-docs.txt" << 0
                                 << true << 8 << "";
    QTest::newRow("memory success")
        << "amd-smi__set-memory-partition-NPS1__mi300x-8gpu-success-short__instinct-docs.txt" << 0 << true << 8 << "";
    QTest::newRow("not root")
        << "amd-smi__set-compute-partition__error-no-perm-nonroot__instinct-docs.txt" << 1 << false << 0
        << "AMDSMI_STATUS_NO_PERM - Permission Denied; PermissionError: Command requires elevation";
    QTest::newRow("device busy")
        << "amd-smi__set-compute-partition__error-device-busy__instinct-docs.txt" << 1 << false << 0
        << "AMDSMI_STATUS_BUSY - Device busy; ValueError: Unable to set accelerator partition to SPX "
           "on GPU ID: 0 BDF:0000:11:00.0";
    QTest::newRow("invalid parameter")
        << "amd-smi__set-compute-partition__error-invalid-parameter-vm__rocm6.4.1__amdsmi-issue91.txt" << 254 << false
        << 0 << "Parameter '--compute-partition cpx' is invalid. Run '--help' for more info. Error code: -2";
    QTest::newRow("setting unavailable")
        << "amd-smi__set-compute-partition-SPX__error-setting-unavailable-nps4__instinct-docs.txt" << 1 << false << 0
        << "AMDSMI_STATUS_SETTING_UNAVAILABLE - Setting is not available";
    QTest::newRow("argparse") << "amd-smi__set-C-DPX__error-argparse-invalid-choice__rocm6.4.x__amdsmi-issue132.txt"
                              << 2 << false << 0 << "argument -C/--compute-partition: invalid choice: 'DPX'";
    QTest::newRow("exit 0 without changes") << "amd-smi__partition-g0__mi325x-vf-spx-nps1__device-metrics-exporter.txt"
                                            << 0 << false << 0 << "amd-smi reported no GPU as changed";
}

void TestDevicesGpu::amdSetOutputs()
{
    QFETCH(QString, file);
    QFETCH(int, exitCode);
    QFETCH(bool, ok);
    QFETCH(int, gpusSet);
    QFETCH(QString, error);
    const AmdSmiSetResult result = parseAmdSmiSetOutput(fixture(file), exitCode);
    QCOMPARE(result.ok, ok);
    QCOMPARE(static_cast<int>(result.gpusSet.size()), gpusSet);
    QVERIFY2(QString::fromStdString(result.error).contains(error), result.error.c_str());
}

void TestDevicesGpu::applyRunsTheCommandOnlyWhenAsked()
{
    QCOMPARE(commandText(planAmdComputePartition(PartitionMode::CPX).command),
             std::string("sudo amd-smi set --gpu all --compute-partition CPX"));
    QCOMPARE(commandText(amdSmiSetMemoryPartitionCommand("NPS1")),
             std::string("sudo amd-smi set --memory-partition NPS1"));
    FakeRunner runner;
    runner.tools = {"sudo", "amd-smi"};
    const std::vector<std::string> expected =
        geteuid() == 0
            ? std::vector<std::string>{"amd-smi", "set", "--gpu", "all", "--compute-partition", "CPX"}
            : std::vector<std::string>{"sudo", "-n", "amd-smi", "set", "--gpu", "all", "--compute-partition", "CPX"};
    runner.answer(expected, fixture("amd-smi__set-compute-partition__error-no-perm-nonroot__instinct-docs.txt"), 1);
    const PartitionChange failed = applyAmdComputePartition(PartitionMode::CPX, runner);
    QCOMPARE(runner.ran, std::vector<std::string>{commandText(expected)});
    QVERIFY(failed.applied && !failed.ok);
    QVERIFY2(failed.error.find("PermissionError: Command requires elevation") != std::string::npos,
             failed.error.c_str());
    runner.answer(expected, fixture("amd-smi__set-compute-partition-CPX__mi300x-8gpu-success__instinct-docs.txt"));
    const PartitionChange done = applyAmdComputePartition(PartitionMode::CPX, runner);
    QVERIFY(done.ok);
    QCOMPARE(done.gpusSet.size(), std::size_t(8));
}

void TestDevicesGpu::discoveryThroughTools()
{
    FakeRunner none;
    QVERIFY(discoverGpuBackends(none).backends.empty()); // no tool on PATH: no backend, no complaint
    QVERIFY(discoverGpuBackends(none).problems.empty());

    FakeRunner both;
    both.tools = {"nvidia-smi", "amd-smi"};
    both.answer(nvidiaSmiListCommand(), fixture("nvidia-smi__L__h200-mig-shared-gi-ci__drv590.48.01__uo-capture.txt"));
    both.answer(nvidiaSmiQueryCommand(),
                fixture("nvidia-smi__query-gpu-allfields-csv__h200-mig__drv590.48.01__uo-capture.txt"));
    // ROCm 6.3: no `amd-smi partition`, so discovery falls back to `static --partition`.
    both.answer(amdSmiStaticPartitionCommand(),
                fixture("amd-smi__static-partition__mi300x-cpx-nps4-64-logical__instinct-docs.txt"));
    const GpuDiscovery found = discoverGpuBackends(both);
    QCOMPARE(found.backends.size(), std::size_t(2));
    QCOMPARE(found.backends[0]->name(), std::string("cuda"));
    QCOMPARE(found.backends[0]->physicalDevices()[0].memoryBytes, 143771LL * 1024 * 1024);
    QCOMPARE(found.backends[0]->logicalDevices(PartitionMode::SPX).size(), std::size_t(5));
    QCOMPARE(found.backends[1]->name(), std::string("hip"));
    QCOMPARE(found.backends[1]->logicalDevices(PartitionMode::CPX).size(), std::size_t(64));
    QVERIFY(found.problems.empty());

    FakeRunner broken;
    broken.tools = {"nvidia-smi"};
    broken.answer(nvidiaSmiListCommand(), "", 9);
    const GpuDiscovery failed = discoverGpuBackends(broken);
    QVERIFY(failed.backends.empty());
    QCOMPARE(failed.problems.size(), std::size_t(1));
    QVERIFY2(failed.problems[0].find("`nvidia-smi -L`: exit status 9") != std::string::npos,
             failed.problems[0].c_str());
}

void TestDevicesGpu::systemRunnerTimesOut()
{
    const ToolRunner& runner = systemToolRunner();
    QVERIFY(runner.available("sh"));
    QVERIFY(!runner.available("no-such-tool-pitwall"));
    const ToolResult r = runner.run({"sh", "-c", "echo out; echo err >&2; exit 3"}, std::chrono::seconds(10));
    QVERIFY(r.started && !r.timedOut);
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(r.out, std::string("out\n"));
    QCOMPARE(r.err, std::string("err\n"));
    // A tool that would run for 5 minutes (longer than this test may): the timeout must stop it, not wait for it.
    QTemporaryDir dir;
    const std::string pidFile = dir.filePath("tool.pid").toStdString();
    const ToolResult slow =
        runner.run({"sh", "-c", "echo $$ > '" + pidFile + "'; exec sleep 300"}, std::chrono::milliseconds(300));
    QVERIFY(slow.timedOut);
    QFile pid(QString::fromStdString(pidFile));
    QVERIFY(pid.open(QIODevice::ReadOnly));
    const pid_t tool = pid.readAll().trimmed().toInt();
    QVERIFY(tool > 0);
    QTRY_VERIFY2(::kill(tool, 0) != 0, "the timed-out tool is still running");
    QVERIFY(!runner.run({"no-such-tool-pitwall"}, std::chrono::seconds(1)).started);
}

void TestDevicesGpu::cliShowsEveryBackend()
{
    // Fake nvidia-smi and amd-smi (and sudo) on PATH that print recorded outputs.
    QTemporaryDir bin;
    auto script = [&](const QString& name, const QString& body) {
        QFile file(bin.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(("#!/bin/sh\n" + body + "\n").toUtf8());
        file.close();
        file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    };
    script("nvidia-smi",
           "case \"$1\" in -L) cat '" + kData +
               "nvidia-smi__L__h100-80gb-nomig__drv590.48.01__uo-capture.txt';;"
               " *) cat '" +
               kData + "nvidia-smi__query-gpu-allfields-csv__h100-80gb-nomig__drv590.48.01__uo-capture.txt';; esac");
    script("amd-smi",
           "case \"$1\" in partition) cat '" + kData +
               "amd-smi__partition-accelerator__mi300x-8gpu-dpx-16-logical__rocm7.0.2__amdsmi-issue132.txt';;"
               " set) cat '" +
               kData +
               "amd-smi__set-compute-partition__error-device-busy__instinct-docs.txt'; exit 1;;"
               " *) exit 2;; esac");
    script("sudo", "[ \"$1\" = -n ] && shift; exec \"$@\"");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", bin.path() + ":/usr/bin:/bin");

    const CliResult r = runCli({"devices", "--json", "--mode", "DPX"}, QString(), env);
    QCOMPARE(r.exitCode, 0);
    const QJsonArray backends = QJsonDocument::fromJson(r.out.toUtf8()).object()["backends"].toArray();
    QCOMPARE(backends.size(), 3);
    QCOMPARE(backends[0].toObject()["name"].toString(), QString("cpu"));
    const QJsonObject cuda = backends[1].toObject();
    QCOMPARE(cuda["name"].toString(), QString("cuda"));
    QCOMPARE(cuda["logical_devices"].toArray().size(), 2);
    QCOMPARE(cuda["logical_devices"]
                 .toArray()[1]
                 .toObject()["environment"]
                 .toObject()["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"]
                 .toString(),
             QString("50"));
    const QJsonObject hip = backends[2].toObject();
    QCOMPARE(hip["current_mode"].toString(), QString("DPX"));
    QCOMPARE(hip["logical_devices"].toArray().size(), 16);

    const CliResult text = runCli({"devices", "--mode", "CPX", "--backend", "hip"}, QString(), env);
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("logical devices in CPX (hip): none"), qPrintable(text.out));

    const CliResult plan = runCli({"devices", "--set-partition", "CPX"}, QString(), env);
    QCOMPARE(plan.exitCode, 0);
    QVERIFY(plan.out.contains("would run: sudo amd-smi set --gpu all --compute-partition CPX"));
    const CliResult apply = runCli({"devices", "--set-partition", "SPX", "--apply"}, QString(), env);
    QCOMPARE(apply.exitCode, 1);
    QVERIFY2(apply.err.contains("AMDSMI_STATUS_BUSY - Device busy"), qPrintable(apply.err));
    QCOMPARE(runCli({"devices", "--apply"}, QString(), env).exitCode, 2);
}

QTEST_GUILESS_MAIN(TestDevicesGpu)
#include "tst_devices_gpu.moc"
