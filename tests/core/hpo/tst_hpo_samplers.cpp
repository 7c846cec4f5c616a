// Random, grid and TPE samplers. If this fails, searches are not reproducible for a seed, a grid skips or
// repeats points, values leave their ranges, or TPE no longer finds good regions faster than random search
// (the reason to use it), or it treats pruned and running trials differently from Optuna 3.1.
#include "hpotestutil.h"

#include "core/hpo/internal/argsort.h"
#include "core/hpo/internal/parzen.h"
#include "core/hpo/internal/samplers.h"
#include "core/hpo/sampler.h"
#include "core/util/error.h"

#include <QtTest>

#include <cmath>
#include <numeric>
#include <set>

using namespace pitwall;
using namespace hpotest;

namespace {

constexpr double kPi = 3.14159265358979323846;

double quadratic(const std::vector<double>& x)
{
    return (x[0] - 1.3) * (x[0] - 1.3) + (x[1] + 0.7) * (x[1] + 0.7);
}

double branin(const std::vector<double>& x)
{
    const double b = 5.1 / (4 * kPi * kPi), c = 5 / kPi, t = 1 / (8 * kPi);
    const double y = x[1] - b * x[0] * x[0] + c * x[0] - 6;
    return y * y + 10 * (1 - t) * std::cos(x[0]) + 10;
}

struct Stats {
    double mean = 0.0, variance = 0.0;
};

Stats stats(const std::vector<double>& values)
{
    Stats s;
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
    for (double v : values)
        s.variance += (v - s.mean) * (v - s.mean) / (values.size() - 1);
    return s;
}

SamplerSettings settingsOf(SamplerKind kind)
{
    SamplerSettings s;
    s.kind = kind;
    return s;
}

// The value of one parameter x in [0, 1] that `settings`' sampler gives the next trial after `trials`, for seeds
// 0..seeds-1.
std::vector<double> sampledX(const SamplerSettings& settings, const std::vector<TrialRecord>& trials, int seeds)
{
    const auto sampler = makeSampler(settings);
    std::vector<double> out;
    for (int seed = 0; seed < seeds; ++seed) {
        SampleContext context;
        context.trials = trials;
        context.trialNumber = static_cast<int>(trials.size());
        context.seed = static_cast<std::uint64_t>(seed);
        out.push_back(sampler->sample(context, {{"x", floatRange(0, 1)}}).internalValues[0]);
    }
    return out;
}

} // namespace

class TestSamplers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void randomStaysInRangeAndOnGrid();
    void randomIsReproducible();
    void gridCoversTheProductOnce();
    void gridRefusesContinuousRanges();
    void gridShufflesAsTheNewestOptuna();
    void tpeIsReproducible();
    void tpeBeatsRandom_data();
    void tpeBeatsRandom();
    void tpeLearnsCategoricalAndInt();
    void tpeRanksPrunedTrialsLikeOptuna();
    void argsortOrdersTiesLikeNumpy();
    void parzenMatchesOptunaWithTiedObservations();
    void parzenMatchesOptuna5();
    void tpeVersionDefaults();
    void tpeGammaSetsHowManyTrialsFormLx();
    void constantLiarSpreadsParallelTrials();
    void tpeRefinementTrialsDrawNearTheBest();
    void tpeRefinementWidthFollowsSuccesses();
    void tpeRefinementTrialsTakeNoSlotOfLx();
    void settingsRoundTrip();
};

void TestSamplers::randomStaysInRangeAndOnGrid()
{
    const std::vector<ParamRequest> requests = {{"f", floatRange(-2, 3)},
                                                {"log", floatRange(1e-5, 1e-1, true)},
                                                {"step",
                                                 [] {
                                                     auto d = floatRange(0, 1);
                                                     d.step = 0.25;
                                                     return d;
                                                 }()},
                                                {"i", intRange(-3, 5)},
                                                {"i2", intRange(0, 10, 5)},
                                                {"c", choices({"a", "b", "c"})}};
    const auto trials = optimize(
        settingsOf(SamplerKind::Random), requests, [](auto&) { return 0.0; }, 2000, 1);
    std::vector<double> logs;
    std::set<double> steps, ints, ints2, cats;
    for (const TrialRecord& t : trials) {
        const auto v = [&](int i) { return t.params[i].internalValue; };
        QVERIFY(v(0) >= -2 && v(0) < 3);
        QVERIFY(v(1) >= 1e-5 && v(1) < 1e-1);
        logs.push_back(std::log10(v(1)));
        steps.insert(v(2));
        ints.insert(v(3));
        ints2.insert(v(4));
        cats.insert(v(5));
    }
    QCOMPARE(steps, (std::set<double>{0, 0.25, 0.5, 0.75, 1}));
    QCOMPARE(ints.size(), std::size_t(9));
    QCOMPARE(ints2, (std::set<double>{0, 5, 10}));
    QCOMPARE(cats, (std::set<double>{0, 1, 2}));
    // Log-uniform: the decades are equally likely, so the mean exponent is near the middle (-3).
    QVERIFY2(std::abs(stats(logs).mean + 3.0) < 0.1, std::to_string(stats(logs).mean).c_str());
}

