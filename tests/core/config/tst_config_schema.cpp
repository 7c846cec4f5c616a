// The schema registry: core's keys, plugin schema files, and malformed schema files.
#include "configtestutil.h"

#include "core/config/schema.h"

#include <QtTest>

#include <cstdlib>

using namespace pitwall;

class TestConfigSchema : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void builtinKeysAreComplete();
    void pluginSchemaFilesAddKeys();
    void brokenPluginSchemaIsLeftOutAndReported();
    void malformedSchema_data();
    void malformedSchema();
    void jsonListsEveryKey();
};

void TestConfigSchema::builtinKeysAreComplete()
{
    const Schema schema = builtinSchema();
    QVERIFY(schema.keys().size() >= 20);
    for (const KeySpec& spec : schema.keys()) {
        QVERIFY2(!spec.doc.empty(), spec.key.c_str());
        QVERIFY2(!spec.group.empty(), spec.key.c_str());
        QCOMPARE(spec.owner, std::string("core"));
        QVERIFY2(spec.check(spec.defaultValue).empty(), spec.key.c_str());
    }
    const KeySpec* batch = schema.find("training.optimization.batch_size");
    QVERIFY(batch);
    QCOMPARE(batch->type, ValueType::Int);
    QCOMPARE(batch->defaultValue.asInt(), 64LL);
    QVERIFY(batch->speed);
    QCOMPARE(batch->expectation(), std::string("an integer in [1, 65536]"));
    QVERIFY(schema.hasSection("training.optimization"));
    QVERIFY(!schema.hasSection("training.optim"));
}

void TestConfigSchema::pluginSchemaFilesAddKeys()
{
    // The test environment points PITWALL_PLUGIN_PATH at the build's plugin folder.
    const Schema schema = loadSchema();
    const KeySpec* mode = schema.find("policy.transfuser.upsample_mode");
    QVERIFY(mode);
    QCOMPARE(mode->owner, std::string("transfuser"));
    QCOMPARE(mode->choices, (std::vector<std::string>{"bilinear", "nearest"}));
    QVERIFY(mode->declaredAt.line > 0);
    // TransFuser-lite plans waypoints (`drives: true`); AutoSpeed-lite and core do not.
    QVERIFY(schema.drives("transfuser"));
    QVERIFY(!schema.drives("autospeed"));
    QVERIFY(!schema.drives("core"));
}

void TestConfigSchema::brokenPluginSchemaIsLeftOutAndReported()
{
    QTemporaryDir dir;
    writeFile(dir, "good.schema.yaml", "owner: good\nkeys:\n  good.alpha: {type: float, default: 0.5, min: 0, max: 1, doc: a}\n");
    writeFile(dir, "broken.schema.yaml", "owner: broken\nkeys:\n  broken.ok: {type: int, default: 1, doc: fine}\n"
                                         "  broken.bad: {type: int, default: x}\n");
    const QByteArray saved = qgetenv("PITWALL_PLUGIN_PATH");
    qputenv("PITWALL_PLUGIN_PATH", dir.path().toUtf8());
    std::vector<Diagnostic> problems;
    const Schema schema = loadSchema(&problems);
    qputenv("PITWALL_PLUGIN_PATH", saved);
    QVERIFY(schema.find("good.alpha"));
    QVERIFY2(!schema.find("broken.ok"), "a broken schema file must add no key at all");
    QCOMPARE(problems.size(), std::size_t(1));
    QCOMPARE(problems[0].where.line, 4);
    QVERIFY2(problems[0].message.find("bad default for 'broken.bad': expected an integer, got 'x'") != std::string::npos,
             problems[0].message.c_str());
}

void TestConfigSchema::malformedSchema_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown type") << QByteArray("owner: p\nkeys:\n  p.k: {type: complex, default: 1}\n")
                                  << "s.yaml:3:15: unknown type 'complex'";
    QTest::newRow("choice without choices") << QByteArray("owner: p\nkeys:\n  p.k: {type: choice, default: a}\n")
                                            << "s.yaml:3:3: choice key 'p.k' needs 'choices'";
    QTest::newRow("default out of range") << QByteArray("owner: p\nkeys:\n  p.k: {type: int, default: 5, max: 3}\n")
                                          << "bad default for 'p.k': 5 is above the maximum 3";
    QTest::newRow("no default") << QByteArray("owner: p\nkeys:\n  p.k: {type: int}\n") << "key 'p.k' needs a 'default'";
    QTest::newRow("unknown field") << QByteArray("owner: p\nkeys:\n  p.k: {type: int, default: 1, unit: ms}\n")
                                   << "unknown schema field 'unit'";
    QTest::newRow("duplicate of core key")
        << QByteArray("owner: p\nkeys:\n  training.optimization.batch_size: {type: int, default: 1}\n")
        << "key 'training.optimization.batch_size' is already declared by 'core'";
    QTest::newRow("no keys") << QByteArray("owner: p\n") << "a schema file needs 'owner: NAME' and a 'keys:' mapping";
    // Found by tests/fuzz/fuzz_schema (corpus/schema/crash-mapping-as-key-name): a mapping where a name belongs
    // escaped as YAML::TypedBadConversion and aborted whatever loaded the plugin folder.
    QTest::newRow("mapping as a key name")
        << QByteArray("owner: p\nkeys:\n  ? {type: int}\n  : {type: int, default: 1}\n") << "s.yaml:3:5: malformed field: bad conversion";
    QTest::newRow("mapping as the owner") << QByteArray("owner: {a: 1}\nkeys:\n  p.k: {type: int, default: 1}\n")
                                          << "malformed 'owner' or 'metrics': bad conversion";
    QTest::newRow("mapping as a metric name")
        << QByteArray("owner: p\nmetrics:\n  ? [a]\n  : doc\nkeys:\n  p.k: {type: int, default: 1}\n")
        << "malformed 'owner' or 'metrics': bad conversion";
    QTest::newRow("drives not a bool") << QByteArray("owner: p\ndrives: sometimes\nkeys:\n  p.k: {type: int, default: 1}\n")
                                       << "s.yaml:2:9: 'drives:' must be true or false";
}

void TestConfigSchema::malformedSchema()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, expected);
    Schema schema = builtinSchema();
    const std::size_t before = schema.keys().size();
    try {
        schema.addFromYaml(yaml.toStdString(), "s.yaml");
        QFAIL("the schema was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
    QCOMPARE(schema.keys().size(), before);
}

void TestConfigSchema::jsonListsEveryKey()
{
    const Schema schema = loadSchema();
    const nlohmann::json j = schema.toJson();
    QCOMPARE(j["keys"].size(), schema.keys().size());
    bool foundSpeed = false;
    for (const auto& key : j["keys"])
        if (key["key"] == "policy.transfuser.upsample_perspective_logits") {
            foundSpeed = key["speed"].get<bool>();
            QCOMPARE(key["type"].get<std::string>(), std::string("bool"));
        }
    QVERIFY(foundSpeed);
}

QTEST_GUILESS_MAIN(TestConfigSchema)
#include "tst_config_schema.moc"
