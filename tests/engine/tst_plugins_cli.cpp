// `pitwall plugins` lists the model plugins from their manifests without loading LibTorch, and the listing is what
// the loaded plugins say about themselves (`pitwall plugins --check`, which does load them).
#include "../cli/clitestutil.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

class TestPluginsCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void listingLoadsNoLibTorch();
    void listingEqualsLoadedPlugins();
};

namespace {
QProcessEnvironment loaderTrace()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("LD_DEBUG", "files"); // the dynamic loader names every library it opens on stderr
    return env;
}

QJsonObject jsonOf(const CliResult& r)
{
    // With LD_DEBUG the loader writes to stderr only, so stdout is the JSON document alone.
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

// "name kind description" per plugin, in listing order.
QStringList rows(const QJsonObject& listing)
{
    QStringList out;
    for (const QJsonValue& p : listing["plugins"].toArray())
        out << p["name"].toString() + " " + p["kind"].toString() + " " + p["description"].toString();
    return out;
}
} // namespace

void TestPluginsCli::listingLoadsNoLibTorch()
{
    for (const QStringList& args : {QStringList{"plugins"}, QStringList{"plugins", "--json"}}) {
        const CliResult r = runCli(args, QString(), loaderTrace());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(500)));
        QVERIFY2(!r.err.contains("libtorch"), qPrintable(args.join(' ') + " loaded LibTorch"));
        QVERIFY2(!r.err.contains("transfuser.so") && !r.err.contains("autospeed.so"),
                 qPrintable(args.join(' ') + " opened a plugin library"));
        QVERIFY2(r.err.contains("libpitwall_core"), "LD_DEBUG printed nothing: the check would prove nothing");
    }
    // --check really loads them, and LibTorch with them.
    const CliResult check = runCli({"plugins", "--check"}, QString(), loaderTrace());
    QVERIFY2(check.exitCode == 0, qPrintable(check.err.right(500)));
    QVERIFY(check.err.contains("libtorch"));
    QVERIFY(check.out.contains("checked: every plugin loads and matches its manifest and this build"));
}

void TestPluginsCli::listingEqualsLoadedPlugins()
{
    const CliResult listed = runCli({"plugins", "--json"});
    const CliResult loaded = runCli({"plugins", "--check", "--json"});
    QCOMPARE(listed.exitCode, 0);
    QCOMPARE(loaded.exitCode, 0);
    const QJsonObject fromManifests = jsonOf(listed);
    const QJsonObject fromLibraries = jsonOf(loaded);
    QCOMPARE(fromManifests["checked"].toBool(), false);
    QCOMPARE(fromLibraries["checked"].toBool(), true);
    QVERIFY2(fromLibraries["problems"].toArray().isEmpty(), qPrintable(loaded.out));
    QVERIFY2(fromManifests["problems"].toArray().isEmpty(), qPrintable(listed.out));
    const QStringList names = rows(fromManifests);
    QCOMPARE(names, rows(fromLibraries));
    QVERIFY2(names.join('\n').contains("autospeed model AutoSpeed-lite"), qPrintable(names.join('\n')));
    QVERIFY2(names.join('\n').contains("transfuser model TransFuser-lite"), qPrintable(names.join('\n')));
    // Each model plugin names its schema file, and that file is there beside the library.
    for (const QJsonValue& p : fromManifests["plugins"].toArray()) {
        const QString schema = p["schema"].toString();
        QVERIFY2(schema.endsWith(p["name"].toString() + ".schema.yaml"), qPrintable(schema));
        QVERIFY2(QFileInfo::exists(schema), qPrintable(schema));
    }
}

QTEST_GUILESS_MAIN(TestPluginsCli)
#include "tst_plugins_cli.moc"