void TestSamplers::randomIsReproducible()
{
    const std::vector<ParamRequest> requests = {{"x", floatRange(0, 1)}, {"y", intRange(0, 100)}};
    const auto a = optimize(settingsOf(SamplerKind::Random), requests, quadratic, 20, 5);
    const auto b = optimize(settingsOf(SamplerKind::Random), requests, quadratic, 20, 5);
    const auto c = optimize(settingsOf(SamplerKind::Random), requests, quadratic, 20, 6);
    bool differs = false;
    for (int i = 0; i < 20; ++i) {
        QCOMPARE(a[i].params[0].internalValue, b[i].params[0].internalValue);
        QCOMPARE(a[i].params[1].internalValue, b[i].params[1].internalValue);
        differs = differs || a[i].params[0].internalValue != c[i].params[0].internalValue;
    }
    QVERIFY2(differs, "another seed must give other values");
}

void TestSamplers::gridCoversTheProductOnce()
{
    auto stepped = floatRange(0, 1);
    stepped.step = 0.5;
    const std::vector<ParamRequest> requests = {{"i", intRange(0, 2)}, {"c", choices({"x", true})}, {"s", stepped}};
    const auto trials = optimize(
        settingsOf(SamplerKind::Grid), requests, [](auto&) { return 1.0; }, 18, 3);
    std::set<std::vector<double>> seen;
    std::set<std::int64_t> ids;
    for (const TrialRecord& t : trials) {
        seen.insert({t.params[0].internalValue, t.params[1].internalValue, t.params[2].internalValue});
        ids.insert(t.systemAttrs["grid_id"].get<std::int64_t>());
        // Optuna's layout: parameter names sorted, value lists in external form.
        QCOMPARE(t.systemAttrs["search_space"].dump(),
                 std::string(R"({"c":["x",true],"i":[0,1,2],"s":[0.0,0.5,1.0]})"));
    }
    QCOMPARE(seen.size(), std::size_t(18));
    QCOMPARE(ids.size(), std::size_t(18));

    // A 19th ask finds every point finished.
    const auto sampler = makeSampler(settingsOf(SamplerKind::Grid));
    SampleContext context;
    context.studyName = "g";
    context.trials = trials;
    context.trialNumber = 18;
    QVERIFY_THROWS_EXCEPTION(InputError, sampler->sample(context, requests));

    // With points only running (not finished), a parallel worker re-runs one of them, as Optuna does.
    std::vector<TrialRecord> running = trials;
    for (auto& t : running)
        t.state = TrialState::Running;
    context.trials = running;
    QCOMPARE(sampler->sample(context, requests).internalValues.size(), std::size_t(3));
}

// The newest Optuna's GridSampler shuffles itertools.product of the sorted parameters with numpy's
// RandomState(seed or 0) and gives trial N the shuffled grid's point N. The orders below were printed by numpy 2
// (Optuna 5.1.0's venv): RandomState(seed).shuffle(list(range(n))), and GridSampler({'b': [1, 2, 3], 'a': ['x', 'y']},
// seed=1)._all_grids.
void TestSamplers::gridShufflesAsTheNewestOptuna()
{
    using hpo_internal::numpyShuffledRange;
    QCOMPARE(numpyShuffledRange(10, 0), (std::vector<std::uint32_t>{2, 8, 4, 9, 1, 6, 7, 3, 0, 5}));
    QCOMPARE(numpyShuffledRange(6, 1), (std::vector<std::uint32_t>{2, 1, 4, 0, 3, 5}));
    QCOMPARE(numpyShuffledRange(12, 7), (std::vector<std::uint32_t>{7, 10, 2, 5, 0, 1, 11, 8, 3, 6, 9, 4}));
    QCOMPARE(numpyShuffledRange(1, 0), (std::vector<std::uint32_t>{0}));

    const std::vector<ParamRequest> requests = {{"b", intRange(1, 3)}, {"a", choices({"x", "y"})}};
    SamplerSettings settings = settingsOf(SamplerKind::Grid);
    settings.seed = 1;
    const std::vector<std::pair<std::string, int>> optunaOrder = {{"x", 3}, {"x", 2}, {"y", 2},
                                                                  {"x", 1}, {"y", 1}, {"y", 3}};
    const auto trials = optimize(settings, requests, [](auto&) { return 1.0; }, 6, 1);
    for (int n = 0; n < 6; ++n) {
        const TrialRecord& t = trials[static_cast<std::size_t>(n)];
        QCOMPARE(t.systemAttrs["grid_id"].get<int>(), n);
        QCOMPARE(static_cast<int>(t.params[0].internalValue), optunaOrder[static_cast<std::size_t>(n)].second);
        QCOMPARE(requests[1].distribution.choices[static_cast<std::size_t>(t.params[1].internalValue)].get<std::string>(),
                 optunaOrder[static_cast<std::size_t>(n)].first);
    }
    // As Optuna 3.1, grid_id numbers the product itself: a trial's point is the product's entry at its grid_id.
    settings.grid.asOptuna31 = true;
    for (const TrialRecord& t : optimize(settings, requests, [](auto&) { return 1.0; }, 6, 1)) {
        const int id = t.systemAttrs["grid_id"].get<int>();
        QCOMPARE(requests[1].distribution.choices[static_cast<std::size_t>(t.params[1].internalValue)].get<std::string>(),
                 std::string(id < 3 ? "x" : "y"));
        QCOMPARE(static_cast<int>(t.params[0].internalValue), id % 3 + 1);
    }
    // Stored as grid_version; grid settings stored before it stay Optuna 3.1's.
    QCOMPARE(SamplerSettings::fromJson(settingsOf(SamplerKind::Grid).toJson()).grid.asOptuna31, false);
    QVERIFY(SamplerSettings::fromJson(Json{{"name", "grid"}}).grid.asOptuna31);
    QVERIFY_THROWS_EXCEPTION(InputError, SamplerSettings::fromJson(Json{{"name", "grid"}, {"grid_version", "4"}}));
}

