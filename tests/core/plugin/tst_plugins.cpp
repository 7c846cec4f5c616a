// The plugin loader accepts a good plugin and reports broken ones by file and reason.
#include "core/plugin/plugin.h"
#include "core/util/error.h"

#include <QtTest>

#include "tests/support/testpaths.h"

using namespace pitwall;
using pitwall::test::pathFromEnvironment;

class TestPlugins : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void scanLoadsGoodAndReportsBroken();
    void requirePluginNamesAlternatives();
    void manifestsListWithoutLoading();
    void checkComparesManifestWithLibrary();
};

namespace {
void writeFile(const QString& path, const QByteArray& text)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

QByteArray manifest(const char* name, const char* kind, const char* description, const QString& buildId)
{
    return QString(R"({"name": "%1", "kind": "%2", "description": "%3", "build_id": "%4"})")
        .arg(name, kind, description, buildId)
        .toUtf8();
}

QString joined(const std::vector<std::string>& lines)
{
    QString all;
    for (const std::string& line : lines)
        all += QString::fromStdString(line) + "\n";
    return all;
}
} // namespace

void TestPlugins::scanLoadsGoodAndReportsBroken()
{
    const PluginScan scan = scanPlugins({pathFromEnvironment("TEST_PLUGIN_DIR").toStdString()});
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
    const PluginScan scan = scanPlugins({pathFromEnvironment("TEST_PLUGIN_DIR").toStdString()});
    QCOMPARE(std::string(requirePlugin(scan, "good", PluginKind::Runner).info().name), std::string("good"));
    try {
        requirePlugin(scan, "missing", PluginKind::Runner);
        QFAIL("an absent plugin was found");
    } catch (const InputError& e) {
        QCOMPARE(QString(e.what()), QString("no runner plugin named 'missing'; available: good"));
    }
}

void TestPlugins::manifestsListWithoutLoading()
{
    QTemporaryDir dir;
    // Not a library at all: listed from its manifest all the same, which shows the listing opens no library.
    writeFile(dir.filePath("lazy.so"), "not an ELF file\n");
    writeFile(dir.filePath("lazy.plugin.json"), manifest("lazy", "dataset", "never loaded", pitwallBuildId()));
    writeFile(dir.filePath("bare.so"), "no manifest beside it\n");
    writeFile(dir.filePath("stale.so"), "\n");
    writeFile(dir.filePath("stale.plugin.json"), manifest("stale", "model", "", "pitwall 0.0.1, GNU 9.9.9, LibTorch 0.1"));
    writeFile(dir.filePath("broken.so"), "\n");
    writeFile(dir.filePath("broken.plugin.json"), R"({"name": "broken"})");
    const PluginListing listing = listPluginManifests({dir.path().toStdString()});
    QCOMPARE(listing.plugins.size(), std::size_t(1));
    QCOMPARE(listing.plugins[0].name, std::string("lazy"));
    QCOMPARE(listing.plugins[0].kind, PluginKind::Dataset);
    QCOMPARE(listing.plugins[0].description, std::string("never loaded"));
    QVERIFY(listing.plugins[0].schema.empty());
    const QString all = joined(listing.problems);
    QCOMPARE(listing.problems.size(), std::size_t(3));
    QVERIFY2(all.contains("bare.so: no manifest bare.plugin.json beside it"), qPrintable(all));
    QVERIFY2(all.contains("stale.plugin.json: plugin 'stale' was built by another build (pitwall 0.0.1, GNU 9.9.9, "
                          "LibTorch 0.1) than this Pitwall"),
             qPrintable(all));
    QVERIFY2(all.contains("broken.plugin.json: unreadable plugin manifest:"), qPrintable(all));
}

void TestPlugins::checkComparesManifestWithLibrary()
{
    QTemporaryDir dir;
    const QString good = pathFromEnvironment("TEST_PLUGIN_DIR") + "/tst_plugin_good.so";
    QVERIFY(QFile::copy(good, dir.filePath("good.so")));
    writeFile(dir.filePath("good.plugin.json"), manifest("good", "runner", "a plugin that loads", pitwallBuildId()));
    QVERIFY(QFile::copy(good, dir.filePath("later.so"))); // the library says "good", its manifest something older
    writeFile(dir.filePath("later.plugin.json"), manifest("later", "runner", "an older text", pitwallBuildId()));
    const std::vector<std::filesystem::path> folders{dir.path().toStdString()};
    const PluginListing listing = listPluginManifests(folders);
    QCOMPARE(listing.plugins.size(), std::size_t(2));
    const PluginScan scan = scanPlugins(folders);
    QCOMPARE(scan.plugins.size(), std::size_t(1)); // later.so (after good.so) loads as a second 'good' and is ignored
    QVERIFY(findManifest(listing, dir.filePath("good.so").toStdString()));
    QVERIFY(manifestMismatches(scan, listing).empty());
    // --check's listing: what the loaded library says, with the scan's problems.
    const PluginListing checked = checkPlugins(folders);
    QCOMPARE(checked.plugins.size(), std::size_t(1));
    QCOMPARE(checked.plugins[0].name, std::string("good"));
    QCOMPARE(checked.plugins[0].kind, PluginKind::Runner);
    QCOMPARE(checked.plugins[0].description, std::string("a plugin that loads"));
    QCOMPARE(checked.plugins[0].buildId, std::string(pitwallBuildId()));
    QVERIFY2(joined(checked.problems).contains("later.so: plugin 'good' is already loaded from an earlier folder"),
             qPrintable(joined(checked.problems)));
    // Loaded under its own file name, the later copy disagrees with its manifest on name and description.
    PluginScan onlyLater;
    onlyLater.plugins.push_back(PluginLibrary::open(dir.filePath("later.so").toStdString()));
    const QString all = joined(manifestMismatches(onlyLater, listing));
    QVERIFY2(all.contains("later.so: the manifest's name is 'later', the library's 'good'"), qPrintable(all));
    QVERIFY2(all.contains("later.so: the manifest's description is 'an older text', the library's 'a plugin that loads'"),
             qPrintable(all));
    QVERIFY2(!all.contains("kind") && !all.contains("build id"), qPrintable(all));
}

QTEST_GUILESS_MAIN(TestPlugins)
#include "tst_plugins.moc"
