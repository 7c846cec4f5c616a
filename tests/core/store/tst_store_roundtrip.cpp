// Everything written through the Store interface reads back the same, is stored in Optuna's encodings, and
// bad input is refused with a message that names the problem. If this fails, the GUI or the search would see
// different trials than were recorded.
#include "storetestutil.h"

#include "core/store/netfs.h"
#include "core/store/sqlitestore.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <QtTest>

#include <cmath>

using namespace pitwall;
using namespace storetest;

class TestStoreRoundtrip : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void studiesAndTrials();
    void infiniteValuesAndMultiObjective();
    void trialRules();
    void runsEventsArtifactsBenchmarks();
    void metricsSinceReturnsExactlyNewRows();
    void changeCounterMoves();
    void badInputs();
    void addTrialsWritesWholeTrials();
    void addTrialsRefusesBadBatches();
    void warnsOnNetworkFileSystems();
    void reopeningKeepsData();
    void readOnlyRefusesWrites();

private:
    std::string m_path;
    QTemporaryDir m_dir;
};

void TestStoreRoundtrip::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath("roundtrip.db").toStdString();
}

void TestStoreRoundtrip::studiesAndTrials()
{
    auto store = openStore(m_path);
    const double before = nowSeconds();
    const auto studyId = store->createStudy("search", {StudyDirection::Minimize});
    store->setStudyUserAttr(studyId, "owner", "ci");
    store->setStudySystemAttr(studyId, "pitwall:space", Json{{"x", {-3, 3}}});

    auto first = store->createTrial(studyId);
    QCOMPARE(first.number, 0);
    QCOMPARE(first.state, TrialState::Running);
    store->setTrialParam(first.id, "x", 0.25, floatDist(-3, 3));
    store->setTrialParam(first.id, "lr", 1e-3, floatDist(1e-5, 1e-1, true));
    store->setTrialParam(first.id, "layers", 3, intDist(1, 4));
    store->setTrialParam(first.id, "optimizer", 1, optimizerDist());
    store->reportIntermediate(first.id, 0, 1.5);
    store->reportIntermediate(first.id, 1, 0.75);
    store->reportIntermediate(first.id, 1, 0.5); // overwrites step 1
    store->setTrialUserAttr(first.id, "map50", 0.61);
    store->setTrialUserAttr(first.id, "tags", Json::array({"a", "b"}));
    store->setTrialSystemAttr(first.id, "worker", 3);
    store->heartbeat(first.id);
    store->finishTrial(first.id, TrialState::Complete, {0.125});

    auto failed = store->createTrial(studyId);
    store->finishTrial(failed.id, TrialState::Fail, {});
    auto pruned = store->createTrial(studyId);
    store->reportIntermediate(pruned.id, 0, 4.0);
    store->reportIntermediate(pruned.id, 5, 2.5);
    store->finishTrial(pruned.id, TrialState::Pruned, {});
    auto better = store->createTrial(studyId);
    store->finishTrial(better.id, TrialState::Complete, {0.0625});
    auto waiting = store->createTrial(studyId, TrialState::Waiting);

    const auto trials = store->trials(studyId);
    QCOMPARE(trials.size(), std::size_t(5));
    for (int i = 0; i < 5; ++i)
        QCOMPARE(trials[i].number, i);
    const auto& t0 = trials[0];
    QCOMPARE(t0.state, TrialState::Complete);
    QCOMPARE(t0.values, std::vector<double>{0.125});
    QCOMPARE(t0.params.size(), std::size_t(4));
    QCOMPARE(t0.params[0].name, std::string("x"));
    QCOMPARE(t0.params[0].value(), Json(0.25));
    QCOMPARE(t0.params[1].name, std::string("lr"));
    QVERIFY(t0.params[1].distribution.log);
    QCOMPARE(t0.params[1].value(), Json(1e-3));
    QCOMPARE(t0.params[2].value(), Json(3));
    QVERIFY(t0.params[2].value().is_number_integer());
    QCOMPARE(t0.params[3].value(), Json("adamw"));
    QCOMPARE(t0.params[3].internalValue, 1.0);
    QCOMPARE(t0.intermediateValues, (std::map<std::int64_t, double>{{0, 1.5}, {1, 0.5}}));
    QCOMPARE(t0.userAttrs["map50"], Json(0.61));
    QCOMPARE(t0.userAttrs["tags"], Json::array({"a", "b"}));
    QCOMPARE(t0.systemAttrs["worker"], Json(3));
    QVERIFY(t0.startTime && t0.completeTime && t0.heartbeatTime);
    QVERIFY(*t0.startTime >= before - 1 && *t0.completeTime >= *t0.startTime);
    QVERIFY(std::abs(*t0.heartbeatTime - nowSeconds()) < 60);

    QCOMPARE(trials[1].state, TrialState::Fail);
    QVERIFY(trials[1].values.empty());
    QCOMPARE(trials[2].state, TrialState::Pruned);
    QCOMPARE(trials[2].values, std::vector<double>{2.5}); // Optuna: last intermediate value
    QCOMPARE(trials[4].state, TrialState::Waiting);
    QVERIFY(!trials[4].startTime);

    // What is in the file is Optuna's encoding.
    QCOMPARE(scalar(m_path, "SELECT direction FROM study_directions"), std::string("MINIMIZE"));
    QCOMPARE(scalar(m_path, "SELECT group_concat(state, ',') FROM (SELECT state FROM trials ORDER BY number)"),
             std::string("COMPLETE,FAIL,PRUNED,COMPLETE,WAITING"));
    QCOMPARE(scalar(m_path, "SELECT param_value FROM trial_params WHERE param_name = 'optimizer'"), std::string("1.0"));
    QCOMPARE(scalar(m_path, "SELECT value_json FROM trial_user_attributes WHERE key = 'tags'"),
             std::string(R"(["a", "b"])"));
    QCOMPARE(scalar(m_path, "SELECT value_json FROM study_system_attributes"), std::string(R"({"x": [-3, 3]})"));
    const auto start = scalar(m_path, "SELECT datetime_start FROM trials WHERE number = 0");
    QVERIFY2(QRegularExpression(R"(^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$)")
                 .match(QString::fromStdString(start))
                 .hasMatch(),
             start.c_str());

    const auto found = store->findStudy("search");
    QVERIFY(found);
    QCOMPARE(found->id, studyId);
    QCOMPARE(found->directions, std::vector<StudyDirection>{StudyDirection::Minimize});
    QCOMPARE(found->userAttrs["owner"], Json("ci"));
    QCOMPARE(found->systemAttrs["pitwall:space"]["x"], Json::array({-3, 3}));
    QVERIFY(!store->findStudy("nothing"));

    const auto studies = store->listStudies();
    QCOMPARE(studies.size(), std::size_t(1));
    QCOMPARE(studies[0].complete, 2);
    QCOMPARE(studies[0].failed, 1);
    QCOMPARE(studies[0].pruned, 1);
    QCOMPARE(studies[0].waiting, 1);
    QCOMPARE(studies[0].total(), 5);
    QCOMPARE(studies[0].bestValue, std::optional<double>(0.0625));
    QCOMPARE(studies[0].bestTrialNumber, std::optional<int>(3));

    const auto one = store->trial(studyId, 2);
    QVERIFY(one);
    QCOMPARE(one->id, pruned.id);
    QCOMPARE(one->intermediateValues, (std::map<std::int64_t, double>{{0, 4.0}, {5, 2.5}}));
    QVERIFY(!store->trial(studyId, 17));
    Q_UNUSED(waiting);
}