void TestSamplers::gridRefusesContinuousRanges()
{
    const auto sampler = makeSampler(settingsOf(SamplerKind::Grid));
    SampleContext context;
    try {
        sampler->sample(context, {{"box", floatRange(5, 10)}});
        QFAIL("a continuous range was gridded");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("'box' is a continuous range [5, 10]; give it a 'step'") !=
                     std::string::npos,
                 e.what());
    }
}

void TestSamplers::tpeIsReproducible()
{
    SamplerSettings settings = settingsOf(SamplerKind::Tpe);
    const std::vector<ParamRequest> requests = {
        {"x", floatRange(-5, 5)}, {"y", floatRange(-5, 5)}, {"c", choices({1, 2, 3})}};
    for (bool multivariate : {false, true}) {
        settings.tpe.multivariate = multivariate;
        const auto a = optimize(settings, requests, quadratic, 30, 11);
        const auto b = optimize(settings, requests, quadratic, 30, 11);
        for (int i = 0; i < 30; ++i)
            for (int p = 0; p < 3; ++p)
                QCOMPARE(a[i].params[p].internalValue, b[i].params[p].internalValue);
    }
}

void TestSamplers::tpeBeatsRandom_data()
{
    QTest::addColumn<QString>("function");
    QTest::addColumn<bool>("multivariate");
    QTest::newRow("quadratic") << "quadratic" << false;
    QTest::newRow("branin") << "branin" << false;
    QTest::newRow("quadratic multivariate") << "quadratic" << true;
    QTest::newRow("branin multivariate") << "branin" << true;
}

void TestSamplers::tpeBeatsRandom()
{
    // Mean best value over 10 seeds at 50 trials: TPE must be lower than random by more than twice the
    // standard error of the difference, measured in this run.
    QFETCH(QString, function);
    QFETCH(bool, multivariate);
    const bool isBranin = function == "branin";
    const std::vector<ParamRequest> requests =
        isBranin ? std::vector<ParamRequest>{{"x", floatRange(-5, 10)}, {"y", floatRange(0, 15)}}
                 : std::vector<ParamRequest>{{"x", floatRange(-5, 5)}, {"y", floatRange(-5, 5)}};
    const Objective objective = isBranin ? Objective(branin) : Objective(quadratic);
    SamplerSettings tpe = settingsOf(SamplerKind::Tpe);
    tpe.tpe.multivariate = multivariate;
    std::vector<double> tpeBest, randomBest;
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
        tpeBest.push_back(bestValue(optimize(tpe, requests, objective, 50, seed)));
        randomBest.push_back(bestValue(optimize(settingsOf(SamplerKind::Random), requests, objective, 50, seed)));
    }
    const Stats t = stats(tpeBest), r = stats(randomBest);
    const double margin = 2.0 * std::sqrt(t.variance / 10 + r.variance / 10);
    const std::string report = function.toStdString() + ": TPE mean best " + std::to_string(t.mean) + ", random " +
                               std::to_string(r.mean) + ", margin " + std::to_string(margin);
    qInfo("%s", report.c_str());
    QVERIFY2(t.mean + margin < r.mean, report.c_str());
}

