// The scheduler's pieces that need no worker process: command templates (no shell, every placeholder known),
// the JSON-lines protocol, which trials count against a target, failing trials whose worker vanished, and
// CPU load from /proc/stat. If these fail, trials run the wrong argv, lose or misread their values, or a
// search runs too few, too many or forever.
#include "../store/storetestutil.h"

#include "core/hpo/searchspace.h"
#include "core/pool/commandline.h"
#include "core/pool/commandrunner.h"
#include "core/pool/cpuload.h"
#include "core/pool/trialstate.h"
#include "core/util/progress.h"
#include "core/util/timefmt.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

using namespace pitwall;

class TestPoolUnits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitsWithoutAShell();
    void expandsPlaceholders();
    void classifiesOutputLines_data();
    void classifiesOutputLines();
    void freeSpaceNamesStandForThemselves();
    void countsAgainstTheTarget();
    void failsOnlyVanishedTrials();
    void failTrialLeavesFinishedTrials();
    void failReasonIsReadableAndBounded();
    void measuresCpuLoad();
    void reporterFeedsAPlainSink();
};

void TestPoolUnits::splitsWithoutAShell()
{
    QCOMPARE(splitCommandLine("python3 train.py --lr {lr}  --name 'a b' \"c \\\"d\\\"\" e\\ f $HOME *.py"),
             (std::vector<std::string>{"python3", "train.py", "--lr", "{lr}", "--name", "a b", "c \"d\"", "e f",
                                       "$HOME", "*.py"}));
    QVERIFY_THROWS_EXCEPTION(InputError, splitCommandLine("python3 'unbalanced"));
    QVERIFY_THROWS_EXCEPTION(InputError, splitCommandLine("   "));
    QCOMPARE(findExecutable("sh").substr(0, 1), std::string("/"));
    QVERIFY_THROWS_EXCEPTION(InputError, findExecutable("no-such-program-pitwall"));
}