void TestStoreRoundtrip::infiniteValuesAndMultiObjective()
{
    auto store = openStore(m_path);
    const auto studyId = store->createStudy("pareto", {StudyDirection::Maximize, StudyDirection::Minimize});
    const auto trial = store->createTrial(studyId);
    store->reportIntermediate(trial.id, 0, std::nan(""));
    store->reportIntermediate(trial.id, 1, -HUGE_VAL);
    store->finishTrial(trial.id, TrialState::Complete, {HUGE_VAL, -HUGE_VAL});
    const auto read = store->trial(studyId, 0);
    QVERIFY(read);
    QCOMPARE(read->values.size(), std::size_t(2));
    QCOMPARE(read->values[0], HUGE_VAL);
    QCOMPARE(read->values[1], -HUGE_VAL);
    QVERIFY(std::isnan(read->intermediateValues.at(0)));
    QCOMPARE(read->intermediateValues.at(1), -HUGE_VAL);
    const auto id = std::to_string(trial.id);
    QCOMPARE(query(m_path, "SELECT value, value_type FROM trial_values WHERE trial_id = " + id + " ORDER BY objective"),
             (std::vector<storetest::Row>{{"<null>", "INF_POS"}, {"<null>", "INF_NEG"}}));
    QCOMPARE(query(m_path, "SELECT intermediate_value, intermediate_value_type FROM trial_intermediate_values "
                           "WHERE trial_id = " +
                               id + " ORDER BY step"),
             (std::vector<storetest::Row>{{"<null>", "NAN"}, {"<null>", "INF_NEG"}}));
    QCOMPARE(query(m_path, "SELECT direction FROM study_directions WHERE study_id = " + std::to_string(studyId) +
                               " ORDER BY objective"),
             (std::vector<storetest::Row>{{"MAXIMIZE"}, {"MINIMIZE"}}));
    const auto summaries = store->listStudies();
    QCOMPARE(summaries.back().bestValue, std::optional<double>(HUGE_VAL)); // first objective, maximized
}

