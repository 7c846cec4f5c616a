// Encodings that must match Optuna 3.1 byte for byte: distribution JSON, json.dumps text of attributes,
// Python's float repr; and the names of Pitwall's enums. If these fail, Optuna would read Pitwall's params or
// attributes differently (or refuse a distribution as incompatible).
#include "core/store/internal/pyjson.h"
#include "core/store/records.h"
#include "core/util/error.h"

#include <QtTest>

#include <cmath>

using namespace pitwall;
using store_internal::pythonFloatRepr;
using store_internal::pythonJsonDumps;
using store_internal::pythonJsonLoads;

Q_DECLARE_METATYPE(pitwall::Distribution)

namespace {
Distribution floatDistribution(double low, double high, bool log = false, std::optional<double> step = {})
{
    Distribution d;
    d.kind = Distribution::Kind::Float;
    d.low = low, d.high = high, d.log = log, d.step = step;
    return d;
}
Distribution intDistribution(double low, double high, bool log = false, double step = 1)
{
    Distribution d;
    d.kind = Distribution::Kind::Int;
    d.low = low, d.high = high, d.log = log, d.step = step;
    return d;
}
Distribution categorical(std::vector<Json> choices)
{
    Distribution d;
    d.kind = Distribution::Kind::Categorical;
    d.choices = std::move(choices);
    return d;
}
} // namespace

class TestStoreRecords : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void distributionJsonIsOptunas_data();
    void distributionJsonIsOptunas();
    void readsLegacyDistributions_data();
    void readsLegacyDistributions();
    void rejectsBadDistributionJson();
    void externalAndInternalValues();
    void floatReprIsPythons_data();
    void floatReprIsPythons();
    void jsonDumpsIsPythons();
    void jsonLoadsAcceptsPythonTokens();
    void enumNames();
    void stepValuesActLikeAMap();
};

void TestStoreRecords::distributionJsonIsOptunas_data()
{
    QTest::addColumn<Distribution>("distribution");
    QTest::addColumn<QString>("expected"); // printed by optuna.distributions.distribution_to_json (3.1.0)
    QTest::newRow("float")
        << floatDistribution(0, 1)
        << R"({"name": "FloatDistribution", "attributes": {"step": null, "low": 0.0, "high": 1.0, "log": false}})";
    QTest::newRow("float log")
        << floatDistribution(1e-5, 0.1, true)
        << R"({"name": "FloatDistribution", "attributes": {"step": null, "low": 1e-05, "high": 0.1, "log": true}})";
    QTest::newRow("float step")
        << floatDistribution(0, 1, false, 0.25)
        << R"({"name": "FloatDistribution", "attributes": {"step": 0.25, "low": 0.0, "high": 1.0, "log": false}})";
    QTest::newRow("float negative")
        << floatDistribution(-3, 3)
        << R"({"name": "FloatDistribution", "attributes": {"step": null, "low": -3.0, "high": 3.0, "log": false}})";
    QTest::newRow("int")
        << intDistribution(1, 4)
        << R"({"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 1, "high": 4}})";
    QTest::newRow("int log")
        << intDistribution(1, 64, true)
        << R"({"name": "IntDistribution", "attributes": {"log": true, "step": 1, "low": 1, "high": 64}})";
    QTest::newRow("int step")
        << intDistribution(0, 10, false, 2)
        << R"({"name": "IntDistribution", "attributes": {"log": false, "step": 2, "low": 0, "high": 10}})";
    QTest::newRow("categorical")
        << categorical({"sgd", "adamw", nullptr, 1, 2.5, true})
        << R"({"name": "CategoricalDistribution", "attributes": {"choices": ["sgd", "adamw", null, 1, 2.5, true]}})";
}

void TestStoreRecords::distributionJsonIsOptunas()
{
    QFETCH(Distribution, distribution);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(distribution.toOptunaJson()), expected);
    // And it reads back to the same distribution.
    const auto back = Distribution::fromOptunaJson(expected.toStdString());
    QCOMPARE(QString::fromStdString(back.toOptunaJson()), expected);
}

