// The engine links LibTorch and reports what it can do, through a header without torch in it.
#include "core/engine/engineinfo.h"

#include <QtTest>

class TestEngineInfo : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void reportsLinkedLibTorch();
};

void TestEngineInfo::reportsLinkedLibTorch()
{
    const pitwall::EngineInfo info = pitwall::engineInfo();
    QVERIFY2(!info.torchVersion.empty(), "no LibTorch version");
    QVERIFY(info.torchVersion[0] >= '1' && info.torchVersion[0] <= '9');
    QVERIFY(info.intraOpThreads >= 1);
    QCOMPARE(info.gpuCount > 0, info.cudaAvailable);
}

QTEST_GUILESS_MAIN(TestEngineInfo)
#include "tst_engine_info.moc"