void TestStoreRoundtrip::trialRules()
{
    auto store = openStore(m_path);
    const auto studyId = store->createStudy("rules", {StudyDirection::Minimize});
    const auto trial = store->createTrial(studyId);
    store->setTrialParam(trial.id, "optimizer", 0, optimizerDist());
    expectInputError([&] { store->finishTrial(trial.id, TrialState::Complete, {}); }, {"needs 1 value", "got 0"});
    expectInputError([&] { store->finishTrial(trial.id, TrialState::Complete, {std::nan("")}); }, {"NaN"});
    expectInputError([&] { store->setTrialParam(trial.id, "optimizer", 5, optimizerDist()); }, {"out of range"});
    const auto other = store->createTrial(studyId);
    expectInputError([&] { store->setTrialParam(other.id, "optimizer", 0.3, floatDist(0, 1)); },
                     {"'optimizer'", "CategoricalDistribution", "FloatDistribution"});
    store->finishTrial(trial.id, TrialState::Complete, {1.0});
    expectInputError([&] { store->reportIntermediate(trial.id, 3, 1.0); }, {"already finished (COMPLETE)"});
    expectInputError([&] { store->finishTrial(trial.id, TrialState::Fail, {}); }, {"trial 0", "already finished"});
    expectInputError([&] { store->createTrial(987654); }, {"no study with id 987654"});
    expectInputError([&] { store->setTrialUserAttr(987654, "k", 1); }, {"no trial with id 987654"});
    expectInputError([&] { store->createStudy("empty", {}); }, {"at least one direction"});
    // A waiting trial (enqueued) starts running.
    const auto waiting = store->createTrial(studyId, TrialState::Waiting);
    store->finishTrial(waiting.id, TrialState::Running, {});
    const auto started = store->trial(studyId, waiting.number);
    QCOMPARE(started->state, TrialState::Running);
    QVERIFY(started->startTime);
}

