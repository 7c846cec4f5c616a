// The PostgreSQL store against a real server that the test starts (tests/support/postgres.h): everything written
// reads back the same; Optuna's tables are exactly Optuna's, so Optuna 3.1 (psycopg2) and Pitwall share one study;
// processes of both number trials without gaps or duplicates at once; a server restart is survived; bad locations
// and foreign databases are refused, with no password in any message and nothing created.
#include "storetestutil.h"

#include "core/store/internal/pq.h"
#include "core/store/pglocation.h"
#include "core/store/store.h"
#include "core/store/storecopy.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"
#include "tests/support/postgres.h"
#include "tests/support/testpaths.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <set>

using namespace pitwall;
using namespace storetest;

namespace {

// The layout of Optuna's tables in a database: columns with types and defaults, constraints, indexes, enum types.
std::vector<std::vector<std::string>> optunaLayout(const test::PostgresServer& server, const std::string& database)
{
    auto rows =
        server.query(database, "SELECT table_name, column_name, udt_name, is_nullable, COALESCE(column_default, '') "
                               "FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT LIKE "
                               "'pitwall%' ORDER BY 1, 2");
    for (auto& row : server.query(database, "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM "
                                            "pg_constraint WHERE connamespace = 'public'::regnamespace AND "
                                            "conrelid::regclass::text NOT LIKE 'pitwall%' ORDER BY 1, 2"))
        rows.push_back(row);
    for (auto& row : server.query(database, "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' "
                                            "AND tablename NOT LIKE 'pitwall%' ORDER BY 1"))
        rows.push_back(row);
    for (auto& row :
         server.query(database, "SELECT t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) "
                                "FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY 1 ORDER BY 1"))
        rows.push_back(row);
    return rows;
}

// A trial as text without its ids: what a lossless copy keeps.
std::string trialText(const TrialRecord& t)
{
    Json j{{"number", t.number},
           {"state", trialStateName(t.state)},
           {"start", t.startTime.value_or(-1)},
           {"complete", t.completeTime.value_or(-1)},
           {"user", t.userAttrs},
           {"system", t.systemAttrs}};
    for (double v : t.values)
        j["values"].push_back(std::isinf(v) ? Json(v > 0 ? "inf" : "-inf") : Json(v));
    for (const auto& p : t.params)
        j["params"].push_back({p.name, p.internalValue, p.distribution.toOptunaJson()});
    for (const auto& [step, v] : t.intermediateValues)
        j["steps"].push_back({step, std::isnan(v) ? Json("nan") : Json(v)});
    for (const auto& [step, vector] : t.intermediateVectors)
        j["vectors"].push_back({step, vector});
    return j.dump();
}

// Everything of a store as text without ids: studies with their trials, runs with metric rows, events, artifacts.
std::vector<std::string> storeText(Store& store)
{
    std::vector<std::string> out;
    std::map<std::int64_t, std::string> trialNames; // trial id -> "study#number"
    for (const auto& summary : store.listStudies()) {
        Json study{
            {"name", summary.study.name}, {"user", summary.study.userAttrs}, {"system", summary.study.systemAttrs}};
        for (auto d : summary.study.directions)
            study["directions"].push_back(studyDirectionName(d));
        out.push_back(study.dump());
        for (const auto& trial : store.trials(summary.study.id)) {
            out.push_back(trialText(trial));
            trialNames[trial.id] = summary.study.name + "#" + std::to_string(trial.number);
        }
    }
    for (const auto& run : store.runs()) {
        out.push_back(Json{{"kind", run.kind},
                           {"config", run.configYaml},
                           {"seed", run.seed},
                           {"device", run.logicalDevice},
                           {"host", run.host},
                           {"pid", run.pid},
                           {"start", run.startTime},
                           {"end", run.endTime.value_or(-1)},
                           {"status", runStatusName(run.status)},
                           {"exit", run.exitCode.value_or(-1)},
                           {"message", run.message},
                           {"trial", run.trialId ? trialNames[*run.trialId] : "-"}}
                          .dump());
        for (const auto& row : store.metricsSince(run.id, 0))
            out.push_back(Json{{"stage", row.sample.stage},
                               {"step", row.sample.step},
                               {"key", row.sample.key},
                               {"value", std::isnan(row.sample.value) ? Json("nan") : Json(row.sample.value)},
                               {"wall", row.sample.wallTime}}
                              .dump());
        for (const auto& event : store.eventsSince(run.id, 0))
            out.push_back(
                Json{{"event", event.message}, {"time", event.time}, {"level", eventLevelName(event.level)}}.dump());
        for (const auto& artifact : store.artifacts(run.id))
            out.push_back(Json{{"artifact", artifact.path}, {"kind", artifact.kind}, {"time", artifact.time}}.dump());
    }
    for (const auto& benchmark : store.benchmarks())
        out.push_back(
            Json{{"benchmark", benchmark.name}, {"results", benchmark.results}, {"time", benchmark.time}}.dump());
    return out;
}

// A results file with a bit of everything: two studies (one with two objectives), trials in every state with
// parameters, intermediate values and vectors, attributes, infinities; a run with metrics (a NaN), events and an
// artifact; a run of no trial; a benchmark result.
void fillStore(Store& store)
{
    const auto one = store.createStudy("one", {StudyDirection::Minimize});
    store.setStudyUserAttr(one, "owner", "ci");
    const auto two = store.createStudy("two", {StudyDirection::Maximize, StudyDirection::Minimize});
    std::int64_t firstTrial = 0;
    for (int i = 0; i < 4; ++i) {
        const auto trial = store.createTrial(one);
        if (i == 0)
            firstTrial = trial.id;
        store.setTrialParam(trial.id, "x", 0.5 * i, floatDist(-3, 3));
        store.setTrialParam(trial.id, "optimizer", i % 2, optimizerDist());
        store.reportIntermediate(trial.id, 0, 1.0 / (i + 1));
        store.reportIntermediate(trial.id, 1, i == 2 ? std::nan("") : 0.25 * i);
        store.setTrialUserAttr(trial.id, "tags", Json::array({"a", i}));
        const TrialState state = i == 3 ? TrialState::Fail : i == 2 ? TrialState::Pruned : TrialState::Complete;
        store.finishTrial(trial.id, state,
                          state == TrialState::Complete ? std::vector<double>{i - 1.5} : std::vector<double>{});
    }
    store.createTrial(one); // still running
    const auto pareto = store.createTrial(two);
    store.reportIntermediates(pareto.id, 3, {1.0, -HUGE_VAL});
    store.setTrialSystemAttr(pareto.id, "constraints", Json::array({-1.0}));
    store.finishTrial(pareto.id, TrialState::Complete, {HUGE_VAL, 2.0});
    RunRecord run;
    run.trialId = firstTrial;
    run.kind = "train";
    run.configYaml = "training:\n  optimization:\n    batch_size: 8\n";
    run.seed = 3;
    run.logicalDevice = "cpu:0/2";
    run.host = "node7";
    run.pid = 99;
    run.startTime = 1.7e9;
    const auto runId = store.createRun(run);
    std::vector<MetricSample> samples;
    for (int i = 0; i < 50; ++i)
        samples.push_back({runId, i < 25 ? "pretrain" : "posttrain", i, i % 3 ? "loss" : "full_fps",
                           i == 7 ? std::nan("") : 0.1 * i, 1.7e9 + i});
    store.appendMetrics(samples);
    store.addEvent(runId, EventLevel::Warning, "slow data", 1.7e9 + 5);
    store.addArtifact({0, runId, "checkpoint", "/ckpt/epoch4.pt", "epoch 4", 1.7e9 + 9});
    store.finishRun(runId, RunStatus::Succeeded, 0, "done");
    RunRecord loose = run;
    loose.trialId.reset();
    loose.kind = "bench";
    store.createRun(loose);
    store.addBenchmark({0, "dali", "decode", Json{{"batch", 8}}, Json{{"fps", 812.5}}, "node7", 1.7e9 + 20});
}

} // namespace