void TestSamplers::tpeLearnsCategoricalAndInt()
{
    // The value depends on a categorical choice (best: "b"), an int (best: 7) and a log-scale rate
    // (best: 1e-3). After the random start, TPE must pick the best choice and int far more often.
    const std::vector<ParamRequest> requests = {
        {"c", choices({"a", "b", "c", "d"})}, {"n", intRange(0, 20)}, {"lr", floatRange(1e-6, 1, true)}};
    const Objective objective = [](const std::vector<double>& v) {
        return (v[0] == 1 ? 0.0 : 3.0) + std::abs(v[1] - 7) + std::abs(std::log10(v[2]) + 3);
    };
    int bestChoice = 0, nearInt = 0, total = 0;
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
        const auto trials = optimize(settingsOf(SamplerKind::Tpe), requests, objective, 60, seed);
        for (int i = 30; i < 60; ++i, ++total) {
            bestChoice += trials[i].params[0].internalValue == 1;
            nearInt += std::abs(trials[i].params[1].internalValue - 7) <= 2;
        }
    }
    QVERIFY2(bestChoice > total * 0.6, std::to_string(bestChoice).c_str()); // random: 25 %
    QVERIFY2(nearInt > total * 0.5, std::to_string(nearInt).c_str());       // random: 24 %
}

void TestSamplers::tpeRanksPrunedTrialsLikeOptuna()
{
    // Optuna ranks complete trials first, then pruned ones by the step they reached (deeper is better),
    // then by their last intermediate value. Here every trial is pruned: those near x = 0.9 reached step 5
    // with bad values, those near x = 0.1 only step 1 with good values; the deeper ones form l(x).
    std::vector<TrialRecord> trials;
    for (int i = 0; i < 20; ++i) {
        TrialRecord t;
        t.number = i;
        t.state = TrialState::Pruned;
        const bool deep = i % 2 == 0;
        t.params.push_back({"x", (deep ? 0.88 : 0.08) + 0.002 * i, floatRange(0, 1)});
        t.intermediateValues[deep ? 5 : 1] = deep ? 100.0 : 0.0;
        trials.push_back(t);
    }
    int high = 0;
    for (double x : sampledX(settingsOf(SamplerKind::Tpe), trials, 20))
        high += x > 0.5;
    QVERIFY2(high >= 18, std::to_string(high).c_str());
}

void TestSamplers::argsortOrdersTiesLikeNumpy()
{
    // numpy.argsort's default (quicksort) order of equal values, from numpy 1.24: a stable sort would put
    // the ties in index order and give the wrong kernels the wide bandwidths at the ends of a run.
    std::vector<double> values;
    for (int i = 0; i < 30; ++i)
        values.push_back(static_cast<double>((i * 7) % 11 / 2));
    values.push_back(5.0);
    const std::vector<std::size_t> expected = {0,  19, 11, 22, 8, 5, 16, 2, 13, 27, 24, 7,  10, 21, 29, 18,
                                               23, 26, 15, 12, 4, 1, 20, 9, 6,  28, 17, 14, 25, 3,  30};
    QCOMPARE(hpo_internal::numpyArgsort(values), expected);
}

void TestSamplers::parzenMatchesOptunaWithTiedObservations()
{
    // 30 tied integer observations (so the ramp weights of default_weights apply) of IntDistribution(0, 10):
    // the log densities Optuna 3.1's _ParzenEstimator gives with its default parameters. If this fails,
    // TPE scores candidates differently from Optuna whenever observations repeat (integers, steps,
    // categorical-like ranges); with a stable tie order the values differ by up to 0.1.
    std::vector<double> observations;
    for (int i = 0; i < 30; ++i)
        observations.push_back(static_cast<double>((i * 7) % 11 / 2));
    const hpo_internal::ParzenEstimator estimator({observations}, {intRange(0, 10)}, hpo_internal::ParzenOptions());
    std::vector<double> points;
    for (int n = 0; n <= 10; ++n)
        points.push_back(n);
    const std::vector<double> optuna = {-1.885302170131223,  -1.6858718016030347, -1.7406747633042488,
                                        -1.6292132546320721, -1.8426298493954352, -2.3334181011023514,
                                        -3.8745552558803547, -5.148650476432764,  -5.679037338934251,
                                        -5.773496267748032,  -5.813280223259526};
    const std::vector<double> logPdf = estimator.logPdf({points});
    for (std::size_t k = 0; k < points.size(); ++k)
        QVERIFY2(std::abs(logPdf[k] - optuna[k]) < 1e-9,
                 ("n = " + std::to_string(k) + ": " + std::to_string(logPdf[k]) + " vs Optuna's " +
                  std::to_string(optuna[k]))
                     .c_str());
}

