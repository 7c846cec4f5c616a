// What `pitwall devices` shows (core/devices/devicereport.h), on a CPU backend of known cores: the text lines and
// JSON fields that scripts and the window read. If this fails, the device listing changed shape or a mode that
// the cores cannot give is reported as if it had logical devices.
#include "core/devices/devicereport.h"
#include "core/devices/partitionchoice.h"

#include <QtTest>

using namespace pitwall;

class TestDevicesReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cpuModeWithLogicalDevices();
    void cpuModeWithoutEnoughCores();
    void reportJsonHasEveryBackend();
    void partitionChangePlannedAndApplied();
    void recommendsTheMeasurablyFasterMode();
};

namespace {
std::unique_ptr<DeviceBackend> fourCores()
{
    return makeCpuBackend({0, 1, 2, 3}, std::int64_t(8) << 30, std::int64_t(4) << 30, "Test CPU");
}
} // namespace

void TestDevicesReport::cpuModeWithLogicalDevices()
{
    const BackendReport report = describeBackend(*fourCores(), PartitionMode::DPX);
    QCOMPARE(report.backend, std::string("cpu"));
    QVERIFY(report.modeProblem.empty());
    const QString text = QString::fromStdString(report.text);
    QVERIFY2(text.startsWith("cpu:0  Test CPU  4 cores  8.0 GiB memory (4.0 GiB available)\n"), qPrintable(text));
    QVERIFY2(text.contains("\npartition modes (cpu):\n  SPX  1 logical device(s) per device  available\n"),
             qPrintable(text));
    QVERIFY2(text.contains("  CPX  8 logical device(s) per device  unavailable: "), qPrintable(text));
    QVERIFY2(text.contains("\nlogical devices in DPX:\n  cpu:0.0  cores 0-1      2 thread(s)"), qPrintable(text));
    QVERIFY2(text.contains("  cpu:0.1  cores 2-3      2 thread(s)"), qPrintable(text));
    QCOMPARE(report.json["name"].get<std::string>(), std::string("cpu"));
    QCOMPARE(report.json["logical_devices"].size(), std::size_t(2));
    QCOMPARE(report.json["logical_devices"][1]["cpu_set"], nlohmann::json({2, 3}));
    QCOMPARE(report.json["devices"][0]["cores"].get<int>(), 4);
    QVERIFY(!report.json.contains("current_mode")); // GPU backends only
}

void TestDevicesReport::cpuModeWithoutEnoughCores()
{
    const BackendReport report = describeBackend(*fourCores(), PartitionMode::CPX);
    QVERIFY(!report.modeProblem.empty());
    QVERIFY(report.json["logical_devices"].empty());
    QVERIFY2(!QString::fromStdString(report.text).contains("logical devices in"),
             qPrintable(QString::fromStdString(report.text)));
}

void TestDevicesReport::reportJsonHasEveryBackend()
{
    const DevicesReport report = describeDevices(PartitionMode::SPX, "cpu");
    QCOMPARE(report.backends.size(), std::size_t(1));
    const nlohmann::json json = report.toJson();
    QCOMPARE(json["mode"].get<std::string>(), std::string("SPX"));
    QCOMPARE(json["backends"].size(), std::size_t(1));
    QVERIFY(json["problems"].is_array());
    QVERIFY(describeDevices(PartitionMode::SPX, "no-such-backend").backends.empty());
}

// `devices --set-partition`: if this fails, the plan no longer shows the command it would run, or an applied change
// reports success it did not have.
void TestDevicesReport::partitionChangePlannedAndApplied()
{
    PartitionChange change;
    change.command = {"sudo", "amd-smi", "set", "--compute-partition", "CPX"};
    QCOMPARE(partitionPlanText(change),
             std::string("would run: sudo amd-smi set --compute-partition CPX\n"
                         "Add --apply to run it (it needs root, and every GPU workload must stop first).\n"));
    QCOMPARE(partitionPlanJson(change), nlohmann::json({{"command", "sudo amd-smi set --compute-partition CPX"},
                                                        {"applied", false}}));
    QCOMPARE(partitionChangeText(change, PartitionMode::CPX), std::string()); // failed: the error goes to stderr
    change.applied = true;
    change.ok = true;
    change.gpusSet = {0, 1};
    QCOMPARE(partitionChangeText(change, PartitionMode::CPX),
             std::string("ran: sudo amd-smi set --compute-partition CPX\nCPX set on 2 GPU(s)\n"));
    const nlohmann::json json = partitionChangeJson(change);
    QVERIFY(json["applied"].get<bool>());
    QVERIFY(json["ok"].get<bool>());
    QCOMPARE(json["gpus_set"], nlohmann::json({0, 1}));
    QCOMPARE(json.size(), std::size_t(6));
}

// The partition mode recommended from stored measurements (no timing here: the figures are given). If this fails,
// Pitwall recommends a mode that ran out of memory, a mode that is slower, or more partitions for no gain.
void TestDevicesReport::recommendsTheMeasurablyFasterMode()
{
    // QPX is measurably faster (its best batch, 16: 400 against DPX's 300); CPX ran out of memory everywhere.
    const std::vector<PartitionMeasurement> faster{
        {"SPX", 1, 8, 150, 120}, {"SPX", 1, 16, 180, 150}, {"DPX", 2, 8, 320, 300}, {"DPX", 2, 16, 330, 290},
        {"QPX", 4, 8, 420, 380}, {"QPX", 4, 16, 450, 400}, {"CPX", 8, 8, -1, -1}, {"CPX", 8, 16, -1, -1}};
    PartitionChoice choice = choosePartition(faster);
    QCOMPARE(choice.recommended, std::optional<std::string>("QPX"));
    QCOMPARE(choice.modes.size(), std::size_t(4));
    QCOMPARE(choice.modes[2].batchSize, std::optional<long long>(16));
    QCOMPARE(choice.modes[2].computeFps, 450.0);
    QVERIFY(!choice.modes[3].fits());
    QCOMPARE(choice.reason, std::string("QPX (batch 16): 400.0 samples/s full FPS, 1.33x the next best, DPX (300.0)"));

    // Within 5 %: QPX 400 against DPX 390 is no measurable gain, so the mode with fewer logical devices.
    const std::vector<PartitionMeasurement> close{{"SPX", 1, 8, 200, 150}, {"DPX", 2, 8, 420, 390}, {"QPX", 4, 8, 450, 400}};
    choice = choosePartition(close);
    QCOMPARE(choice.recommended, std::optional<std::string>("DPX"));
    QVERIFY2(choice.reason.find("within 5 % of QPX (400.0) with fewer logical devices (2 against 4)") != std::string::npos,
             choice.reason.c_str());
    // With a 1 % margin the faster one again.
    QCOMPARE(choosePartition(close, 0.01).recommended, std::optional<std::string>("QPX"));

    // Nothing ran: no recommendation, and a reason that says so.
    const std::vector<PartitionMeasurement> none{{"SPX", 1, 8, -1, -1}};
    choice = choosePartition(none);
    QVERIFY(!choice.recommended);
    QVERIFY(choice.reason.starts_with("no mode ran"));
}

QTEST_GUILESS_MAIN(TestDevicesReport)
#include "tst_devices_report.moc"