class TestStorePostgres : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void locations();
    void studiesAndTrialsRoundTrip();
    void runsMetricsEventsAndTheChangeCounter();
    void optunaTablesAreOptunasOwn();
    void optunaAndPitwallShareAStudy();
    void processesNumberTrialsWithoutGaps();
    void survivesAServerRestart();
    void aLostCommitAnswerWritesOnce();
    void copiesBetweenBackendsLosslessly();
    void readsTrialsSummarised();
    void refusesBadLocationsAndForeignDatabases();

private:
    test::PostgresServer m_server;
    QTemporaryDir m_dir;
};

void TestStorePostgres::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // Optuna 3.1's revision, so that Debian's Optuna opens the databases Pitwall creates here.
    qputenv("PITWALL_OPTUNA_SCHEMA", "3.1");
    const QString why = m_server.start();
    if (!why.isEmpty())
        PITWALL_FAIL_MISSING("postgresql", why);
}

void TestStorePostgres::locations()
{
    QVERIFY(isPostgresLocation("postgresql://u@h/db"));
    QVERIFY(isPostgresLocation("postgresql+psycopg2://u@h/db"));
    QVERIFY(isPostgresLocation("POSTGRES://u@h/db"));
    QVERIFY(!isPostgresLocation("sqlite:///x.db"));
    QVERIFY(!isPostgresLocation("/tmp/postgresql://x"));
    QCOMPARE(postgresConninfo("postgresql+psycopg2://u:pw@h:5433/db?sslmode=require"),
             std::string("postgresql://u:pw@h:5433/db?sslmode=require"));
    QCOMPARE(redactedLocation("postgresql://u:s3cret@h:5433/db"), std::string("postgresql://u:***@h:5433/db"));
    QCOMPARE(redactedLocation("postgresql://u@h/db"), std::string("postgresql://u@h/db"));
    QCOMPARE(redactedLocation("postgresql://u:p@ss@h/db"), std::string("postgresql://u:***@h/db"));
    QCOMPARE(redactedLocation("/data/results.db"), std::string("/data/results.db"));
    // libpq also takes the password as a query parameter.
    QCOMPARE(redactedLocation("postgresql://u@h/db?sslmode=require&password=s3cret&connect_timeout=5"),
             std::string("postgresql://u@h/db?sslmode=require&password=***&connect_timeout=5"));
    QCOMPARE(redactedLocation("postgresql://u:a@h/db?PASSWORD=b&sslpassword=c"),
             std::string("postgresql://u:***@h/db?PASSWORD=***&sslpassword=***"));
    QCOMPARE(redactedLocation("postgresql://u@h/db?passwordless=1"), std::string("postgresql://u@h/db?passwordless=1"));
    QCOMPARE(locationWithoutPassword("postgresql://u@h/db?password=s3cret"), std::string("postgresql://u@h/db"));
    QCOMPARE(locationWithoutPassword("postgresql://u@h/db?password=x&sslmode=require"),
             std::string("postgresql://u@h/db?sslmode=require"));
    QCOMPARE(locationWithoutPassword("postgresql://u:a@h/db?sslmode=require&password=x&sslpassword=k"),
             std::string("postgresql://u@h/db?sslmode=require&sslpassword=k"));
    const QByteArray saved = qgetenv("PGPASSWORD");
    const bool had = qEnvironmentVariableIsSet("PGPASSWORD");
    QCOMPARE(movePasswordToEnvironment("postgresql://u:user@h/db?sslmode=require&password=q%3Duery"),
             std::string("postgresql://u@h/db?sslmode=require"));
    QCOMPARE(qgetenv("PGPASSWORD"), QByteArray("q=uery")); // the query's, as libpq reads it last
    QCOMPARE(movePasswordToEnvironment("postgresql://u:p%40ss@h/db"), std::string("postgresql://u@h/db"));
    QCOMPARE(qgetenv("PGPASSWORD"), QByteArray("p@ss"));
    if (had)
        qputenv("PGPASSWORD", saved);
    else
        qunsetenv("PGPASSWORD");
    expectInputError([] { postgresConninfo("postgresql://u@h"); }, {"names no database"});
    expectInputError([] { postgresConninfo("postgresql+asyncpg://u:pw@h/db"); }, {"unknown driver 'asyncpg'"});
}

