// Optuna 3.1 (Debian's python3-optuna) and Pitwall read and write each other's studies in one file; with Optuna
// 3.2 or later, after `optuna storage upgrade` (README), both still do. The checks branch on the installed version.
// If this fails, optuna-dashboard or an Optuna script would see wrong trials in a Pitwall study (or refuse
// the file), or Pitwall would misread a study that Optuna wrote.
#include "storetestutil.h"

#include "core/store/sqlitestore.h"
#include "core/store/store.h"
#include "core/util/timefmt.h"

#include <QtTest>

#include <cmath>
#include <set>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;
using namespace storetest;

namespace {

// Optuna's side of each check lives in optuna_interop.py beside this file.
const QString kInteropScript = sourcePath("/tests/core/store/optuna_interop.py");

Json runInteropScript(const QStringList& arguments, const QString& workDir)
{
    const auto result = runPython(QStringList{kInteropScript} + arguments, workDir);
    if (result.exitCode != 0)
        throw std::runtime_error("python failed (" + std::to_string(result.exitCode) +
                                 "): " + result.err.toStdString());
    const auto lines = result.out.trimmed().split('\n');
    return Json::parse(lines.back().toStdString());
}

// Compares one trial as Pitwall reads it with the same trial as Optuna dumped it; every field.
void compareTrial(const TrialRecord& pitwall, const Json& optuna)
{
    const std::string where = "trial " + std::to_string(pitwall.number) + ": ";
    QCOMPARE(pitwall.number, optuna["number"].get<int>());
    QCOMPARE(std::string(trialStateName(pitwall.state)), optuna["state"].get<std::string>());
    Json params = Json::object(), distributions = Json::object();
    for (const auto& param : pitwall.params) {
        params[param.name] = param.value();
        distributions[param.name] = param.distribution.toOptunaJson(); // text must be Optuna's, byte for byte
    }
    QVERIFY2(params == optuna["params"], (where + params.dump() + " vs " + optuna["params"].dump()).c_str());
    QVERIFY2(distributions == optuna["distributions"],
             (where + distributions.dump() + " vs " + optuna["distributions"].dump()).c_str());
    const Json values = pitwall.values.empty() ? Json(nullptr) : Json(pitwall.values);
    QVERIFY2(values == optuna["values"], (where + values.dump() + " vs " + optuna["values"].dump()).c_str());
    Json intermediate = Json::object();
    for (const auto& [step, value] : pitwall.intermediateValues)
        intermediate[std::to_string(step)] = value;
    QVERIFY2(intermediate == optuna["intermediate_values"],
             (where + intermediate.dump() + " vs " + optuna["intermediate_values"].dump()).c_str());
    QVERIFY2(pitwall.userAttrs == optuna["user_attrs"],
             (where + pitwall.userAttrs.dump() + " vs " + optuna["user_attrs"].dump()).c_str());
    auto sameTime = [&](const std::optional<double>& mine, const Json& theirs) {
        if (theirs.is_null())
            return !mine.has_value();
        const auto parsed = parseTimestamp(theirs.get<std::string>());
        return mine && parsed && std::abs(*mine - *parsed) < 2e-6;
    };
    QVERIFY2(sameTime(pitwall.startTime, optuna["datetime_start"]), (where + optuna["datetime_start"].dump()).c_str());
    QVERIFY2(sameTime(pitwall.completeTime, optuna["datetime_complete"]),
             (where + optuna["datetime_complete"].dump()).c_str());
}

void compareStudy(Store& store, const std::string& name, const Json& optuna)
{
    const auto study = store.requireStudy(name);
    QCOMPARE(study.userAttrs, optuna["user_attrs"]);
    QCOMPARE(std::string(studyDirectionName(study.directions.at(0))), optuna["directions"][0].get<std::string>());
    const auto trials = store.trials(study.id);
    QCOMPARE(trials.size(), optuna["trials"].size());
    for (std::size_t i = 0; i < trials.size(); ++i) {
        compareTrial(trials[i], optuna["trials"][i]);
        if (QTest::currentTestFailed())
            return;
    }
    const auto summaries = store.listStudies();
    for (const auto& summary : summaries)
        if (summary.study.name == name) {
            QCOMPARE(summary.bestValue, std::optional<double>(optuna["best_value"].get<double>()));
            QCOMPARE(summary.bestTrialNumber, std::optional<int>(optuna["best_number"].get<int>()));
        }
}

// The revision Pitwall gives new files: that of every Optuna since 3.2 (core/store/optunaschema.h).
const char* kPitwallRevision = "v3.2.0.a";

// Whether the installed Optuna (as file_versions reports it) is 3.2 or later, whose head is kPitwallRevision.
bool optunaAtLeast32(const Json& files)
{
    const QStringList parts = QString::fromStdString(files["optuna"].get<std::string>()).split('.');
    const int major = parts.value(0).toInt(), minor = parts.value(1).toInt();
    return major > 3 || (major == 3 && minor >= 2);
}

// The file is at the revision the installed Optuna expects (Optuna opened it without complaint).
void verifyRevisions(const Json& files)
{
    QCOMPARE(files["current"], files["head"]);
    QCOMPARE(files["alembic"], Json::array({Json::array({files["head"]})}));
}

// A file Pitwall made, after Optuna used it: the newest Optuna opened it as Pitwall wrote it (no upgrade, Pitwall's
// version row); Debian's Optuna 3.1 after `pitwall db migrate --optuna-schema 3.1` (tests/core/optuna_storage.py).
void verifyPitwallMadeRevision(const Json& files)
{
    verifyRevisions(files);
    if (optunaAtLeast32(files)) {
        QCOMPARE(files["head"], Json(kPitwallRevision));
        QCOMPARE(files["version_info"], Json::array({Json::array({12, "3.2.0"})})); // no upgrade, no stamping
    } else {
        QCOMPARE(files["head"], Json("v3.0.0.d"));
        QCOMPARE(files["version_info"], Json::array({Json::array({12, "3.1.0"})}));
    }
}

} // namespace