void TestStoreRoundtrip::runsEventsArtifactsBenchmarks()
{
    auto store = openStore(m_path);
    const auto study = store->requireStudy("search");
    const auto trialId = store->trial(study.id, 0)->id;
    RunRecord run;
    run.trialId = trialId;
    run.kind = "train";
    run.configYaml = "training:\n  seed: 1\n";
    run.seed = 1;
    run.logicalDevice = "cpu:0/2";
    run.host = "node1";
    run.pid = 4242;
    run.startTime = 1700000000.5;
    const auto runId = store->createRun(run);
    RunRecord bench;
    bench.kind = "bench";
    const auto benchRunId = store->createRun(bench);
    QVERIFY(benchRunId > runId);
    store->finishRun(runId, RunStatus::Failed, 137, "out of memory");

    const auto read = store->run(runId);
    QVERIFY(read);
    QCOMPARE(read->trialId, std::optional<std::int64_t>(trialId));
    QCOMPARE(read->kind, std::string("train"));
    QCOMPARE(read->configYaml, run.configYaml);
    QCOMPARE(read->seed, std::int64_t(1));
    QCOMPARE(read->logicalDevice, std::string("cpu:0/2"));
    QCOMPARE(read->host, std::string("node1"));
    QCOMPARE(read->pid, std::int64_t(4242));
    QCOMPARE(read->startTime, 1700000000.5);
    QVERIFY(read->endTime && *read->endTime > read->startTime);
    QCOMPARE(read->status, RunStatus::Failed);
    QCOMPARE(read->exitCode, std::optional<int>(137));
    QCOMPARE(read->message, std::string("out of memory"));
    QCOMPARE(store->runs(trialId).size(), std::size_t(1));
    QCOMPARE(store->runs().size(), std::size_t(2));
    QCOMPARE(store->runs()[1].status, RunStatus::Running);
    QVERIFY(!store->runs()[1].trialId);
    QVERIFY(!store->run(999999));
    expectInputError([&] { store->finishRun(999999, RunStatus::Succeeded, 0, ""); }, {"no run with id 999999"});
    RunRecord orphan;
    orphan.trialId = 999999;
    expectInputError([&] { store->createRun(orphan); }, {"no trial with id 999999"});

    const auto e1 = store->addEvent(runId, EventLevel::Info, "epoch 1 done");
    const auto e2 = store->addEvent(runId, EventLevel::Error, "CUDA out of memory");
    store->addEvent(benchRunId, EventLevel::Debug, "other run");
    const auto events = store->eventsSince(runId, 0);
    QCOMPARE(events.size(), std::size_t(2));
    QCOMPARE(events[0].id, e1);
    QCOMPARE(events[1].level, EventLevel::Error);
    QCOMPARE(events[1].message, std::string("CUDA out of memory"));
    QCOMPARE(store->eventsSince(runId, e1).size(), std::size_t(1));
    QCOMPARE(store->eventsSince(runId, e2).size(), std::size_t(0));
    QCOMPARE(store->eventsSince(0, 0).size(), std::size_t(3));
    expectInputError([&] { store->addEvent(999999, EventLevel::Info, "x"); }, {"no run with id 999999"});

    ArtifactRecord artifact{0, runId, "checkpoint", "/tmp/ckpt, \"best\".pt", "best mAP", 1700000100.0};
    const auto artifactId = store->addArtifact(artifact);
    const auto artifacts = store->artifacts(runId);
    QCOMPARE(artifacts.size(), std::size_t(1));
    QCOMPARE(artifacts[0].id, artifactId);
    QCOMPARE(artifacts[0].path, artifact.path);
    QCOMPARE(artifacts[0].description, std::string("best mAP"));
    QCOMPARE(artifacts[0].time, 1700000100.0);
    QVERIFY(store->artifacts(benchRunId).empty());

    BenchmarkRecord loader{0,
                           "loader",
                           "dali-vs-torch",
                           {{"batch", 8}, {"size", {1024, 372}}},
                           {{"ms_per_batch", 12.5}, {"cpu_percent", 310.0}},
                           "node1",
                           1700000200.0};
    store->addBenchmark(loader);
    store->addBenchmark({0, "partitions", "cpx", {{"mode", "CPX"}}, {{"fps", 999.0}}, "node2", 0});
    QCOMPARE(store->benchmarks().size(), std::size_t(2));
    const auto loaders = store->benchmarks("loader");
    QCOMPARE(loaders.size(), std::size_t(1));
    QCOMPARE(loaders[0].name, std::string("dali-vs-torch"));
    QCOMPARE(loaders[0].parameters, loader.parameters);
    QCOMPARE(loaders[0].results, loader.results);
    QCOMPARE(loaders[0].host, std::string("node1"));
    QCOMPARE(loaders[0].time, 1700000200.0);
    QVERIFY(std::abs(store->benchmarks("partitions")[0].time - nowSeconds()) < 60); // 0 means "now"
}

void TestStoreRoundtrip::metricsSinceReturnsExactlyNewRows()
{
    auto store = openStore(m_path);
    RunRecord a, b;
    a.kind = b.kind = "train";
    const auto runA = store->createRun(a);
    const auto runB = store->createRun(b);
    std::vector<MetricSample> first{{runA, "pretrain", 0, "loss", 2.5, 100.25},
                                    {runA, "pretrain", 0, "lr", 1e-3, 100.5},
                                    {runB, "pretrain", 0, "loss", 9.0, 101.0},
                                    {runA, "post-train", 1, "loss", std::nan(""), 102.0}};
    store->appendMetrics(first);
    const auto rowsA = store->metricsSince(runA, 0);
    QCOMPARE(rowsA.size(), std::size_t(3));
    QCOMPARE(rowsA[0].sample.stage, std::string("pretrain"));
    QCOMPARE(rowsA[0].sample.key, std::string("loss"));
    QCOMPARE(rowsA[0].sample.value, 2.5);
    QCOMPARE(rowsA[0].sample.wallTime, 100.25);
    QCOMPARE(rowsA[1].sample.key, std::string("lr"));
    QCOMPARE(rowsA[2].sample.stage, std::string("post-train"));
    QCOMPARE(rowsA[2].sample.step, std::int64_t(1));
    QVERIFY(std::isnan(rowsA[2].sample.value));
    QVERIFY(rowsA[0].cursor < rowsA[1].cursor && rowsA[1].cursor < rowsA[2].cursor);

    std::vector<MetricSample> second{{runA, "post-train", 2, "loss", 0.5, 103.0},
                                     {runB, "pretrain", 1, "loss", 8.0, 104.0},
                                     {runA, "post-train", 3, "mAP50", 0.7, 105.0}};
    store->appendMetrics(second);
    const auto newA = store->metricsSince(runA, rowsA.back().cursor);
    QCOMPARE(newA.size(), std::size_t(2));
    QCOMPARE(newA[0].sample.step, std::int64_t(2));
    QCOMPARE(newA[1].sample.key, std::string("mAP50"));
    QCOMPARE(newA[1].sample.value, 0.7);
    QVERIFY(store->metricsSince(runA, newA.back().cursor).empty());
    const auto all = store->metricsSince(0, 0);
    QCOMPARE(all.size(), std::size_t(7));
    QCOMPARE(all[2].sample.runId, runB);
    QCOMPARE(store->metricsSince(0, 0, 2).size(), std::size_t(2));
    QCOMPARE(store->metricsSince(0, all[4].cursor).size(), std::size_t(2));
    // Another connection sees the same rows with the same cursors.
    auto reader = openStore(m_path, OpenMode::ReadOnly);
    const auto seen = reader->metricsSince(runB, 0);
    QCOMPARE(seen.size(), std::size_t(2));
    QCOMPARE(seen[1].sample.value, 8.0);
    QCOMPARE(seen[0].cursor, all[2].cursor);
    // Stage names and keys are interned, once each.
    QCOMPARE(scalar(m_path, "SELECT COUNT(*) FROM pitwall_metric_names"), std::string("5"));
    expectInputError(
        [&] {
            store->appendMetrics(std::vector<MetricSample>{{999999, "s", 0, "k", 1, 1}});
        },
        {"no run with id 999999"});
    QCOMPARE(store->metricsSince(0, 0).size(), std::size_t(7)); // the failed batch left nothing
}