void TestSamplers::parzenMatchesOptuna5()
{
    // The newest Optuna's estimator (5.1.0's _ParzenEstimator with its default parameters; the values below are
    // what it printed): 28 distinct integers of IntDistribution(0, 30) (so the ramp weights apply; distinct, as
    // numpy 2's argsort orders ties its own way), and a joint float and log-scaled integer, where 5.x models the
    // integer as steps in log space and uses exact densities. 5.x also leaves the prior out of the neighbour gaps.
    std::vector<double> distinct;
    for (int i = 0; i < 28; ++i)
        distinct.push_back(static_cast<double>((i * 7) % 29));
    const hpo_internal::ParzenEstimator one({distinct}, {intRange(0, 30)}, hpo_internal::optuna5ParzenOptions());
    std::vector<double> points;
    for (int n = 0; n <= 30; n += 3)
        points.push_back(n);
    const std::vector<double> optunaOne = {-4.275706410947694,  -3.28576791105674,   -3.403804690881979,
                                           -3.3147458445919575, -3.2832241157898854, -3.2806816675981967,
                                           -3.220357384403022,  -3.7115534738036144, -3.3584080897355078,
                                           -3.3264017528282346, -5.5774535329779305};

    const std::vector<double> x = {0.754,  1.541,  -0.545, 0.554, 2.465,  2.481,
                                   -1.372, -0.964, -1.743, 0.204, -1.851, 0.284};
    const std::vector<double> k = {27, 82, 91, 23, 67, 3, 64, 61, 2, 52, 91, 70};
    Distribution logInt = intRange(1, 100);
    logInt.log = true;
    const hpo_internal::ParzenEstimator joint({x, k}, {floatRange(-2, 3), logInt},
                                              hpo_internal::optuna5ParzenOptions());
    const std::vector<double> px = {-2.0, -0.5, 0.0, 1.25, 2.9, 3.0}, pk = {1, 3, 10, 42, 77, 100};
    const std::vector<double> optunaJoint = {-3.7560585437032863, -6.745674130018087, -6.46717773216835,
                                             -6.618009325125812,  -6.986560843395587, -7.70546192314791};

    for (const auto& [got, want] :
         {std::pair{one.logPdf({points}), optunaOne}, std::pair{joint.logPdf({px, pk}), optunaJoint}})
        for (std::size_t i = 0; i < want.size(); ++i)
            QVERIFY2(std::abs(got[i] - want[i]) < 1e-9,
                     (std::to_string(i) + ": " + std::to_string(got[i]) + " vs Optuna 5.1's " + std::to_string(want[i]))
                         .c_str());
}

void TestSamplers::tpeVersionDefaults()
{
    // Optuna 5's TPESampler: multivariate on one objective, independent on several, the constant liar on; 3.1's:
    // both off. Explicit switches win over either version's defaults.
    TpeOptions five;
    QVERIFY(five.multivariateFor(1));
    QVERIFY(!five.multivariateFor(2));
    QVERIFY(five.constantLiarOn());
    TpeOptions old;
    old.version = TpeVersion::Optuna31;
    QVERIFY(!old.multivariateFor(1));
    QVERIFY(!old.constantLiarOn());
    old.multivariate = true;
    five.constantLiar = false;
    QVERIFY(old.multivariateFor(2));
    QVERIFY(!five.constantLiarOn());

    // On a separable function with a narrow joint optimum, the defaults differ from 3.1's in what they sample:
    // the same seed and history give other parameters.
    std::vector<TrialRecord> trials;
    for (int i = 0; i < 20; ++i) {
        TrialRecord t;
        t.number = i;
        t.state = TrialState::Complete;
        const double a = (i * 7 % 20) / 19.0, b = (i * 13 % 20) / 19.0;
        t.params.push_back({"a", a, floatRange(0, 1)});
        t.params.push_back({"b", b, floatRange(0, 1)});
        t.values = {std::abs(a - 0.3) + std::abs(b - 0.7)};
        trials.push_back(t);
    }
    SampleContext context;
    context.trials = trials;
    context.trialNumber = 20;
    context.seed = 5;
    SamplerSettings newest = settingsOf(SamplerKind::Tpe), older = newest;
    older.tpe.version = TpeVersion::Optuna31;
    const std::vector<ParamRequest> requests = {{"a", floatRange(0, 1)}, {"b", floatRange(0, 1)}};
    QVERIFY(makeSampler(newest)->sample(context, requests).internalValues !=
            makeSampler(older)->sample(context, requests).internalValues);
}

void TestSamplers::tpeGammaSetsHowManyTrialsFormLx()
{
    // 20 complete trials: the best two at x near 0.1, the third and fourth best at x near 0.9, the rest in the middle
    // and worse. gamma 0.1 puts 2 trials in l(x) (only the ones near 0.1); gamma 0.2 puts 4 there, so TPE also
    // samples near 0.9.
    std::vector<TrialRecord> trials;
    for (int i = 0; i < 20; ++i) {
        TrialRecord t;
        t.number = i;
        t.state = TrialState::Complete;
        double x = 0.3 + 0.4 * (i % 16) / 15.0, value = 10.0 + i;
        if (i < 4) {
            x = i < 2 ? 0.09 + 0.02 * i : 0.89 + 0.02 * (i - 2);
            value = i;
        }
        t.params.push_back({"x", x, floatRange(0, 1)});
        t.values = {value};
        trials.push_back(t);
    }
    int nearNine[2] = {0, 0};
    for (int g = 0; g < 2; ++g) {
        SamplerSettings settings = settingsOf(SamplerKind::Tpe);
        settings.tpe.gamma = g == 0 ? 0.1 : 0.2;
        for (double x : sampledX(settings, trials, 60))
            nearNine[g] += x > 0.8;
    }
    qInfo("gamma 0.1: %d, gamma 0.2: %d of 60 samples near 0.9", nearNine[0], nearNine[1]);
    QVERIFY2(nearNine[0] <= 3 && nearNine[1] >= 15,
             (std::to_string(nearNine[0]) + " vs " + std::to_string(nearNine[1]) + " of 60 near 0.9").c_str());
}

