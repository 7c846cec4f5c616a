// Median, successive-halving and hyperband pruners on constructed intermediate-value tables. If this
// fails, trials are pruned that Optuna 3.1 would keep (or kept that it would prune), so a study continued
// by the other tool would judge its trials by different rules.
#include "core/hpo/pruner.h"
#include "core/util/error.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace pitwall;

namespace {

StudyRecord study(const std::string& name, StudyDirection direction = StudyDirection::Minimize)
{
    StudyRecord s;
    s.name = name;
    s.directions = {direction};
    return s;
}

TrialRecord trial(int number, TrialState state, const std::vector<double>& curve, int firstStep = 0)
{
    TrialRecord t;
    t.number = number;
    t.state = state;
    for (std::size_t i = 0; i < curve.size(); ++i)
        t.intermediateValues[firstStep + static_cast<std::int64_t>(i)] = curve[i];
    if (state == TrialState::Complete && !curve.empty())
        t.values = {curve.back()};
    return t;
}

// Five complete trials with constant curves 1..5 over steps 0..2: the median at every step is 3.
std::vector<TrialRecord> fiveComplete()
{
    std::vector<TrialRecord> out;
    for (int i = 0; i < 5; ++i)
        out.push_back(trial(i, TrialState::Complete, {i + 1.0, i + 1.0, i + 1.0}));
    return out;
}

bool judge(const Pruner& pruner, const StudyRecord& s, std::vector<TrialRecord> trials, const TrialRecord& t)
{
    trials.push_back(t);
    return pruner.shouldPrune(s, trials, t);
}

// Replays trials one after another as a worker would: report step by step, ask the pruner after each
// report, store what it records; returns the verdicts of each trial.
std::vector<std::vector<bool>> replay(const PrunerSettings& settings, StudyRecord s,
                                      const std::vector<std::vector<double>>& curves)
{
    const auto pruner = makePruner(settings);
    std::vector<TrialRecord> trials;
    std::vector<std::vector<bool>> verdicts;
    for (const auto& curve : curves) {
        TrialRecord t = trial(static_cast<int>(trials.size()), TrialState::Running, {});
        trials.push_back(t);
        verdicts.emplace_back();
        for (std::size_t step = 0; step < curve.size(); ++step) {
            trials.back().intermediateValues[static_cast<std::int64_t>(step)] = curve[step];
            const PruneDecision d = pruner->decide(s, trials, trials.back());
            for (auto it = d.trialSystemAttrs.begin(); it != d.trialSystemAttrs.end(); ++it)
                trials.back().systemAttrs[it.key()] = it.value();
            for (auto it = d.studySystemAttrs.begin(); it != d.studySystemAttrs.end(); ++it)
                s.systemAttrs[it.key()] = it.value();
            verdicts.back().push_back(d.prune);
            if (d.prune)
                break;
        }
        trials.back().state = verdicts.back().back() ? TrialState::Pruned : TrialState::Complete;
        if (!verdicts.back().back())
            trials.back().values = {curve.back()};
    }
    return verdicts;
}

} // namespace

class TestPruners : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void medianComparesBestValueWithMedian();
    void medianWaitsForStartupWarmupAndInterval();
    void medianMaximizeAndNan();
    void successiveHalvingRungs();
    void successiveHalvingAutoMinResource();
    void hyperbandBrackets();
    void hyperbandComparesWithinBracket();
    void settingsRoundTrip();
};

void TestPruners::medianComparesBestValueWithMedian()
{
    const auto pruner = makePruner(PrunerSettings::defaults(PrunerKind::Median));
    const StudyRecord s = study("m");
    // The trial's best value so far (min over its steps) against the median of complete trials at its step.
    QVERIFY(!judge(*pruner, s, fiveComplete(), trial(5, TrialState::Running, {2.5, 3.5})));
    QVERIFY(judge(*pruner, s, fiveComplete(), trial(5, TrialState::Running, {3.5, 3.6})));
    QVERIFY(!judge(*pruner, s, fiveComplete(), trial(5, TrialState::Running, {3.0}))); // equal to the median: kept
    // No complete trial has a value at step 7: nothing to compare with.
    QVERIFY(!judge(*pruner, s, fiveComplete(), trial(5, TrialState::Running, {9.0}, 7)));
    // Running, pruned and failed trials do not count.
    auto others = fiveComplete();
    others.push_back(trial(5, TrialState::Pruned, {0.0, 0.0}));
    others.push_back(trial(6, TrialState::Running, {0.0, 0.0}));
    QVERIFY(judge(*pruner, s, others, trial(7, TrialState::Running, {3.5, 3.6})));
}