void TestStorePostgres::studiesAndTrialsRoundTrip()
{
    const std::string location = m_server.database("roundtrip");
    auto store = openStore(location);
    QCOMPARE(store->location(), redactedLocation(location));
    const double before = nowSeconds();
    const auto studyId = store->createStudy("search", {StudyDirection::Minimize});
    store->setStudyUserAttr(studyId, "owner", "ci");
    store->setStudySystemAttr(studyId, "pitwall:space", Json{{"x", {-3, 3}}});
    expectInputError([&] { store->createStudy("search", {StudyDirection::Maximize}); }, {"already exists"});

    auto first = store->createTrial(studyId);
    QCOMPARE(first.number, 0);
    store->setTrialParam(first.id, "x", 0.25, floatDist(-3, 3));
    store->setTrialParam(first.id, "lr", 1e-3, floatDist(1e-5, 1e-1, true));
    store->setTrialParam(first.id, "optimizer", 1, optimizerDist());
    store->reportIntermediate(first.id, 0, 0.9);
    store->reportIntermediate(first.id, 1, 0.5);
    store->setTrialUserAttr(first.id, "tags", Json::array({"a", "b"}));
    store->heartbeat(first.id);
    store->finishTrial(first.id, TrialState::Complete, {0.5});
    expectInputError([&] { store->finishTrial(first.id, TrialState::Fail, {}); }, {"already finished"});
    expectInputError([&] { store->setTrialParam(store->createTrial(studyId).id, "x", 1, floatDist(-3, 3, true)); },
                     {"parameter 'x' was recorded with"});

    const auto pruned = store->createTrial(studyId); // number 2 (1 is the RUNNING trial refused above)
    store->reportIntermediate(pruned.id, 3, 0.75);
    store->finishTrial(pruned.id, TrialState::Pruned, {});
    const auto numbered =
        store->createTrialWithParams(studyId, 3, {{"x", -1.5, floatDist(-3, 3)}}, Json{{"fixed", true}});
    QVERIFY(numbered);
    QCOMPARE(numbered->number, 3);
    QVERIFY(!store->createTrialWithParams(studyId, 3, {}, Json::object()));
    store->finishTrial(numbered->id, TrialState::Complete, {-2.0});

    const auto trials = store->trials(studyId);
    QCOMPARE(trials.size(), std::size_t(4));
    const TrialRecord& t0 = trials[0];
    QCOMPARE(t0.state, TrialState::Complete);
    QCOMPARE(t0.values, std::vector<double>{0.5});
    QCOMPARE(t0.params.size(), std::size_t(3));
    QCOMPARE(t0.params[0].name, std::string("x")); // in the order they were set
    QCOMPARE(t0.params[2].name, std::string("optimizer"));
    QCOMPARE(t0.params[2].distribution.toExternal(t0.params[2].internalValue), Json("adamw"));
    QVERIFY(t0.params[1].distribution.log);
    QCOMPARE(t0.intermediateValues.size(), std::size_t(2));
    QCOMPARE(t0.intermediateValues.at(1), 0.5);
    QCOMPARE(t0.userAttrs["tags"], Json::array({"a", "b"}));
    QVERIFY(t0.heartbeatTime && *t0.startTime >= before - 1 && *t0.completeTime >= *t0.startTime);
    QCOMPARE(trials[1].state, TrialState::Running);
    QCOMPARE(trials[2].state, TrialState::Pruned);
    QCOMPARE(trials[2].values, std::vector<double>{0.75}); // Optuna 3.1's rule: the last intermediate value
    QCOMPARE(trials[3].systemAttrs["fixed"], Json(true));
    QCOMPARE(m_server.scalar("roundtrip", "SELECT param_value FROM trial_params WHERE param_name = 'optimizer'"),
             std::string("1"));
    QCOMPARE(m_server.scalar("roundtrip", "SELECT value_json FROM study_system_attributes"),
             std::string(R"({"x": [-3, 3]})"));

    QCOMPARE(store->trialsFrom(studyId, 2).size(), std::size_t(2));
    QCOMPARE(store->trial(studyId, 3)->values, std::vector<double>{-2.0});
    const auto some = store->trialsNumbered(studyId, {3, 0, 9});
    QCOMPARE(some.size(), std::size_t(2));
    QCOMPARE(some[0].number, 0);

    // Several objectives: infinities in Optuna's value types, intermediate vectors in Pitwall's table.
    const auto two = store->createStudy("pareto", {StudyDirection::Maximize, StudyDirection::Minimize});
    const auto a = store->createTrial(two);
    store->reportIntermediates(a.id, 5, {1.0, 2.0});
    store->finishTrial(a.id, TrialState::Complete, {HUGE_VAL, -HUGE_VAL});
    expectInputError([&] { store->finishTrial(store->createTrial(two).id, TrialState::Complete, {1.0}); },
                     {"needs 2 value(s)"});
    const auto read = store->trial(two, 0);
    QCOMPARE(read->values, (std::vector<double>{HUGE_VAL, -HUGE_VAL}));
    QCOMPARE(read->intermediateVectors.at(5), (std::vector<double>{1.0, 2.0}));
    QCOMPARE(m_server.query("roundtrip", "SELECT value, value_type FROM trial_values WHERE trial_id = " +
                                             std::to_string(a.id) + " ORDER BY objective"),
             (std::vector<std::vector<std::string>>{{"<null>", "INF_POS"}, {"<null>", "INF_NEG"}}));

    const auto studies = store->listStudies();
    QCOMPARE(studies.size(), std::size_t(2));
    QCOMPARE(studies[0].study.name, std::string("search"));
    QCOMPARE(studies[0].complete, 2);
    QCOMPARE(studies[0].running, 1);
    QCOMPARE(studies[0].pruned, 1);
    QCOMPARE(studies[0].bestTrialNumber, std::optional<int>(3));
    QCOMPARE(studies[0].study.userAttrs["owner"], Json("ci"));
    QCOMPARE(studies[1].paretoSize, std::optional<int>(1));

    // addTrials: whole trials, numbered next, in one transaction; a bad batch writes nothing.
    TrialRecord whole;
    whole.state = TrialState::Complete;
    whole.values = {1.25};
    whole.params = {{"x", 2.0, floatDist(-3, 3)}};
    whole.intermediateValues[0] = 3.0;
    QCOMPARE(store->addTrials(studyId, std::vector<TrialRecord>{whole, whole}), 4);
    TrialRecord bad = whole;
    bad.values = {};
    expectInputError([&] { store->addTrials(studyId, std::vector<TrialRecord>{whole, bad}); }, {"1 of the 2"});
    QCOMPARE(store->trials(studyId).size(), std::size_t(6));
    QCOMPARE(store->trial(studyId, 5)->intermediateValues.at(0), 3.0);
}