namespace {

// `count` complete trials of (x - 0.3)^2 + (y - 0.7)^2 at scattered points, trial 7 the best at (0.31, 0.69); trials
// 40.. are refinement trials (marked) that did not beat it.
std::vector<TrialRecord> refinementHistory(int count)
{
    std::vector<TrialRecord> trials;
    for (int i = 0; i < count; ++i) {
        TrialRecord t;
        t.number = i;
        t.state = TrialState::Complete;
        double x = std::fmod(0.137 + 0.618034 * i, 1.0), y = std::fmod(0.71 + 0.754878 * i, 1.0);
        if (i == 7) {
            x = 0.31;
            y = 0.69;
        }
        t.params.push_back({"x", x, floatRange(0, 1)});
        t.params.push_back({"y", y, floatRange(0, 1)});
        t.values = {(x - 0.3) * (x - 0.3) + (y - 0.7) * (y - 0.7)};
        if (i >= 40 && i != 7)
            t.systemAttrs[TpeOptions::kRefineAttr] = true;
        trials.push_back(t);
    }
    return trials;
}

} // namespace

void TestSamplers::tpeRefinementTrialsDrawNearTheBest()
{
    // 60 finished trials, the last 20 refinement trials that failed: the width factor is 0.5 * 1.5^-5 (0.066).
    // Trial 63 (63 % 4 == 3) is a refinement trial: it draws from the best trial's kernel alone, narrowed, so every
    // seed lands within 0.05 of (0.31, 0.69). Trial 62 is TPE's usual l(x)/g(x) choice, which spreads wider.
    const std::vector<TrialRecord> trials = refinementHistory(60);
    const std::vector<ParamRequest> requests = {{"x", floatRange(0, 1)}, {"y", floatRange(0, 1)}};
    const auto draw = [&](const SamplerSettings& settings, int number, std::span<const TrialRecord> history,
                          std::uint64_t seed, std::vector<StudyDirection> directions = {}) {
        SampleContext context;
        context.trials = history;
        context.trialNumber = number;
        context.seed = seed;
        context.directions = std::move(directions);
        return makeSampler(settings)->sample(context, requests);
    };
    const SamplerSettings settings = settingsOf(SamplerKind::Tpe);
    int refinedNear = 0, usualNear = 0;
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
        const SampleResult refined = draw(settings, 63, trials, seed);
        QVERIFY(refined.trialSystemAttrs.contains(TpeOptions::kRefineAttr));
        refinedNear += std::abs(refined.internalValues[0] - 0.31) < 0.05 &&
                       std::abs(refined.internalValues[1] - 0.69) < 0.05;
        const SampleResult usual = draw(settings, 62, trials, seed);
        QVERIFY(!usual.trialSystemAttrs.contains(TpeOptions::kRefineAttr));
        usualNear += std::abs(usual.internalValues[0] - 0.31) < 0.05 && std::abs(usual.internalValues[1] - 0.69) < 0.05;
    }
    qInfo("within 0.05 of the best: %d of 60 refinement draws, %d of 60 usual TPE draws", refinedNear, usualNear);
    QCOMPARE(refinedNear, 60);
    QVERIFY2(usualNear < 30, std::to_string(usualNear).c_str());

    // No refinement: with refine_every 0, in TPE as Optuna 3.1, before 40 trials finished, with two objectives.
    SamplerSettings off = settings;
    off.tpe.refineEvery = 0;
    QVERIFY(!draw(off, 63, trials, 1).trialSystemAttrs.contains(TpeOptions::kRefineAttr));
    SamplerSettings old = settings;
    old.tpe.version = TpeVersion::Optuna31;
    QVERIFY(!draw(old, 63, trials, 1).trialSystemAttrs.contains(TpeOptions::kRefineAttr));
    const std::vector<TrialRecord> early(trials.begin(), trials.begin() + 39);
    QVERIFY(!draw(settings, 39, early, 1).trialSystemAttrs.contains(TpeOptions::kRefineAttr));
    QVERIFY(draw(settings, 43, std::vector<TrialRecord>(trials.begin(), trials.begin() + 40), 1)
                .trialSystemAttrs.contains(TpeOptions::kRefineAttr));
    std::vector<TrialRecord> twoObjectives = trials;
    for (TrialRecord& t : twoObjectives)
        t.values.push_back(-t.values.front());
    QVERIFY(!draw(settings, 63, twoObjectives, 1, {StudyDirection::Minimize, StudyDirection::Minimize})
                 .trialSystemAttrs.contains(TpeOptions::kRefineAttr));
}

