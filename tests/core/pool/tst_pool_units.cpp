// The scheduler's pieces that need no worker process: command templates (no shell, every placeholder known),
// the JSON-lines protocol, which trials count against a target, failing trials whose worker vanished, CPU load
// from /proc/stat, the study's trial time limit, the bounds on a command's output (line length, trial.log's
// head and tail), and finding, stopping and killing the processes a trial left behind. If these fail, trials
// run the wrong argv, lose or misread their values, a search runs too few, too many or forever, a chatty
// command eats its worker's memory or the disk, or a trial's children outlive it.
#include "../store/storetestutil.h"

#include "core/hpo/searchspace.h"
#include "core/pool/commandline.h"
#include "core/pool/commandrunner.h"
#include "core/pool/cpuload.h"
#include "core/pool/hposettings.h"
#include "core/pool/objectives.h"
#include "core/pool/internal/proctree.h"
#include "core/pool/internal/triallog.h"
#include "core/pool/trialstate.h"
#include "core/util/progress.h"
#include "core/util/timefmt.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <signal.h>
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
    void picksObjectivesAndConstraints();
    void freeSpaceNamesStandForThemselves();
    void countsAgainstTheTarget();
    void failsOnlyVanishedTrials();
    void failTrialLeavesFinishedTrials();
    void failReasonIsReadableAndBounded();
    void measuresCpuLoad();
    void reporterFeedsAPlainSink();
    void studyKeepsItsTrialTimeout();
    void cutsOverlongLines();
    void trialLogKeepsHeadAndTail();
    void stopsWhatATrialLeftBehind();
    void killsAStoppedTree();
};