void TestStoreRoundtrip::changeCounterMoves()
{
    auto store = openStore(m_path);
    auto other = openStore(m_path);
    const auto c0 = store->changeCounter();
    QCOMPARE(store->changeCounter(), c0); // nothing happened
    // Reading (what a live view does after the counter moved) must not move it, or views would loop.
    const auto studyId = store->requireStudy("search").id;
    store->trials(studyId);
    store->listStudies();
    store->metricsSince(0, 0);
    store->info();
    other->trials(studyId);
    QCOMPARE(store->changeCounter(), c0);
    store->setStudyUserAttr(studyId, "note", "own commit");
    const auto c1 = store->changeCounter();
    QVERIFY(c1 != c0);
    other->setStudyUserAttr(studyId, "note", "other commit");
    const auto c2 = store->changeCounter();
    QVERIFY(c2 != c1);
    QCOMPARE(store->changeCounter(), c2);
}

void TestStoreRoundtrip::badInputs()
{
    auto store = openStore(m_path);
    expectInputError([&] { store->createStudy("search", {StudyDirection::Minimize}); },
                     {"'search'", "already exists", QString::fromStdString(m_path)});
    expectInputError([&] { store->requireStudy("serch"); },
                     {"no study named 'serch'", "known studies: search, pareto, rules", "did you mean 'search'?"});

    const auto text = m_dir.filePath("notes.txt").toStdString();
    {
        QFile file(QString::fromStdString(text));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("these are notes, not a database\n");
    }
    expectInputError([&] { openStore(text); }, {QString::fromStdString(text), "not an SQLite file"});
    expectInputError([&] { openStore(text, OpenMode::ReadOnly); }, {QString::fromStdString(text)});

    const auto missing = m_dir.filePath("missing.db").toStdString();
    expectInputError([&] { openStore(missing, OpenMode::ReadOnly); }, {QString::fromStdString(missing), "no such"});
    QVERIFY(!QFile::exists(QString::fromStdString(missing)));

    const auto foreign = m_dir.filePath("foreign.db").toStdString();
    {
        sqlite3* db = nullptr;
        sqlite3_open(foreign.c_str(), &db);
        sqlite3_exec(db, "CREATE TABLE invoices (id INTEGER); CREATE TABLE customers (id INTEGER);", nullptr, nullptr,
                     nullptr);
        sqlite3_close(db);
    }
    expectInputError([&] { openStore(foreign); },
                     {QString::fromStdString(foreign), "neither a Pitwall nor an Optuna", "customers, invoices"});
    QCOMPARE(scalar(foreign, "SELECT COUNT(*) FROM sqlite_master"), std::string("2")); // left untouched

    const auto newer = m_dir.filePath("newer.db").toStdString();
    openStore(newer).reset();
    query(newer, "INSERT INTO pitwall_schema_version VALUES (99, 'from the future', 0)");
    expectInputError([&] { openStore(newer); },
                     {QString::fromStdString(newer), "written by a newer Pitwall (schema 99, this build knows 6)"});
    expectInputError([&] { openStore(newer, OpenMode::ReadOnly); }, {"newer Pitwall"});

    expectInputError([&] { openStore("mysql://db.example/pitwall"); }, {"'mysql' backend is not built"});
    expectInputError([&] { openStore("postgresql://db.example"); }, {"names no database"});
    expectInputError([&] { openStore(""); }, {"no results database given"});
    // Optuna's URL form works, and names the same file.
    auto viaUrl = openStore("sqlite:///" + m_path, OpenMode::ReadOnly);
    QCOMPARE(viaUrl->info().location, m_path);
    QVERIFY(viaUrl->findStudy("search"));
}

