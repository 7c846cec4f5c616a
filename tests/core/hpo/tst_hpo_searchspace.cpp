// Search spaces in AutoSpeed's YAML format, mapped onto the config schema. If this fails, a search space
// that AutoSpeed accepts is refused (or a broken one accepted), a name lands on the wrong config key, or a
// user gets a message without the file position that would let them fix it.
#include "hpotestutil.h"

#include "core/config/config.h"
#include "core/hpo/searchspace.h"

#include "core/hpo/triallabels.h"

#include <QtTest>

#include "tests/support/testpaths.h"

using pitwall::test::sourceFile;

using namespace pitwall;

class TestSearchSpace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { m_schema = hpotest::schemaWithAutoSpeed(); }
    void shippedSpacesParse_data();
    void shippedSpacesParse();
    void distributions();
    void keyResolution();
    void freeNames();
    void freeNamesRefusedNearKeys_data();
    void freeNamesRefusedNearKeys();
    void freeNameRangesAreChecked();
    void badSpaces_data();
    void badSpaces();
    void everyProblemAtOnce();
    void notUtf8IsRefused();
    void aliasBombIsRefused();
    void labelsNamePointsOfTheSpace();

private:
    Schema m_schema;
    const std::vector<std::string> m_autospeed{"autospeed"};
};

void TestSearchSpace::shippedSpacesParse_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("searched");
    QTest::addColumn<int>("fixed");
    QTest::newRow("experiment1") << "experiment1.yaml" << 7 << 14;
    QTest::newRow("experiment2") << "experiment2.yaml" << 3 << 18;
    QTest::newRow("all_params") << "all_params.yaml" << 18 << 3;
}

void TestSearchSpace::shippedSpacesParse()
{
    QFETCH(QString, file);
    QFETCH(int, searched);
    QFETCH(int, fixed);
    const std::string path = sourceFile("/configs/autospeed/hpo/") + file.toStdString();
    const SearchSpace space = SearchSpace::load(path, m_schema, ownerSections(m_schema, "autospeed"));
    QCOMPARE(static_cast<int>(space.requests().size()), searched);
    QCOMPARE(static_cast<int>(space.params().size()) - searched, fixed);
    for (const SpaceParam& p : space.params())
        QVERIFY2(p.configKey == "autospeed." + p.name, p.configKey.c_str());

    // The overrides of a sample (here each range's low end) are accepted by the config as they are.
    Json sampled = Json::object();
    for (const ParamRequest& r : space.requests())
        sampled[r.name] = r.distribution.toExternal(
            r.distribution.kind == Distribution::Kind::Categorical ? 0.0 : r.distribution.low);
    ResolvedConfig config(m_schema);
    for (const std::string& o : space.overrides(sampled)) {
        const auto eq = o.find('=');
        config.setFromText(o.substr(0, eq), o.substr(eq + 1), ValueOrigin{OriginKind::Program, {}, "test"});
    }
    QCOMPARE(config.getInt("autospeed.batch_size"), 32LL);
    QCOMPARE(config.getInt("autospeed.val_batch_size"), 64LL);
    if (file == "experiment1.yaml") {
        QCOMPARE(config.getDouble("autospeed.min_lr"), 1e-6);
        QCOMPARE(config.getDouble("autospeed.box"), 5.0);
    }
}

void TestSearchSpace::distributions()
{
    const SearchSpace space = SearchSpace::parse("lr: {type: loguniform, min: 1.0e-6, max: 1.0e-4}\n"
                                                 "box: {type: uniform, min: 0, max: 1, step: 0.3}\n"
                                                 "warmup_epochs: {type: int, min: 0, max: 4}\n"
                                                 "epochs: {type: int, min: 1, max: 10, step: 4}\n"
                                                 "val_batch_size: {type: categorical, values: [16, 32, 64]}\n"
                                                 "cls: {type: uniform, min: 0.2, max: 4}\n",
                                                 "inline.yaml", m_schema, {"autospeed", "training.optimization"});
    const auto requests = space.requests();
    QCOMPARE(requests.size(), std::size_t(6));
    QCOMPARE(space.params()[0].configKey, std::string("training.optimization.lr"));
    QCOMPARE(
        requests[0].distribution.toOptunaJson(),
        std::string(
            R"({"name": "FloatDistribution", "attributes": {"step": null, "low": 1e-06, "high": 0.0001, "log": true}})"));
    // Off-grid highs come down onto the step grid, as Optuna's distributions do.
    QCOMPARE(requests[1].distribution.high, 0.9);
    QCOMPARE(requests[1].distribution.step.value(), 0.3);
    QCOMPARE(
        requests[2].distribution.toOptunaJson(),
        std::string(R"({"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 4}})"));
    QCOMPARE(requests[3].distribution.high, 9.0);
    QCOMPARE(requests[4].distribution.toOptunaJson(),
             std::string(R"({"name": "CategoricalDistribution", "attributes": {"choices": [16, 32, 64]}})"));
    QCOMPARE(
        requests[5].distribution.toOptunaJson(),
        std::string(
            R"({"name": "FloatDistribution", "attributes": {"step": null, "low": 0.2, "high": 4.0, "log": false}})"));
}