void TestStorePostgres::runsMetricsEventsAndTheChangeCounter()
{
    const std::string location = m_server.database("runs");
    auto store = openStore(location);
    auto other = openStore(location);
    const auto studyId = store->createStudy("s", {StudyDirection::Minimize});
    const auto trial = store->createTrial(studyId);
    RunRecord run;
    run.trialId = trial.id;
    run.kind = "train";
    run.configYaml = "a: 1\n";
    run.seed = 7;
    run.logicalDevice = "cpu:0/2";
    run.host = "node1";
    run.pid = 1234;
    const auto runId = store->createRun(run);
    const auto counter = other->changeCounter();
    QCOMPARE(other->changeCounter(), counter); // reads do not move it

    std::vector<MetricSample> samples;
    for (int i = 0; i < 5; ++i)
        samples.push_back({runId, "pretrain", i, i % 2 ? "loss" : "lr", i == 3 ? std::nan("") : 0.5 * i, 10.0 + i});
    store->appendMetrics(samples);
    QVERIFY(other->changeCounter() > counter); // another connection's commit moves it
    const auto rows = other->metricsSince(runId, 0);
    QCOMPARE(rows.size(), std::size_t(5));
    QCOMPARE(rows[2].sample.key, std::string("lr"));
    QCOMPARE(rows[2].sample.value, 1.0);
    QVERIFY(std::isnan(rows[3].sample.value));
    QCOMPARE(rows[4].sample.wallTime, 14.0);
    QCOMPARE(other->metricsSince(runId, rows[1].cursor, 2).size(), std::size_t(2));
    QVERIFY(other->metricsSince(runId, rows[4].cursor).empty());
    QCOMPARE(other->metricsSince(0, 0).size(), std::size_t(5));

    const auto event = store->addEvent(runId, EventLevel::Warning, "slow data");
    QCOMPARE(other->eventsSince(runId, 0).back().id, event);
    QCOMPARE(other->eventsSince(runId, 0).back().message, std::string("slow data"));
    store->addArtifact({0, runId, "checkpoint", "/ckpt/last.pt", "last", 0});
    QCOMPARE(other->artifacts(runId).front().path, std::string("/ckpt/last.pt"));
    store->addBenchmark({0, "dali", "decode", Json{{"batch", 8}}, Json{{"fps", 123.5}}, "node1", 0});
    QCOMPARE(other->benchmarks("dali").front().results["fps"], Json(123.5));
    QVERIFY(other->benchmarks("other").empty());
    store->finishRun(runId, RunStatus::Succeeded, 0, "done");
    const auto read = other->run(runId);
    QCOMPARE(read->status, RunStatus::Succeeded);
    QCOMPARE(read->logicalDevice, std::string("cpu:0/2"));
    QCOMPARE(read->trialId, std::optional<std::int64_t>(trial.id));
    QCOMPARE(other->runs(trial.id).size(), std::size_t(1));
    expectInputError([&] { store->finishRun(runId + 100, RunStatus::Failed, 1, ""); }, {"no run with id"});

    // A finished trial's late attribute is a revision that readers keeping trials find.
    store->finishTrial(trial.id, TrialState::Complete, {1.0});
    const auto revisions = other->trialRevisionsSince(std::nullopt);
    store->setTrialUserAttr(trial.id, "driving_score", 71.5);
    const auto changed = other->trialRevisionsSince(revisions.latest);
    QCOMPARE(changed.trials.size(), std::size_t(1));
    QCOMPARE(changed.trials[0].number, 0);
    QVERIFY(changed.latest > revisions.latest);

    const auto info = other->info();
    QCOMPARE(info.backend, std::string("postgresql"));
    QCOMPARE(info.trials, std::int64_t(1));
    QCOMPARE(info.metricRows, std::int64_t(5));
    QCOMPARE(info.alembicVersion, std::string("v3.0.0.d"));
    QVERIFY(info.pitwallSchemaVersion == info.latestPitwallSchemaVersion);
}

