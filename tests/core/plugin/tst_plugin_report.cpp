// What `pitwall plugins` prints about a listing (core/plugin/pluginreport.h). If this fails, the plugin list or
// its JSON fields changed shape, or an empty listing no longer says so.
#include "core/plugin/pluginreport.h"

#include <QtTest>

using namespace pitwall;

class TestPluginReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void listingAsTextAndJson();
    void emptyListing();
};

void TestPluginReport::listingAsTextAndJson()
{
    PluginListing listing;
    listing.plugins.push_back(
        {"transfuser", PluginKind::Model, "TransFuser-lite", "id", "/p/transfuser.so", "/p/transfuser.schema.yaml"});
    listing.problems = {"/p/broken.so: no manifest"};
    const std::string text = pluginListingText(listing, {"/p"});
    QCOMPARE(text, std::string("plugin search path:\n  /p\nplugins:\n  transfuser   model    TransFuser-lite\n"));
    const nlohmann::json json = pluginListingJson(listing, {"/p"}, true);
    QCOMPARE(json["search_path"], nlohmann::json({"/p"}));
    QCOMPARE(json["plugins"][0]["kind"].get<std::string>(), std::string("model"));
    QCOMPARE(json["plugins"][0]["file"].get<std::string>(), std::string("/p/transfuser.so"));
    QCOMPARE(json["problems"].size(), std::size_t(1));
    QVERIFY(json["checked"].get<bool>());
}

void TestPluginReport::emptyListing()
{
    QCOMPARE(pluginListingText({}, {}), std::string("plugin search path:\nplugins:\n  (none)\n"));
    QVERIFY(pluginListingJson({}, {}, false)["plugins"].empty());
}

QTEST_GUILESS_MAIN(TestPluginReport)
#include "tst_plugin_report.moc"
