// Layering of defaults, files, documents, includes and overrides, and where each value came from.
#include "configtestutil.h"

#include "core/config/config.h"

#include <QtTest>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;

class TestConfigLayering : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsWhenNothingIsGiven();
    void laterFilesOverrideEarlierOnes();
    void documentsInOneFileApplyInOrder();
    void includesApplyFirstAndResolveRelativeToTheFile();
    void overridesApplyLastWithTypes();
    void originsNameFileLineAndColumn();
    void yamlOutputReadsBackToTheSameValues();
    void shippedConfigsValidate_data();
    void shippedConfigsValidate();
    void setValidatesAgainstTheSchema();
};

void TestConfigLayering::defaultsWhenNothingIsGiven()
{
    const Schema schema = loadSchema();
    const ResolvedConfig config = resolveConfig(schema, {}, {});
    QCOMPARE(config.getInt("training.optimization.batch_size"), 64LL);
    QCOMPARE(config.getString("policy.transfuser.upsample_mode"), std::string("bilinear"));
    QCOMPARE(config.entry("training.optimization.batch_size").origin.kind, OriginKind::Default);
    QVERIFY(config.changedEntries().empty());
}

void TestConfigLayering::laterFilesOverrideEarlierOnes()
{
    QTemporaryDir dir;
    const auto a = writeFile(dir, "a.yaml", "training:\n  optimization:\n    batch_size: 96\n    lr: 0.001\n");
    const auto b = writeFile(dir, "b.yaml", "training.optimization.batch_size: 128\n");
    const ResolvedConfig config = resolveConfig(loadSchema(), {a, b}, {});
    QCOMPARE(config.getInt("training.optimization.batch_size"), 128LL);
    QCOMPARE(config.getDouble("training.optimization.lr"), 0.001);
    QCOMPARE(config.entry("training.optimization.lr").origin.where.file, a);
    QCOMPARE(config.entry("training.optimization.batch_size").origin.where.file, b);
    QCOMPARE(config.changedEntries().size(), std::size_t(2));
}

void TestConfigLayering::documentsInOneFileApplyInOrder()
{
    QTemporaryDir dir;
    const auto f = writeFile(dir, "multi.yaml",
                             "training.optimization.batch_size: 32\n---\n"
                             "training.optimization.batch_size: 48\nexperiment.name: second\n");
    const ResolvedConfig config = resolveConfig(loadSchema(), {f}, {});
    QCOMPARE(config.getInt("training.optimization.batch_size"), 48LL);
    QCOMPARE(config.entry("training.optimization.batch_size").origin.where.line, 3);
    QCOMPARE(config.getString("experiment.name"), std::string("second"));
}

void TestConfigLayering::includesApplyFirstAndResolveRelativeToTheFile()
{
    QTemporaryDir dir;
    writeFile(dir, "base/common.yaml", "training.optimization.batch_size: 16\nexperiment.name: base\n");
    writeFile(dir, "base/model.yaml", "include: common.yaml\npolicy.transfuser.upsample_mode: nearest\n");
    const auto top = writeFile(dir, "exp.yaml", "include: [base/model.yaml]\nexperiment.name: top\n");
    const ResolvedConfig config = resolveConfig(loadSchema(), {top}, {});
    QCOMPARE(config.getInt("training.optimization.batch_size"), 16LL);
    QCOMPARE(config.getString("policy.transfuser.upsample_mode"), std::string("nearest"));
    // The including file wins over what it includes, wherever `include:` stands.
    QCOMPARE(config.getString("experiment.name"), std::string("top"));
}

void TestConfigLayering::overridesApplyLastWithTypes()
{
    QTemporaryDir dir;
    const auto f = writeFile(dir, "a.yaml", "training.optimization.batch_size: 32\n");
    const ResolvedConfig config = resolveConfig(
        loadSchema(), {f},
        {"training.optimization.batch_size=96", "policy.transfuser.upsample_mode=nearest",
         "training.optimization.use_torch_compile=false", "experiment.seeds=[3, 4, 5]", "training.optimization.lr=1e-3"});
    QCOMPARE(config.getInt("training.optimization.batch_size"), 96LL);
    QCOMPARE(config.getString("policy.transfuser.upsample_mode"), std::string("nearest"));
    QCOMPARE(config.getBool("training.optimization.use_torch_compile"), false);
    QCOMPARE(config.value("experiment.seeds").asIntList(), (std::vector<long long>{3, 4, 5}));
    QCOMPARE(config.getDouble("training.optimization.lr"), 1e-3);
    const ValueOrigin& origin = config.entry("training.optimization.batch_size").origin;
    QCOMPARE(origin.kind, OriginKind::Override);
    QCOMPARE(origin.toString(), std::string("override 'training.optimization.batch_size=96'"));
}