void TestStorePostgres::optunaTablesAreOptunasOwn()
{
    // Optuna 3.1 creates its tables in one database, Pitwall in another: the layouts must be the same.
    m_server.database("by_optuna");
    const std::string pitwallLocation = m_server.database("by_pitwall");
    openStore(pitwallLocation)->createStudy("s", {StudyDirection::Minimize});
    const auto result = runPython({"-c",
                                   "import optuna, sys; optuna.logging.set_verbosity(optuna.logging.WARNING); "
                                   "optuna.create_study(storage=sys.argv[1], study_name='s')",
                                   QString::fromStdString(m_server.location("by_optuna", true))},
                                  m_dir.path());
    QVERIFY2(result.exitCode == 0, result.err.constData());
    const auto optuna = optunaLayout(m_server, "by_optuna");
    QVERIFY(optuna.size() > 60);
    QCOMPARE(optunaLayout(m_server, "by_pitwall"), optuna);
}

void TestStorePostgres::optunaAndPitwallShareAStudy()
{
    const std::string location = m_server.database("shared");
    {
        auto store = openStore(location);
        const auto study = store->createStudy("shared", {StudyDirection::Minimize});
        for (int i = 0; i < 3; ++i) {
            const auto trial = store->createTrial(study);
            store->setTrialParam(trial.id, "x", i - 1.0, floatDist(-5, 5));
            store->finishTrial(trial.id, TrialState::Complete, {(i - 1.0) * (i - 1.0) + 1.0});
        }
    }
    const char* script = R"py(
import optuna, sys
optuna.logging.set_verbosity(optuna.logging.WARNING)
study = optuna.load_study(study_name="shared", storage=sys.argv[1])
print(len(study.trials), study.best_value, study.best_params["x"])
study.optimize(lambda t: (t.suggest_float("x", -5, 5) - 2) ** 2, n_trials=2)
)py";
    const auto result =
        runPython({"-c", script, QString::fromStdString(m_server.location("shared", true))}, m_dir.path());
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QCOMPARE(result.out.trimmed(), QByteArray("3 1.0 0.0"));
    auto store = openStore(location, OpenMode::ReadOnly);
    const auto trials = store->trials(store->requireStudy("shared").id);
    QCOMPARE(trials.size(), std::size_t(5));
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(trials[i].number, i);
        QCOMPARE(trials[i].state, TrialState::Complete);
    }
    const double x = trials[4].params.at(0).internalValue;
    QCOMPARE(trials[4].values.at(0), (x - 2) * (x - 2));
}