void TestSearchSpace::keyResolution()
{
    // Full keys pass as they are; bare names resolve in the given sections, or anywhere when unambiguous.
    const SearchSpace full = SearchSpace::parse("training.optimization.batch_size: {type: int, min: 8, max: 64}\n"
                                                "hsv_h: 0.02\n",
                                                "full.yaml", m_schema, {});
    QCOMPARE(full.params()[0].configKey, std::string("training.optimization.batch_size"));
    QCOMPARE(full.params()[1].configKey, std::string("autospeed.hsv_h")); // the only key named hsv_h
    QCOMPARE(ownerSections(m_schema, "autospeed"), std::vector<std::string>{"autospeed"});
    QVERIFY(ownerSections(m_schema, "nobody").empty());
    try {
        SearchSpace::parse("batch_size: 32\n", "ambiguous.yaml", m_schema, {});
        QFAIL("an ambiguous bare name was accepted");
    } catch (const InputError& e) {
        const std::string message = e.diagnostics().at(0).toString();
        QVERIFY2(message.find("ambiguous.yaml:1:1: 'batch_size' is ambiguous") != std::string::npos, message.c_str());
        QVERIFY2(message.find("training.optimization.batch_size, autospeed.batch_size") != std::string::npos,
                 message.c_str());
    }
}

namespace {

// Every diagnostic of a refused space, one per line; empty when the space was accepted.
QString problems(const std::string& yaml, const Schema& schema, const std::vector<std::string>& sections,
                 SpaceNames names)
{
    try {
        SearchSpace::parse(yaml, "space.yaml", schema, sections, names);
        return {};
    } catch (const InputError& e) {
        QString all;
        for (const Diagnostic& d : e.diagnostics())
            all += QString::fromStdString(d.toString()) + "\n";
        return all;
    }
}

} // namespace