namespace {
// A finished trial with all its parts, as an import would hand it to addTrials.
TrialRecord wholeTrial(TrialState state, double x, std::vector<double> values)
{
    TrialRecord t;
    t.state = state;
    t.startTime = 1700000000.25;
    t.completeTime = 1700000090.5;
    t.values = std::move(values);
    t.params = {{"x", x, floatDist(-3, 3)},
                {"lr", 1e-3, floatDist(1e-5, 1e-1, true)},
                {"layers", 2, intDist(1, 4)},
                {"optimizer", 1, optimizerDist()}};
    t.intermediateValues = {{0, 2.0}, {3, -HUGE_VAL}};
    t.userAttrs = {{"map50", 0.5}};
    t.systemAttrs = {{"worker", 7}};
    return t;
}

// The rows of one trial in Optuna's tables, without row ids: what Optuna reads of it.
std::vector<Row> trialRows(const std::string& path, int number, const std::string& study)
{
    const std::string trial = "(SELECT t.trial_id FROM trials t JOIN studies s ON s.study_id = t.study_id WHERE "
                              "s.study_name = '" +
                              study + "' AND t.number = " + std::to_string(number) + ")";
    std::vector<Row> rows;
    for (const std::string sql :
         {"SELECT state, datetime_start, datetime_complete FROM trials WHERE trial_id = ",
          "SELECT param_name, param_value, distribution_json FROM trial_params WHERE trial_id = ",
          "SELECT objective, value, value_type FROM trial_values WHERE trial_id = ",
          "SELECT step, intermediate_value, intermediate_value_type FROM trial_intermediate_values WHERE trial_id = ",
          "SELECT key, value_json FROM trial_user_attributes WHERE trial_id = ",
          "SELECT key, value_json FROM trial_system_attributes WHERE trial_id = "}) {
        const auto part = query(path, sql + trial + " ORDER BY 1");
        rows.insert(rows.end(), part.begin(), part.end());
    }
    return rows;
}
} // namespace

// addTrials writes what the one-call-per-part API writes, numbered after the study's trials. If this fails, an
// imported or copied study differs from the original, or Optuna reads it differently.
void TestStoreRoundtrip::addTrialsWritesWholeTrials()
{
    const auto path = m_dir.filePath("bulk.db").toStdString();
    auto store = openStore(path);
    const auto study = store->createStudy("bulk", {StudyDirection::Minimize});
    // Trial 0 through the one-call-per-part API, as the reference for the rows.
    const TrialRecord reference = wholeTrial(TrialState::Complete, 0.5, {0.25});
    const auto first = store->createTrial(study);
    for (const TrialParam& p : reference.params)
        store->setTrialParam(first.id, p.name, p.internalValue, p.distribution);
    for (const auto& [step, value] : reference.intermediateValues)
        store->reportIntermediate(first.id, step, value);
    store->setTrialUserAttr(first.id, "map50", 0.5);
    store->setTrialSystemAttr(first.id, "worker", 7);
    store->finishTrial(first.id, TrialState::Complete, {0.25});
    const std::string times = "UPDATE trials SET datetime_start = '2023-11-14 22:13:20.250000', "
                              "datetime_complete = '2023-11-14 22:14:50.500000' WHERE number = 0";
    query(path, times);

    TrialRecord failed;
    failed.state = TrialState::Fail;
    const double before = nowSeconds();
    const std::vector<TrialRecord> batch{reference, wholeTrial(TrialState::Pruned, -1.5, {1.5}), failed};
    QCOMPARE(store->addTrials(study, batch), 1);
    QCOMPARE(trialRows(path, 1, "bulk"), trialRows(path, 0, "bulk"));

    const auto trials = store->trials(study);
    QCOMPARE(trials.size(), std::size_t(4));
    for (int i = 0; i < 4; ++i)
        QCOMPARE(trials[i].number, i);
    const TrialRecord& copy = trials[1];
    QCOMPARE(copy.state, TrialState::Complete);
    QCOMPARE(copy.values, std::vector<double>{0.25});
    QCOMPARE(copy.params.size(), std::size_t(4));
    QCOMPARE(copy.params[3].value(), Json("adamw"));
    QCOMPARE(copy.intermediateValues, (std::map<std::int64_t, double>{{0, 2.0}, {3, -HUGE_VAL}}));
    QCOMPARE(copy.userAttrs, Json({{"map50", 0.5}}));
    QCOMPARE(copy.systemAttrs, Json({{"worker", 7}}));
    QCOMPARE(*copy.startTime, 1700000000.25);
    QCOMPARE(*copy.completeTime, 1700000090.5);
    QCOMPARE(trials[2].state, TrialState::Pruned);
    QCOMPARE(trials[2].values, std::vector<double>{1.5});
    QCOMPARE(trials[2].params[0].value(), Json(-1.5));
    QCOMPARE(trials[3].state, TrialState::Fail);
    QVERIFY(trials[3].values.empty() && trials[3].params.empty());
    QVERIFY(trials[3].startTime && *trials[3].startTime >= before - 1); // a finished trial gets times
    QVERIFY(trials[3].completeTime && *trials[3].completeTime >= *trials[3].startTime);
    const auto summary = store->listStudies().front();
    QCOMPARE(summary.complete, 2);
    QCOMPARE(summary.pruned, 1);
    QCOMPARE(summary.failed, 1);
    // The next trial, from any API, takes the next number.
    QCOMPARE(store->createTrial(study).number, 4);

    // Several objectives: a vector's first value goes to Optuna's table, the rest to Pitwall's.
    const auto pareto = store->createStudy("pareto", {StudyDirection::Minimize, StudyDirection::Maximize});
    TrialRecord vectors;
    vectors.state = TrialState::Complete;
    vectors.values = {1.0, 2.0};
    vectors.intermediateVectors = {{0, {3.0, 4.0}}, {1, {2.0, 5.0}}};
    QCOMPARE(store->addTrials(pareto, std::vector<TrialRecord>{vectors}), 0);
    const auto read = store->trial(pareto, 0);
    QVERIFY(read);
    QCOMPARE(read->values, (std::vector<double>{1.0, 2.0}));
    QCOMPARE(read->intermediateValues, (std::map<std::int64_t, double>{{0, 3.0}, {1, 2.0}}));
    QCOMPARE(read->intermediateVectors,
             (std::map<std::int64_t, std::vector<double>>{{0, {3.0, 4.0}}, {1, {2.0, 5.0}}}));
}