void TestStorePostgres::processesNumberTrialsWithoutGaps()
{
    const std::string location = m_server.database("many");
    openStore(location)->createStudy("many", {StudyDirection::Minimize});
    const QString writer = test::pathFromEnvironment("STORE_CHILD_WRITER");
    std::vector<std::unique_ptr<QProcess>> children;
    for (int worker = 1; worker <= 3; ++worker) {
        children.push_back(std::make_unique<QProcess>());
        children.back()->start(writer,
                               {QString::fromStdString(location), "many", QString::number(worker), "15", "300", "50"});
    }
    const char* script = R"py(
import optuna, sys
optuna.logging.set_verbosity(optuna.logging.WARNING)
study = optuna.load_study(study_name="many", storage=sys.argv[1])
study.optimize(lambda t: t.suggest_int("worker", 0, 1000) * 0 + 4000.0 + t.number, n_trials=15)
)py";
    const auto optuna =
        runPython({"-c", script, QString::fromStdString(m_server.location("many", true))}, m_dir.path());
    QVERIFY2(optuna.exitCode == 0, optuna.err.constData());
    for (auto& child : children) {
        QVERIFY(child->waitForFinished(120000));
        QVERIFY2(child->exitCode() == 0, child->readAllStandardError().constData());
    }
    auto store = openStore(location, OpenMode::ReadOnly);
    const auto trials = store->trials(store->requireStudy("many").id);
    QCOMPARE(trials.size(), std::size_t(60));
    std::set<int> numbers;
    for (const auto& trial : trials) {
        numbers.insert(trial.number);
        QCOMPARE(trial.state, TrialState::Complete);
    }
    QCOMPARE(numbers.size(), std::size_t(60));
    QCOMPARE(*numbers.rbegin(), 59);
    QCOMPARE(store->info().metricRows, std::int64_t(900));
}