void TestPruners::medianWaitsForStartupWarmupAndInterval()
{
    const StudyRecord s = study("m");
    auto four = fiveComplete();
    four.pop_back(); // median of 1..4 is 2.5
    QVERIFY2(!judge(*makePruner(PrunerSettings::defaults(PrunerKind::Median)), s, four,
                    trial(5, TrialState::Running, {9, 9})),
             "fewer than n_startup_trials complete trials");

    PrunerSettings warm = PrunerSettings::defaults(PrunerKind::Median);
    warm.warmupSteps = 2;
    QVERIFY(!judge(*makePruner(warm), s, fiveComplete(), trial(5, TrialState::Running, {9, 9})));
    QVERIFY(judge(*makePruner(warm), s, fiveComplete(), trial(5, TrialState::Running, {9, 9, 9})));

    PrunerSettings interval = PrunerSettings::defaults(PrunerKind::Median);
    interval.intervalSteps = 2;
    // Step 1 is not a checking step (0, 2, 4, ...); step 2 is.
    QVERIFY(!judge(*makePruner(interval), s, fiveComplete(), trial(5, TrialState::Running, {9, 9})));
    QVERIFY(judge(*makePruner(interval), s, fiveComplete(), trial(5, TrialState::Running, {9, 9, 9})));
}

void TestPruners::medianMaximizeAndNan()
{
    const auto pruner = makePruner(PrunerSettings::defaults(PrunerKind::Median));
    const StudyRecord up = study("m", StudyDirection::Maximize);
    QVERIFY(!judge(*pruner, up, fiveComplete(), trial(5, TrialState::Running, {3.5, 2.0}))); // best = max = 3.5
    QVERIFY(judge(*pruner, up, fiveComplete(), trial(5, TrialState::Running, {2.5, 2.9})));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QVERIFY2(judge(*pruner, study("m"), fiveComplete(), trial(5, TrialState::Running, {nan, nan})),
             "a trial with only NaN values is pruned");
}

void TestPruners::successiveHalvingRungs()
{
    PrunerSettings sha = PrunerSettings::defaults(PrunerKind::SuccessiveHalving);
    sha.minResource = 1;
    sha.reductionFactor = 2;
    // Rungs at steps 1, 2, 4. Trial 0 is alone at rung 0 and promoted; trial 1 (2.0 vs 1.0) is not;
    // trial 2 (1.5) is pruned as the newest Optuna decides (the default): competitors [1.0, 2.0, 1.5], the top
    // half is 1.0.
    QVERIFY(!sha.countJudgedTwice);
    auto verdicts = replay(sha, study("s"), {{9, 1.0}, {9, 2.0}, {9, 1.5}});
    QCOMPARE(verdicts[0], (std::vector<bool>{false, false}));
    QCOMPARE(verdicts[1], (std::vector<bool>{false, true}));
    QCOMPARE(verdicts[2], (std::vector<bool>{false, true}));
    // As Optuna 3.1, trial 2 is promoted: it counted the judged trial's own rung value twice (its storage cache
    // shared the record): competitors [1.0, 2.0, 1.5, 1.5], the top half includes 1.5.
    sha.countJudgedTwice = true;
    verdicts = replay(sha, study("s"), {{9, 1.0}, {9, 2.0}, {9, 1.5}});
    QCOMPARE(verdicts[0], (std::vector<bool>{false, false}));
    QCOMPARE(verdicts[1], (std::vector<bool>{false, true}));
    QCOMPARE(verdicts[2], (std::vector<bool>{false, false}));

    // Recorded rungs: a trial passing step 2 records rung 0 and 1 in one judgement if it skipped a check.
    const auto pruner = makePruner(sha);
    TrialRecord t = trial(0, TrialState::Running, {5, 5, 5});
    const PruneDecision d = pruner->decide(study("s"), {t}, t);
    QVERIFY(!d.prune);
    QCOMPARE(d.trialSystemAttrs, (Json{{"completed_rung_0", 5.0}, {"completed_rung_1", 5.0}}));
    // Step 0 is before the first rung: nothing recorded, no verdict.
    TrialRecord early = trial(1, TrialState::Running, {5});
    QCOMPARE(pruner->decide(study("s"), {early}, early).trialSystemAttrs, Json::object());
}

void TestPruners::successiveHalvingAutoMinResource()
{
    const auto pruner = makePruner(PrunerSettings::defaults(PrunerKind::SuccessiveHalving)); // min_resource auto
    StudyRecord s = study("a");
    TrialRecord running = trial(1, TrialState::Running, {1, 1, 1, 1});
    PruneDecision d = pruner->decide(s, {running}, running);
    QVERIFY2(!d.prune && d.studySystemAttrs.empty(), "no complete trial: the resource is unknown, no pruning");
    std::vector<double> long_(251, 1.0);
    std::vector<TrialRecord> trials = {trial(0, TrialState::Complete, long_), running};
    d = pruner->decide(s, trials, running);
    QCOMPARE(d.studySystemAttrs[kShaMinResourceAttr].get<std::int64_t>(), 2); // last step 250 / 100
    s.systemAttrs[kShaMinResourceAttr] = 7; // once stored, it stays (Optuna's pruner keeps its estimate)
    QVERIFY(pruner->decide(s, trials, running).studySystemAttrs.empty());
}