namespace {

namespace si = pitwall::sched_internal;

// Forks a child that starts a grandchild in a session of its own and exits at once, as `setsid sleep &` in a trial
// command does: the grandchild is an orphan. Returns its pid.
pid_t startOrphan()
{
    int fds[2];
    if (::pipe(fds) != 0)
        qFatal("pipe");
    const pid_t child = ::fork();
    if (child == 0) {
        ::setsid();
        const pid_t grandchild = ::fork();
        if (grandchild == 0)
            for (;;)
                ::pause();
        [[maybe_unused]] const ssize_t n = ::write(fds[1], &grandchild, sizeof grandchild);
        ::_exit(0);
    }
    ::close(fds[1]);
    pid_t orphan = -1;
    [[maybe_unused]] const ssize_t n = ::read(fds[0], &orphan, sizeof orphan);
    ::close(fds[0]);
    ::waitpid(child, nullptr, 0);
    return orphan;
}

// The state of a process ('Z' for a zombie), or 0 when there is no such process.
char stateOf(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() ? 0 : text[close + 2];
}

std::string readAll(const QString& path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace

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
    QTest::newRow("objectives") << R"({"objectives": [0.5, 120], "fps": 120})" << int(K::Objective) << 0.0;
    QTest::newRow("empty objectives") << R"({"objectives": []})" << int(K::BadJson) << 0.0;
    QTest::newRow("objectives not numbers") << R"({"objectives": [0.5, "fast"]})" << int(K::BadJson) << 0.0;
    QTest::newRow("objectives not a list") << R"({"objectives": 0.5})" << int(K::BadJson) << 0.0;
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
    if (QString(QTest::currentDataTag()) == "objectives")
        QCOMPARE(parsed.values, (std::vector<double>{0.5, 120}));
}

void TestPoolUnits::picksObjectivesAndConstraints()
{
    TrialOutcome outcome;
    outcome.state = TrialState::Complete;
    outcome.metrics = {{"val/loss", 0.25}, {"full_fps", 140.0}, {"map50", 0.6}};
    HpoSettings settings;
    settings.objectives = {"loss", "full_fps"}; // a bare built-in name finds its val/ metric
    settings.constraints = {"full_fps>=100", "map50 <= 0.5"};
    TrialValues told = trialValues(settings, 2, outcome);
    QCOMPARE(told.problem, std::string());
    QCOMPARE(told.values, (std::vector<double>{0.25, 140.0}));
    QCOMPARE(told.constraints, (std::vector<double>{100.0 - 140.0, 0.6 - 0.5})); // feasible when <= 0
    settings.objectives = {"", ""}; // a command's list, in order
    outcome.objectives = {1.0, 2.0};
    QCOMPARE(trialValues(settings, 2, outcome).values, (std::vector<double>{1.0, 2.0}));
    outcome.objectives = {1.0, 2.0, 3.0};
    QCOMPARE(trialValues(settings, 2, outcome).problem, std::string("the command printed 3 objectives; the study has 2"));
    settings.objectives = {"val/loss", "fps"};
    told = trialValues(settings, 2, outcome);
    QCOMPARE(told.problem, std::string("the trial recorded no 'fps' (it recorded: full_fps, map50, val/loss)"));
    QVERIFY(told.values.empty() && told.constraints.empty());
    outcome.metrics["fps"] = NAN;
    QCOMPARE(trialValues(settings, 2, outcome).problem, std::string("the trial's 'fps' is NaN"));
    // One objective: the runner's value, and a constraint beside it.
    HpoSettings single;
    single.constraints = {"map50>=0.5"};
    outcome.value = 0.3;
    told = trialValues(single, 1, outcome);
    QCOMPARE(told.values, std::vector<double>{0.3});
    QCOMPARE(told.constraints, std::vector<double>{0.5 - 0.6});
    QCOMPARE(parseConstraint(" fps >= 30 ").key, std::string("fps"));
    QVERIFY(!parseConstraint("fps>=30").atMost);
    QCOMPARE(parseConstraint("x<=-1e3").bound, -1000.0);
    QVERIFY_THROWS_EXCEPTION(InputError, parseConstraint("<=3"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseConstraint("fps>=inf"));
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
    // Two objectives: no best value (a search's progress would name the first objective's), the front's size.
    trials[0].values = {2.0, 1.0};
    trials[1].values = {1.0, 2.0};
    const StudyCounts two = countTrials(trials, std::vector<StudyDirection>{StudyDirection::Minimize, StudyDirection::Minimize});
    QVERIFY(!two.bestValue && !two.bestTrial);
    QCOMPARE(two.frontSize, std::optional<int>(2));
    QCOMPARE(two.counted(), 5);
    const StudyCounts dominated =
        countTrials(trials, std::vector<StudyDirection>{StudyDirection::Minimize, StudyDirection::Maximize});
    QCOMPARE(dominated.frontSize, std::optional<int>(1)); // (1, 2) is better in both
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

// --trial-timeout is kept with the study (pitwall:hpo), so `hpo --resume` and the pool read it back; a bad stored
// value is refused with the field's name.
void TestPoolUnits::studyKeepsItsTrialTimeout()
{
    HpoSettings settings;
    settings.targetTrials = 3;
    QVERIFY(!HpoSettings::fromJson(settings.toJson()).trialTimeoutSeconds);
    settings.trialTimeoutSeconds = 90.5;
    QCOMPARE(HpoSettings::fromJson(settings.toJson()).trialTimeoutSeconds.value_or(0), 90.5);
    Json bad = settings.toJson();
    bad["trial_timeout_seconds"] = -1;
    try {
        HpoSettings::fromJson(bad);
        QFAIL("a negative time limit was accepted");
    } catch (const InputError& e) {
        QCOMPARE(std::string(e.what()), std::string("the study's pitwall:hpo trial_timeout_seconds is not a positive "
                                                    "number: -1"));
    }
}

// A command printing a line far longer than the limit: the splitter keeps its first bytes and counts the rest, and
// holds no more than the limit whatever comes (before: the whole line, 300 MB for a 100 MB line).
void TestPoolUnits::cutsOverlongLines()
{
    si::LineSplitter splitter(8);
    std::vector<si::OutputLine> lines;
    splitter.feed("short\n0123456789", lines);
    QCOMPARE(lines.size(), std::size_t(1));
    QCOMPARE(lines[0].text, std::string("short"));
    QCOMPARE(lines[0].cutBytes, std::uint64_t(0));
    for (int i = 0; i < 1000; ++i)
        splitter.feed("abcdefghij", lines); // no newline: one line of 10,010 bytes so far
    splitter.feed("xyz\n{\"a\": 1}\ntail", lines);
    QCOMPARE(lines.size(), std::size_t(3));
    QCOMPARE(lines[1].text, std::string("01234567"));
    QCOMPARE(lines[1].cutBytes, std::uint64_t(10 + 10000 + 3 - 8));
    QCOMPARE(lines[2].text, std::string("{\"a\": 1}"));
    splitter.finish(lines);
    QCOMPARE(lines.size(), std::size_t(4));
    QCOMPARE(lines[3].text, std::string("tail"));
}

// trial.log written through TrialLog: the first `head` bytes, a line saying how much was left out, and the latest
// `tail` to 2 x `tail` bytes, whatever the command writes (before: stderr was appended to it without bound). A
// symbolic link planted at its path is not followed.
void TestPoolUnits::trialLogKeepsHeadAndTail()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("trial.log");
    std::string all;
    {
        si::TrialLog log(path.toStdString(), 100, 50);
        for (int i = 0; i < 2000; ++i) {
            const std::string piece = "line " + std::to_string(i) + "\n";
            all += piece;
            log.write(piece);
        }
        QVERIFY(log.leftOutBytes() > 0);
    }
    const std::string text = readAll(path);
    QCOMPARE(text.substr(0, 100), all.substr(0, 100));
    const auto marker = text.find("bytes of output left out here");
    QVERIFY2(marker != std::string::npos, text.c_str());
    const std::string tail = text.substr(text.find('\n', marker) + 1);
    QVERIFY2(tail.size() >= 50 && tail.size() <= 100, std::to_string(tail.size()).c_str());
    QCOMPARE(tail, all.substr(all.size() - tail.size())); // ends with the latest output
    QVERIFY2(text.size() < 100 + 100 + 200, std::to_string(text.size()).c_str());

    const QString target = dir.filePath("elsewhere"), link = dir.filePath("linked.log");
    QVERIFY(QFile::link(target, link));
    QVERIFY_THROWS_EXCEPTION(RuntimeError, si::TrialLog(link.toStdString()));
    QVERIFY(!QFile::exists(target));
}

// A worker is the subreaper of its trials' processes, so an orphan that left the command's session is still
// below it, and stopOwnDescendants ends it (before: it ran on under init after the search ended).
void TestPoolUnits::stopsWhatATrialLeftBehind()
{
    QVERIFY(si::becomeSubreaper());
    const pid_t orphan = startOrphan();
    QVERIFY(orphan > 0);
    QVERIFY(stateOf(orphan) != 0);
    const auto below = si::descendants(::getpid());
    QVERIFY(std::any_of(below.begin(), below.end(), [&](const si::ProcessInfo& p) { return p.pid == orphan; }));
    const auto stopped = si::stopOwnDescendants(5.0);
    QCOMPARE(stopped.size(), std::size_t(1));
    QCOMPARE(stopped[0].pid, orphan);
    QCOMPARE(si::describeProcess(stopped[0]).rfind("pid " + std::to_string(orphan) + " (", 0), std::size_t(0));
    QCOMPARE(stateOf(orphan), '\0'); // gone and reaped
    QVERIFY(si::descendants(::getpid()).empty());
}

// A stopped process is found by stoppedProcess, and killTree ends a stopped process with everything below it,
// also a grandchild in a session of its own.
void TestPoolUnits::killsAStoppedTree()
{
    QVERIFY(si::becomeSubreaper());
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    const pid_t child = ::fork();
    if (child == 0) {
        const pid_t grandchild = ::fork();
        if (grandchild == 0) {
            ::setsid();
            for (;;)
                ::pause();
        }
        [[maybe_unused]] const ssize_t n = ::write(fds[1], &grandchild, sizeof grandchild);
        ::raise(SIGSTOP);
        for (;;)
            ::pause();
    }
    ::close(fds[1]);
    pid_t grandchild = -1;
    QCOMPARE(::read(fds[0], &grandchild, sizeof grandchild), ssize_t(sizeof grandchild));
    ::close(fds[0]);
    int status = 0;
    QCOMPARE(::waitpid(child, &status, WUNTRACED), child);
    QVERIFY(WIFSTOPPED(status));
    const auto stopped = si::stoppedProcess(::getpid());
    QVERIFY(stopped.has_value());
    QCOMPARE(stopped->pid, child);
    QCOMPARE(stopped->state, 'T');

    si::killTree(child);
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    // The grandchild, orphaned when its parent died, came to this process (the subreaper): killed too.
    QCOMPARE(::waitpid(grandchild, &status, 0), grandchild);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    QVERIFY(!si::stoppedProcess(::getpid()));
}

QTEST_GUILESS_MAIN(TestPoolUnits)
#include "tst_pool_units.moc"