void TestStoreRecords::readsLegacyDistributions_data()
{
    QTest::addColumn<QString>("json"); // Optuna 2.x class names, as distribution_to_json printed them
    QTest::addColumn<QString>("asOptuna3");
    QTest::newRow("uniform")
        << R"({"name": "UniformDistribution", "attributes": {"low": 0.0, "high": 1.0}})"
        << R"({"name": "FloatDistribution", "attributes": {"step": null, "low": 0.0, "high": 1.0, "log": false}})";
    QTest::newRow("log uniform")
        << R"({"name": "LogUniformDistribution", "attributes": {"low": 0.1, "high": 1.0}})"
        << R"({"name": "FloatDistribution", "attributes": {"step": null, "low": 0.1, "high": 1.0, "log": true}})";
    QTest::newRow("discrete")
        << R"({"name": "DiscreteUniformDistribution", "attributes": {"low": 0.0, "high": 1.0, "q": 0.1}})"
        << R"({"name": "FloatDistribution", "attributes": {"step": 0.1, "low": 0.0, "high": 1.0, "log": false}})";
    QTest::newRow("int uniform")
        << R"({"name": "IntUniformDistribution", "attributes": {"step": 1, "low": 0, "high": 1}})"
        << R"({"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 1}})";
    QTest::newRow("int log uniform")
        << R"({"name": "IntLogUniformDistribution", "attributes": {"step": 1, "low": 1, "high": 10}})"
        << R"({"name": "IntDistribution", "attributes": {"log": true, "step": 1, "low": 1, "high": 10}})";
    QTest::newRow("abbreviated int")
        << R"({"type": "int", "low": 1, "high": 8})"
        << R"({"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 1, "high": 8}})";
}

void TestStoreRecords::readsLegacyDistributions()
{
    QFETCH(QString, json);
    QFETCH(QString, asOptuna3);
    QCOMPARE(QString::fromStdString(Distribution::fromOptunaJson(json.toStdString()).toOptunaJson()), asOptuna3);
}

void TestStoreRecords::rejectsBadDistributionJson()
{
    QVERIFY_THROWS_EXCEPTION(InputError, Distribution::fromOptunaJson("{not json"));
    QVERIFY_THROWS_EXCEPTION(InputError,
                             Distribution::fromOptunaJson(R"({"name": "BetaDistribution", "attributes": {}})"));
    QVERIFY_THROWS_EXCEPTION(
        InputError, Distribution::fromOptunaJson(R"({"name": "FloatDistribution", "attributes": {"low": 0}})"));
}

void TestStoreRecords::externalAndInternalValues()
{
    const auto optimizer = categorical({"sgd", "adamw"});
    QCOMPARE(optimizer.toExternal(1.0), Json("adamw"));
    QCOMPARE(optimizer.toInternal(Json("sgd")), 0.0);
    QVERIFY_THROWS_EXCEPTION(InputError, optimizer.toInternal(Json("adam")));
    QVERIFY_THROWS_EXCEPTION(InputError, optimizer.toExternal(2.0));
    const auto layers = intDistribution(1, 4);
    QVERIFY(layers.toExternal(3.0).is_number_integer());
    QCOMPARE(layers.toExternal(3.0).get<int>(), 3);
    QCOMPARE(floatDistribution(0, 1).toExternal(0.25), Json(0.25));
    QVERIFY_THROWS_EXCEPTION(InputError, floatDistribution(0, 1).toInternal(Json("x")));
    TrialParam param{"optimizer", 1.0, optimizer};
    QCOMPARE(param.value(), Json("adamw"));
}

void TestStoreRecords::floatReprIsPythons_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected"); // repr(value) in Python 3.11
    QTest::newRow("zero") << 0.0 << "0.0";
    QTest::newRow("negative zero") << -0.0 << "-0.0";
    QTest::newRow("one") << 1.0 << "1.0";
    QTest::newRow("tenth") << 0.1 << "0.1";
    QTest::newRow("1e-5") << 1e-5 << "1e-05";
    QTest::newRow("1e-4") << 1e-4 << "0.0001";
    QTest::newRow("9.999e-5") << 9.999e-5 << "9.999e-05";
    QTest::newRow("1e15") << 1e15 << "1000000000000000.0";
    QTest::newRow("1e16") << 1e16 << "1e+16";
    QTest::newRow("big") << 123456789012345678.0 << "1.2345678901234568e+17";
    QTest::newRow("1.5e300") << 1.5e300 << "1.5e+300";
    QTest::newRow("denormal") << 5e-324 << "5e-324";
    QTest::newRow("-3") << -3.0 << "-3.0";
    QTest::newRow("0.1+0.2") << 0.1 + 0.2 << "0.30000000000000004";
    QTest::newRow("1234.5678") << 1234.5678 << "1234.5678";
}

void TestStoreRecords::floatReprIsPythons()
{
    QFETCH(double, value);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(pythonFloatRepr(value)), expected);
}