// Every bad batch is refused whole: nothing of it is written, and the message names the trial and the problem.
void TestStoreRoundtrip::addTrialsRefusesBadBatches()
{
    const auto path = m_dir.filePath("bulk-bad.db").toStdString();
    auto store = openStore(path);
    const auto study = store->createStudy("bulk", {StudyDirection::Minimize});
    QCOMPARE(store->addTrials(study, std::vector<TrialRecord>{wholeTrial(TrialState::Complete, 0.5, {0.25})}), 0);
    const auto rows = everyRow(path);
    const auto good = wholeTrial(TrialState::Complete, 1.0, {0.5});

    auto twoValues = good;
    twoValues.values = {0.5, 0.5};
    expectInputError(
        [&] {
            store->addTrials(study, std::vector<TrialRecord>{good, twoValues});
        },
        {"trial 1 of the 2 to add", "COMPLETE with 2 value(s); the study has 1 objective(s)"});
    auto nan = good;
    nan.values = {std::nan("")};
    expectInputError([&] { store->addTrials(study, std::vector<TrialRecord>{nan}); }, {"cannot complete with NaN"});
    auto badChoice = good;
    badChoice.params[3].internalValue = 5;
    expectInputError([&] { store->addTrials(study, std::vector<TrialRecord>{good, badChoice}); }, {"choices"});
    auto notLog = good;
    notLog.params[1].distribution.log = false;
    expectInputError([&] { store->addTrials(study, std::vector<TrialRecord>{notLog}); },
                     {"parameter 'lr' was recorded with", "cannot change to"});
    auto intX = good, floatX = good;
    intX.params = {{"z", 1, intDist(0, 4)}};
    floatX.params = {{"z", 1.5, floatDist(0, 4)}};
    expectInputError(
        [&] {
            store->addTrials(study, std::vector<TrialRecord>{intX, floatX});
        },
        {"trial 1 of the 2 to add", "parameter 'z' has", "where an earlier one has"});
    expectInputError([&] { store->addTrials(study + 100, std::vector<TrialRecord>{good}); }, {"no study with id"});
    QCOMPARE(everyRow(path), rows);
    expectInputError([&] { openStore(path, OpenMode::ReadOnly)->addTrials(study, std::vector<TrialRecord>{good}); },
                     {"read-only"});
}