// `study ask` without --model: a name of no config key is a free parameter, sampled and stored under its name,
// with no override; by default (and so in `pitwall hpo --config`) it stays an error.
void TestSearchSpace::freeNames()
{
    const std::string yaml = "box: {type: uniform, min: 5, max: 10}\n"
                             "x: {type: uniform, min: -5, max: 5}\n"
                             "y: {type: int, min: 0, max: 3}\n"
                             "layers: {type: categorical, values: [resnet, vit]}\n"
                             "seed_offset: 3\n"
                             "batch_size_full: 32\n";
    QCOMPARE(problems(yaml, m_schema, {}, SpaceNames::ConfigKeysOnly),
             QString("space.yaml:2:1: 'x' is not a key of the schema\n"
                     "space.yaml:3:1: 'y' is not a key of the schema\n"
                     "space.yaml:4:1: 'layers' is not a key of the schema\n"
                     "space.yaml:5:1: 'seed_offset' is not a key of the schema\n"
                     "space.yaml:6:1: 'batch_size_full' is not a key of the schema\n"));
    QCOMPARE(problems("x: 1\n", m_schema, m_autospeed, SpaceNames::ConfigKeysOnly),
             QString("space.yaml:1:1: 'x' is not a key of section autospeed; did you mean 'box'?\n"));

    const SearchSpace space = SearchSpace::parse(yaml, "space.yaml", m_schema, {}, SpaceNames::FreeAllowed);
    QCOMPARE(space.params().size(), std::size_t(6));
    QCOMPARE(space.params()[0].configKey, std::string("autospeed.box")); // a key still resolves
    QVERIFY(!space.params()[0].free());
    for (std::size_t i = 1; i < 6; ++i) {
        QVERIFY2(space.params()[i].free(), space.params()[i].name.c_str());
        QCOMPARE(space.params()[i].configKey, std::string());
    }
    const auto requests = space.requests();
    QCOMPARE(requests.size(), std::size_t(4));
    QCOMPARE(requests[1].name, std::string("x"));
    QCOMPARE(
        requests[1].distribution.toOptunaJson(),
        std::string(
            R"({"name": "FloatDistribution", "attributes": {"step": null, "low": -5.0, "high": 5.0, "log": false}})"));
    QCOMPARE(requests[2].name, std::string("y"));
    QCOMPARE(
        requests[2].distribution.toOptunaJson(),
        std::string(R"({"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 3}})"));
    QCOMPARE(requests[3].distribution.toOptunaJson(),
             std::string(R"({"name": "CategoricalDistribution", "attributes": {"choices": ["resnet", "vit"]}})"));
    const SpaceParam* seed = space.find("seed_offset");
    QVERIFY(seed && !seed->searched() && seed->free());
    QCOMPARE(seed->fixedValue, Json(3));
    QCOMPARE(space.find("batch_size_full")->fixedValue, Json(32)); // no key's range or type applies

    // Only the key gets an override: free parameters, sampled or fixed, set nothing.
    const Json sampled = {{"box", 7.5}, {"x", -1.25}, {"y", 2}, {"layers", "vit"}};
    QCOMPARE(space.overrides(sampled), std::vector<std::string>{"autospeed.box=7.5"});
    const SearchSpace onlyFree = SearchSpace::parse("x: {type: uniform, min: -5, max: 5}\nseed_offset: 3\n",
                                                    "free.yaml", m_schema, {}, SpaceNames::FreeAllowed);
    QVERIFY(onlyFree.overrides(Json{{"x", 0.5}}).empty());

    // A name that maps to several keys is still ambiguous, free names or not.
    const QString ambiguous = problems("batch_size: 32\n", m_schema, {}, SpaceNames::FreeAllowed);
    QVERIFY2(ambiguous.startsWith("space.yaml:1:1: 'batch_size' is ambiguous in the schema: it could be "
                                  "training.optimization.batch_size, autospeed.batch_size"),
             qPrintable(ambiguous));
    // A free name given twice is refused like a key set twice.
    QCOMPARE(problems("x: 1\nx: 2\n", m_schema, {}, SpaceNames::FreeAllowed),
             QString("space.yaml:2:1: 'x' is given twice\n"));
}

void TestSearchSpace::freeNamesRefusedNearKeys_data()
{
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("expected");
    const QString hint = " (a free parameter, one that sets no config key, needs a name more than one edit away "
                         "from every config key)\n";
    // One edit from a key's last segment: a typo, not a new parameter.
    QTest::newRow("bare, one edit") << "bx: {type: uniform, min: 0, max: 1}\n"
                                    << "space.yaml:1:1: 'bx' is not a config key; did you mean 'autospeed.box'?" + hint;
    QTest::newRow("bare, fixed") << "hsv_hh: 0.5\n"
                                 << "space.yaml:1:1: 'hsv_hh' is not a config key; did you mean 'autospeed.hsv_h'?" +
                                        hint;
    // One edit from a whole key.
    QTest::newRow("dotted, one edit")
        << "training.optimization.batchsize: {type: int, min: 8, max: 64}\n"
        << "space.yaml:1:1: 'training.optimization.batchsize' is not a config key; did you mean "
           "'training.optimization.batch_size'?" +
               hint;
    // A dotted name in a config section reads as a key: it would silently set nothing.
    QTest::newRow("dotted, in a section")
        << "autospeed.brand_new: 3\n"
        << "space.yaml:1:1: 'autospeed.brand_new' is not a config key (a free parameter, one that sets no config "
           "key, cannot be named in the config section 'autospeed')\n";
}

void TestSearchSpace::freeNamesRefusedNearKeys()
{
    QFETCH(QString, yaml);
    QFETCH(QString, expected);
    QCOMPARE(problems(yaml.toStdString(), m_schema, {}, SpaceNames::FreeAllowed), expected);
    // Far enough (two edits, or a dotted name outside the config's sections) is a free parameter.
    const SearchSpace space = SearchSpace::parse("boxes: {type: uniform, min: 0, max: 1}\nnet.depth: 4\n", "space.yaml",
                                                 m_schema, {}, SpaceNames::FreeAllowed);
    QVERIFY(space.params().at(0).free());
    QVERIFY(space.params().at(1).free());
}