void TestStorePostgres::survivesAServerRestart()
{
    const std::string location = m_server.database("restart");
    auto store = openStore(location);
    const auto study = store->createStudy("r", {StudyDirection::Minimize});
    store->createTrial(study);
    const QString restarted = m_server.restart(); // every connection is cut
    QVERIFY2(restarted.isEmpty(), qPrintable(restarted));
    const auto trial = store->createTrial(study); // reconnects and runs the transaction again
    QCOMPARE(trial.number, 1);
    QCOMPARE(store->trials(study).size(), std::size_t(2));
}

// The connection lost after COMMIT reached the server but before its answer came back: the write is not made again
// (a metric batch written twice), and a transaction that did not commit is.
void TestStorePostgres::aLostCommitAnswerWritesOnce()
{
    const std::string location = m_server.database("lostcommit");
    m_server.query("lostcommit", "CREATE TABLE rows (value INTEGER)");
    store_internal::PqConnection db(postgresConninfo(location), redactedLocation(location));
    int attempts = 0;
    db.loseNextCommitAnswer();
    db.transaction([&] {
        ++attempts;
        db.exec("INSERT INTO rows (value) VALUES (1)");
    });
    QCOMPARE(attempts, 1);
    QCOMPARE(m_server.scalar("lostcommit", "SELECT count(*) FROM rows"), std::string("1"));
    // A read has no transaction id to ask about: it simply runs again on the new connection.
    db.loseNextCommitAnswer();
    QCOMPARE(db.transaction([&] { return db.exec("SELECT count(*) FROM rows").int64(0, 0); }), std::int64_t(1));
    // A transaction whose COMMIT never reached the server: the cut connection rolled it back, so it runs again.
    attempts = 0;
    db.transaction([&] {
        if (++attempts == 1)
            m_server.query("lostcommit", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                                         "datname = 'lostcommit' AND pid <> pg_backend_pid()");
        db.exec("INSERT INTO rows (value) VALUES (2)");
    });
    QCOMPARE(attempts, 2);
    QCOMPARE(m_server.scalar("lostcommit", "SELECT count(*) FROM rows WHERE value = 2"), std::string("1"));
}

void TestStorePostgres::copiesBetweenBackendsLosslessly()
{
    const std::string original = m_dir.filePath("original.db").toStdString();
    const std::string back = m_dir.filePath("back.db").toStdString();
    const std::string server = m_server.database("copy");
    auto source = openStore(original);
    fillStore(*source);
    const auto expected = storeText(*source);
    QVERIFY(expected.size() > 60);

    auto pg = openStore(server);
    const CopyReport there = copyStore(*source, *pg, std::nullopt);
    QCOMPARE(there.studies, 2);
    QCOMPARE(there.trials, std::int64_t(6));
    QCOMPARE(there.runs, std::int64_t(2));
    QCOMPARE(there.metricRows, std::int64_t(50));
    QCOMPARE(there.benchmarks, std::int64_t(1));
    QCOMPARE(storeText(*pg), expected);

    // And back, through the command a user runs: the password is not printed.
    QProcess cli;
    cli.start(test::cliPath(),
              {"db", "copy", "--from", QString::fromStdString(server), "--to", QString::fromStdString(back)});
    QVERIFY(cli.waitForFinished(60000));
    const QString printed = cli.readAllStandardOutput() + cli.readAllStandardError();
    QVERIFY2(cli.exitCode() == 0, qPrintable(printed));
    QVERIFY2(printed.contains("copied 2 studies (6 trials), 2 run(s) with 50 metric row(s)"), qPrintable(printed));
    QVERIFY2(printed.contains("postgres:***@") && !printed.contains(test::PostgresServer::kPassword),
             qPrintable(printed));
    QCOMPARE(storeText(*openStore(back, OpenMode::ReadOnly)), expected);

    // A study the target has already: refused before anything is written.
    const auto before = storeText(*pg);
    expectInputError([&] { copyStore(*source, *pg, std::string("two")); },
                     {"already has a study named 'two'", "nothing was copied"});
    expectInputError([&] { copyStore(*source, *pg, std::string("three")); }, {"no study named 'three'"});
    QCOMPARE(storeText(*pg), before);

    // One study: its trials and the runs of its trials only.
    const std::string single = m_server.database("copy_one");
    auto target = openStore(single);
    const CopyReport one = copyStore(*source, *target, std::string("one"));
    QCOMPARE(one.studies, 1);
    QCOMPARE(one.trials, std::int64_t(5));
    QCOMPARE(one.runs, std::int64_t(1));
    QCOMPARE(target->runs().size(), std::size_t(1));
    QCOMPARE(target->listStudies().size(), std::size_t(1));
    QVERIFY(target->benchmarks().empty());
}

