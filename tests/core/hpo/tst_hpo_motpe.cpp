// Multi-objective TPE (the newest Optuna's TPESampler with several objectives): the split of finished trials into
// l(x) and g(x) by non-domination rank, hypervolume subset selection at the boundary rank and infeasible trials last;
// Optuna 4.x's hypervolume-contribution weights; determinism, random start-up, and search quality. If this fails,
// TPE learns from dominated or infeasible trials as if they were good, is not reproducible for a seed, or finds no
// better Pareto front than random search on a standard test problem.
#include "hpotestutil.h"

#include "core/hpo/hypervolume.h"
#include "core/hpo/internal/motpe.h"
#include "core/hpo/sampler.h"
#include "core/store/pareto.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>

using namespace pitwall;
using namespace pitwall::hpo_internal;
using namespace hpotest;

namespace {

constexpr StudyDirection kMin = StudyDirection::Minimize;
constexpr StudyDirection kMax = StudyDirection::Maximize;

TrialRecord trialOf(int number, TrialState state, std::vector<double> values = {},
                    std::optional<std::vector<double>> constraints = {})
{
    TrialRecord t;
    t.number = number;
    t.state = state;
    t.values = std::move(values);
    if (constraints)
        t.systemAttrs[kConstraintsAttr] = Json(*constraints);
    return t;
}

std::vector<const TrialRecord*> pointers(const std::vector<TrialRecord>& trials)
{
    std::vector<const TrialRecord*> out;
    for (const TrialRecord& t : trials)
        out.push_back(&t);
    return out;
}

// Numbers of the trials flagged below.
std::vector<int> belowNumbers(const std::vector<TrialRecord>& trials, const std::vector<char>& below)
{
    std::vector<int> out;
    for (std::size_t i = 0; i < trials.size(); ++i)
        if (below[i])
            out.push_back(trials[i].number);
    return out;
}

// Two minimised objectives. Rank 0: 0 (1,5), 1 (2,2), 2 (5,1). Rank 1: 3 (2,6), 4 (3,3), 5 (6,1.5). Rank 2: 6 (7,7).
// Infeasible, though they would dominate everything: 7 (0,0) violating by 1, 8 (0.5,0.5) by 0.5.
// Pruned 9, running 10.
std::vector<TrialRecord> handMadeTrials()
{
    return {trialOf(0, TrialState::Complete, {1, 5}),
            trialOf(1, TrialState::Complete, {2, 2}),
            trialOf(2, TrialState::Complete, {5, 1}),
            trialOf(3, TrialState::Complete, {2, 6}),
            trialOf(4, TrialState::Complete, {3, 3}),
            trialOf(5, TrialState::Complete, {6, 1.5}),
            trialOf(6, TrialState::Complete, {7, 7}, std::vector<double>{-1.0}),
            trialOf(7, TrialState::Complete, {0, 0}, std::vector<double>{1.0}),
            trialOf(8, TrialState::Complete, {0.5, 0.5}, std::vector<double>{0.5, -2.0}),
            trialOf(9, TrialState::Pruned),
            trialOf(10, TrialState::Running)};
}

// ZDT1 with three parameters in [0, 1]: a convex Pareto front f2 = 1 - sqrt(f1) where x2 = x3 = 0.
std::vector<double> zdt1(const std::vector<double>& x)
{
    const double g = 1.0 + 9.0 * (x[1] + x[2]) / 2.0;
    return {x[0], g * (1.0 - std::sqrt(x[0] / g))};
}

using MultiObjective = std::function<std::vector<double>(const std::vector<double>&)>;

// Sequential ask/evaluate/tell in memory for a study with several objectives.
std::vector<TrialRecord> optimizeSeveral(const Sampler& sampler, const std::vector<ParamRequest>& requests,
                                         const MultiObjective& objective, const std::vector<StudyDirection>& directions,
                                         int trials, std::uint64_t seed)
{
    std::vector<TrialRecord> history;
    for (int n = 0; n < trials; ++n) {
        SampleContext context;
        context.studyName = "memory";
        context.direction = directions.front();
        context.directions = directions;
        context.trials = history;
        context.trialNumber = n;
        context.seed = seed * 1000003ull + static_cast<std::uint64_t>(n);
        const SampleResult result = sampler.sample(context, requests);
        TrialRecord trial = trialOf(n, TrialState::Complete, objective(result.internalValues));
        for (std::size_t i = 0; i < requests.size(); ++i)
            trial.params.push_back({requests[i].name, result.internalValues[i], requests[i].distribution});
        history.push_back(std::move(trial));
    }
    return history;
}

double finalHypervolume(const std::vector<TrialRecord>& trials, const std::vector<double>& reference)
{
    std::vector<std::vector<double>> points;
    for (const TrialRecord& t : trials)
        points.push_back(t.values);
    return hypervolume(points, reference);
}

std::unique_ptr<Sampler> samplerOf(SamplerKind kind)
{
    SamplerSettings settings;
    settings.kind = kind;
    return makeSampler(settings);
}

} // namespace