class TestOptunaInterop : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void optunaReadsAndExtendsPitwallStudy();
    void pitwallReadsOptunaStudy();
    void shippedFixtureOpens();
    void bothKeepWritingAfterStorageUpgrade();

private:
    QTemporaryDir m_dir;
    QString m_optunaMissing;
};

void TestOptunaInterop::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_optunaMissing = storetest::optunaUnavailableReason(m_dir.path());
}

void TestOptunaInterop::optunaReadsAndExtendsPitwallStudy()
{
    if (!m_optunaMissing.isEmpty())
        PITWALL_FAIL_MISSING_OPTUNA(m_optunaMissing);
    const auto path = m_dir.filePath("pitwall-made.db").toStdString();
    std::int64_t studyId = 0;
    {
        auto store = openStore(path);
        studyId = store->createStudy("pitwall-made", {StudyDirection::Minimize});
        store->setStudyUserAttr(studyId, "owner", "pitwall");
        struct Spec {
            double x, lr;
            int layers, optimizer;
            std::vector<double> intermediate;
            TrialState state;
            double value;
        };
        const std::vector<Spec> specs{{0.5, 1e-3, 2, 1, {1.0, 0.5}, TrialState::Complete, 0.25},
                                      {-1.25, 3.5e-5, 4, 0, {2.0}, TrialState::Complete, 0.125},
                                      {2.75, 0.05, 1, 1, {7.5, 8.25}, TrialState::Pruned, 0},
                                      {0.0, 0.01, 3, 0, {}, TrialState::Fail, 0}};
        for (std::size_t i = 0; i < specs.size(); ++i) {
            const auto& spec = specs[i];
            const auto trial = store->createTrial(studyId);
            store->setTrialParam(trial.id, "x", spec.x, floatDist(-3, 3));
            store->setTrialParam(trial.id, "lr", spec.lr, floatDist(1e-5, 1e-1, true));
            store->setTrialParam(trial.id, "layers", spec.layers, intDist(1, 4));
            store->setTrialParam(trial.id, "optimizer", spec.optimizer, optimizerDist());
            for (std::size_t step = 0; step < spec.intermediate.size(); ++step)
                store->reportIntermediate(trial.id, static_cast<std::int64_t>(step), spec.intermediate[step]);
            store->setTrialUserAttr(trial.id, "map50", 0.5 + static_cast<double>(i) / 10);
            store->finishTrial(trial.id, spec.state,
                               spec.state == TrialState::Complete ? std::vector{spec.value} : std::vector<double>{});
        }
        const auto info = store->info();
        QCOMPARE(info.pitwallSchemaVersion, 6);
    }

    const Json result = runInteropScript({"extend", QString::fromStdString(path), "pitwall-made"}, m_dir.path());
    const Json& before = result["before"];
    // What Optuna sees, field by field, against what Pitwall meant to write.
    QCOMPARE(before["trials"].size(), std::size_t(4));
    const Json& t0 = before["trials"][0];
    QCOMPARE(t0["state"], Json("COMPLETE"));
    QCOMPARE(t0["params"], Json({{"x", 0.5}, {"lr", 1e-3}, {"layers", 2}, {"optimizer", "adamw"}}));
    QVERIFY(t0["params"]["layers"].is_number_integer());
    QCOMPARE(t0["values"], Json::array({0.25}));
    QCOMPARE(t0["intermediate_values"], Json({{"0", 1.0}, {"1", 0.5}}));
    QCOMPARE(
        t0["distributions"]["lr"],
        Json(R"({"name": "FloatDistribution", "attributes": {"step": null, "low": 1e-05, "high": 0.1, "log": true}})"));
    QCOMPARE(t0["distributions"]["optimizer"],
             Json(R"({"name": "CategoricalDistribution", "attributes": {"choices": ["sgd", "adamw"]}})"));
    QCOMPARE(t0["user_attrs"], Json({{"map50", 0.5}}));
    QCOMPARE(before["trials"][1]["params"]["optimizer"], Json("sgd"));
    QCOMPARE(before["trials"][1]["params"]["lr"], Json(3.5e-5));
    const Json& pruned = before["trials"][2];
    QCOMPARE(pruned["state"], Json("PRUNED"));
    QCOMPARE(pruned["intermediate_values"], Json({{"0", 7.5}, {"1", 8.25}}));
    QCOMPARE(pruned["values"], Json::array({8.25}));
    QCOMPARE(before["trials"][3]["state"], Json("FAIL"));
    QVERIFY(before["trials"][3]["values"].is_null());
    QCOMPARE(before["best_value"], Json(0.125));
    QCOMPARE(before["best_number"], Json(1));
    QCOMPARE(before["user_attrs"], Json({{"owner", "pitwall"}}));
    QCOMPARE(before["directions"], Json::array({"MINIMIZE"}));
    // The newest Optuna opened the file as Pitwall wrote it; Debian's 3.1 after Pitwall converted it.
    verifyPitwallMadeRevision(result["files"]);

    // Pitwall and Optuna now agree on all five trials, field by field.
    auto store = openStore(path, OpenMode::ReadOnly);
    const Json after = runInteropScript({"read", QString::fromStdString(path), "pitwall-made"}, m_dir.path());
    QCOMPARE(after["study"]["trials"].size(), std::size_t(5));
    compareStudy(*store, "pitwall-made", after["study"]);
    // The trial Optuna added reads back in Pitwall with the next number and its values.
    QCOMPARE(result["added"]["number"], Json(4));
    const auto added = store->trial(studyId, 4);
    QVERIFY(added);
    QCOMPARE(added->state, TrialState::Complete);
    QCOMPARE(added->values, std::vector<double>{1.5});
    QCOMPARE(added->intermediateValues, (std::map<std::int64_t, double>{{0, 0.9}}));
    QCOMPARE(added->userAttrs["map50"], Json(0.42));
    Json params = Json::object();
    for (const auto& param : added->params)
        params[param.name] = param.value();
    QCOMPARE(params, result["added"]["params"]);
    const auto info = store->info();
    QCOMPARE(info.optunaSchemaVersion, std::optional<int>(12));
    QCOMPARE(info.alembicVersion, result["files"]["head"].get<std::string>());
    QCOMPARE(info.pitwallSchemaVersion, 6);
}

