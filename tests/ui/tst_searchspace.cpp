// The search-space editor against AutoSpeed's YAML files: loading and saving must not change what a file
// means (otherwise a search saved from the window samples a different space than the one loaded), and bad
// rows must be flagged where they are.
#include "ui/configure/internal/searchspaceeditor.h"
#include "ui/configure/searchspace.h"

#include "core/config/schema.h"

#include <QDir>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;

namespace {
// Parsed content as JSON: numbers as numbers, so "1.0e-4" and "0.0001" would compare equal; mappings keep keys.
nlohmann::json canonical(const YAML::Node& node)
{
    if (node.IsMap()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& item : node)
            out[item.first.Scalar()] = canonical(item.second);
        return out;
    }
    if (node.IsSequence()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& item : node)
            out.push_back(canonical(item));
        return out;
    }
    if (node.IsNull())
        return nullptr;
    const std::string& text = node.Scalar();
    if (node.Tag() != "!") { // plain scalars: numbers and booleans as YAML reads them
        try {
            std::size_t used = 0;
            const double v = std::stod(text, &used);
            if (used == text.size())
                return v;
        } catch (const std::exception&) {
        }
        if (text == "true" || text == "false")
            return text == "true";
    }
    return text;
}

nlohmann::json parsedFile(const QString& path)
{
    return canonical(YAML::LoadFile(path.toStdString()));
}
} // namespace

class TestSearchSpace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripsAutoSpeedFiles_data();
    void roundTripsAutoSpeedFiles();
    void roundTripsCategoricalQuotedAndExtraFields();
    void flagsBadRows();
    void checksAgainstTheSchema();
};

void TestSearchSpace::roundTripsAutoSpeedFiles_data()
{
    QTest::addColumn<QString>("path");
    const QDir dir(sourcePath("/configs/autospeed/hpo"));
    const QStringList files = dir.entryList({"*.yaml"}, QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 3, "configs/autospeed/hpo should hold AutoSpeed's spaces");
    for (const QString& file : files)
        QTest::newRow(qPrintable(file)) << dir.filePath(file);
}

void TestSearchSpace::roundTripsAutoSpeedFiles()
{
    QFETCH(QString, path);
    const Schema schema = loadSchema();
    ui::SearchSpaceEditor editor(&schema);
    QCOMPARE(editor.load(path), QString());
    QVERIFY(editor.table()->rowCount() > 0);
    QTemporaryDir dir;
    const QString saved = dir.filePath("saved.yaml");
    QCOMPARE(editor.save(saved), QString());
    QCOMPARE(parsedFile(saved).dump(), parsedFile(path).dump());
    // Loading what was saved gives the same rows again.
    ui::SearchSpaceEditor again(&schema);
    QCOMPARE(again.load(saved), QString());
    QCOMPARE(again.toYaml(), editor.toYaml());
}

void TestSearchSpace::roundTripsCategoricalQuotedAndExtraFields()
{
    const QString text = "optimizer: {type: categorical, values: [sgd, adamw, \"1e-3\"]}\n"
                         "box:\n  type: uniform\n  min: 5\n  max: 10\n  step: 0.5\n"
                         "warmup_epochs: {type: int, min: 0, max: 4, log: false}\n"
                         "name: \"042\"\nseeds: [0, 1, 2]\n";
    ui::SearchSpaceEditor editor(nullptr);
    QCOMPARE(editor.setYaml(text), QString());
    QCOMPARE(editor.table()->rowCount(), 5);
    const auto rows = editor.rows();
    QCOMPARE(rows[0].type, QString("categorical"));
    QCOMPARE(rows[3].type, QString("fixed"));
    QCOMPARE(canonical(YAML::Load(editor.toYaml().toStdString())).dump(),
             canonical(YAML::Load(text.toStdString())).dump());
}

void TestSearchSpace::flagsBadRows()
{
    ui::SpaceRow row{"lr", "loguniform", "0", "1e-2", {}, {}, {}};
    QVERIFY(ui::checkSpaceRow(row).contains("above 0"));
    row = {"box", "uniform", "10", "5", {}, {}, {}};
    QVERIFY(ui::checkSpaceRow(row).contains("above max"));
    row = {"layers", "int", "1.5", "4", {}, {}, {}};
    QVERIFY(!ui::checkSpaceRow(row).isEmpty());
    row = {"opt", "categorical", {}, {}, {}, "[]", {}};
    QVERIFY(!ui::checkSpaceRow(row).isEmpty());
    row = {"x", "gaussian", "0", "1", {}, {}, {}};
    QVERIFY(ui::checkSpaceRow(row).contains("unknown type"));
    row = {"x", "uniform", "0", "1", {}, {}, {}};
    QCOMPARE(ui::checkSpaceRow(row), QString());

    ui::SearchSpaceEditor editor(nullptr);
    QCOMPARE(editor.setYaml("box: {type: uniform, min: 10, max: 5}\n"), QString());
    QVERIFY2(editor.problems().contains("box"), qPrintable(editor.problems()));
    QVERIFY(!editor.table()->item(0, 2)->toolTip().isEmpty());
    QVERIFY(!editor.setYaml("[1, 2]").isEmpty()); // not a mapping: refused, reported
}

void TestSearchSpace::checksAgainstTheSchema()
{
    const Schema schema = loadSchema();
    ui::SearchSpaceEditor editor(&schema);
    editor.setModel("autospeed");
    QCOMPARE(editor.load(sourcePath("/configs/autospeed/hpo/experiment1.yaml")), QString());
    QVERIFY2(editor.problems().contains("searched"), qPrintable(editor.problems()));
    QCOMPARE(editor.setYaml("no_such_knob: {type: uniform, min: 0, max: 1}\n"), QString());
    QVERIFY2(editor.problems().contains("no_such_knob"), qPrintable(editor.problems()));
}

QTEST_MAIN(TestSearchSpace)
#include "tst_searchspace.moc"
