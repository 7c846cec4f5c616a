// What `pitwall config schema` lists (core/config/schemareport.h), over core's own schema. If this fails, --speed
// or --group shows keys it should leave out (or drops some), or the listing lost its group headings.
#include "core/config/schemareport.h"

#include <QtTest>

using namespace pitwall;

class TestConfigSchemaReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void selectsBySpeedAndGroup();
    void listsAsTextAndJson();
};

void TestConfigSchemaReport::selectsBySpeedAndGroup()
{
    const Schema schema = builtinSchema();
    const auto all = selectKeys(schema, false, "");
    QCOMPARE(all.size(), schema.keys().size());
    const auto speed = selectKeys(schema, true, "");
    QVERIFY(!speed.empty() && speed.size() < all.size());
    for (const KeySpec* spec : speed)
        QVERIFY2(spec->speed, spec->key.c_str());
    const auto training = selectKeys(schema, false, "TRAINING"); // case-insensitive prefix of the group
    QVERIFY(!training.empty());
    for (const KeySpec* spec : training)
        QVERIFY2(spec->group.rfind("Training", 0) == 0, spec->key.c_str());
    QVERIFY(selectKeys(schema, false, "no such group").empty());
}

void TestConfigSchemaReport::listsAsTextAndJson()
{
    const Schema schema = builtinSchema();
    const auto keys = selectKeys(schema, false, "Experiment");
    QVERIFY(!keys.empty());
    const QString text = QString::fromStdString(schemaListingText(keys));
    QVERIFY2(text.startsWith("\n[Experiment]\n  experiment."), qPrintable(text));
    QCOMPARE(text.count("\n["), 1); // one heading per group
    QVERIFY2(text.contains(QString::fromStdString("\n      " + keys.front()->doc + "\n")), qPrintable(text));
    const nlohmann::json json = schemaListingJson(schema, keys);
    QCOMPARE(json["keys"].size(), keys.size());
    QCOMPARE(json["keys"][0], keys.front()->toJson());
    QCOMPARE(json["owners"][0].get<std::string>(), std::string("core"));
}

QTEST_GUILESS_MAIN(TestConfigSchemaReport)
#include "tst_config_schemareport.moc"