void TestPruners::hyperbandBrackets()
{
    // max_resource 9, reduction 3: brackets 0..2 with budgets 9, 5, 3 (Optuna: ceil(3 * 3^s / (s + 1)));
    // a trial's bracket is crc32("hb_<number>") % 17 walked over the budgets (values from Python's binascii).
    PrunerSettings hb = PrunerSettings::defaults(PrunerKind::Hyperband);
    hb.maxResource = 9;
    const std::vector<int> expected = {0, 0, 2, 2, 1, 1, 1, 2, 1, 0, 1, 0};
    for (int n = 0; n < 12; ++n)
        QCOMPARE(hyperbandBracket(hb, study("hb"), n).value(), expected[n]);
    PrunerSettings automatic = PrunerSettings::defaults(PrunerKind::Hyperband);
    QVERIFY(!hyperbandBracket(automatic, study("hb"), 0).has_value());
    StudyRecord fixed = study("hb");
    fixed.systemAttrs[kHyperbandMaxResourceAttr] = 9;
    QCOMPARE(hyperbandBracket(automatic, fixed, 2).value(), 2);
}

void TestPruners::hyperbandComparesWithinBracket()
{
    PrunerSettings hb = PrunerSettings::defaults(PrunerKind::Hyperband);
    hb.maxResource = 9;
    const auto pruner = makePruner(hb);
    const StudyRecord s = study("hb");
    // Bracket 1 (trials 4, 5, ...) has its first rung at step 3 (min_early_stopping_rate 1).
    TrialRecord t4 = trial(4, TrialState::Running, {1, 1, 1, 1.0});
    t4.systemAttrs["completed_rung_0"] = 1.0;
    TrialRecord t0 = trial(0, TrialState::Complete, {0.1, 0.1, 0.1, 0.1});
    t0.systemAttrs["completed_rung_0"] = 0.1; // bracket 0: must not compete with bracket 1
    TrialRecord t5 = trial(5, TrialState::Running, {0.5, 0.5, 0.5});
    QCOMPARE(pruner->decide(s, {t0, t4, t5}, t5).trialSystemAttrs, Json::object()); // step 2 < 3
    t5.intermediateValues[3] = 0.5;
    const PruneDecision d = pruner->decide(s, {t0, t4, t5}, t5);
    QVERIFY2(!d.prune, "0.5 is in the top third of bracket 1's rung 0 (1.0, 0.5, 0.5)");
    QCOMPARE(d.trialSystemAttrs["completed_rung_0"].get<double>(), 0.5);
    // Bracket 2 (trial 2) starts at step 9.
    TrialRecord t2 = trial(2, TrialState::Running, {5, 5, 5, 5, 5, 5, 5, 5});
    QCOMPARE(pruner->decide(s, {t0, t2}, t2).trialSystemAttrs, Json::object());
}

void TestPruners::settingsRoundTrip()
{
    for (PrunerKind kind :
         {PrunerKind::None, PrunerKind::Median, PrunerKind::SuccessiveHalving, PrunerKind::Hyperband}) {
        const PrunerSettings s = PrunerSettings::defaults(kind);
        QCOMPARE(PrunerSettings::fromJson(s.toJson()).toJson(), s.toJson());
    }
    QCOMPARE(
        PrunerSettings::defaults(PrunerKind::Hyperband).toJson().dump(),
        std::string(
            R"({"bootstrap_count":0,"halving_version":"5","max_resource":"auto","min_resource":1,"name":"hyperband",)"
            R"("reduction_factor":3})"));
    // Settings stored before halving_version decided as Optuna 3.1, and keep doing so.
    QVERIFY(PrunerSettings::fromJson(Json{{"name", "sha"}}).countJudgedTwice);
    QVERIFY(PrunerSettings::fromJson(Json{{"name", "hyperband"}, {"halving_version", "3.1"}}).countJudgedTwice);
    QVERIFY(!PrunerSettings::fromJson(Json{{"name", "sha"}, {"halving_version", "5"}}).countJudgedTwice);
    QVERIFY_THROWS_EXCEPTION(InputError, PrunerSettings::fromJson(Json{{"name", "sha"}, {"halving_version", "4"}}));
    QVERIFY_THROWS_EXCEPTION(InputError, PrunerSettings::fromJson(Json{{"name", "patient"}}));
    QVERIFY_THROWS_EXCEPTION(InputError, PrunerSettings::fromJson(Json{{"name", "sha"}, {"reduction_factor", 1}}));
}

QTEST_GUILESS_MAIN(TestPruners)
#include "tst_hpo_pruners.moc"