class TestMotpe : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gammaHasNoCapForSeveralObjectives();
    void splitTakesWholeRanksThenCutsByHypervolume_data();
    void splitTakesWholeRanksThenCutsByHypervolume();
    void splitFollowsDirections();
    void prunedTrialsRankByTheirVectors();
    void hypervolumeSubsetSelectionIsGreedy();
    void staircaseSubsetEqualsTheGreedyDefinition();
    void contributionWeightsAreNormalisedContributions();
    void isReproducibleForASeed();
    void startupTrialsAreRandom();
    void beatsRandomOnZdt1();
};

void TestMotpe::gammaHasNoCapForSeveralObjectives()
{
    QCOMPARE(multiObjectiveGamma(0), std::size_t(0));
    QCOMPARE(multiObjectiveGamma(1), std::size_t(1));
    QCOMPARE(multiObjectiveGamma(10), std::size_t(1));
    QCOMPARE(multiObjectiveGamma(11), std::size_t(2));
    QCOMPARE(multiObjectiveGamma(1000), std::size_t(100)); // single-objective TPE would stop at 25
}

void TestMotpe::splitTakesWholeRanksThenCutsByHypervolume_data()
{
    QTest::addColumn<int>("belowCount");
    QTest::addColumn<std::vector<int>>("expected");
    QTest::newRow("none") << 0 << std::vector<int>{};
    QTest::newRow("inside the front: HSSP on rank 0") << 1 << std::vector<int>{1};
    QTest::newRow("the front") << 3 << std::vector<int>{0, 1, 2};
    // Rank 1 against reference (6.6, 6.6): 4 (3,3) has the largest box (12.96); after it, 5 (6,1.5) adds 0.9 and
    // 3 (2,6) adds 0.6.
    QTest::newRow("rank 1 cut to one") << 4 << std::vector<int>{0, 1, 2, 4};
    QTest::newRow("rank 1 cut to two") << 5 << std::vector<int>{0, 1, 2, 4, 5};
    QTest::newRow("two whole ranks") << 6 << std::vector<int>{0, 1, 2, 3, 4, 5};
    QTest::newRow("feasible complete trials") << 7 << std::vector<int>{0, 1, 2, 3, 4, 5, 6};
    QTest::newRow("then pruned") << 8 << std::vector<int>{0, 1, 2, 3, 4, 5, 6, 9};
    QTest::newRow("then the least violation") << 9 << std::vector<int>{0, 1, 2, 3, 4, 5, 6, 8, 9};
    QTest::newRow("running never") << 20 << std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
}

void TestMotpe::splitTakesWholeRanksThenCutsByHypervolume()
{
    QFETCH(int, belowCount);
    QFETCH(std::vector<int>, expected);
    const std::vector<TrialRecord> trials = handMadeTrials();
    const std::vector<StudyDirection> directions = {kMin, kMin};
    const std::vector<char> below =
        splitMultiObjective(pointers(trials), directions, static_cast<std::size_t>(belowCount));
    QCOMPARE(belowNumbers(trials, below), expected);
}

