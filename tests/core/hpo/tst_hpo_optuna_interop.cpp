// Studies move between Optuna 3.1 (Debian's python3-optuna) and `pitwall study` in both directions, and
// Pitwall's pruners take the decisions Optuna's take on the same curves. If this fails, a search started
// with one tool cannot be continued with the other (wrong trials, params or distributions, or Optuna
// refusing Pitwall's distributions), or the two would prune different trials.
#include "../../cli/clitestutil.h"
#include "../store/storetestutil.h"

#include "core/hpo/study.h"
#include "core/store/store.h"

#include <QJsonDocument>
#include <QtTest>

#include <cmath>
#include <random>
#include <set>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;
using namespace storetest;

namespace {

const QString kScript = sourcePath("/tests/core/hpo/hpo_interop.py");
const QString kExperiment2 = sourcePath("/configs/autospeed/hpo/experiment2.yaml");

// The same objective as hpo_interop.py's objective_value.
double objectiveValue(const Json& params)
{
    double total = 0.0;
    for (auto it = params.begin(); it != params.end(); ++it) {
        const Json& v = it.value();
        if (v.is_string())
            total += static_cast<double>(v.get<std::string>().size() % 3);
        else if (v.is_boolean())
            total += v.get<bool>() ? 1.0 : 0.0;
        else {
            const double x = v.get<double>();
            total += (x > 0 && x < 0.1) ? std::pow(std::log10(x) + 3.0, 2) : (x - 1.0) * (x - 1.0);
        }
    }
    return total;
}

Json lastJsonLine(const QByteArray& out)
{
    return Json::parse(out.trimmed().split('\n').back().toStdString());
}

} // namespace

class TestHpoOptunaInterop : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void optunaStudyContinuedByPitwall();
    void pitwallStudyContinuedByOptuna();
    void gridSharedWithOptuna();
    void multiObjectiveOptunaStudyContinuedByPitwall();
    void multiObjectivePitwallStudyContinuedByOptuna();
    void prunersDecideAsOptuna_data();
    void prunersDecideAsOptuna();

private:
    Json python(const QStringList& args)
    {
        const auto r = runPython(QStringList{kScript} + args, m_dir.path());
        if (r.exitCode != 0)
            qFatal("python failed: %s", r.err.constData());
        return lastJsonLine(r.out);
    }
    // ask + tell through the CLI; returns the asked params.
    Json askAndTell(const QString& db, const QString& study, const QString& space, const QStringList& extra = {})
    {
        const CliResult ask =
            runCli(QStringList{"study", "ask", "--db", db, "--study", study, "--space", space} + extra);
        if (ask.exitCode != 0)
            qFatal("ask failed: %s", qPrintable(ask.err));
        const Json line = Json::parse(ask.out.trimmed().toStdString());
        const CliResult tell = runCli({"study", "tell", "--db", db, "--study", study, "--trial",
                                       QString::number(line["number"].get<int>()), "--value",
                                       QString::number(objectiveValue(line["params"]), 'g', 17)});
        if (tell.exitCode != 0)
            qFatal("tell failed: %s", qPrintable(tell.err));
        return line;
    }

    // The version of the Optuna the interop Python imports.
    std::string optunaVersion()
    {
        if (m_optunaVersion.empty()) {
            const auto r = runPython({"-c", "import optuna; print(optuna.__version__)"}, m_dir.path());
            m_optunaVersion = r.out.trimmed().toStdString();
        }
        return m_optunaVersion;
    }

    QTemporaryDir m_dir;
    Json m_optunaDecisions; // per pruner case, from one Python run
    std::string m_optunaVersion; // of that run's Optuna
};

void TestHpoOptunaInterop::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString why = optunaUnavailableReason(m_dir.path());
    if (!why.isEmpty())
        PITWALL_FAIL_MISSING_OPTUNA(why);
}