// Store::trialsSummarised on the server: the older trials' last intermediate value and vector alone, the rest as
// trials() reads them (tests/core/store/storetestutil.h: verifySummarised).
void TestStorePostgres::readsTrialsSummarised()
{
    auto store = openStore(m_server.database("summarised"));
    fillStore(*store);
    const auto one = store->requireStudy("one").id, two = store->requireStudy("two").id;
    QCOMPARE(verifySummarised(*store, one, 3), 3);
    QCOMPARE(verifySummarised(*store, one, 100), 4); // the running trial has no intermediate value
    QCOMPARE(verifySummarised(*store, one, 0), 0);
    QCOMPARE(verifySummarised(*store, two, 1), 1);
    const std::vector<TrialRecord> summarised = store->trialsSummarised(one, 3);
    QVERIFY(std::isnan(summarised[2].intermediateValues.at(1))); // the last step, NaN as reported
    QCOMPARE(summarised[1].intermediateValues, (StepValues{{1, 0.25}}));
    QCOMPARE(summarised[3].intermediateValues.size(), std::size_t(2));
}

void TestStorePostgres::refusesBadLocationsAndForeignDatabases()
{
    const std::string port = std::to_string(m_server.port());
    // A wrong password: the server's reason, and never the password.
    try {
        openStore("postgresql://postgres:not-the-password@127.0.0.1:" + port + "/postgres");
        QFAIL("a wrong password was accepted");
    } catch (const InputError& error) {
        const QString message = error.what();
        QVERIFY2(message.contains("password authentication failed"), qPrintable(message));
        QVERIFY2(!message.contains("not-the-password"), qPrintable(message));
        QVERIFY2(message.contains("postgres:***@127.0.0.1"), qPrintable(message));
    }
    // Nothing listening there.
    expectInputError([&] { openStore("postgresql://postgres:x@127.0.0.1:1/db"); }, {"connecting", "failed"});
    // ... with libpq's own words, its hint line indented with spaces (a tab prints as an escaped "\t").
    try {
        openStore("postgresql://postgres@127.0.0.1:1/db?password=hunter2");
        QFAIL("a connection to a closed port succeeded");
    } catch (const InputError& error) {
        const QString message = error.what();
        QVERIFY2(message.contains("Connection refused"), qPrintable(message));
        QVERIFY2(!message.contains('\t'), qPrintable(message));
        QVERIFY2(!message.contains("hunter2"), qPrintable(message));
        QVERIFY2(message.contains("?password=***"), qPrintable(message));
    }
    // A database that does not exist.
    expectInputError([&] { openStore(m_server.location("no_such_database")); }, {"no_such_database"});
    // A database of some other program: refused and left as it was.
    const std::string foreign = m_server.database("foreign");
    m_server.query("foreign", "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
    expectInputError([&] { openStore(foreign); }, {"neither a Pitwall nor an Optuna", "customers"});
    QCOMPARE(m_server.scalar("foreign", "SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'"),
             std::string("1"));
    // An empty database opened read-only: nothing created.
    const std::string empty = m_server.database("empty");
    expectInputError([&] { openStore(empty, OpenMode::ReadOnly); }, {"an empty database"});
    QCOMPARE(m_server.scalar("empty", "SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'"), std::string("0"));
    // A newer Pitwall's schema.
    const std::string newer = m_server.database("newer");
    openStore(newer).reset();
    m_server.query("newer", "INSERT INTO pitwall_schema_version VALUES (99, 'from the future', 0)");
    expectInputError([&] { openStore(newer); }, {"newer Pitwall", "99"});
    // Read-only stores refuse writes.
    expectInputError(
        [&] { openStore(m_server.location("runs"), OpenMode::ReadOnly)->createStudy("x", {StudyDirection::Minimize}); },
        {"read-only"});
}

QTEST_GUILESS_MAIN(TestStorePostgres)
#include "tst_store_postgres.moc"