void TestPoolUnits::expandsPlaceholders()
{
    const auto words = splitCommandLine("run --lr={max_lr} --out {trial_dir}/x {{literal}}");
    QCOMPARE(commandPlaceholders(words), (std::set<std::string>{"max_lr", "trial_dir"}));
    QCOMPARE(expandCommand(words, {{"max_lr", "0.01"}, {"trial_dir", "/t/3"}}),
             (std::vector<std::string>{"run", "--lr=0.01", "--out", "/t/3/x", "{literal}"}));
    try {
        checkCommandPlaceholders(words, {"max_lr_", "trial_dir"});
        QFAIL("an unknown placeholder was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("{max_lr} (did you mean {max_lr_}?)") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, commandPlaceholders({"a{b"}));
    QVERIFY_THROWS_EXCEPTION(InputError, commandPlaceholders({"a}b"}));
}

void TestPoolUnits::classifiesOutputLines_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("value");
    using K = CommandOutputLine::Kind;
    QTest::newRow("text") << "epoch 3 done" << int(K::Text) << 0.0;
    QTest::newRow("intermediate") << R"({"step": 3, "value": 0.41, "loss": 2})" << int(K::Intermediate) << 0.41;
    QTest::newRow("objective") << R"(  {"objective": 0.39, "map": 0.7})" << int(K::Objective) << 0.39;
    QTest::newRow("other json") << R"({"epoch": 1})" << int(K::OtherJson) << 0.0;
    QTest::newRow("truncated") << R"({"objective": 0.3)" << int(K::BadJson) << 0.0;
    QTest::newRow("negative step") << R"({"step": -1, "value": 1})" << int(K::BadJson) << 0.0;
    QTest::newRow("string value") << R"({"step": 1, "value": "x"})" << int(K::BadJson) << 0.0;
    QTest::newRow("array") << "{[1]}" << int(K::BadJson) << 0.0;
}

void TestPoolUnits::classifiesOutputLines()
{
    QFETCH(QString, line);
    QFETCH(int, kind);
    QFETCH(double, value);
    const CommandOutputLine parsed = classifyOutputLine(line.toStdString());
    QCOMPARE(int(parsed.kind), kind);
    QCOMPARE(parsed.value, value);
    if (parsed.kind == CommandOutputLine::Kind::BadJson)
        QVERIFY(!parsed.error.empty());
}

void TestPoolUnits::freeSpaceNamesStandForThemselves()
{
    const std::string yaml =
        "mode: {type: categorical, values: [ok, crash]}\nbatch: {type: categorical, values: [8, 16]}\n"
        "lr: {type: loguniform, min: 1.0e-4, max: 1.0e-2}\nlayers: {type: int, min: 1, max: 3}\n"
        "fixed_name: hello\n";
    const SearchSpace space = SearchSpace::parse(yaml, "space.yaml", freeSpaceSchema(yaml, "space.yaml"), {});
    QCOMPARE(space.params().size(), std::size_t(5));
    QCOMPARE(space.find("batch")->configKey, std::string("batch"));
    QCOMPARE(space.overrides(Json{{"mode", "ok"}, {"batch", 8}, {"lr", 0.001}, {"layers", 2}}).back(),
             std::string("fixed_name=hello"));
    const std::set<std::string> known = knownPlaceholders(space, false, true);
    QVERIFY(known.count("mode") && known.count("epochs") && known.count("trial") && !known.count("config"));
}

void TestPoolUnits::countsAgainstTheTarget()
{
    std::vector<TrialRecord> trials(6);
    trials[0].state = TrialState::Complete, trials[0].values = {2.0};
    trials[1].state = TrialState::Complete, trials[1].values = {1.0}, trials[1].number = 1;
    trials[2].state = TrialState::Pruned, trials[2].intermediateValues = {{0, 3.0}, {1, 3.5}};
    trials[3].state = TrialState::Fail; // crashed: counts, as Optuna's n_trials
    trials[4].state = TrialState::Fail, trials[4].systemAttrs[kInterruptedAttr] = true; // cancelled: does not
    trials[5].state = TrialState::Running;                                              // nobody said who runs it
    const StudyCounts c = countTrials(trials, StudyDirection::Minimize);
    QCOMPARE(c.counted(), 5);
    QCOMPARE(c.finished(), 4);
    QCOMPARE(c.interrupted, 1);
    QCOMPARE(c.untracked, 1);
    QCOMPARE(c.epochsDone, std::int64_t(2));
    QCOMPARE(*c.bestTrial, 1);
    QCOMPARE(*countTrials(trials, StudyDirection::Maximize).bestValue, 2.0);
}

void TestPoolUnits::failsOnlyVanishedTrials()
{
    QTemporaryDir dir;
    const std::string db = dir.filePath("s.db").toStdString();
    auto store = openStore(db);
    const std::int64_t study = store->createStudy("s", {StudyDirection::Minimize});
    const auto worker = [](std::int64_t pid, const std::string& host) {
        return Json{{"id", "w"}, {"pid", pid}, {"host", host}, {"device", "cpu:0.1"}, {"log", ""}};
    };
    // A pid that has surely ended: a child we reaped.
    const pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, nullptr, 0);
    TrialRecord vanished = store->createTrial(study), alive = store->createTrial(study),
                fresh = store->createTrial(study), unknown = store->createTrial(study),
                elsewhere = store->createTrial(study);
    store->setTrialSystemAttr(vanished.id, kWorkerAttr, worker(dead, hostName()));
    store->setTrialSystemAttr(alive.id, kWorkerAttr, worker(getpid(), hostName()));
    store->setTrialSystemAttr(fresh.id, kWorkerAttr, worker(dead, hostName()));
    store->setTrialSystemAttr(elsewhere.id, kWorkerAttr, worker(getpid(), "another-host"));
    for (const TrialRecord& t : {vanished, alive, fresh, elsewhere})
        store->heartbeat(t.id);
    // Age the heartbeats of three trials by 100 s (as if their workers went silent long ago).
    for (const TrialRecord& t : {vanished, alive, elsewhere})
        storetest::query(db, "UPDATE trial_heartbeats SET heartbeat = '" + formatTimestamp(nowSeconds() - 100) +
                                 "' WHERE trial_id = " + std::to_string(t.id));
    const auto failed = failStaleTrials(*store, study, 30.0);
    std::set<int> numbers;
    for (const StaleTrial& s : failed)
        numbers.insert(s.number);
    // Only the silent trials whose worker is not a live process here: the dead local one and the remote one.
    QCOMPARE(numbers, (std::set<int>{vanished.number, elsewhere.number}));
    const TrialRecord v = *store->trial(study, vanished.number);
    QCOMPARE(v.state, TrialState::Fail);
    QVERIFY(isInterrupted(v));
    const std::string reason = v.systemAttrs[kFailReasonAttr].get<std::string>();
    QVERIFY2(reason.rfind("worker vanished: no heartbeat for 10", 0) == 0, reason.c_str());
    QVERIFY2(reason.find("cpu:0.1") != std::string::npos, reason.c_str());
    for (const TrialRecord& t : {alive, fresh, unknown})
        QCOMPARE(store->trial(study, t.number)->state, TrialState::Running);
    // The reason is also an error event of the trial's run.
    const auto runs = store->runs(v.id);
    QCOMPARE(runs.size(), std::size_t(1));
    const auto events = store->eventsSince(runs[0].id, 0);
    QVERIFY(!events.empty() && events.back().level == EventLevel::Error);
}

void TestPoolUnits::failTrialLeavesFinishedTrials()
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath("s.db").toStdString());
    const std::int64_t study = store->createStudy("s", {StudyDirection::Minimize});
    const TrialRecord t = store->createTrial(study);
    store->finishTrial(t.id, TrialState::Complete, {1.0});
    QVERIFY(!failTrial(*store, t, "late", FailKind::TrialFault));
    QCOMPARE(store->trial(study, t.number)->state, TrialState::Complete);
    QVERIFY(!store->trial(study, t.number)->systemAttrs.contains(kFailReasonAttr));
}