void TestMotpe::splitFollowsDirections()
{
    // The same trials with the second objective maximised and negated: the same split.
    std::vector<TrialRecord> trials = handMadeTrials();
    for (TrialRecord& t : trials)
        if (t.values.size() == 2)
            t.values[1] = -t.values[1];
    const std::vector<StudyDirection> directions = {kMin, kMax};
    QCOMPARE(belowNumbers(trials, splitMultiObjective(pointers(trials), directions, 5)),
             (std::vector<int>{0, 1, 2, 4, 5}));
}

void TestMotpe::prunedTrialsRankByTheirVectors()
{
    // One complete trial, then pruned ones: 1 and 2 stopped at step 3, 3 and 4 at step 5 (further: ahead of 1 and 2
    // whatever their values). At step 5, 4's vector (2, 1) is on the front and 3's (2, 2) is dominated by it, though
    // 3's first objective is as good: 4 goes first. At step 3, 2 (1, 9) and 1 (4, 1) are both on the front: the
    // first objective decides (2). A pruned trial whose last vector is incomplete (5, at step 5) ranks after those with
    // one at its step. With four places below: 0, then 4, 3, 5.
    std::vector<TrialRecord> trials = {trialOf(0, TrialState::Complete, {1, 1})};
    const auto pruned = [&](int number, std::int64_t step, std::vector<double> vector) {
        TrialRecord t = trialOf(number, TrialState::Pruned);
        t.intermediateValues[step] = vector.front();
        if (vector.size() == 2)
            t.intermediateVectors[step] = vector;
        trials.push_back(t);
    };
    pruned(1, 3, {4, 1});
    pruned(2, 3, {1, 9});
    pruned(3, 5, {2, 2});
    pruned(4, 5, {2, 1});
    pruned(5, 5, {0.5});
    const std::vector<StudyDirection> directions = {kMin, kMin};
    QCOMPARE(belowNumbers(trials, splitMultiObjective(pointers(trials), directions, 4)), (std::vector<int>{0, 3, 4, 5}));
    QCOMPARE(belowNumbers(trials, splitMultiObjective(pointers(trials), directions, 3)), (std::vector<int>{0, 3, 4}));
    QCOMPARE(belowNumbers(trials, splitMultiObjective(pointers(trials), directions, 2)), (std::vector<int>{0, 4}));
    QCOMPARE(belowNumbers(trials, splitMultiObjective(pointers(trials), directions, 5)),
             (std::vector<int>{0, 2, 3, 4, 5}));
}

void TestMotpe::hypervolumeSubsetSelectionIsGreedy()
{
    const std::vector<std::vector<double>> points = {{2, 6}, {3, 3}, {6, 1.5}};
    const std::vector<double> reference = referencePoint(points);
    QCOMPARE(reference, (std::vector<double>{1.1 * 6.0, 1.1 * 6.0}));
    QCOMPARE(greedyHypervolumeSubset(points, 2, reference), (std::vector<std::size_t>{1, 2}));
    // A worst value of 0 gives 1e-12; a negative one 0.9 of it.
    const std::vector<std::vector<double>> signs = {{0, -10}, {-1, -20}};
    QCOMPARE(referencePoint(signs), (std::vector<double>{1e-12, 0.9 * -10.0}));
    // Duplicates count once until every distinct point is taken, then the first duplicates in input order.
    const std::vector<std::vector<double>> twins = {{1, 2}, {1, 2}, {2, 1}, {2, 1}};
    QCOMPARE(greedyHypervolumeSubset(twins, 2, std::vector<double>{3, 3}).size(), std::size_t(2));
    QCOMPARE(greedyHypervolumeSubset(twins, 3, std::vector<double>{3, 3}), (std::vector<std::size_t>{0, 1, 2}));
    // Without a finite reference: the lexicographically first distinct points.
    const double inf = std::numeric_limits<double>::infinity();
    QCOMPARE(greedyHypervolumeSubset(points, 2, std::vector<double>{inf, 7}), (std::vector<std::size_t>{0, 1}));
}

