// The study ask/tell protocol over a results database, in process and through `pitwall study`. If this
// fails, workers get trials without stored parameters, finished trials change, settings are lost between
// processes, or the CLI's exit codes and messages mislead the scripts that drive it.
#include "hpotestutil.h"

#include "../../cli/clitestutil.h"
#include "../store/storetestutil.h"

#include "core/config/config.h"
#include "core/hpo/study.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <set>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;
using namespace hpotest;

namespace {

const QString kSpace = sourcePath("/configs/autospeed/hpo/experiment2.yaml");

QJsonObject parseLine(const QString& out)
{
    const auto lines = out.trimmed().split('\n');
    if (lines.size() != 1)
        return {};
    return QJsonDocument::fromJson(lines.front().toUtf8()).object();
}

// One study as two processes see it: each Study on its own store connection to `file`; the first creates it.
struct TwoProcesses {
    std::unique_ptr<Store> storeA, storeB;
    Study a, b;

    TwoProcesses(const std::string& file, const std::string& name)
        : storeA(openStore(file)), storeB(openStore(file)), a(Study::create(*storeA, name, StudyOptions{})),
          b(Study::load(*storeB, name))
    {
    }
};

bool writeFile(const QString& path, const QByteArray& text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

} // namespace

class TestStudy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void askStoresParametersAndOverrides();
    void tellRules();
    void reportAndPrune();
    void settingsSurviveReopening();
    void optunaStudyDefaultsToTpe();
    void exhaustedGridLeavesNoTrial();
    void failedAskLeavesNoTrial();
    void askIfLooksAgainWhenAnotherProcessStartedATrial();
    void askSeesWhatAnotherProcessFinished();
    void cliAskTellBest();
    void cliAskFreeParameters();
    void cliRejectsBadInput();

private:
    std::string db(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

void TestStudy::askStoresParametersAndOverrides()
{
    const Schema schema = schemaWithAutoSpeed();
    const SearchSpace space = SearchSpace::load(kSpace.toStdString(), schema, {"autospeed"});
    const auto store = openStore(db("ask.db"));
    StudyOptions options;
    options.sampler.seed = 1;
    Study study = Study::create(*store, "ask", options);
    std::set<int> numbers;
    for (int i = 0; i < 3; ++i) {
        const AskedTrial asked = study.ask(space);
        numbers.insert(asked.trial.number);
        QCOMPARE(asked.trial.state, TrialState::Running);
        QCOMPARE(asked.params.size(), std::size_t(3));
        QCOMPARE(asked.fixed["batch_size"].get<int>(), 32);
        // What the store holds is what ask() handed out, with the space's distributions.
        const TrialRecord stored = study.requireTrial(asked.trial.number);
        QCOMPARE(stored.params.size(), std::size_t(3));
        for (const TrialParam& p : stored.params) {
            QCOMPARE(p.value(), asked.params[p.name]);
            QVERIFY(sameDistribution(p.distribution, space.find(p.name)->distribution()));
        }
        // The overrides resolve into a valid config carrying the sampled values.
        ResolvedConfig config(schema);
        for (const std::string& o : asked.overrides)
            config.setFromText(o.substr(0, o.find('=')), o.substr(o.find('=') + 1), {OriginKind::Program, {}, "t"});
        QCOMPARE(config.getDouble("autospeed.box"), asked.params["box"].get<double>());
    }
    QCOMPARE(numbers, (std::set<int>{0, 1, 2}));
}

void TestStudy::tellRules()
{
    const auto store = openStore(db("tell.db"));
    Study study = Study::create(*store, "tell", {});
    const std::vector<ParamRequest> requests = {{"x", floatRange(0, 1)}};
    const int a = study.ask(requests).trial.number;
    const int b = study.ask(requests).trial.number;
    const int c = study.ask(requests).trial.number;
    QCOMPARE(study.tell(a, TrialState::Complete, 0.5), TrialState::Complete);
    QVERIFY_THROWS_EXCEPTION(InputError, study.tell(a, TrialState::Complete, 0.1)); // finished
    QVERIFY_THROWS_EXCEPTION(InputError, study.tell(b, TrialState::Complete));      // no value
    QVERIFY_THROWS_EXCEPTION(InputError, study.tell(99, TrialState::Fail));         // no such trial
    QCOMPARE(study.tell(b, TrialState::Complete, std::nan("")), TrialState::Fail);  // NaN fails, as Optuna
    QVERIFY(study.report(c, 0, 2.0));
    QVERIFY(study.report(c, 3, 1.5));
    QCOMPARE(study.tell(c, TrialState::Pruned), TrialState::Pruned);
    QCOMPARE(study.requireTrial(c).values, std::vector<double>{1.5}); // pruned: its last intermediate value
    QCOMPARE(study.bestTrial()->number, a);
    try {
        study.tell(a, TrialState::Fail);
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("it is COMPLETE with value 0.5; a finished trial cannot change") !=
                     std::string::npos,
                 e.what());
    }
}

void TestStudy::reportAndPrune()
{
    const auto store = openStore(db("prune.db"));
    StudyOptions options;
    options.pruner.startupTrials = 2;
    Study study = Study::create(*store, "prune", options);
    const std::vector<ParamRequest> requests = {{"x", floatRange(0, 1)}};
    for (double level : {1.0, 2.0}) {
        const int n = study.ask(requests).trial.number;
        for (int step = 0; step < 3; ++step)
            study.report(n, step, level);
        study.tell(n, TrialState::Complete, level);
    }
    const int n = study.ask(requests).trial.number;
    QVERIFY(study.report(n, 0, 1.2));
    QVERIFY(!study.report(n, 0, 9.0)); // a repeated step is ignored, as Optuna does
    QVERIFY(!study.shouldPrune(n));    // 1.2 < median 1.5
    QVERIFY(study.report(n, 1, 1.9));
    QVERIFY(!study.shouldPrune(n));                                // best so far 1.2
    QVERIFY_THROWS_EXCEPTION(InputError, study.shouldPrune(n, 2)); // not reported
    QVERIFY_THROWS_EXCEPTION(InputError, study.report(n, -1, 1.0));
    const int worse = study.ask(requests).trial.number;
    study.report(worse, 0, 1.8);
    QVERIFY(study.shouldPrune(worse));
    study.tell(worse, TrialState::Pruned);
    QVERIFY_THROWS_EXCEPTION(InputError, study.shouldPrune(worse)); // finished
}

void TestStudy::settingsSurviveReopening()
{
    {
        const auto store = openStore(db("settings.db"));
        StudyOptions options;
        options.direction = StudyDirection::Maximize;
        options.sampler.kind = SamplerKind::Random;
        options.sampler.seed = 9;
        options.pruner = PrunerSettings::defaults(PrunerKind::Hyperband);
        options.pruner.maxResource = 27;
        Study::create(*store, "kept", options);
        QVERIFY_THROWS_EXCEPTION(InputError, Study::create(*store, "kept", options));
    }
    const auto store = openStore(db("settings.db"), OpenMode::ReadOnly);
    const Study study = Study::load(*store, "kept");
    QCOMPARE(study.options().direction, StudyDirection::Maximize);
    QCOMPARE(study.options().sampler.kind, SamplerKind::Random);
    QCOMPARE(study.options().sampler.seed.value(), std::uint64_t(9));
    QCOMPARE(study.options().pruner.kind, PrunerKind::Hyperband);
    QCOMPARE(study.options().pruner.maxResource.value(), std::int64_t(27));
    QVERIFY_THROWS_EXCEPTION(InputError, Study::load(*store, "missing"));
}

void TestStudy::optunaStudyDefaultsToTpe()
{
    // A study made without Pitwall's settings (as Optuna makes them) samples with TPE and prunes with median.
    const auto store = openStore(db("plain.db"));
    store->createStudy("plain", {StudyDirection::Minimize});
    const Study study = Study::load(*store, "plain");
    QCOMPARE(study.options().sampler.kind, SamplerKind::Tpe);
    QCOMPARE(study.options().pruner.kind, PrunerKind::Median);
    QCOMPARE(study.options().sampler.tpe.startupTrials, 10);
}

void TestStudy::exhaustedGridLeavesNoTrial()
{
    const auto store = openStore(db("grid.db"));
    StudyOptions options;
    options.sampler.kind = SamplerKind::Grid;
    Study study = Study::create(*store, "grid", options);
    const std::vector<ParamRequest> requests = {{"n", intRange(1, 2)}, {"c", choices({"a", "b"})}};
    std::set<std::pair<double, double>> points;
    for (int i = 0; i < 4; ++i) {
        const AskedTrial asked = study.ask(requests);
        points.insert({asked.trial.params[0].internalValue, asked.trial.params[1].internalValue});
        study.tell(asked.trial.number, TrialState::Complete, 1.0);
    }
    QCOMPARE(points.size(), std::size_t(4));
    QVERIFY_THROWS_EXCEPTION(InputError, study.ask(requests));
    // A failed ask leaves nothing: no trial is left running, and none is created to be failed.
    QCOMPARE(store->trials(study.record().id).size(), std::size_t(4));
}

// The store fails part way through an ask (here: a trigger refuses the parameter rows, as a full disk would
// refuse them): the trial and its parameters are one transaction, so no parameterless RUNNING trial remains.
void TestStudy::failedAskLeavesNoTrial()
{
    const std::string file = db("failing.db");
    const auto store = openStore(file);
    Study study = Study::create(*store, "failing", StudyOptions{});
    const std::vector<ParamRequest> requests = {{"x", floatRange(0, 1)}, {"n", intRange(1, 8)}};
    storetest::query(file, "CREATE TRIGGER refuse_params BEFORE INSERT ON trial_params "
                           "BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END");
    QVERIFY_THROWS_EXCEPTION(std::exception, study.ask(requests));
    QCOMPARE(storetest::scalar(file, "SELECT COUNT(*) FROM trials"), std::string("0"));
    QCOMPARE(storetest::scalar(file, "SELECT COUNT(*) FROM trial_system_attributes"), std::string("0"));
    storetest::query(file, "DROP TRIGGER refuse_params");
    const AskedTrial asked = study.ask(requests);
    QCOMPARE(asked.trial.number, 0);
    QCOMPARE(study.requireTrial(0).params.size(), std::size_t(2));
}

// Two workers share a target of 2 trials. While the second one samples for trial 1, the first starts trial 1:
// the second's trial is not created under a taken number, it looks again, sees the target reached, and starts
// nothing, so the study holds exactly 2 trials (no surplus trial to fail as "not run").
void TestStudy::askIfLooksAgainWhenAnotherProcessStartedATrial()
{
    const std::string file = db("race.db");
    TwoProcesses processes(file, "race");
    Study& a = processes.a;
    Study& b = processes.b;
    const Schema schema = schemaWithAutoSpeed();
    const SearchSpace space = SearchSpace::load(kSpace.toStdString(), schema, {"autospeed"});
    QCOMPARE(a.ask(space).trial.number, 0);
    std::vector<std::size_t> seen;
    int othersNumber = -1;
    const auto admit = [&](const std::vector<TrialRecord>& trials) -> bool {
        seen.push_back(trials.size());
        if (seen.size() == 1)
            othersNumber = a.ask(space).trial.number; // the other worker, between b's look and b's write
        return trials.size() < 2;
    };
    QVERIFY(!b.askIf(space, admit).has_value());
    QCOMPARE(othersNumber, 1);
    QCOMPARE(seen, (std::vector<std::size_t>{1, 2}));
    QCOMPARE(storetest::scalar(file, "SELECT COUNT(*) FROM trials"), std::string("2"));
    const auto under = [](const std::vector<TrialRecord>& trials) { return trials.size() < 3; };
    const std::optional<AskedTrial> third = b.askIf(space, under);
    QVERIFY(third.has_value());
    QCOMPARE(third->trial.number, 2);
    QCOMPARE(third->fixed["batch_size"].get<int>(), 32); // askIf fills in the space's fixed values as ask does
}

// A study reads its trials incrementally (the finished ones at the front are kept); a trial another process finishes
// after this one read it as RUNNING is read again: the sampler and the admit callback see it finished, with its value.
void TestStudy::askSeesWhatAnotherProcessFinished()
{
    TwoProcesses processes(db("shared.db"), "shared");
    Study& a = processes.a;
    Study& b = processes.b;
    const Schema schema = schemaWithAutoSpeed();
    const SearchSpace space = SearchSpace::load(kSpace.toStdString(), schema, {"autospeed"});
    QCOMPARE(a.ask(space).trial.number, 0);
    QCOMPARE(a.ask(space).trial.number, 1); // a's look before numbering it read trial 0 as RUNNING
    QCOMPARE(b.tell(0, TrialState::Complete, 0.25), TrialState::Complete);
    QCOMPARE(b.tell(1, TrialState::Fail), TrialState::Fail);
    QCOMPARE(b.ask(space).trial.number, 2);
    std::vector<std::pair<TrialState, std::vector<double>>> seen;
    const auto look = [&](const std::vector<TrialRecord>& trials) {
        seen.clear();
        for (const TrialRecord& t : trials)
            seen.emplace_back(t.state, t.values);
        return true;
    };
    const std::optional<AskedTrial> fourth = a.askIf(space, look);
    QVERIFY(fourth.has_value());
    QCOMPARE(fourth->trial.number, 3);
    QCOMPARE(seen.size(), std::size_t(3));
    QCOMPARE(seen[0].first, TrialState::Complete);
    QCOMPARE(seen[0].second, std::vector<double>{0.25});
    QCOMPARE(seen[1].first, TrialState::Fail);
    QCOMPARE(seen[2].first, TrialState::Running);
    QCOMPARE(b.tell(2, TrialState::Pruned), TrialState::Pruned);
    QCOMPARE(b.tell(3, TrialState::Complete, 0.5), TrialState::Complete);
    const std::optional<AskedTrial> fifth = a.askIf(space, look);
    QVERIFY(fifth.has_value());
    QCOMPARE(fifth->trial.number, 4);
    QCOMPARE(seen.size(), std::size_t(4));
    QCOMPARE(seen[2].first, TrialState::Pruned);
    QCOMPARE(seen[3].first, TrialState::Complete);
    QCOMPARE(seen[3].second, std::vector<double>{0.5});
    // What a read finished before stays as it was read: trial 0 with its value, trial 1 failed.
    QCOMPARE(seen[0].first, TrialState::Complete);
    QCOMPARE(seen[0].second, std::vector<double>{0.25});
    QCOMPARE(seen[1].first, TrialState::Fail);
}

void TestStudy::cliAskTellBest()
{
    const QString file = m_dir.filePath("cli.db");
    QCOMPARE(runCli({"study", "create", "--db", file, "--study", "cli", "--sampler", "tpe", "--seed", "4"}).exitCode,
             0);
    for (int i = 0; i < 4; ++i) {
        const CliResult ask =
            runCli({"study", "ask", "--db", file, "--study", "cli", "--space", kSpace, "--model", "autospeed"});
        QCOMPARE(ask.exitCode, 0);
        const QJsonObject line = parseLine(ask.out);
        QVERIFY2(!line.isEmpty(), qPrintable(ask.out)); // exactly one JSON line
        QCOMPARE(line["number"].toInt(), i);
        QCOMPARE(line["params"].toObject().keys(), (QStringList{"box", "cls", "dfl"}));
        QVERIFY(line["overrides"].toArray().contains(QJsonValue("autospeed.batch_size=32")));
        const double box = line["params"].toObject()["box"].toDouble();
        const CliResult tell =
            runCli({"study", "tell", "--db", file, "--study", "cli", "--trial", QString::number(i), "--intermediate",
                    "0=" + QString::number(box + 1), "--value", QString::number(box, 'g', 17)});
        QCOMPARE(tell.exitCode, 0);
        QVERIFY2(tell.out.startsWith("trial " + QString::number(i) + ": COMPLETE"), qPrintable(tell.out));
    }
    const CliResult best = runCli({"study", "best", "--db", file, "--study", "cli", "--json"});
    QCOMPARE(best.exitCode, 0);
    const QJsonObject b = parseLine(best.out);
    QCOMPARE(b["value"].toDouble(), b["params"].toObject()["box"].toDouble());
    const CliResult list = runCli({"study", "list", "--db", file, "--json"});
    QCOMPARE(list.exitCode, 0);
    const QJsonObject study = QJsonDocument::fromJson(list.out.toUtf8()).object()["studies"].toArray()[0].toObject();
    QCOMPARE(study["sampler"].toString(), QString("tpe"));
    QCOMPARE(study["complete"].toInt(), 4);

    // should-prune on a running trial prints true or false.
    runCli({"study", "ask", "--db", file, "--study", "cli", "--space", kSpace, "--model", "autospeed"});
    QCOMPARE(
        runCli({"study", "tell", "--db", file, "--study", "cli", "--trial", "4", "--intermediate", "0=100"}).exitCode,
        0);
    const CliResult prune = runCli({"study", "should-prune", "--db", file, "--study", "cli", "--trial", "4"});
    QCOMPARE(prune.exitCode, 0);
    QCOMPARE(prune.out.trimmed(), QString("false")); // median pruner: 4 complete trials < 5 start-up trials
    QCOMPARE(runCli({"study", "create", "--db", file, "--study", "empty"}).exitCode, 0);
    const CliResult empty = runCli({"study", "best", "--db", file, "--study", "empty"});
    QCOMPARE(empty.exitCode, 1); // nothing to show is not bad input
    QVERIFY2(empty.err.contains("study 'empty' has no complete trial yet"), qPrintable(empty.err));
}

// A black-box objective: without --model, names of no config key are free parameters, sampled and stored in
// Optuna's tables under their names, with no override; with --model every name must still be a key.
void TestStudy::cliAskFreeParameters()
{
    const QString file = m_dir.filePath("free.db");
    const QString space = m_dir.filePath("free.yaml");
    QVERIFY(writeFile(space, "x: {type: uniform, min: -5, max: 5}\ny: {type: int, min: 0, max: 3}\nseed_offset: 3\n"));
    QCOMPARE(runCli({"study", "create", "--db", file, "--study", "bb", "--sampler", "random", "--seed", "7"}).exitCode,
             0);
    for (int i = 0; i < 3; ++i) {
        const CliResult ask = runCli({"study", "ask", "--db", file, "--study", "bb", "--space", space});
        QVERIFY2(ask.exitCode == 0, qPrintable(ask.err));
        const QJsonObject line = parseLine(ask.out);
        QVERIFY2(!line.isEmpty(), qPrintable(ask.out));
        QCOMPARE(line["number"].toInt(), i);
        const QJsonObject params = line["params"].toObject();
        QCOMPARE(params.keys(), (QStringList{"x", "y"}));
        const double x = params["x"].toDouble();
        QVERIFY2(x >= -5 && x <= 5, qPrintable(ask.out));
        QVERIFY2(params["y"].isDouble() && params["y"].toDouble() == params["y"].toInt() && params["y"].toInt() >= 0 &&
                     params["y"].toInt() <= 3,
                 qPrintable(ask.out));
        QCOMPARE(line["fixed"].toObject(), (QJsonObject{{"seed_offset", 3}}));
        QCOMPARE(line["overrides"].toArray(), QJsonArray()); // nothing to set in a config
        const QString value = QString::number(x * x + params["y"].toInt(), 'g', 17);
        const CliResult tell =
            runCli({"study", "tell", "--db", file, "--study", "bb", "--trial", QString::number(i), "--value", value});
        QVERIFY2(tell.exitCode == 0, qPrintable(tell.err));
        QVERIFY2(tell.out.startsWith("trial " + QString::number(i) + ": COMPLETE"), qPrintable(tell.out));
    }
    // Optuna's tables hold the parameters by name with their distributions (y's internal value is the integer).
    const auto rows = storetest::query(file.toStdString(),
                                       "SELECT t.number, p.param_name, p.param_value, p.distribution_json FROM "
                                       "trial_params p JOIN trials t USING (trial_id) ORDER BY t.number, p.param_name");
    QCOMPARE(rows.size(), std::size_t(6));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        QCOMPARE(rows[r][0], std::to_string(r / 2));
        QCOMPARE(rows[r][1], std::string(r % 2 == 0 ? "x" : "y"));
    }
    QCOMPARE(rows[0][3], std::string(R"({"name": "FloatDistribution", "attributes": {"step": null, "low": -5.0, )"
                                     R"("high": 5.0, "log": false}})"));
    QCOMPARE(rows[1][3], std::string(R"({"name": "IntDistribution", "attributes": {"log": false, "step": 1, )"
                                     R"("low": 0, "high": 3}})"));
    const double y0 = std::stod(rows[1][2]);
    QVERIFY(y0 == std::floor(y0) && y0 >= 0 && y0 <= 3);
    QCOMPARE(storetest::scalar(file.toStdString(), "SELECT COUNT(*) FROM trials WHERE state = 'COMPLETE'"),
             std::string("3"));