// A command that printed binary output: the stored reason is valid UTF-8 text without control bytes, bounded,
// with the start and the end of what the command said (before: 5 KB of raw bytes).
void TestPoolUnits::failReasonIsReadableAndBounded()
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath("f.db").toStdString());
    const std::int64_t study = store->createStudy("f", {StudyDirection::Minimize});
    const TrialRecord t = store->createTrial(study);
    std::string reason = "the command ended with exit status 3\n--- end of log ---\n";
    for (int i = 0; i < 5000; ++i)
        reason += static_cast<char>(i % 256);
    reason += "\nlast line: out of memory";
    QVERIFY(failTrial(*store, t, reason, FailKind::TrialFault));
    const Json stored = store->trial(study, t.number)->systemAttrs.at(kFailReasonAttr);
    QVERIFY(stored.is_string());
    const std::string text = stored.get<std::string>();
    QVERIFY2(text.size() <= 2100, std::to_string(text.size()).c_str());
    QVERIFY(text.rfind("the command ended with exit status 3\n--- end of log ---\n", 0) == 0);
    QVERIFY(text.find("bytes left out") != std::string::npos);
    QVERIFY(text.find("last line: out of memory") == text.size() - std::string("last line: out of memory").size());
    for (char c : text)
        QVERIFY2(c == '\n' || static_cast<unsigned char>(c) >= 0x20, "a control byte was stored");
    QVERIFY(text.find("\\x00") != std::string::npos); // the NUL byte, escaped
}

void TestPoolUnits::measuresCpuLoad()
{
    const std::string before = "cpu  10 0 10 80 0 0 0 0 0 0\ncpu0 5 0 5 40 0 0 0 0\ncpu1 5 0 5 40 0 0 0 0\nintr 1\n";
    const std::string after = "cpu  10 0 10 80 0 0 0 0 0 0\ncpu0 50 0 5 45 0 0 0 0\ncpu1 5 0 5 140 0 0 0 0\n";
    const CpuTimes a = parseProcStat(before), b = parseProcStat(after);
    QCOMPARE(a.size(), std::size_t(2));
    QCOMPARE(*busyFraction(a, b, {0}), 0.9); // 45 busy of 50 ticks
    QCOMPARE(*busyFraction(a, b, {1}), 0.0);
    QCOMPARE(*busyFraction(a, b), 45.0 / 150.0);
    QVERIFY(!busyFraction(a, a).has_value());
    QVERIFY(!busyFraction(a, b, {7}).has_value());
    QVERIFY(!readCpuTimes().empty());
}

// A plain (fraction, message) sink — a job record, a window's bar — gets counted progress as a fraction and
// "label  detail"; without a sink nothing is called. Wrong, and jobs show progress past 100 % or lose the label.
void TestPoolUnits::reporterFeedsAPlainSink()
{
    std::vector<std::pair<double, std::string>> seen;
    const ProgressReporter reporter(ProgressSink([&](double f, const std::string& m) { seen.emplace_back(f, m); }));
    reporter.progress({"trials", 1, 4, "running 2"});
    reporter.progress({"trials", 9, 4, ""});
    reporter.progress({"waiting", 0, 0, ""});
    reporter.message("ignored: a sink takes progress only");
    reporter.phaseDone();
    reporter.counter("synthesising frames")(2, 2);
    QCOMPARE(seen.size(), std::size_t(4));
    QCOMPARE(seen[0], std::make_pair(0.25, std::string("trials  running 2")));
    QCOMPARE(seen[1], std::make_pair(1.0, std::string("trials")));
    QCOMPARE(seen[2], std::make_pair(0.0, std::string("waiting")));
    QCOMPARE(seen[3], std::make_pair(1.0, std::string("synthesising frames")));
    ProgressReporter silent;
    silent.progress({"trials", 1, 2, ""});
    silent.warning("nobody listens");
    int ended = 0;
    silent.onPhaseDone = [&] { ++ended; };
    silent.counter("frames")(1, 2);
    silent.counter("frames")(2, 2);
    QCOMPARE(ended, 1);
}

QTEST_GUILESS_MAIN(TestPoolUnits)
#include "tst_pool_units.moc"