void TestSamplers::tpeRefinementWidthFollowsSuccesses()
{
    // Trial 0 (value 5) is ordinary; refinement trials 1 (4: beats 5, x1.5), 2 (4.5: fails, x1.5^-1/4); ordinary 3
    // (3); refinement 4 (3.5: fails) and 5 (running: not counted); refinement 6 (1) is numbered after the trial
    // sampled (6) and is not counted either.
    std::vector<TrialRecord> trials;
    const double values[] = {5, 4, 4.5, 3, 3.5, 0, 1};
    for (int i = 0; i < 7; ++i) {
        TrialRecord t;
        t.number = i;
        t.state = i == 5 ? TrialState::Running : TrialState::Complete;
        if (i != 5)
            t.values = {values[i]};
        if (i != 0 && i != 3)
            t.systemAttrs[TpeOptions::kRefineAttr] = true;
        trials.push_back(t);
    }
    const double expected = 0.5 * 1.5 * std::pow(1.5, -0.5);
    QVERIFY(std::abs(hpo_internal::refineWidth(trials, StudyDirection::Minimize, 6) - expected) < 1e-12);
    // Maximising the negated values is the same history.
    for (TrialRecord& t : trials)
        if (!t.values.empty())
            t.values[0] = -t.values[0];
    QVERIFY(std::abs(hpo_internal::refineWidth(trials, StudyDirection::Maximize, 6) - expected) < 1e-12);
    // 20 failed refinement trials after the best: 0.5 * 1.5^-5; 100: clamped to 0.001.
    const double twentyFailed = hpo_internal::refineWidth(refinementHistory(60), StudyDirection::Minimize, 60);
    QVERIFY(std::abs(twentyFailed - 0.5 * std::pow(1.5, -5.0)) < 1e-12);
    QCOMPARE(hpo_internal::refineWidth(refinementHistory(140), StudyDirection::Minimize, 140), 1e-3);
}

void TestSamplers::tpeRefinementTrialsTakeNoSlotOfLx()
{
    // 40 ordinary trials spread over [0, 1], valued |x - 0.2|; then 10 refinement trials bunched at x = 0.8, each
    // better than every ordinary one. gamma(50) = 5. When refinement trials take slots, l(x) is those five at 0.8
    // and TPE's next trial (50, not a refinement trial) stays away from 0.2, where g(x) holds the good ordinary
    // trials. When they take none, l(x) also holds the 5 best ordinary trials, around 0.2, and TPE samples there.
    std::vector<TrialRecord> trials;
    for (int i = 0; i < 50; ++i) {
        TrialRecord t;
        t.number = i;
        t.state = TrialState::Complete;
        const double x = i < 40 ? std::fmod(0.137 + 0.618034 * i, 1.0) : 0.795 + 0.001 * (i - 40);
        t.params.push_back({"x", x, floatRange(0, 1)});
        t.values = {i < 40 ? std::abs(x - 0.2) : -1.0 + 0.001 * (i - 40)};
        if (i >= 40)
            t.systemAttrs[TpeOptions::kRefineAttr] = true;
        trials.push_back(t);
    }
    const std::vector<ParamRequest> requests = {{"x", floatRange(0, 1)}};
    const auto nearBestOrdinary = [&](bool extraBelow) {
        SamplerSettings settings = settingsOf(SamplerKind::Tpe);
        settings.tpe.refineExtraBelow = extraBelow;
        int near = 0;
        for (std::uint64_t seed = 0; seed < 100; ++seed) {
            SampleContext context;
            context.trials = trials;
            context.trialNumber = 50;
            context.seed = seed;
            const SampleResult result = makeSampler(settings)->sample(context, requests);
            near += std::abs(result.internalValues[0] - 0.2) < 0.1;
        }
        return near;
    };
    const int takesNone = nearBestOrdinary(true), takesSlots = nearBestOrdinary(false);
    qInfo("TPE draws within 0.1 of the best ordinary trials: %d of 100 (refinement takes no slot), %d of 100 (it "
          "takes slots)",
          takesNone, takesSlots);
    QVERIFY2(takesNone >= 20, std::to_string(takesNone).c_str());
    QVERIFY2(takesSlots <= 5, std::to_string(takesSlots).c_str());
}

void TestSamplers::constantLiarSpreadsParallelTrials()
{
    // 20 complete trials, the best near x = 0.2; 6 workers are already running trials at x = 0.2. With the
    // constant liar those running trials count as bad, so new trials move away from x = 0.2.
    std::vector<TrialRecord> trials;
    for (int i = 0; i < 26; ++i) {
        TrialRecord t;
        t.number = i;
        const double x = i < 20 ? i / 19.0 : 0.2;
        t.params.push_back({"x", x, floatRange(0, 1)});
        t.state = i < 20 ? TrialState::Complete : TrialState::Running;
        if (i < 20)
            t.values = {std::abs(x - 0.2)};
        trials.push_back(t);
    }
    double plain = 0.0, liar = 0.0;
    for (bool constantLiar : {false, true}) {
        SamplerSettings settings = settingsOf(SamplerKind::Tpe);
        settings.tpe.constantLiar = constantLiar;
        for (double x : sampledX(settings, trials, 40))
            (constantLiar ? liar : plain) += std::abs(x - 0.2) / 40;
    }
    QVERIFY2(liar > plain * 1.5, (std::to_string(plain) + " vs " + std::to_string(liar)).c_str());
}

