// The plugin loader accepts a good plugin and reports broken ones by file and reason.
#include "core/plugin/plugin.h"
#include "core/util/error.h"

#include <QtTest>

using namespace pitwall;

class TestPlugins : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void scanLoadsGoodAndReportsBroken();
    void requirePluginNamesAlternatives();
};

void TestPlugins::scanLoadsGoodAndReportsBroken()
{
    const PluginScan scan = scanPlugins({TEST_PLUGIN_DIR});
    QCOMPARE(scan.plugins.size(), std::size_t(1));
    const PluginLibrary& good = scan.plugins[0];
    QCOMPARE(std::string(good.info().name), std::string("good"));
    QCOMPARE(good.info().kind, PluginKind::Runner);
    auto answer = reinterpret_cast<int (*)()>(good.symbol("pitwall_test_answer"));
    QVERIFY(answer);
    QCOMPARE(answer(), 42);

    QCOMPARE(scan.problems.size(), std::size_t(4));
    QString all;
    for (const std::string& p : scan.problems)
        all += QString::fromStdString(p) + "\n";
    QVERIFY2(all.contains("no_info.so: not a Pitwall plugin: it exports no 'pitwall_plugin_info'"), qPrintable(all));
    QVERIFY2(all.contains("wrong_abi.so: plugin 'wrong_abi' was built for plugin ABI 101"), qPrintable(all));
    // A plugin of another build (another Pitwall, compiler or LibTorch) is refused, saying which and why.
    QVERIFY2(all.contains("other_build.so: plugin 'other_build' was built by another build (pitwall 0.0.1, GNU 9.9.9, "
                          "LibTorch 0.1) than this Pitwall (" + QString(pitwallBuildId()) + "); its C++ interface must match"),
             qPrintable(all));
    QVERIFY2(all.contains("not_a_library.so: cannot load plugin:"), qPrintable(all));
}

void TestPlugins::requirePluginNamesAlternatives()
{
    const PluginScan scan = scanPlugins({TEST_PLUGIN_DIR});
    QCOMPARE(std::string(requirePlugin(scan, "good", PluginKind::Runner).info().name), std::string("good"));
    try {
        requirePlugin(scan, "missing", PluginKind::Runner);
        QFAIL("an absent plugin was found");
    } catch (const InputError& e) {
        QCOMPARE(QString(e.what()), QString("no runner plugin named 'missing'; available: good"));
    }
}

QTEST_GUILESS_MAIN(TestPlugins)
#include "tst_plugins.moc"