// A free parameter has no key whose range applies, but its own range is checked as any other, with the position.
void TestSearchSpace::freeNameRangesAreChecked()
{
    QCOMPARE(problems("x: {type: uniform, min: 3, max: 1}\n"
                      "y: {type: int, min: 0.5, max: 3}\n"
                      "z: {type: loguniform, min: 0, max: 1}\n"
                      "w: {type: gauss, min: 0, max: 1}\n"
                      "v: {type: categorical, values: [a, a]}\n"
                      "u: {type: uniform, min: 0}\n",
                      m_schema, {}, SpaceNames::FreeAllowed),
             QString("space.yaml:1:25: min (3) must be less than max (1)\n"
                     "space.yaml:2:21: 'min' must be an integer, got '0.5'\n"
                     "space.yaml:3:28: loguniform needs min > 0, got 0\n"
                     "space.yaml:4:11: unknown type 'gauss'; expected uniform, loguniform, int or categorical\n"
                     "space.yaml:5:36: value \"a\" is listed twice\n"
                     "space.yaml:6:4: uniform 'u' needs both 'min' and 'max'\n"));
}

void TestSearchSpace::badSpaces_data()
{
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("expected"); // "line:column: message fragment"
    QTest::newRow("min >= max") << "box: {type: uniform, min: 10, max: 5}"
                                << "1:27: min (10) must be less than max (5)";
    QTest::newRow("min == max") << "box:\n  type: uniform\n  min: 2\n  max: 2"
                                << "3:8: min (2) must be less than max (2)";
    QTest::newRow("loguniform min 0") << "min_lr: {type: loguniform, min: 0, max: 0.01}"
                                      << "1:33: loguniform needs min > 0, got 0";
    QTest::newRow("loguniform min < 0") << "min_lr: {type: loguniform, min: -1, max: 0.01}"
                                        << "1:33: loguniform needs min > 0, got -1";
    QTest::newRow("unknown type") << "box: {type: normal, min: 1, max: 2}"
                                  << "1:13: unknown type 'normal'; expected uniform, loguniform, int or categorical";
    QTest::newRow("type typo")
        << "box: {type: unifrom, min: 1, max: 2}"
        << "1:13: unknown type 'unifrom'; expected uniform, loguniform, int or categorical (did you mean 'uniform'?)";
    QTest::newRow("missing type") << "box: {min: 1, max: 2}"
                                  << "1:6: 'box' needs a 'type'";
    QTest::newRow("missing max") << "box: {type: uniform, min: 1}"
                                 << "1:6: uniform 'box' needs both 'min' and 'max'";
    QTest::newRow("missing min and max") << "warmup_epochs:\n  type: int"
                                         << "2:3: int 'warmup_epochs' needs both 'min' and 'max'";
    QTest::newRow("categorical without values") << "batch_size: {type: categorical}"
                                                << "1:13: categorical 'batch_size' needs a non-empty list 'values'";
    QTest::newRow("categorical empty values") << "batch_size: {type: categorical, values: []}"
                                              << "1:41: categorical 'batch_size' needs a non-empty list 'values'";
    QTest::newRow("categorical repeated value") << "batch_size: {type: categorical, values: [16, 16]}"
                                                << "1:46: value 16 is listed twice";
    QTest::newRow("categorical value outside schema")
        << "batch_size: {type: categorical, values: [16, 0]}"
        << "1:46: 'batch_size' (autospeed.batch_size): 0 is below the minimum 1";
    QTest::newRow("unknown bare name") << "boxx: {type: uniform, min: 1, max: 2}"
                                       << "1:1: 'boxx' is not a key of section autospeed; did you mean 'box'?";
    QTest::newRow("name of another section")
        << "lr: 0.1"
        << "1:1: 'lr' is not a key of section autospeed (keys elsewhere with that name: training.optimization.lr)";
    QTest::newRow("unknown full key")
        << "training.optimization.lrr: 0.1"
        << "1:1: 'training.optimization.lrr' is not a config key; did you mean 'training.optimization.lr'?";
    QTest::newRow("fixed value below schema minimum") << "box: 1\nbatch_size: 0"
                                                      << "2:13: fixed value of 'batch_size': ";
    QTest::newRow("fixed value of wrong type") << "batch_size: lots"
                                               << "1:13: fixed value of 'batch_size': ";
    QTest::newRow("range beyond schema") << "momentum: {type: uniform, min: 0.5, max: 1.5}"
                                         << "1:42: 'momentum' (autospeed.momentum): max 1.5 is above the maximum 1";
    QTest::newRow("uniform on an integer key")
        << "batch_size: {type: uniform, min: 8, max: 64}"
        << "1:20: 'batch_size' sets autospeed.batch_size, an integer key: use type int";
    QTest::newRow("int with fractional bound") << "warmup_epochs: {type: int, min: 0.5, max: 4}"
                                               << "1:33: 'min' must be an integer, got '0.5'";
    QTest::newRow("bound not a number") << "box: {type: uniform, min: low, max: 4}"
                                        << "1:27: 'min' must be a number, got 'low'";
    QTest::newRow("nan bound") << "box: {type: uniform, min: .nan, max: 4}"
                               << "1:27: 'min' must be a finite number, got '.nan'";
    QTest::newRow("infinite bound") << "box: {type: uniform, min: 1, max: .inf}"
                                    << "1:35: 'max' must be a finite number, got '.inf'";
    QTest::newRow("fixed nan") << "box: .nan"
                               << "1:6: fixed value of 'box': 'autospeed.box': nan is not a number";
    QTest::newRow("categorical nan") << "box: {type: categorical, values: [1, .nan]}"
                                     << "1:38: 'box' (autospeed.box): nan is not a number";
    QTest::newRow("unknown field") << "box: {type: uniform, min: 1, mx: 2}"
                                   << "1:30: unknown field 'mx' in 'box'; did you mean 'max'?";
    QTest::newRow("step on loguniform") << "min_lr: {type: loguniform, min: 1.0e-6, max: 1.0e-4, step: 1.0e-6}"
                                        << "1:60: loguniform takes no 'step'";
    QTest::newRow("negative step") << "box: {type: uniform, min: 1, max: 4, step: -1}"
                                   << "1:44: 'step' must be positive, got -1";
    QTest::newRow("same key twice") << "box: 7\nautospeed.box: 8"
                                    << "2:1: 'autospeed.box' sets autospeed.box, which 'box' already sets";
    QTest::newRow("not yaml") << "box: [1, 2"
                              << ": not valid YAML";
    QTest::newRow("empty") << ""
                           << "1:1: the search space is empty";
    QTest::newRow("a list") << "- box\n- cls"
                            << "1:1: a search space is a mapping of names to ranges or fixed values";
}

