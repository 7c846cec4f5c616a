// The CPU backend: what this process may use, and splitting cores into logical devices per mode.
#include "core/devices/devices.h"
#include "core/util/error.h"
#include "tests/support/components.h"

#include <QtTest>

#include <sched.h>
#include <set>

using namespace pitwall;

class TestDevicesCpu : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void realBackendMatchesAffinity();
    void realModesPartitionTheAffinityMask_data();
    void realModesPartitionTheAffinityMask();
    void modesSplitCores_data();
    void modesSplitCores();
    void modeNeedingMoreCoresIsUnavailable();
    void modeNames();
    void cpuListsReadAsLinuxWritesThem();
};

void TestDevicesCpu::realBackendMatchesAffinity()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    QCOMPARE(sched_getaffinity(0, sizeof set, &set), 0);
    const auto cpu = makeCpuBackend();
    const auto devices = cpu->physicalDevices();
    QCOMPARE(devices.size(), std::size_t(1));
    QCOMPARE(devices[0].cores, CPU_COUNT(&set));
    QVERIFY(devices[0].memoryBytes > (std::int64_t(256) << 20));
    QVERIFY(devices[0].memoryAvailableBytes <= devices[0].memoryBytes);
    const auto spx = cpu->logicalDevices(PartitionMode::SPX);
    QCOMPARE(spx.size(), std::size_t(1));
    QCOMPARE(spx[0].threads, CPU_COUNT(&set));
}

// The cores this process may run on, read from the kernel here and not through the backend.
std::set<int> affinityMask()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return {};
    std::set<int> cores;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set))
            cores.insert(c);
    return cores;
}

void TestDevicesCpu::realModesPartitionTheAffinityMask_data()
{
    QTest::addColumn<QString>("mode");
    QTest::newRow("SPX") << "SPX";
    QTest::newRow("DPX") << "DPX"; // always a row: on one core it is a visible skip, never a silent drop
    // The larger modes are extras where the machine has the cores (modesSplitCores covers them everywhere).
    for (const char* mode : {"QPX", "CPX"})
        if (static_cast<int>(affinityMask().size()) >= partitionsPerDevice(*parsePartitionMode(mode)))
            QTest::newRow(mode) << mode;
}

// Each mode of the real backend splits exactly this process's affinity mask: the logical devices' CPU sets are
// disjoint, each is non-empty with as many threads as cores, and together they are the mask, checked against
// sched_getaffinity. If this fails, two workers would share a core or a core would stay idle.
void TestDevicesCpu::realModesPartitionTheAffinityMask()
{
    QFETCH(QString, mode);
    const std::set<int> mask = affinityMask();
    QVERIFY(!mask.empty());
    const PartitionMode partition = *parsePartitionMode(mode.toStdString());
    if (static_cast<int>(mask.size()) < partitionsPerDevice(partition))
        PITWALL_SKIP_OPTIONAL(qPrintable(QStringLiteral("%1 needs %2 cores; this process may use %3")
                                             .arg(mode)
                                             .arg(partitionsPerDevice(partition))
                                             .arg(mask.size())));
    const auto logical = makeCpuBackend()->logicalDevices(partition);
    QCOMPARE(static_cast<int>(logical.size()), partitionsPerDevice(partition));
    std::set<int> seen;
    for (const LogicalDevice& d : logical) {
        QVERIFY2(!d.cpuSet.empty(), d.id.c_str());
        QCOMPARE(static_cast<int>(d.cpuSet.size()), d.threads);
        for (int c : d.cpuSet)
            QVERIFY2(seen.insert(c).second, qPrintable(QStringLiteral("core %1 is in two logical devices").arg(c)));
    }
    QCOMPARE(seen, mask);
}

void TestDevicesCpu::modesSplitCores_data()
{
    QTest::addColumn<int>("cores");
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QList<int>>("threadsPerDevice");
    QTest::newRow("2 cores SPX") << 2 << "SPX" << QList<int>{2};
    QTest::newRow("2 cores DPX") << 2 << "DPX" << QList<int>{1, 1};
    QTest::newRow("16 cores CPX") << 16 << "CPX" << QList<int>{2, 2, 2, 2, 2, 2, 2, 2};
    QTest::newRow("10 cores QPX") << 10 << "QPX" << QList<int>{3, 3, 2, 2};
}

void TestDevicesCpu::modesSplitCores()
{
    QFETCH(int, cores);
    QFETCH(QString, mode);
    QFETCH(QList<int>, threadsPerDevice);
    std::vector<int> ids;
    for (int c = 0; c < cores; ++c)
        ids.push_back(100 + c);
    const auto cpu = makeCpuBackend(ids, std::int64_t(16) << 30, std::int64_t(8) << 30, "test cpu");
    const auto logical = cpu->logicalDevices(*parsePartitionMode(mode.toStdString()));
    QCOMPARE(static_cast<int>(logical.size()), threadsPerDevice.size());
    std::set<int> seen;
    for (std::size_t i = 0; i < logical.size(); ++i) {
        QCOMPARE(logical[i].threads, threadsPerDevice[static_cast<int>(i)]);
        QCOMPARE(static_cast<int>(logical[i].cpuSet.size()), logical[i].threads);
        QCOMPARE(logical[i].environment.at("OMP_NUM_THREADS"), std::to_string(logical[i].threads));
        QCOMPARE(logical[i].id, "cpu:0." + std::to_string(i));
        QCOMPARE(logical[i].memoryBytes, (std::int64_t(16) << 30) / static_cast<std::int64_t>(logical.size()));
        for (int c : logical[i].cpuSet)
            QVERIFY2(seen.insert(c).second, "a core is in two logical devices");
    }
    QCOMPARE(static_cast<int>(seen.size()), cores);
}

void TestDevicesCpu::modeNeedingMoreCoresIsUnavailable()
{
    const auto cpu = makeCpuBackend({0, 1}, 1 << 30, 1 << 30, "two cores");
    int available = 0;
    for (const ModeAvailability& m : cpu->modes()) {
        available += m.available;
        if (m.mode == PartitionMode::QPX) {
            QVERIFY(!m.available);
            QCOMPARE(m.why, std::string("QPX needs 4 cores (one per logical device); this process may use 2"));
        }
    }
    QCOMPARE(available, 2);
    QVERIFY_THROWS_EXCEPTION(InputError, cpu->logicalDevices(PartitionMode::CPX));
}

void TestDevicesCpu::modeNames()
{
    QCOMPARE(parsePartitionMode("cpx").value(), PartitionMode::CPX);
    QVERIFY(!parsePartitionMode("TPX").has_value());
    QCOMPARE(partitionsPerDevice(PartitionMode::QPX), 4);
}

void TestDevicesCpu::cpuListsReadAsLinuxWritesThem()
{
    QCOMPARE(formatCpuList({}), std::string());
    QCOMPARE(formatCpuList({4}), std::string("4"));
    QCOMPARE(formatCpuList({0, 1, 2, 3}), std::string("0-3"));
    QCOMPARE(formatCpuList({0, 1, 2, 3, 6, 8, 9}), std::string("0-3,6,8-9"));
    QCOMPARE(formatCpuList({1, 3, 5}), std::string("1,3,5"));
}

PITWALL_TEST_MAIN(TestDevicesCpu)
#include "tst_devices_cpu.moc"
