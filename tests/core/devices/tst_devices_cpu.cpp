// The CPU backend: what this process may use, and splitting cores into logical devices per mode.
#include "core/devices/devices.h"
#include "core/util/error.h"

#include <QtTest>

#include <sched.h>
#include <set>

using namespace pitwall;

class TestDevicesCpu : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void realBackendMatchesAffinity();
    void modesSplitCores_data();
    void modesSplitCores();
    void modeNeedingMoreCoresIsUnavailable();
    void modeNames();
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

QTEST_GUILESS_MAIN(TestDevicesCpu)
#include "tst_devices_cpu.moc"