// SQLite's locking is unreliable on network file systems: opening a results database there warns, once per process.
// No network file system can be mounted here, so the kinds are checked by statfs's magic numbers, and a local file
// must not warn. If this fails, users of NFS home folders get no warning, or everyone gets a false one.
void TestStoreRoundtrip::warnsOnNetworkFileSystems()
{
    QCOMPARE(networkFileSystemName(0x6969), std::string("NFS"));
    QCOMPARE(networkFileSystemName(0x517B), std::string("SMB/CIFS"));
    QCOMPARE(networkFileSystemName(static_cast<long>(0xFF534D42UL)), std::string("SMB/CIFS"));
    QCOMPARE(networkFileSystemName(static_cast<long>(0xFE534D42UL)), std::string("SMB/CIFS"));
    QCOMPARE(networkFileSystemName(0x0BD00BD0), std::string("Lustre"));
    QCOMPARE(networkFileSystemName(0x47504653), std::string("GPFS"));
    QCOMPARE(networkFileSystemName(0x00C36400), std::string("CephFS"));
    for (const long local : {0xEF53L, 0x01021994L, 0x58465342L, 0x794C7630L, 0x9123683EL, 0x65735546L})
        QVERIFY2(networkFileSystemName(local).empty(), qPrintable(QString::number(local, 16))); // ext4 .. FUSE
    QVERIFY(networkFileSystemOf(m_path).empty()); // the test's temporary folder is local

    std::vector<std::string> warnings;
    setStoreWarningHandler([&](const std::string& message) { warnings.push_back(message); });
    openStore(m_dir.filePath("local.db").toStdString()).reset();
    openStore(m_path, OpenMode::ReadOnly).reset();
    setStoreWarningHandler({});
    QVERIFY(warnings.empty());
}

void TestStoreRoundtrip::reopeningKeepsData()
{
    auto snapshot = [&] {
        auto store = openStore(m_path);
        const auto info = store->info();
        std::string text = "migrations applied: " + std::to_string(store->migrate()) + "\n";
        text += std::to_string(info.studies) + "/" + std::to_string(info.trials) + "/" + std::to_string(info.runs) +
                "/" + std::to_string(info.metricRows) + "\n";
        for (const auto& summary : store->listStudies())
            for (const auto& trial : store->trials(summary.study.id)) {
                text += summary.study.name + "#" + std::to_string(trial.number) + " " +
                        std::string(trialStateName(trial.state)) + " " + trial.userAttrs.dump();
                for (const auto& param : trial.params)
                    text += " " + param.name + "=" + param.value().dump();
                for (double v : trial.values)
                    text += " v=" + std::to_string(v);
                text += "\n";
            }
        for (const auto& row : store->metricsSince(0, 0))
            text += std::to_string(row.cursor) + row.sample.key + std::to_string(row.sample.value) + "\n";
        return text;
    };
    const auto before = snapshot();
    QVERIFY(before.starts_with("migrations applied: 0\n"));
    const auto rawBefore = query(m_path, "SELECT * FROM trials ORDER BY trial_id");
    const auto after = snapshot();
    QCOMPARE(after, before);
    QCOMPARE(query(m_path, "SELECT * FROM trials ORDER BY trial_id"), rawBefore);
    auto store = openStore(m_path);
    const auto info = store->info();
    QCOMPARE(info.backend, std::string("sqlite"));
    QCOMPARE(info.pitwallSchemaVersion, 6);
    QCOMPARE(info.latestPitwallSchemaVersion, 6);
    QCOMPARE(info.optunaSchemaVersion, std::optional<int>(12));
    // a new file gets Optuna's tables at revision 3.2, the head of every Optuna since 3.2 (core/store/optunaschema.h)
    QCOMPARE(info.optunaLibraryVersion, std::string("3.2.0"));
    QCOMPARE(info.alembicVersion, std::string("v3.2.0.a"));
    QCOMPARE(info.journalMode, std::string("wal"));
    QCOMPARE(info.studies, std::int64_t(3));
    QCOMPARE(info.metricRows, std::int64_t(7));
    QVERIFY(info.fileBytes > 0);
}

void TestStoreRoundtrip::readOnlyRefusesWrites()
{
    auto store = openStore(m_path, OpenMode::ReadOnly);
    const auto studyId = store->requireStudy("search").id;
    expectInputError([&] { store->createStudy("new", {StudyDirection::Minimize}); }, {"read-only"});
    expectInputError([&] { store->createTrial(studyId); }, {"read-only"});
    expectInputError([&] { store->createRun(RunRecord{}); }, {"read-only"});
    expectInputError([&] { store->migrate(); }, {"read-only"});
    QCOMPARE(store->trials(studyId).size(), std::size_t(5));
}

QTEST_GUILESS_MAIN(TestStoreRoundtrip)
#include "tst_store_roundtrip.moc"