// The README's promise for Optuna 3.2 and later, run as a user runs it on whatever Optuna is installed: `optuna
// storage upgrade` on a Pitwall file (a no-op under 3.1, the index migration later), then Pitwall reads the study
// and adds a trial, Optuna reads all of it and adds one, and Pitwall reads that. If this fails, a user of a newer
// Optuna loses the file to one of the two tools after the upgrade the README tells them to run.
void TestOptunaInterop::bothKeepWritingAfterStorageUpgrade()
{
    if (!m_optunaMissing.isEmpty())
        PITWALL_FAIL_MISSING_OPTUNA(m_optunaMissing);
    const auto path = m_dir.filePath("upgraded.db").toStdString();
    const QString file = QString::fromStdString(path);
    const auto addTrial = [&](double x, double value) {
        auto store = openStore(path);
        const auto study = store->requireStudy("pitwall-made").id;
        const auto trial = store->createTrial(study);
        store->setTrialParam(trial.id, "x", x, floatDist(-3, 3));
        store->setTrialParam(trial.id, "lr", 1e-3, floatDist(1e-5, 1e-1, true));
        store->setTrialParam(trial.id, "layers", 2, intDist(1, 4));
        store->setTrialParam(trial.id, "optimizer", 1, optimizerDist());
        store->finishTrial(trial.id, TrialState::Complete, {value});
    };
    // Made at Optuna 3.1's revision, so that a newer Optuna's own migration (v3.2.0.a) runs on it.
    qputenv("PITWALL_OPTUNA_SCHEMA", "3.1");
    openStore(path)->createStudy("pitwall-made", {StudyDirection::Minimize});
    qunsetenv("PITWALL_OPTUNA_SCHEMA");
    addTrial(0.5, 0.25);

    const Json upgraded = runInteropScript({"upgrade", file}, m_dir.path());
    QCOMPARE(upgraded["status"], Json(0));
    verifyRevisions(upgraded["files"]);
    const std::string head = upgraded["files"]["head"].get<std::string>();

    addTrial(-1.0, 0.125); // Pitwall writes the upgraded file
    {
        auto store = openStore(path, OpenMode::ReadOnly);
        QCOMPARE(store->info().alembicVersion, head);
        QCOMPARE(store->trials(store->requireStudy("pitwall-made").id).size(), std::size_t(2));
    }
    const Json extended = runInteropScript({"extend", file, "pitwall-made"}, m_dir.path());
    QCOMPARE(extended["before"]["trials"].size(), std::size_t(2));
    QCOMPARE(extended["before"]["best_value"], Json(0.125));
    QCOMPARE(extended["added"]["number"], Json(2));
    QCOMPARE(extended["files"]["head"], Json(head));
    auto store = openStore(path, OpenMode::ReadOnly);
    const Json after = runInteropScript({"read", file, "pitwall-made"}, m_dir.path());
    compareStudy(*store, "pitwall-made", after["study"]);
    QCOMPARE(store->trial(store->requireStudy("pitwall-made").id, 2)->values, std::vector<double>{1.5});
}

