// The loader training table of `pitwall bench variants` (table: loader, as configs/autospeed/loader_training.yaml):
// the file's fields are checked (a compare_to naming no other variant and an unknown table kind are file:line
// errors), and speed-up and CPU saving are computed against the named variant as the DALI evaluation does
// (917 ms -> 813 ms is x 1.13, CPU 3.4 % -> 1.4 % is a 59 % saving).
#include "core/config/schema.h"
#include "core/engine/train/variants.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "tests/support/testpaths.h"

using pitwall::test::sourceFile;

using namespace pitwall;

class TestLoaderTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fileFields();
    void speedUpAndSaving();
    void shippedBenchFileReads();

private:
    std::string write(const char* name, const std::string& text)
    {
        const std::string path = m_dir.filePath(name).toStdString();
        std::ofstream(path) << text;
        return path;
    }
    QTemporaryDir m_dir;
};

void TestLoaderTable::fileFields()
{
    const std::string variants = "variants:\n  - {name: Ref}\n  - {name: Fast, compare_to: Ref}\n";
    const engine::VariantsFile file = engine::readVariantsFile(write("ok.yaml", "table: loader\n" + variants));
    QVERIFY(file.table == engine::VariantsTableKind::Loader);
    QCOMPARE(file.variants[1].compareTo, std::string("Ref"));
    QVERIFY(engine::readVariantsFile(write("plain.yaml", variants)).table == engine::VariantsTableKind::Speed);
    try {
        engine::readVariantsFile(write("bad.yaml", "table: loader\nvariants:\n  - {name: Ref}\n  - {name: Fast, compare_to: Rf}\n"));
        QFAIL("a compare_to naming no variant was accepted");
    } catch (const InputError& e) {
        const QString text = QString::fromStdString(e.what());
        QVERIFY2(text.contains("bad.yaml:4:") && text.contains("compare_to 'Rf' is not another variant"), qPrintable(text));
    }
    try {
        engine::readVariantsFile(write("kind.yaml", "table: dali\n" + variants));
        QFAIL("an unknown table kind was accepted");
    } catch (const InputError& e) {
        const QString text = QString::fromStdString(e.what());
        QVERIFY2(text.contains("kind.yaml:1:") && text.contains("'table' must be speed or loader"), qPrintable(text));
    }
}

void TestLoaderTable::speedUpAndSaving()
{
    engine::VariantsFile file;
    file.table = engine::VariantsTableKind::Loader;
    file.variants = {{"Reference", {}, {}, ""}, {"Pitwall", {}, {}, "Reference"}};
    engine::VariantResult reference, pitwall;
    reference.name = "Reference";
    reference.msPerIteration = meanStd({917});
    reference.cpuPercent = 3.4;
    pitwall.name = "Pitwall";
    pitwall.msPerIteration = meanStd({813});
    pitwall.cpuPercent = 1.4;
    const Table table = engine::variantsTable(file, {reference, pitwall});
    QCOMPARE(table.header(), (std::vector<std::string>{"Variant", "Runtime per iteration (ms)", "CPU usage (%)",
                                                      "Speed-up", "CPU saving"}));
    QCOMPARE(table.rows()[0][3], std::string("–"));
    QCOMPARE(table.rows()[1][3], std::string("× 1.13"));
    QCOMPARE(table.rows()[1][4], std::string("59 %"));
    QVERIFY(engine::variantsLegend(file).find("compare_to") != std::string::npos);
}

void TestLoaderTable::shippedBenchFileReads()
{
    // The bench file of the repository: four variants, each Pitwall one compared with its reference.
    const engine::VariantsFile file = engine::readVariantsFile(sourceFile("/configs/autospeed/loader_training.yaml"));
    QVERIFY(file.table == engine::VariantsTableKind::Loader);
    QCOMPARE(file.variants.size(), std::size_t(4));
    const Schema schema = loadSchema();
    for (const engine::VariantSpec& v : file.variants) {
        const ResolvedConfig config = engine::resolveVariant(schema, file, v, {});
        const bool reference = config.getString("data.loader") == "reference";
        QCOMPARE(v.compareTo.empty(), reference);
        QCOMPARE(config.getInt("training.distribution.logical_devices") > 1,
                 config.getBool("data.replicate_dataset_per_device"));
    }
}

QTEST_GUILESS_MAIN(TestLoaderTable)
#include "tst_loader_table.moc"