void TestMotpe::staircaseSubsetEqualsTheGreedyDefinition()
{
    // Two objectives, one non-domination rank (a staircase, as MOTPE's cut rank is): greedyHypervolumeSubset takes
    // a fast path there. It must choose what the definition does, step by step the point with the largest
    // hypervolume gain (the whole set's hypervolume recomputed here), ties to the lexicographically first.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (int round = 0; round < 20; ++round) {
        const std::size_t n = 20 + static_cast<std::size_t>(round) * 7;
        std::vector<double> xs(n);
        for (double& x : xs)
            x = uniform(rng);
        std::sort(xs.begin(), xs.end());
        std::vector<std::vector<double>> points;
        for (double x : xs)
            points.push_back({x, 1.0 - std::sqrt(x) + 0.05 * uniform(rng) * (1.0 - x)});
        // Keep it a staircase: y strictly falling.
        for (std::size_t i = 1; i < points.size(); ++i)
            points[i][1] = std::min(points[i][1], points[i - 1][1] - 1e-6);
        std::shuffle(points.begin(), points.end(), rng);
        const std::vector<double> reference = referencePoint(points);
        const std::size_t count = n / 3;

        std::vector<std::size_t> expected;
        std::vector<std::vector<double>> chosen;
        std::vector<char> used(n, 0);
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return points[a] < points[b]; });
        while (expected.size() < count) {
            const double before = chosen.empty() ? 0.0 : hypervolume(chosen, reference);
            std::size_t best = n;
            double bestGain = -1.0;
            for (std::size_t i : order) {
                if (used[i])
                    continue;
                std::vector<std::vector<double>> with = chosen;
                with.push_back(points[i]);
                const double gain = hypervolume(with, reference) - before;
                if (best == n || gain > bestGain + 1e-12) {
                    best = i;
                    bestGain = gain;
                }
            }
            used[best] = 1;
            chosen.push_back(points[best]);
            expected.push_back(best);
        }
        QCOMPARE(greedyHypervolumeSubset(points, count, reference), expected);
    }
}

void TestMotpe::contributionWeightsAreNormalisedContributions()
{
    // Feasible front (1,5), (2,2), (5,1) against (5.5, 5.5): exclusive contributions 1 x 0.5, 3 x 3 and 0.5 x 1, so
    // weights 0.5/9, 1, 0.5/9. The dominated (3,3) and the infeasible (0,0) weigh 1e-12 and do not shrink (2,2)'s.
    const std::vector<TrialRecord> below = {
        trialOf(0, TrialState::Complete, {1, 5}), trialOf(1, TrialState::Complete, {2, 2}),
        trialOf(2, TrialState::Complete, {5, 1}), trialOf(3, TrialState::Complete, {3, 3}),
        trialOf(4, TrialState::Complete, {0, 0}, std::vector<double>{0.1})};
    const std::vector<StudyDirection> directions = {kMin, kMin};
    const std::vector<double> weights = contributionWeights(pointers(below), directions);
    QCOMPARE(weights.size(), std::size_t(5));
    QVERIFY(std::abs(weights[0] - 0.5 / 9.0) < 1e-12);
    QCOMPARE(weights[1], 1.0);
    QVERIFY(std::abs(weights[2] - 0.5 / 9.0) < 1e-12);
    QCOMPARE(weights[3], 1e-12);
    QCOMPARE(weights[4], 1e-12);
    // One feasible trial: it weighs 1.
    const std::vector<TrialRecord> single = {below[0], below[4]};
    QCOMPARE(contributionWeights(pointers(single), directions), (std::vector<double>{1.0, 1e-12}));
}