void TestOptunaInterop::pitwallReadsOptunaStudy()
{
    if (!m_optunaMissing.isEmpty())
        PITWALL_FAIL_MISSING_OPTUNA(m_optunaMissing);
    const auto path = m_dir.filePath("optuna-made.db").toStdString();
    const Json written = runInteropScript({"write", QString::fromStdString(path)}, m_dir.path());
    const Json& study = written["study"];
    QCOMPARE(study["trials"].size(), std::size_t(6));
    QCOMPARE(study["trials"][2]["state"], Json("PRUNED"));
    QCOMPARE(study["trials"][4]["state"], Json("FAIL"));

    // A file Pitwall creates has Optuna's tables, indexes and version rows exactly as the installed Optuna creates
    // them: by default those of every Optuna since 3.2, with PITWALL_OPTUNA_SCHEMA=3.1 those of Debian's 3.1.
    {
        const bool newest = optunaAtLeast32(written["files"]);
        const auto fresh = m_dir.filePath("pitwall-fresh.db").toStdString();
        if (!newest)
            qputenv("PITWALL_OPTUNA_SCHEMA", "3.1");
        openStore(fresh).reset();
        qunsetenv("PITWALL_OPTUNA_SCHEMA");
        const auto schemaSql = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name NOT LIKE 'pitwall%' "
                               "ORDER BY type, name";
        QCOMPARE(query(fresh, schemaSql), query(path, schemaSql));
        QCOMPARE(query(fresh, "SELECT * FROM alembic_version"), query(path, "SELECT * FROM alembic_version"));
        // version_info names the Optuna that made the file: 3.1.0 either way under 3.1; a newer Optuna its own
        const auto versions = "SELECT version_info_id, schema_version FROM version_info";
        QCOMPARE(query(fresh, versions), query(path, versions));
        if (!newest)
            QCOMPARE(query(fresh, "SELECT * FROM version_info"), query(path, "SELECT * FROM version_info"));
    }

    {
        auto readOnly = openStore(path, OpenMode::ReadOnly);
        QCOMPARE(readOnly->info().pitwallSchemaVersion, 0);
        compareStudy(*readOnly, "optuna-made", study);
    }
    {
        auto migrated = openStore(path);
        QCOMPARE(migrated->info().pitwallSchemaVersion, 6);
        compareStudy(*migrated, "optuna-made", study);
    }
    // Optuna still opens the file after Pitwall added its tables (and switched it to WAL).
    const Json reread = runInteropScript({"read", QString::fromStdString(path), "optuna-made"}, m_dir.path());
    QCOMPARE(reread["study"], study);
    QCOMPARE(reread["files"]["version_info"], written["files"]["version_info"]);
    QCOMPARE(reread["files"]["alembic"], written["files"]["alembic"]);
}