void TestConfigLayering::originsNameFileLineAndColumn()
{
    QTemporaryDir dir;
    const auto f = writeFile(dir, "o.yaml", "# comment\ntraining:\n  optimization:\n    batch_size: 8\n");
    const ResolvedConfig config = resolveConfig(loadSchema(), {f}, {});
    const SourceLocation where = config.entry("training.optimization.batch_size").origin.where;
    QCOMPARE(where.line, 4);
    QCOMPARE(where.column, 5);
    QCOMPARE(config.entry("training.optimization.batch_size").origin.toString(), f + ":4:5");
    const std::string yaml = config.toYaml(true, true);
    QVERIFY2(yaml.find("batch_size: 8  # " + f + ":4:5") != std::string::npos, yaml.c_str());
}

void TestConfigLayering::yamlOutputReadsBackToTheSameValues()
{
    const Schema schema = loadSchema();
    const ResolvedConfig config =
        resolveConfig(schema, {}, {"experiment.name=yes", "data.root=/data/x: y", "experiment.seeds=[7]",
                                   "training.optimization.lr=2.5e-05", "policy.transfuser.use_depth=false"});
    const ResolvedConfig again = resolveConfigText(schema, config.toYaml(), "roundtrip.yaml");
    for (const ConfigEntry& e : config.entries())
        QVERIFY2(again.value(e.spec.key) == e.value, e.spec.key.c_str());
    QCOMPARE(again.getString("experiment.name"), std::string("yes"));
    QCOMPARE(again.getString("data.root"), std::string("/data/x: y"));
    QCOMPARE(config.toJson()["training"]["optimization"]["lr"].get<double>(), 2.5e-05);
}

void TestConfigLayering::shippedConfigsValidate_data()
{
    QTest::addColumn<QString>("file");
    QDirIterator it(sourcePath("/configs"), {"*.yaml"}, QDir::Files, QDirIterator::Subdirectories);
    int count = 0;
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        file.open(QIODevice::ReadOnly);
        const QByteArray text = file.readAll();
        // Search spaces and variant lists are not experiment configs (their own tests read them).
        if (path.contains("/hpo/") || text.contains("\nvariants:"))
            continue;
        QTest::newRow(qPrintable(QDir(sourcePath()).relativeFilePath(path))) << path;
        ++count;
    }
    QVERIFY(count >= 8);
}

void TestConfigLayering::shippedConfigsValidate()
{
    QFETCH(QString, file);
    try {
        resolveConfig(loadSchema(), {file.toStdString()}, {});
    } catch (const InputError& e) {
        QFAIL(e.what());
    }
}

void TestConfigLayering::setValidatesAgainstTheSchema()
{
    ResolvedConfig config = resolveConfig(loadSchema(), {}, {});
    config.setFromText("training.optimization.batch_size", "24", {OriginKind::Program, {}, "search space"});
    QCOMPARE(config.getInt("training.optimization.batch_size"), 24LL);
    QCOMPARE(config.entry("training.optimization.batch_size").origin.toString(), std::string("search space"));
    QVERIFY_THROWS_EXCEPTION(InputError, config.setFromText("training.optimization.batch_size", "0", {}));
    QVERIFY_THROWS_EXCEPTION(InputError, config.set("training.optimization.batch_size", ConfigValue("x"), {}));
    QVERIFY_THROWS_EXCEPTION(InputError, config.setFromText("no.such.key", "1", {}));
    QCOMPARE(config.getInt("training.optimization.batch_size"), 24LL); // failed sets change nothing
}

QTEST_GUILESS_MAIN(TestConfigLayering)
#include "tst_config_layering.moc"