void TestStoreRecords::jsonDumpsIsPythons()
{
    // json.dumps({'s': 'é😀"\\\n\x7f', 'l': [1, 2.0, None, True, inf, nan, -inf]}) in Python 3.11.
    Json value = Json::object();
    value["s"] = "\xc3\xa9\xf0\x9f\x98\x80\"\\\n\x7f";
    value["l"] = Json::array({1, 2.0, nullptr, true, HUGE_VAL, std::nan(""), -HUGE_VAL});
    QCOMPARE(
        QString::fromStdString(pythonJsonDumps(value)),
        QString(R"({"l": [1, 2.0, null, true, Infinity, NaN, -Infinity], "s": "\u00e9\ud83d\ude00\"\\\n\u007f"})"));
    QCOMPARE(QString::fromStdString(pythonJsonDumps(Json(0.5))), QString("0.5"));
    QCOMPARE(QString::fromStdString(pythonJsonDumps(Json("map50"))), QString("\"map50\""));
}

void TestStoreRecords::jsonLoadsAcceptsPythonTokens()
{
    const Json value = pythonJsonLoads(R"({"a": [NaN, Infinity, -Infinity, 1.5], "b": "NaN and Infinity"})");
    QVERIFY(std::isnan(value["a"][0].get<double>()));
    QCOMPARE(value["a"][1].get<double>(), HUGE_VAL);
    QCOMPARE(value["a"][2].get<double>(), -HUGE_VAL);
    QCOMPARE(value["a"][3].get<double>(), 1.5);
    QCOMPARE(value["b"].get<std::string>(), std::string("NaN and Infinity"));
    QVERIFY_THROWS_EXCEPTION(Json::parse_error, pythonJsonLoads("{"));
}

void TestStoreRecords::enumNames()
{
    QCOMPARE(trialStateName(TrialState::Pruned), std::string_view("PRUNED"));
    QCOMPARE(parseTrialState("complete"), std::optional<TrialState>(TrialState::Complete));
    QCOMPARE(parseTrialState("FAIL"), std::optional<TrialState>(TrialState::Fail));
    QVERIFY(!parseTrialState("done"));
    QCOMPARE(studyDirectionName(StudyDirection::Maximize), std::string_view("MAXIMIZE"));
    QCOMPARE(parseStudyDirection("minimize"), std::optional<StudyDirection>(StudyDirection::Minimize));
    QCOMPARE(runStatusName(RunStatus::Cancelled), std::string_view("cancelled"));
    QCOMPARE(parseRunStatus("Succeeded"), std::optional<RunStatus>(RunStatus::Succeeded));
    QCOMPARE(eventLevelName(EventLevel::Warning), std::string_view("warning"));
    QCOMPARE(parseEventLevel("ERROR"), std::optional<EventLevel>(EventLevel::Error));
}

// StepValues (a trial's intermediate values in one sorted array) answers as the std::map it replaced: steps in
// order whatever order they arrive in, the last write of a step wins, and lookups of absent steps find nothing.
void TestStoreRecords::stepValuesActLikeAMap()
{
    StepValues values;
    QVERIFY(values.empty());
    values[5] = 0.5;
    values[1] = 0.1;
    values[9] = 0.9;
    values[5] = 0.55;
    values[3] = 0.3;
    std::map<std::int64_t, double> reference{{1, 0.1}, {3, 0.3}, {5, 0.55}, {9, 0.9}};
    QVERIFY(values == reference);
    QCOMPARE(values.size(), std::size_t(4));
    QCOMPARE(values.begin()->first, std::int64_t(1));
    QCOMPARE(values.rbegin()->first, std::int64_t(9));
    QCOMPARE(values.at(5), 0.55);
    QCOMPARE(values.count(4), std::size_t(0));
    QVERIFY(values.find(4) == values.end());
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, values.at(4));
    QCOMPARE(values.lower_bound(4)->first, std::int64_t(5));
    QCOMPARE(values.upper_bound(5)->first, std::int64_t(9));
    values.erase(values.upper_bound(3), values.end()); // what a resumed trial does with steps after a checkpoint
    QVERIFY(values == (std::map<std::int64_t, double>{{1, 0.1}, {3, 0.3}}));
    QVERIFY(!(values == reference));

    const StepValues listed{{7, 1.0}, {2, 2.0}, {7, 3.0}};
    QVERIFY(listed == (std::map<std::int64_t, double>{{2, 2.0}, {7, 3.0}}));
    QVERIFY(StepValues(reference) == reference);
    QVERIFY(StepValues(reference) == StepValues({{9, 0.9}, {5, 0.55}, {3, 0.3}, {1, 0.1}}));
    QVERIFY(!(StepValues(reference) == StepValues({{1, 0.1}})));
}

QTEST_GUILESS_MAIN(TestStoreRecords)
#include "tst_store_records.moc"