void TestHpoOptunaInterop::optunaStudyContinuedByPitwall()
{
    const QString db = m_dir.filePath("from_optuna.db");
    const std::string space = R"({"box": {"kind": "float", "low": 5.0, "high": 10.0},
                                  "cls": {"kind": "float", "low": 0.2, "high": 4.0},
                                  "dfl": {"kind": "float", "low": 0.5, "high": 3.0}})";
    python({"run", db, "autospeed_optuna", "5", QString::fromStdString(space), "--create"});
    std::vector<Json> asked;
    for (int i = 0; i < 5; ++i)
        asked.push_back(askAndTell(db, "autospeed_optuna", kExperiment2, {"--model", "autospeed"}));

    const Json seen = python({"dump", db, "autospeed_optuna"});
    QCOMPARE(seen["trials"].size(), std::size_t(10));
    for (int i = 5; i < 10; ++i) {
        const Json& t = seen["trials"][i];
        QCOMPARE(t["number"].get<int>(), i);
        QCOMPARE(t["state"].get<std::string>(), std::string("COMPLETE"));
        QCOMPARE(t["params"], asked[i - 5]["params"]);
        QCOMPARE(t["value"].get<double>(), objectiveValue(asked[i - 5]["params"]));
        // Optuna reads back the distributions its own suggest_float would have made.
        QCOMPARE(t["distributions"], seen["trials"][0]["distributions"]);
    }
    // Optuna continues the study with its TPE (which checks the distributions are compatible).
    const Json after = python({"run", db, "autospeed_optuna", "5", QString::fromStdString(space)});
    QCOMPARE(after["trials"].size(), std::size_t(15));
    for (const Json& t : after["trials"])
        QCOMPARE(t["state"].get<std::string>(), std::string("COMPLETE"));
    // Pitwall sees Optuna's study as TPE with the median pruner (Optuna's defaults).
    const CliResult list = runCli({"study", "list", "--db", db, "--json"});
    const Json studies = Json::parse(list.out.toStdString())["studies"];
    QCOMPARE(studies[0]["sampler"].get<std::string>(), std::string("tpe"));
    QCOMPARE(studies[0]["complete"].get<int>(), 15);
}

void TestHpoOptunaInterop::pitwallStudyContinuedByOptuna()
{
    const QString db = m_dir.filePath("from_pitwall.db");
    const QString spaceFile = m_dir.filePath("mixed.yaml");
    QFile file(spaceFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("training.optimization.lr: {type: loguniform, min: 1.0e-5, max: 1.0e-2}\n"
               "training.optimization.batch_size: {type: int, min: 8, max: 64, step: 8}\n"
               "policy.transfuser.upsample_mode: {type: categorical, values: [bilinear, nearest]}\n"
               "autospeed.box: {type: uniform, min: 5, max: 10, step: 0.5}\n"
               "autospeed.cls: {type: uniform, min: 0.2, max: 4}\n");
    file.close();
    QCOMPARE(runCli({"study", "create", "--db", db, "--study", "mixed", "--seed", "3", "--pruner", "sha"}).exitCode, 0);
    std::vector<Json> asked;
    for (int i = 0; i < 12; ++i) // past TPE's 10 start-up trials
        asked.push_back(askAndTell(db, "mixed", spaceFile));

    const std::string space = R"({"training.optimization.lr": {"kind": "float", "low": 1e-5, "high": 1e-2, "log": true},
        "training.optimization.batch_size": {"kind": "int", "low": 8, "high": 64, "step": 8},
        "policy.transfuser.upsample_mode": {"kind": "categorical", "choices": ["bilinear", "nearest"]},
        "autospeed.box": {"kind": "float", "low": 5.0, "high": 10.0, "step": 0.5},
        "autospeed.cls": {"kind": "float", "low": 0.2, "high": 4.0}})";
    const Json after = python({"run", db, "mixed", "5", QString::fromStdString(space)});
    QCOMPARE(after["trials"].size(), std::size_t(17));
    for (int i = 0; i < 12; ++i) {
        QCOMPARE(after["trials"][i]["params"], asked[i]["params"]);
        QCOMPARE(after["trials"][i]["value"].get<double>(), objectiveValue(asked[i]["params"]));
    }
    for (const Json& t : after["trials"])
        QCOMPARE(t["state"].get<std::string>(), std::string("COMPLETE"));
    QCOMPARE(after["trials"][16]["distributions"], after["trials"][0]["distributions"]);
    QCOMPARE(after["direction"].get<std::string>(), std::string("MINIMIZE"));
}