// Found by tests/fuzz/fuzz_searchspace (corpus/searchspace/crash-invalid-utf8-choice): a categorical choice with
// a byte that is not UTF-8 escaped as nlohmann::json's type_error 316 (std::terminate in the fuzzer; exit 1 with a
// JSON library message in `pitwall study ask`). The file is refused at the byte, with line and column.
void TestSearchSpace::notUtf8IsRefused()
{
    const std::string yaml = "box: {type: uniform, min: 5, max: 10}\nupsample: {type: categorical, values: [fa\x90lse, true]}\n";
    try {
        SearchSpace::parse(yaml, "space.yaml", m_schema, m_autospeed);
        QFAIL("the space with a byte that is not UTF-8 was accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString(e.what()), QString("space.yaml:2:42: the file is not UTF-8 text (\\x90)"));
    }
}

// A "billion laughs" space: ten anchors, each a list of nine aliases of the one before, 9^10 nodes once expanded
// in 400 bytes. `hpo --space bomb.yaml --check` used to die of std::bad_alloc after 3.3 GB; the bounded loader
// (core/config/yamlload.h) stops after a million nodes and names the file.
void TestSearchSpace::aliasBombIsRefused()
{
    std::string yaml = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (int i = 1; i <= 9; ++i) {
        const std::string previous = "*a" + std::to_string(i - 1);
        yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + previous;
        for (int k = 1; k < 9; ++k)
            yaml += ", " + previous;
        yaml += "]\n";
    }
    yaml += "box: {type: categorical, values: *a9}\n";
    try {
        SearchSpace::parse(yaml, "bomb.yaml", m_schema, m_autospeed);
        QFAIL("the alias bomb was accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString(e.what()), QString("bomb.yaml: the YAML has more than 1000000 nodes with its aliases expanded "
                                            "(Pitwall reads at most that many; an alias bomb?)"));
    }
}

void TestSearchSpace::badSpaces()
{
    QFETCH(QString, yaml);
    QFETCH(QString, expected);
    try {
        SearchSpace::parse(yaml.toStdString(), "space.yaml", m_schema, m_autospeed);
        QFAIL("the bad space was accepted");
    } catch (const InputError& e) {
        std::string all;
        for (const Diagnostic& d : e.diagnostics())
            all += d.toString() + "\n";
        QVERIFY2(all.find("space.yaml:" + expected.toStdString()) != std::string::npos ||
                     (expected.startsWith(":") && all.find("space.yaml") != std::string::npos &&
                      all.find(expected.mid(2).toStdString()) != std::string::npos),
                 all.c_str());
    }
}