void TestOptunaInterop::shippedFixtureOpens()
{
    // Needs no Python: the file in tests/data was written by Optuna 3.1.0 (see its README).
    const auto path = storetest::copyFile(sourcePath("/tests/data/optuna/optuna-3.1-study.db"), m_dir, "fixture.db");
    auto store = openStore(path, OpenMode::ReadOnly);
    const auto study = store->requireStudy("reference");
    QCOMPARE(study.directions, std::vector<StudyDirection>{StudyDirection::Minimize});
    const auto trials = store->trials(study.id);
    QCOMPARE(trials.size(), std::size_t(8));
    const auto& t0 = trials[0];
    QCOMPARE(t0.state, TrialState::Complete);
    QCOMPARE(t0.params.size(), std::size_t(4));
    QCOMPARE(t0.params[0].name, std::string("x"));
    QVERIFY(std::abs(t0.params[0].value().get<double>() - 0.292881023563949) < 1e-12);
    QCOMPARE(t0.params[1].name, std::string("lr"));
    QVERIFY(t0.params[1].distribution.log);
    QCOMPARE(t0.params[1].distribution.low, 1e-5);
    QCOMPARE(t0.params[2].value(), Json(3));
    QCOMPARE(t0.params[3].value(), Json("sgd"));
    QCOMPARE(t0.values.size(), std::size_t(1));
    QVERIFY(std::abs(t0.values[0] - 0.215779293963866) < 1e-12);
    QCOMPARE(t0.intermediateValues.size(), std::size_t(3));
    QCOMPARE(t0.userAttrs["map50"], Json(0.5));
    QCOMPARE(formatTimestamp(*t0.startTime), std::string("2026-11-30 08:59:39.343198"));
    QCOMPARE(formatTimestamp(*t0.completeTime), std::string("2026-11-30 08:59:39.409778"));

    int pruned = 0;
    std::set<std::string> optimizers;
    for (const auto& trial : trials) {
        for (const auto& param : trial.params)
            if (param.name == "optimizer")
                optimizers.insert(param.value().get<std::string>());
        if (trial.state == TrialState::Pruned) {
            ++pruned;
            QCOMPARE(trial.intermediateValues.size(), std::size_t(3));
            QVERIFY(trial.params[0].value().get<double>() > 2.5);
        }
    }
    QCOMPARE(pruned, 1);
    QVERIFY(optimizers == (std::set<std::string>{"adamw", "sgd"}));
    QCOMPARE(trials[3].params[3].value(), Json("adamw"));
    const auto summaries = store->listStudies();
    QCOMPARE(summaries.size(), std::size_t(1));
    QCOMPARE(summaries[0].complete, 7);
    QCOMPARE(summaries[0].pruned, 1);
    QCOMPARE(summaries[0].bestTrialNumber, std::optional<int>(0));
}

QTEST_GUILESS_MAIN(TestOptunaInterop)
#include "tst_optuna_interop.moc"