    // Several objectives: the same free parameters, one value per objective.
    QCOMPARE(runCli({"study", "create", "--db", file, "--study", "bb2", "--direction", "minimize", "--direction",
                     "maximize", "--seed", "7"})
                 .exitCode,
             0);
    const CliResult ask2 = runCli({"study", "ask", "--db", file, "--study", "bb2", "--space", space});
    QVERIFY2(ask2.exitCode == 0, qPrintable(ask2.err));
    QCOMPARE(parseLine(ask2.out)["params"].toObject().keys(), (QStringList{"x", "y"}));
    const CliResult tell2 =
        runCli({"study", "tell", "--db", file, "--study", "bb2", "--trial", "0", "--value", "1.5", "--value", "2"});
    QVERIFY2(tell2.exitCode == 0, qPrintable(tell2.err));
    QVERIFY2(tell2.out.startsWith("trial 0: COMPLETE"), qPrintable(tell2.out));

    // A near miss is a typo, not a free parameter; with --model every name must be the model's key.
    QVERIFY(writeFile(m_dir.filePath("typo.yaml"), "bx: {type: uniform, min: 5, max: 10}\n"));
    const CliResult typo =
        runCli({"study", "ask", "--db", file, "--study", "bb", "--space", m_dir.filePath("typo.yaml")});
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.contains("typo.yaml:1:1: 'bx' is not a config key; did you mean 'autospeed.box'? (a free "
                               "parameter, one that sets no config key, needs a name more than one edit away from "
                               "every config key)"),
             qPrintable(typo.err));
    const CliResult model =
        runCli({"study", "ask", "--db", file, "--study", "bb", "--space", space, "--model", "autospeed"});
    QCOMPARE(model.exitCode, 2);
    QVERIFY2(model.err.contains("free.yaml:1:1: 'x' is not a key of section autospeed"), qPrintable(model.err));
    QVERIFY2(model.err.contains("free.yaml:3:1: 'seed_offset' is not a key of section autospeed"),
             qPrintable(model.err));
    QCOMPARE(storetest::scalar(file.toStdString(), "SELECT COUNT(*) FROM trials JOIN studies USING (study_id) "
                                                   "WHERE study_name = 'bb'"),
             std::string("3")); // the refused asks started no trial
}