void TestSearchSpace::everyProblemAtOnce()
{
    try {
        SearchSpace::parse("box: {type: uniform, min: 3, max: 1}\ncls: {type: gauss, min: 0, max: 1}\nnope: 3\n",
                           "three.yaml", m_schema, m_autospeed);
        QFAIL("accepted");
    } catch (const InputError& e) {
        QCOMPARE(e.diagnostics().size(), std::size_t(3));
        QCOMPARE(e.diagnostics()[0].where.line, 1);
        QCOMPARE(e.diagnostics()[1].where.line, 2);
        QCOMPARE(e.diagnostics()[2].where.line, 3);
    }
}

// A labels file names points of the space by some of its parameters' values; a trial matches when it has every one
// (numbers compared as numbers: 8 and 8.0 are one value); bad names and values are refused with file:line. If this
// fails, LEAD's variants are labelled on trials that are not theirs, or a typo in a labels file passes silently.
void TestSearchSpace::labelsNamePointsOfTheSpace()
{
    const SearchSpace space =
        SearchSpace::parse("version: {type: categorical, values: [n, s]}\nlr: {type: loguniform, min: 1.0e-4, max: 1.0e-2}\n"
                           "epochs: {type: int, min: 1, max: 10}\n",
                           "space.yaml", m_schema, {"autospeed", "training.optimization"});
    const std::vector<TrialLabel> labels =
        parseTrialLabels("small: {version: n, epochs: 3}\nsmall slow: {version: n, epochs: 3, lr: 0.001}\n",
                         "labels.yaml", space);
    QCOMPARE(labels.size(), std::size_t(2));
    QCOMPARE(labels[0].params["version"].get<std::string>(), std::string("n"));
    QCOMPARE(labels[0].params["epochs"].get<long long>(), 3LL);
    QCOMPARE(trialLabelsFromJson(trialLabelsJson(labels)).size(), std::size_t(2));

    const auto trial = [](const std::string& version, double epochs, double lr) {
        TrialRecord t;
        const Distribution cat{Distribution::Kind::Categorical, 0, 0, false, std::nullopt, {"n", "s"}};
        t.params.push_back({"version", version == "n" ? 0.0 : 1.0, cat});
        t.params.push_back({"epochs", epochs, {Distribution::Kind::Int, 1, 10, false, 1.0, {}}});
        t.params.push_back({"lr", lr, {Distribution::Kind::Float, 1e-4, 1e-2, true, std::nullopt, {}}});
        return t;
    };
    QCOMPARE(labelsOf(trial("n", 3, 0.001), labels), (std::vector<std::string>{"small", "small slow"}));
    QCOMPARE(labelsOf(trial("n", 3, 0.005), labels), (std::vector<std::string>{"small"}));
    QVERIFY(labelsOf(trial("s", 3, 0.001), labels).empty());
    QVERIFY(labelsOf(trial("n", 4, 0.001), labels).empty());

    const auto problem = [&](const std::string& yaml) {
        try {
            parseTrialLabels(yaml, "labels.yaml", space);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    QVERIFY2(problem("a: {versoin: n}\n").find("labels.yaml:1:5: label 'a': 'versoin' is not a parameter of space.yaml "
                                               "(did you mean version?)") != std::string::npos,
             problem("a: {versoin: n}\n").c_str());
    QVERIFY2(problem("a: {version: m}\n").find("labels.yaml:1:14: label 'a': 'm' is not one of version's values (n, s)") !=
                 std::string::npos,
             problem("a: {version: m}\n").c_str());
    QVERIFY2(problem("a: {epochs: 11}\n").find("'11' is not a number in epochs's range [1, 10]") != std::string::npos,
             problem("a: {epochs: 11}\n").c_str());
    QVERIFY2(problem("a: {}\n").find("label 'a' needs parameter values") != std::string::npos, problem("a: {}\n").c_str());
    QVERIFY2(problem("- a\n").find("a labels file maps each name") != std::string::npos, problem("- a\n").c_str());
}

QTEST_GUILESS_MAIN(TestSearchSpace)
#include "tst_hpo_searchspace.moc"
