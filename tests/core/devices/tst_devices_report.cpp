// What `pitwall devices` shows (core/devices/devicereport.h), on a CPU backend of known cores: the text lines and
// JSON fields that scripts and the window read. If this fails, the device listing changed shape or a mode that
// the cores cannot give is reported as if it had logical devices.
#include "core/devices/devicereport.h"

#include <QtTest>

using namespace pitwall;

class TestDevicesReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cpuModeWithLogicalDevices();
    void cpuModeWithoutEnoughCores();
    void reportJsonHasEveryBackend();
    void partitionChangePlannedAndApplied();
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

QTEST_GUILESS_MAIN(TestDevicesReport)
#include "tst_devices_report.moc"