void TestHpoOptunaInterop::gridSharedWithOptuna()
{
    // Pitwall asks half of a 6-point grid; Optuna's GridSampler (the same seed), reading Pitwall's
    // grid_id/search_space attributes, runs exactly the other half. The study numbers its grid as the Optuna it is
    // shared with does: Optuna 3.1 in product order, the newest Optuna in the order its seed shuffles.
    const QString db = m_dir.filePath("grid.db");
    const QString spaceFile = m_dir.filePath("grid.yaml");
    QFile file(spaceFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("autospeed.warmup_epochs: {type: int, min: 1, max: 3}\n"
               "policy.transfuser.upsample_mode: {type: categorical, values: [bilinear, nearest]}\n");
    file.close();
    {
        const auto store = openStore(db.toStdString());
        StudyOptions options;
        options.sampler.kind = SamplerKind::Grid;
        options.sampler.seed = 1;
        options.sampler.grid.asOptuna31 = optunaVersion().starts_with("3.1.");
        Study::create(*store, "grid", options);
    }
    for (int i = 0; i < 3; ++i)
        askAndTell(db, "grid", spaceFile);
    const std::string space = R"({"autospeed.warmup_epochs": {"kind": "int", "low": 1, "high": 3, "values": [1, 2, 3]},
        "policy.transfuser.upsample_mode": {"kind": "categorical", "choices": ["bilinear", "nearest"]}})";
    const Json after = python({"run", db, "grid", "3", QString::fromStdString(space), "--grid"});
    QCOMPARE(after["trials"].size(), std::size_t(6));
    QCOMPARE(after["optuna_version"].get<std::string>(), optunaVersion());
    std::set<std::string> points;
    for (const Json& t : after["trials"])
        points.insert(t["params"].dump());
    QCOMPARE(points.size(), std::size_t(6));
    // And Pitwall finds the grid exhausted.
    const CliResult more = runCli({"study", "ask", "--db", db, "--study", "grid", "--space", spaceFile});
    QCOMPARE(more.exitCode, 2);
    QVERIFY2(more.err.contains("the grid is exhausted"), qPrintable(more.err));
}

namespace {

struct PrunerCase {
    const char* tag;
    const char* settings; // Pitwall's settings JSON, also read by hpo_interop.py
    const char* direction;
};

const PrunerCase kPrunerCases[] = {
    {"median", R"({"name": "median", "n_startup_trials": 5, "n_warmup_steps": 2, "interval_steps": 1})", "minimize"},
    {"median maximize interval 3",
     R"({"name": "median", "n_startup_trials": 3, "n_warmup_steps": 0, "interval_steps": 3})", "maximize"},
    {"sha", R"({"name": "sha", "min_resource": 1, "reduction_factor": 2})", "minimize"},
    {"sha auto", R"({"name": "sha", "reduction_factor": 3})", "maximize"},
    {"hyperband", R"({"name": "hyperband", "min_resource": 1, "max_resource": 9, "reduction_factor": 3})", "minimize"},
    {"hyperband auto", R"({"name": "hyperband", "min_resource": 1, "reduction_factor": 2})", "minimize"},
};

// 30 noisy learning curves of 10 steps at different levels; the same for both tools and every case.
Json learningCurves()
{
    std::mt19937 random(42);
    std::normal_distribution<double> noise(0.0, 0.3);
    Json curves = Json::array();
    for (int t = 0; t < 30; ++t) {
        const double level = 1.0 + (t * 7 % 11) * 0.3;
        Json curve = Json::array();
        for (int s = 0; s < 10; ++s)
            curve.push_back(std::round((level + 3.0 / (s + 1) + noise(random)) * 1000) / 1000);
        curves.push_back(curve);
    }
    return curves;
}

} // namespace

namespace {

const char* kMultiSpace = R"({"box": {"kind": "float", "low": 5.0, "high": 10.0},
                              "cls": {"kind": "float", "low": 0.2, "high": 4.0}})";

// hpo_interop.py's objective_values: the bowl, and the distance from 4 over the numeric parameters.
std::pair<double, double> objectiveValues(const Json& params)
{
    double second = 0.0;
    for (auto it = params.begin(); it != params.end(); ++it)
        if (it.value().is_number())
            second += std::pow(it.value().get<double>() - 4.0, 2);
    return {objectiveValue(params), second};
}

std::vector<int> frontNumbers(const CliResult& best)
{
    std::vector<int> numbers;
    const Json parsed = Json::parse(best.out.toStdString());
    for (const Json& t : parsed["best_trials"])
        numbers.push_back(t["number"].get<int>());
    return numbers;
}

} // namespace