void TestMotpe::isReproducibleForASeed()
{
    const std::vector<ParamRequest> requests = {
        {"x1", floatRange(0, 1)}, {"x2", floatRange(0, 1)}, {"n", intRange(0, 9)}, {"c", choices({"a", "b", "c"})}};
    const auto objective = [](const std::vector<double>& x) {
        return std::vector<double>{x[0] + 0.1 * x[2], 1.0 - x[0] + x[1] + (x[3] == 1 ? 0.0 : 0.5)};
    };
    const auto tpe = samplerOf(SamplerKind::Tpe);
    const auto a = optimizeSeveral(*tpe, requests, objective, {kMin, kMin}, 25, 7);
    const auto b = optimizeSeveral(*tpe, requests, objective, {kMin, kMin}, 25, 7);
    const auto c = optimizeSeveral(*tpe, requests, objective, {kMin, kMin}, 25, 8);
    bool differs = false;
    for (std::size_t n = 0; n < a.size(); ++n)
        for (std::size_t p = 0; p < requests.size(); ++p) {
            QCOMPARE(a[n].params[p].internalValue, b[n].params[p].internalValue);
            differs = differs || a[n].params[p].internalValue != c[n].params[p].internalValue;
        }
    QVERIFY(differs); // another seed, another search
}

void TestMotpe::startupTrialsAreRandom()
{
    // The first 10 trials are the random sampler's draws for the same seeds; the 11th is TPE's own.
    const std::vector<ParamRequest> requests = {
        {"x1", floatRange(0, 1)}, {"x2", floatRange(0, 1)}, {"x3", floatRange(0, 1)}};
    const auto tpe = optimizeSeveral(*samplerOf(SamplerKind::Tpe), requests, zdt1, {kMin, kMin}, 11, 3);
    const auto random = optimizeSeveral(*samplerOf(SamplerKind::Random), requests, zdt1, {kMin, kMin}, 11, 3);
    for (std::size_t n = 0; n < 10; ++n)
        for (std::size_t p = 0; p < requests.size(); ++p)
            QCOMPARE(tpe[n].params[p].internalValue, random[n].params[p].internalValue);
    QVERIFY(tpe[10].params[0].internalValue != random[10].params[0].internalValue);
}

void TestMotpe::beatsRandomOnZdt1()
{
    // 10 seeds x 60 trials on ZDT1 (3 parameters); hypervolume of all trials against (1.1, 1.1), of at most 1.1^2 -
    // 1/3 = 0.877 for the true front. MOTPE must find a better front than random search on average.
    const std::vector<ParamRequest> requests = {
        {"x1", floatRange(0, 1)}, {"x2", floatRange(0, 1)}, {"x3", floatRange(0, 1)}};
    const std::vector<double> reference = {1.1, 1.1};
    const auto tpe = samplerOf(SamplerKind::Tpe);
    const auto tpeContribution = makeTpeSampler(TpeOptions{}, MotpeBelowWeights::HypervolumeContribution);
    const auto random = samplerOf(SamplerKind::Random);
    const auto nsga2 = samplerOf(SamplerKind::Nsga2);
    constexpr int kSeeds = 10, kTrials = 60;
    double sumTpe = 0, sumContribution = 0, sumRandom = 0, sumNsga2 = 0;
    int tpeWins = 0;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
        const double hvTpe =
            finalHypervolume(optimizeSeveral(*tpe, requests, zdt1, {kMin, kMin}, kTrials, seed), reference);
        const double hvRandom =
            finalHypervolume(optimizeSeveral(*random, requests, zdt1, {kMin, kMin}, kTrials, seed), reference);
        sumTpe += hvTpe;
        sumRandom += hvRandom;
        sumContribution +=
            finalHypervolume(optimizeSeveral(*tpeContribution, requests, zdt1, {kMin, kMin}, kTrials, seed), reference);
        sumNsga2 += finalHypervolume(optimizeSeveral(*nsga2, requests, zdt1, {kMin, kMin}, kTrials, seed), reference);
        tpeWins += hvTpe > hvRandom ? 1 : 0;
    }
    qDebug("ZDT1, %d seeds x %d trials, mean hypervolume (ref 1.1, 1.1): MOTPE %.4f (Optuna 4.x weights %.4f), "
           "random %.4f, NSGA-II %.4f; MOTPE ahead of random on %d seeds",
           kSeeds, kTrials, sumTpe / kSeeds, sumContribution / kSeeds, sumRandom / kSeeds, sumNsga2 / kSeeds, tpeWins);
    QVERIFY(sumTpe > sumRandom);
    QVERIFY(tpeWins >= 8);
}

QTEST_GUILESS_MAIN(TestMotpe)
#include "tst_hpo_motpe.moc"