void TestSamplers::settingsRoundTrip()
{
    SamplerSettings s;
    s.kind = SamplerKind::Tpe;
    s.seed = 42;
    s.tpe.multivariate = true;
    s.tpe.constantLiar = true;
    s.tpe.startupTrials = 3;
    s.tpe.hypervolumeWeights = true;
    const SamplerSettings back = SamplerSettings::fromJson(s.toJson());
    QCOMPARE(back.toJson(), s.toJson());
    QVERIFY(back.tpe.hypervolumeWeights);
    QCOMPARE(SamplerSettings::fromJson(Json::object()).kind, SamplerKind::Tpe);
    // The version and unset switches survive the round trip; unset switches are stored as null.
    SamplerSettings unset;
    unset.tpe.version = TpeVersion::Optuna31;
    unset.tpe.constantLiar = false;
    const SamplerSettings unsetBack = SamplerSettings::fromJson(unset.toJson());
    QCOMPARE(unsetBack.tpe.version, TpeVersion::Optuna31);
    QVERIFY(!unsetBack.tpe.multivariate.has_value());
    QCOMPARE(unsetBack.tpe.constantLiar, std::optional<bool>(false));
    QVERIFY(unset.toJson()["multivariate"].is_null());
    QCOMPARE(SamplerSettings().toJson()["tpe_version"].get<std::string>(), std::string("5"));
    // Settings a study stored before tpe_version existed stay Optuna 3.1's TPE, with their switches.
    const SamplerSettings legacy = SamplerSettings::fromJson(
        Json{{"name", "tpe"}, {"multivariate", false}, {"constant_liar", false}, {"n_startup_trials", 10}});
    QCOMPARE(legacy.tpe.version, TpeVersion::Optuna31);
    QVERIFY(!legacy.tpe.multivariateFor(1));
    QVERIFY(!legacy.tpe.constantLiarOn());
    QVERIFY_THROWS_EXCEPTION(InputError, SamplerSettings::fromJson(Json{{"name", "tpe"}, {"tpe_version", "4"}}));
    // gamma: new studies store Optuna's 0.1, and settings stored before it existed read as 0.1; a study that stored
    // 0.2 (new studies' gamma before refinement trials) keeps it.
    QCOMPARE(SamplerSettings().toJson()["gamma"].get<double>(), 0.1);
    QCOMPARE(SamplerSettings::fromJson(Json{{"name", "tpe"}, {"tpe_version", "5"}}).tpe.gammaFor(), 0.1);
    QCOMPARE(SamplerSettings::fromJson(Json{{"name", "tpe"}, {"tpe_version", "5"}, {"gamma", 0.2}}).tpe.gammaFor(),
             0.2);
    // refine_every: new studies store 4; settings stored before it existed read as 0 (off), whatever their version.
    QCOMPARE(SamplerSettings().toJson()["refine_every"].get<int>(), 4);
    QCOMPARE(SamplerSettings::fromJson(SamplerSettings().toJson()).tpe.refineEveryFor(), 4);
    QCOMPARE(SamplerSettings::fromJson(Json{{"name", "tpe"}, {"tpe_version", "5"}}).tpe.refineEveryFor(), 0);
    // refine_extra_below: new studies store true; settings stored before it existed (refine_every 4) read false.
    QCOMPARE(SamplerSettings().toJson()["refine_extra_below"].get<bool>(), true);
    QVERIFY(SamplerSettings::fromJson(SamplerSettings().toJson()).tpe.refineExtraBelow);
    QVERIFY(!SamplerSettings::fromJson(Json{{"name", "tpe"}, {"tpe_version", "5"}, {"refine_every", 4}})
                 .tpe.refineExtraBelow);
    for (int bad : {-1, 1})
        QVERIFY_THROWS_EXCEPTION(InputError, SamplerSettings::fromJson(Json{{"name", "tpe"}, {"refine_every", bad}}));
    for (double bad : {0.0, -0.5, 1.5})
        QVERIFY_THROWS_EXCEPTION(InputError, SamplerSettings::fromJson(Json{{"name", "tpe"}, {"gamma", bad}}));
    QVERIFY_THROWS_EXCEPTION(InputError, SamplerSettings::fromJson(Json{{"name", "cmaes"}}));
}

QTEST_GUILESS_MAIN(TestSamplers)
#include "tst_hpo_samplers.moc"