void TestHpoOptunaInterop::multiObjectiveOptunaStudyContinuedByPitwall()
{
    // Optuna 3.1 runs NSGA-II (population 10) on two objectives, one maximised, with a constraint (box <= 7).
    const QString db = m_dir.filePath("mo_from_optuna.db");
    const Json run = python({"multi", db, "mo", "30", kMultiSpace, "--create", "--directions", "minimize,maximize",
                             "--population", "10", "--constrained"});
    QCOMPARE(run["trials"].size(), std::size_t(30));
    // Pitwall's front is Optuna's front of the feasible trials (the newest Optuna's best_trials).
    const CliResult best = runCli({"study", "best", "--db", db, "--study", "mo", "--json"});
    QCOMPARE(best.exitCode, 0);
    QCOMPARE(frontNumbers(best), run["feasible_best_trials"].get<std::vector<int>>());
    QVERIFY(run["feasible_best_trials"] != run["front_ignoring_constraints"]); // the constraint mattered
    const Json listed = Json::parse(runCli({"study", "list", "--db", db, "--json"}).out.toStdString())["studies"][0];
    QCOMPARE(listed["directions"], Json::array({"minimize", "maximize"}));
    QCOMPARE(listed["sampler"].get<std::string>(), std::string("nsga2")); // Optuna's default for several objectives
    QCOMPARE(listed["pareto_front"].get<int>(), int(run["feasible_best_trials"].size()));

    // Pitwall continues it with its NSGA-II: the next generation, bred from Optuna's trials.
    const QString spaceFile = m_dir.filePath("mo.yaml");
    QVERIFY(writeTestFile(spaceFile, "box: {type: uniform, min: 5, max: 10}\ncls: {type: uniform, min: 0.2, max: 4}\n"));
    std::vector<Json> asked;
    for (int i = 0; i < 5; ++i) {
        const CliResult ask = runCli({"study", "ask", "--db", db, "--study", "mo", "--space", spaceFile, "--model",
                                      "autospeed"});
        QCOMPARE(ask.exitCode, 0);
        asked.push_back(Json::parse(ask.out.trimmed().toStdString()));
        const auto [f1, f2] = objectiveValues(asked.back()["params"]);
        const double box = asked.back()["params"]["box"].get<double>();
        QCOMPARE(runCli({"study", "tell", "--db", db, "--study", "mo", "--trial",
                         QString::number(asked.back()["number"].get<int>()), "--value", QString::number(f1, 'g', 17),
                         "--value", QString::number(f2, 'g', 17), "--constraint", QString::number(box - 7.0, 'g', 17)})
                     .exitCode,
                 0);
    }
    // Optuna reads Pitwall's trials (values, constraints, generation) and continues with its own NSGA-II.
    const Json after = python({"multi", db, "mo", "5", kMultiSpace, "--population", "10", "--constrained"});
    QCOMPARE(after["trials"].size(), std::size_t(40));
    for (int i = 0; i < 5; ++i) {
        const Json& t = after["trials"][30 + i];
        QCOMPARE(t["state"].get<std::string>(), std::string("COMPLETE"));
        QCOMPARE(t["params"], asked[i]["params"]);
        const auto [f1, f2] = objectiveValues(asked[i]["params"]);
        QCOMPARE(t["values"], Json::array({f1, f2}));
        QCOMPARE(t["generation"].get<int>(), 3); // 30 trials of population 10: generations 0, 1, 2 complete
        QCOMPARE(t["constraints"].size(), std::size_t(1));
    }
    QCOMPARE(frontNumbers(runCli({"study", "best", "--db", db, "--study", "mo", "--json"})),
             after["feasible_best_trials"].get<std::vector<int>>());
}

void TestHpoOptunaInterop::multiObjectivePitwallStudyContinuedByOptuna()
{
    const QString db = m_dir.filePath("mo_from_pitwall.db");
    const QString spaceFile = m_dir.filePath("mo2.yaml");
    QVERIFY(writeTestFile(spaceFile, "box: {type: uniform, min: 5, max: 10}\ncls: {type: uniform, min: 0.2, max: 4}\n"));
    QCOMPARE(runCli({"study", "create", "--db", db, "--study", "mo", "--direction", "minimize", "--direction",
                     "minimize", "--seed", "5", "--population-size", "6"})
                 .exitCode,
             0);
    std::vector<Json> asked;
    for (int i = 0; i < 14; ++i) {
        const CliResult ask = runCli({"study", "ask", "--db", db, "--study", "mo", "--space", spaceFile, "--model",
                                      "autospeed"});
        QCOMPARE(ask.exitCode, 0);
        asked.push_back(Json::parse(ask.out.trimmed().toStdString()));
        const auto [f1, f2] = objectiveValues(asked.back()["params"]);
        const QStringList step = i == 0 ? QStringList{"--intermediate", "0=0.25,7.5"} : QStringList{};
        QCOMPARE(runCli(QStringList{"study", "tell", "--db", db, "--study", "mo", "--trial", QString::number(i),
                                    "--value", QString::number(f1, 'g', 17), "--value", QString::number(f2, 'g', 17)} +
                        step)
                     .exitCode,
                 0);
    }
    const std::vector<int> pitwallFront = frontNumbers(runCli({"study", "best", "--db", db, "--study", "mo", "--json"}));
    const Json after = python({"multi", db, "mo", "4", kMultiSpace, "--population", "6"});
    QCOMPARE(after["directions"], Json::array({"MINIMIZE", "MINIMIZE"}));
    // Optuna reads a vector's first value as the trial's intermediate value (the others are Pitwall's own table).
    QCOMPARE(after["trials"][0]["intermediate_values"], Json({{"0", 0.25}}));
    QCOMPARE(after["trials"].size(), std::size_t(18));
    for (int i = 0; i < 14; ++i) {
        QCOMPARE(after["trials"][i]["params"], asked[i]["params"]);
        const auto [f1, f2] = objectiveValues(asked[i]["params"]);
        QCOMPARE(after["trials"][i]["values"], Json::array({f1, f2}));
        QCOMPARE(after["trials"][i]["generation"].get<int>(), i < 6 ? 0 : (i < 12 ? 1 : 2));
    }
    // Optuna 3.1's best_trials over Pitwall's 14 trials (no constraints) is Pitwall's front; after Optuna's four,
    // the two still agree.
    std::vector<int> optunaFrontOfFirst14;
    for (int n : after["best_trials"].get<std::vector<int>>())
        if (n < 14)
            optunaFrontOfFirst14.push_back(n);
    for (int n : optunaFrontOfFirst14)
        QVERIFY(std::find(pitwallFront.begin(), pitwallFront.end(), n) != pitwallFront.end());
    QCOMPARE(frontNumbers(runCli({"study", "best", "--db", db, "--study", "mo", "--json"})),
             after["best_trials"].get<std::vector<int>>());
}