void TestStudy::cliRejectsBadInput()
{
    const QString file = m_dir.filePath("bad.db");
    QCOMPARE(runCli({"study", "create", "--db", file, "--study", "bad"}).exitCode, 0);
    runCli({"study", "ask", "--db", file, "--study", "bad", "--space", kSpace, "--model", "autospeed"});
    QCOMPARE(runCli({"study", "tell", "--db", file, "--study", "bad", "--trial", "0", "--value", "1"}).exitCode, 0);
    struct Case {
        QStringList args;
        QString message;
    };
    const QList<Case> cases = {
        {{"study", "create", "--study", "bad"}, "a study named 'bad' already exists"},
        {{"study", "create", "--study", "x", "--sampler", "cmaes"},
         "--sampler 'cmaes' is not one of random, grid, tpe, nsga2"},
        {{"study", "create", "--study", "x", "--direction", "up"}, "--direction 'up' is not minimize or maximize"},
        {{"study", "create", "--study", "x", "--pruner", "patient"},
         "--pruner 'patient' is not one of none, median, sha, hyperband"},
        {{"study", "ask", "--study", "nope", "--space", kSpace, "--model", "autospeed"}, "bad"},
        {{"study", "ask", "--study", "bad", "--space", kSpace}, "is ambiguous"},
        {{"study", "ask", "--study", "bad", "--space", kSpace, "--model", "autospeeed"},
         "--model 'autospeeed' declares no config keys"},
        {{"study", "ask", "--study", "bad", "--space", "/no/such.yaml", "--model", "autospeed"}, "/no/such.yaml"},
        {{"study", "tell", "--study", "bad", "--trial", "0", "--value", "2"}, "a finished trial cannot change"},
        {{"study", "tell", "--study", "bad", "--trial", "7", "--value", "2"}, "study 'bad' has no trial 7"},
        {{"study", "tell", "--study", "bad", "--trial", "0", "--value", "fast"}, "--value 'fast' is not a number"},
        {{"study", "tell", "--study", "bad", "--trial", "x", "--value", "1"}, "--trial 'x' is not a trial number"},
        {{"study", "tell", "--study", "bad", "--trial", "0", "--state", "pruned", "--value", "1"}, "takes no value"},
        {{"study", "tell", "--study", "bad", "--trial", "0", "--intermediate", "1:2"}, "is not STEP=VALUE"},
        {{"study", "tell", "--study", "bad", "--trial", "0"}, "nothing to tell"},
        {{"study", "should-prune", "--study", "bad", "--trial", "0"}, "cannot judge trial 0"},
        {{"study", "best", "--study", "nope"}, "nope"},
    };
    for (const Case& c : cases) {
        const CliResult r = runCli(c.args + QStringList{"--db", file});
        QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(' ') + " -> " + QString::number(r.exitCode) + ": " + r.err));
        QVERIFY2(r.err.contains(c.message), qPrintable(c.args.join(' ') + ": " + r.err));
    }
}

QTEST_GUILESS_MAIN(TestStudy)
#include "tst_hpo_study.moc"