void TestHpoOptunaInterop::prunersDecideAsOptuna_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < static_cast<int>(std::size(kPrunerCases)); ++i)
        QTest::newRow(kPrunerCases[i].tag) << i;
}

void TestHpoOptunaInterop::prunersDecideAsOptuna()
{
    QFETCH(int, index);
    const PrunerCase& c = kPrunerCases[index];
    const Json curves = learningCurves();
    if (m_optunaDecisions.is_null()) { // every case in one Python run (importing Optuna takes a second)
        Json scenarios = Json::array();
        for (const PrunerCase& each : kPrunerCases)
            scenarios.push_back({{"study", "curves"},
                                 {"direction", each.direction},
                                 {"pruner", Json::parse(each.settings)},
                                 {"trials", curves}});
        const QString file = m_dir.filePath("scenarios.json");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(scenarios.dump()));
        out.close();
        const Json replayed = python({"prune", file});
        m_optunaDecisions = replayed["decisions"];
        QCOMPARE(replayed["optuna_version"].get<std::string>(), optunaVersion());
    }
    const Json& optuna = m_optunaDecisions[static_cast<std::size_t>(index)];

    const auto store = openStore(m_dir.filePath("prune_" + QString::number(index) + ".db").toStdString());
    StudyOptions options;
    options.direction = std::string(c.direction) == "maximize" ? StudyDirection::Maximize : StudyDirection::Minimize;
    // sha and hyperband decide as the Optuna they are compared with: 3.1 (Debian's) or the newest.
    Json settings = Json::parse(c.settings);
    settings["halving_version"] = optunaVersion().starts_with("3.1.") ? "3.1" : "5";
    options.pruner = PrunerSettings::fromJson(settings);
    Study study = Study::create(*store, "curves", options);
    int pruned = 0;
    for (std::size_t t = 0; t < curves.size(); ++t) {
        const Json& curve = curves[t];
        const int n = study.ask(std::vector<ParamRequest>{}).trial.number;
        Json verdicts = Json::array();
        for (std::size_t s = 0; s < curve.size(); ++s) {
            study.report(n, static_cast<std::int64_t>(s), curve[s].get<double>());
            verdicts.push_back(study.shouldPrune(n));
            if (verdicts.back().get<bool>())
                break;
        }
        if (verdicts.back().get<bool>()) {
            study.tell(n, TrialState::Pruned);
            ++pruned;
        } else {
            study.tell(n, TrialState::Complete, curve.back().get<double>());
        }
        QVERIFY2(
            verdicts == optuna[t],
            ("trial " + std::to_string(t) + ": pitwall " + verdicts.dump() + ", optuna " + optuna[t].dump()).c_str());
    }
    qInfo("%s: %d of 30 trials pruned, every verdict as Optuna's", c.tag, pruned);
    QVERIFY2(pruned > 0, "the scenario must exercise pruning");
}

QTEST_GUILESS_MAIN(TestHpoOptunaInterop)
#include "tst_hpo_optuna_interop.moc"
