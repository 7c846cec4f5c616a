// Studies with several objectives: the Pareto front (Optuna's best_trials meaning, constraints as Optuna stores
// them), ask/tell with one value per objective, and NSGA-II's generations, elite selection, crossover and mutation.
// If this fails, `pitwall study best` names trials that are dominated or infeasible, a wrong number of values is
// stored, or NSGA-II breeds from trials that are not the elite of their generation.
#include "hpotestutil.h"

#include "../../cli/clitestutil.h"

#include "core/hpo/study.h"
#include "core/store/pareto.h"
#include "core/store/store.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace pitwall;
using namespace hpotest;

namespace {

constexpr StudyDirection kMin = StudyDirection::Minimize;
constexpr StudyDirection kMax = StudyDirection::Maximize;

TrialRecord completeTrial(int number, std::vector<double> values, std::optional<std::vector<double>> constraints = {})
{
    TrialRecord t;
    t.id = 1000 + number;
    t.number = number;
    t.state = TrialState::Complete;
    t.values = std::move(values);
    if (constraints)
        t.systemAttrs[kConstraintsAttr] = Json(*constraints);
    return t;
}

std::vector<int> numbersAt(const std::vector<TrialRecord>& trials, const std::vector<std::size_t>& indices)
{
    std::vector<int> out;
    for (std::size_t i : indices)
        out.push_back(trials[i].number);
    return out;
}

// The front by definition: every counted trial that no other counted trial dominates (quadratic).
std::vector<std::size_t> bruteForceFront(const std::vector<TrialRecord>& trials, const std::vector<StudyDirection>& d)
{
    std::vector<std::size_t> front;
    for (std::size_t i = 0; i < trials.size(); ++i) {
        if (!countsForFront(trials[i], d.size()) || !isFeasible(trials[i]))
            continue;
        bool dominated = false;
        for (std::size_t j = 0; j < trials.size() && !dominated; ++j)
            dominated = j != i && countsForFront(trials[j], d.size()) && isFeasible(trials[j]) &&
                        dominates(trials[j].values, trials[i].values, d);
        if (!dominated)
            front.push_back(i);
    }
    return front;
}

// A trial of NSGA-II's generation `g` with parameters x, y (floats in [0, 10]) and its values.
// NSGA-II whose children copy one parent (no crossover, no mutation), for tests that check who the parents are.
Nsga2Options copyOnly(int populationSize)
{
    Nsga2Options options;
    options.populationSize = populationSize;
    options.crossoverProb = 0.0;
    options.mutationProb = 0.0;
    return options;
}

// Five trials on one front; with a population of 4, crowding distance drops (1, 3).
const std::vector<std::vector<double>> kOneFront{{0, 4}, {1, 3}, {1.1, 2.9}, {3, 1}, {4, 0}};

TrialRecord generationTrial(int number, int g, double x, double y, std::vector<double> values)
{
    TrialRecord t = completeTrial(number, std::move(values));
    t.systemAttrs["nsga2:generation"] = g;
    t.params.push_back({"x", x, floatRange(0, 10)});
    t.params.push_back({"y", y, floatRange(0, 10)});
    return t;
}

std::vector<ParamRequest> xyRequests()
{
    return {{"x", floatRange(0, 10)}, {"y", floatRange(0, 10)}};
}

SampleResult sampleNsga2(const Nsga2Options& options, const std::vector<TrialRecord>& trials,
                         const std::vector<StudyDirection>& directions, std::uint64_t seed,
                         const std::vector<ParamRequest>& requests)
{
    SamplerSettings settings;
    settings.kind = SamplerKind::Nsga2;
    settings.nsga2 = options;
    SampleContext context;
    context.studyName = "s";
    context.direction = directions.front();
    context.directions = directions;
    context.trials = trials;
    context.trialNumber = static_cast<int>(trials.size());
    context.seed = seed;
    return makeSampler(settings)->sample(context, requests);
}

} // namespace

class TestMultiObjective : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void dominationFollowsDirections();
    void frontOfHandMadeTrials();
    void frontMatchesDefinitionOnRandomTrials();
    void kneeIsTheBalancedTradeOff();
    void constraintsKeepInfeasibleTrialsOffTheFront();
    void studyTellsOneValuePerObjective();
    void infeasibleTrialIsNeverBestOfOneObjective();
    void intermediateVectorsAreStoredAndJudged();
    void cliReportsVectorsAndAsksThePruner();
    void tpeLearnsTheParetoSetOfSeveralObjectives();
    void nsga2FirstGenerationIsRandom();
    void nsga2BreedsFromTheElite();
    void nsga2ReadsTheNewestOptunasKeys();
    void nsga2CrossoverTakesEachParameterFromAParent();
    void nsga2MutatesOneParameterInNOnAverage();
    void nsga2PrefersFeasibleParents();
    void nsga2SettingsRoundTripAndRanges();
    void cliCreateTellBestList();
    void cliRefusesBadValues();

private:
    std::string db(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

void TestMultiObjective::dominationFollowsDirections()
{
    const std::vector<double> a{1, 5}, b{2, 4}, c{1, 4};
    const std::vector<StudyDirection> minMin{kMin, kMin}, minMax{kMin, kMax};
    QVERIFY(dominates(c, a, minMin)); // no worse in both, better in one
    QVERIFY(dominates(c, b, minMin));
    QVERIFY(!dominates(a, b, minMin) && !dominates(b, a, minMin)); // a trade-off
    QVERIFY(!dominates(a, a, minMin));                             // equal: neither dominates
    QVERIFY(dominates(a, c, minMax));                              // maximising the second: 5 beats 4
    QVERIFY(!dominates(c, a, minMax));
    const std::vector<double> inf{-INFINITY, 100};
    QVERIFY(!dominates(inf, a, minMin));
    QVERIFY(dominates(std::vector<double>{-INFINITY, 5}, a, minMin));
}

void TestMultiObjective::frontOfHandMadeTrials()
{
    std::vector<TrialRecord> trials{
        completeTrial(0, {1, 9}), completeTrial(1, {2, 7}), completeTrial(2, {3, 8}), // 2 dominated by 1
        completeTrial(3, {2, 7}),                                                     // equal to 1: also on the front
        completeTrial(4, {5, 1}), completeTrial(5, {6, 1}),                           // 5 dominated by 4
        completeTrial(6, {NAN, 0}),                                                   // damaged: never counts
        completeTrial(7, {0.5}),                                                      // wrong count: never counts
    };
    TrialRecord pruned = completeTrial(8, {0, 0});
    pruned.state = TrialState::Pruned; // a pruned trial with values would dominate everything if it counted
    trials.push_back(pruned);
    const std::vector<StudyDirection> minMin{kMin, kMin};
    QCOMPARE(numbersAt(trials, paretoFrontIndices(trials, minMin)), (std::vector<int>{0, 1, 3, 4}));
    // Maximising the first objective instead: 5 (6, 1) is the largest first value with the smallest second: it alone.
    const std::vector<StudyDirection> maxMin{kMax, kMin};
    QCOMPARE(numbersAt(trials, paretoFrontIndices(trials, maxMin)), (std::vector<int>{5}));
    // Maximising the second: 0 (1, 9) is best in both now that 9 beats 8 and 7.
    const std::vector<StudyDirection> minMax{kMin, kMax};
    QCOMPARE(numbersAt(trials, paretoFrontIndices(trials, minMax)), (std::vector<int>{0}));
    // Three objectives.
    std::vector<TrialRecord> three{completeTrial(0, {1, 2, 3}), completeTrial(1, {1, 2, 4}), completeTrial(2, {3, 2, 1}),
                                   completeTrial(3, {0, 5, 5})};
    QCOMPARE(numbersAt(three, paretoFrontIndices(three, std::vector{kMin, kMin, kMin})), (std::vector<int>{0, 2, 3}));
}

void TestMultiObjective::frontMatchesDefinitionOnRandomTrials()
{
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> coarse(0, 6); // coarse values: many ties and duplicates
    for (int round = 0; round < 200; ++round) {
        const std::size_t objectives = 2 + round % 3;
        std::vector<StudyDirection> directions;
        for (std::size_t m = 0; m < objectives; ++m)
            directions.push_back((round >> m) & 1 ? kMax : kMin);
        std::vector<TrialRecord> trials;
        for (int n = 0; n < 40; ++n) {
            std::vector<double> values;
            for (std::size_t m = 0; m < objectives; ++m)
                values.push_back(coarse(rng));
            std::optional<std::vector<double>> constraints;
            if (n % 5 == 0)
                constraints = std::vector<double>{coarse(rng) - 4.0};
            trials.push_back(completeTrial(n, values, constraints));
        }
        QCOMPARE(paretoFrontIndices(trials, directions), bruteForceFront(trials, directions));
    }
}

void TestMultiObjective::constraintsKeepInfeasibleTrialsOffTheFront()
{
    std::vector<TrialRecord> trials{completeTrial(0, {0, 0}, std::vector<double>{0.5}), // best values, infeasible
                                    completeTrial(1, {1, 2}, std::vector<double>{0.0}), // feasible (<= 0)
                                    completeTrial(2, {2, 1}, std::vector<double>{-1.0, -2.0}),
                                    completeTrial(3, {3, 3}),                           // no constraints: feasible
                                    completeTrial(4, {0.5, 0.5}, std::vector<double>{-1.0, 3.0})};
    trials[3].systemAttrs.erase(kConstraintsAttr);
    const std::vector<StudyDirection> minMin{kMin, kMin};
    QVERIFY(!isFeasible(trials[0]));
    QVERIFY(isFeasible(trials[1]) && isFeasible(trials[2]) && isFeasible(trials[3]));
    QVERIFY(!isFeasible(trials[4]));
    QCOMPARE(numbersAt(trials, paretoFrontIndices(trials, minMin)), (std::vector<int>{1, 2}));
    // Optuna 3.1's best_trials ignored constraints: that front is still available.
    QCOMPARE(numbersAt(trials, paretoFrontIndices(trials, minMin, false)), (std::vector<int>{0}));
    TrialRecord nanConstraint = completeTrial(5, {-1, -1});
    nanConstraint.systemAttrs[kConstraintsAttr] = Json::array({nullptr}); // NaN stored by Python's json as null
    QVERIFY(!isFeasible(nanConstraint));
}

void TestMultiObjective::studyTellsOneValuePerObjective()
{
    const auto store = openStore(db("tell.db"));
    StudyOptions options;
    options.directions = {kMin, kMax};
    options.direction = kMin;
    options.sampler.kind = SamplerKind::Nsga2;
    options.sampler.seed = 1;
    Study study = Study::create(*store, "mo", options);
    QCOMPARE(study.objectiveCount(), std::size_t(2));
    const std::vector<ParamRequest> requests = xyRequests();

    const int a = study.ask(requests).trial.number;
    try {
        study.tell(a, TrialState::Complete, std::vector<double>{1.0});
        QFAIL("one value for two objectives was taken");
    } catch (const InputError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("study 'mo' has 2 objectives (MINIMIZE, MAXIMIZE): give 2 values, not 1"));
    }
    QCOMPARE(study.requireTrial(a).state, TrialState::Running); // nothing written
    QCOMPARE(study.tell(a, TrialState::Complete, std::vector<double>{1.0, 5.0}, {-0.5}), TrialState::Complete);
    const TrialRecord told = study.requireTrial(a);
    QCOMPARE(told.values, (std::vector<double>{1.0, 5.0}));
    QCOMPARE(told.systemAttrs[kConstraintsAttr], Json::array({-0.5}));

    const int b = study.ask(requests).trial.number;
    QCOMPARE(study.tell(b, TrialState::Complete, std::vector<double>{2.0, NAN}), TrialState::Fail); // as Optuna
    const int c = study.ask(requests).trial.number;
    study.tell(c, TrialState::Complete, std::vector<double>{0.5, 4.0}); // trade-off with a
    const int d = study.ask(requests).trial.number;
    study.tell(d, TrialState::Complete, std::vector<double>{2.0, 4.0}); // dominated by a and c
    const int e = study.ask(requests).trial.number;
    study.tell(e, TrialState::Complete, std::vector<double>{0.1, 9.0}, {1.0}); // dominates all, infeasible
    std::vector<int> best;
    for (const TrialRecord& t : study.bestTrials())
        best.push_back(t.number);
    QCOMPARE(best, (std::vector<int>{a, c}));

    QVERIFY_THROWS_EXCEPTION(InputError, study.report(study.ask(requests).trial.number, 0, 1.0)); // one for two
    // Reopened, the study keeps both directions and NSGA-II.
    Study reopened = Study::load(*store, "mo");
    QCOMPARE(reopened.options().objectives(), (std::vector<StudyDirection>{kMin, kMax}));
    QCOMPARE(reopened.options().sampler.kind, SamplerKind::Nsga2);
    // A study Optuna created with two objectives and no Pitwall settings gets Optuna's default: NSGA-II.
    const std::int64_t optunaMade = store->createStudy("optuna-made", {kMax, kMax});
    QCOMPARE(Study::load(*store, "optuna-made").options().sampler.kind, SamplerKind::Nsga2);
    QCOMPARE(Study::load(*store, "optuna-made").options().sampler.nsga2.populationSize, 50);
    // ... with the population size its NSGA-II left in the study: the elite it cached has exactly that many trials.
    store->setStudySystemAttr(optunaMade, "nsga2:population:e3b0c442",
                              Json::array({1, Json::array({10, 15, 16, 19, 4, 8, 6, 13, 0, 7})}));
    QCOMPARE(Study::load(*store, "optuna-made").options().sampler.nsga2.populationSize, 10);
    // The list counts the front.
    for (const StudySummary& s : store->listStudies())
        if (s.study.name == "mo")
            QCOMPARE(s.paretoSize, std::optional<int>(2));
}

void TestMultiObjective::infeasibleTrialIsNeverBestOfOneObjective()
{
    const auto store = openStore(db("single.db"));
    StudyOptions options;
    options.sampler.kind = SamplerKind::Random;
    Study study = Study::create(*store, "one", options);
    const int a = study.ask(xyRequests()).trial.number;
    study.tell(a, TrialState::Complete, std::vector<double>{0.1}, {2.0}); // the lowest value, infeasible
    const int b = study.ask(xyRequests()).trial.number;
    study.tell(b, TrialState::Complete, std::vector<double>{0.5}, {-1.0});
    const int c = study.ask(xyRequests()).trial.number;
    study.tell(c, TrialState::Complete, std::vector<double>{0.7});
    QCOMPARE(study.bestTrial()->number, b);
    QCOMPARE(study.bestTrials().size(), std::size_t(1));
    const std::vector<StudySummary> listed = store->listStudies();
    QCOMPARE(listed.front().bestTrialNumber, std::optional<int>(b)); // the list's SQL agrees
    QCOMPARE(listed.front().bestValue, std::optional<double>(0.5));
}

void TestMultiObjective::intermediateVectorsAreStoredAndJudged()
{
    const auto store = openStore(db("steps.db"));
    StudyOptions options;
    options.directions = {kMin, kMax};
    options.sampler.kind = SamplerKind::Random;
    options.pruner = PrunerSettings::defaults(PrunerKind::Median); // 5 start-up trials
    Study study = Study::create(*store, "curves", options);
    // Five completed trials whose vectors at step 1 are (1, 10), (2, 9), (3, 8), (4, 7), (5, 6).
    for (int i = 0; i < 5; ++i) {
        const int n = study.ask(xyRequests()).trial.number;
        QVERIFY(study.report(n, 0, std::vector<double>{10.0 + i, 1.0}));
        QVERIFY(study.report(n, 1, std::vector<double>{1.0 + i, 10.0 - i}));
        QVERIFY(!study.report(n, 1, std::vector<double>{0.0, 0.0})); // a step reported before is ignored (Optuna)
        study.tell(n, TrialState::Complete, std::vector<double>{1.0 + i, 10.0 - i});
    }
    const TrialRecord first = study.requireTrial(0);
    QCOMPARE(first.intermediateValues.at(1), 1.0); // Optuna's table: the first objective
    QCOMPARE(first.intermediateVectors.at(1), (std::vector<double>{1.0, 10.0}));
    QCOMPARE(first.intermediateVectors.at(0), (std::vector<double>{10.0, 1.0}));
    QVERIFY_THROWS_EXCEPTION(InputError, study.report(0, 2, std::vector<double>{1.0, 2.0})); // finished

    // (3.5, 6.5): dominated by (1, 10), (2, 9), (3, 8): 3 of 5, more than half: pruned.
    const int worse = study.ask(xyRequests()).trial.number;
    study.report(worse, 1, std::vector<double>{3.5, 6.5});
    QVERIFY(study.shouldPrune(worse));
    // (2.5, 8.5): dominated by (1, 10) and (2, 9) only: 2 of 5: goes on.
    const int fair = study.ask(xyRequests()).trial.number;
    study.report(fair, 1, std::vector<double>{2.5, 8.5});
    QVERIFY(!study.shouldPrune(fair));
    // (0.5, 11): dominates them all: goes on. At a step no completed trial reported, nothing to compare with.
    const int good = study.ask(xyRequests()).trial.number;
    study.report(good, 1, std::vector<double>{0.5, 11.0});
    QVERIFY(!study.shouldPrune(good));
    study.report(good, 7, std::vector<double>{9.0, 0.0});
    QVERIFY(!study.shouldPrune(good));
    // A NaN in the vector is pruned (as a NaN value is by the median pruner); a wrong count is refused.
    const int broken = study.ask(xyRequests()).trial.number;
    study.report(broken, 1, std::vector<double>{NAN, 9.0});
    QVERIFY(study.shouldPrune(broken));
    QVERIFY_THROWS_EXCEPTION(InputError, study.report(broken, 2, std::vector<double>{1.0}));
    QVERIFY_THROWS_EXCEPTION(InputError, study.report(broken, 2, 1.0));

    // Successive halving judges one objective: refused for this study.
    StudyOptions sha = options;
    sha.pruner = PrunerSettings::defaults(PrunerKind::SuccessiveHalving);
    Study halving = Study::create(*store, "halving", sha);
    const int h = halving.ask(xyRequests()).trial.number;
    halving.report(h, 0, std::vector<double>{1.0, 2.0});
    try {
        halving.shouldPrune(h);
        QFAIL("sha judged two objectives");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("pruner sha judges one objective") != std::string::npos, e.what());
    }
}

void TestMultiObjective::cliReportsVectorsAndAsksThePruner()
{
    const QString dbPath = m_dir.filePath("cliprune.db");
    const QString space = m_dir.filePath("space.yaml");
    QVERIFY(writeTestFile(space, "x: {type: uniform, min: 0, max: 1}\n"));
    QCOMPARE(runCli({"study", "create", "--db", dbPath, "--study", "p", "--direction", "minimize", "--direction",
                     "minimize", "--sampler", "random", "--pruner-startup-trials", "2"})
                 .exitCode,
             0);
    const auto askTell = [&](const QString& intermediate, const QStringList& finish) {
        const CliResult ask = runCli({"study", "ask", "--db", dbPath, "--study", "p", "--space", space});
        const int n = Json::parse(ask.out.toStdString())["number"].get<int>();
        const CliResult tell = runCli(QStringList{"study", "tell", "--db", dbPath, "--study", "p", "--trial",
                                                  QString::number(n), "--intermediate", intermediate} +
                                      finish);
        if (tell.exitCode != 0)
            qFatal("tell failed: %s", qPrintable(tell.err));
        return n;
    };
    askTell("0=1,1", {"--value", "1", "--value", "1"});
    askTell("0=2,0.5", {"--value", "2", "--value", "0.5"});
    const int judged = askTell("0=3,3", {});
    const CliResult verdict =
        runCli({"study", "should-prune", "--db", dbPath, "--study", "p", "--trial", QString::number(judged)});
    QCOMPARE(verdict.exitCode, 0);
    QCOMPARE(verdict.out.trimmed(), QString("true")); // (3, 3) is dominated by both completed trials
    const int kept = askTell("0=0.5,3", {});
    QCOMPARE(runCli({"study", "should-prune", "--db", dbPath, "--study", "p", "--trial", QString::number(kept)})
                 .out.trimmed(),
             QString("false")); // dominated by neither
}

void TestMultiObjective::tpeLearnsTheParetoSetOfSeveralObjectives()
{
    // TPE takes two objectives (MOTPE, core/hpo/internal/motpe.h). x trades one objective for the other; both are
    // best at y = 2, so the Pareto set is y = 2. After 10 random start-up trials, TPE's trials must crowd around it;
    // random search would stay about 3.4 away on average.
    const auto store = openStore(db("tpe.db"));
    StudyOptions options;
    options.directions = {kMin, kMin};
    options.sampler.kind = SamplerKind::Tpe;
    options.sampler.seed = 3;
    Study study = Study::create(*store, "mo", options);
    QCOMPARE(Study::load(*store, "mo").options().sampler.kind, SamplerKind::Tpe);
    double startupDistance = 0.0, lateDistance = 0.0;
    for (int n = 0; n < 40; ++n) {
        const AskedTrial asked = study.ask(xyRequests());
        const double x = asked.params.at("x").get<double>(), y = asked.params.at("y").get<double>();
        const double penalty = (y - 2.0) * (y - 2.0);
        study.tell(asked.trial.number, TrialState::Complete, std::vector<double>{x + penalty, 10.0 - x + penalty});
        if (n < 10)
            startupDistance += std::abs(y - 2.0) / 10.0;
        else if (n >= 20)
            lateDistance += std::abs(y - 2.0) / 20.0;
    }
    qDebug("mean |y - 2|: start-up trials %.3f, trials 20-39 %.3f", startupDistance, lateDistance);
    QVERIFY(lateDistance < 0.5 * startupDistance);
    QVERIFY(lateDistance < 1.5);
}

void TestMultiObjective::nsga2FirstGenerationIsRandom()
{
    Nsga2Options options;
    options.populationSize = 4;
    std::vector<TrialRecord> trials;
    for (int n = 0; n < 3; ++n) // three complete trials of generation 0: not yet a population of 4
        trials.push_back(generationTrial(n, 0, 1.0 + n, 1.0 + n, {double(n), double(-n)}));
    const SampleResult r = sampleNsga2(options, trials, {kMin, kMin}, 5, xyRequests());
    QCOMPARE(r.trialSystemAttrs["nsga2:generation"].get<int>(), 0);
    QVERIFY(!r.trialSystemAttrs.contains("nsga2:parents"));
    QCOMPARE(r.internalValues.size(), std::size_t(2));
    for (double v : r.internalValues)
        QVERIFY(v >= 0 && v <= 10);
}

void TestMultiObjective::nsga2BreedsFromTheElite()
{
    // Generation 0: five trials on one front (population 4): crowding distance drops (1, 3), whose distance 0.55 is
    // the smallest ((1.1, 2.9): 1.0, (3, 1): 1.45, the two ends: infinite). Copy-only children (no crossover, no
    // mutation) must copy one of the other four, each of them at some seed.
    const Nsga2Options options = copyOnly(4);
    std::vector<TrialRecord> trials;
    for (int n = 0; n < 5; ++n)
        trials.push_back(generationTrial(n, 0, n, 10 - n, kOneFront[n]));
    std::set<double> copied;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        const SampleResult r = sampleNsga2(options, trials, {kMin, kMin}, seed, xyRequests());
        QCOMPARE(r.trialSystemAttrs["nsga2:generation"].get<int>(), 1);
        QCOMPARE(r.internalValues[1], 10 - r.internalValues[0]); // one parent's x and y
        copied.insert(r.internalValues[0]);
    }
    QCOMPARE(copied, (std::set<double>{0, 2, 3, 4}));

    // Generation 1 complete: it and the parents compete. Generation 1's four trials dominate all of generation 0, so
    // the next parents are exactly generation 1.
    for (int n = 5; n < 9; ++n)
        trials.push_back(generationTrial(n, 1, n, 10 - n, {-10.0 + n, -n * 1.0}));
    copied.clear();
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        const SampleResult r = sampleNsga2(options, trials, {kMin, kMin}, seed, xyRequests());
        QCOMPARE(r.trialSystemAttrs["nsga2:generation"].get<int>(), 2);
        copied.insert(r.internalValues[0]);
    }
    QCOMPARE(copied, (std::set<double>{5, 6, 7, 8}));
    // Maximising both objectives turns that around: generation 0's survivors stay the parents.
    copied.clear();
    for (std::uint64_t seed = 0; seed < 200; ++seed)
        copied.insert(sampleNsga2(options, trials, {kMax, kMax}, seed, xyRequests()).internalValues[0]);
    for (double x : copied)
        QVERIFY2(x < 5, qPrintable(QString("a dominated generation-1 trial was a parent: x = %1").arg(x)));
}

// The newest Optuna's NSGAIISampler keeps a trial's generation as "NSGAIISampler:generation" and each generation's
// parents as the study attribute "NSGAIISampler:parent:<g>" = [trial ids]: Pitwall reads both (the generation as
// Optuna 3.1's "nsga2:generation" is read), and writes the generation under both keys.
void TestMultiObjective::nsga2ReadsTheNewestOptunasKeys()
{
    const Nsga2Options options = copyOnly(4);
    std::vector<TrialRecord> trials;
    for (int n = 0; n < 5; ++n) {
        TrialRecord t = generationTrial(n, 0, n, 10 - n, kOneFront[n]);
        t.systemAttrs.erase("nsga2:generation");
        t.systemAttrs["NSGAIISampler:generation"] = 0;
        trials.push_back(t);
    }
    std::set<double> copied;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        const SampleResult r = sampleNsga2(options, trials, {kMin, kMin}, seed, xyRequests());
        QCOMPARE(r.trialSystemAttrs["nsga2:generation"].get<int>(), 1);
        QCOMPARE(r.trialSystemAttrs["NSGAIISampler:generation"].get<int>(), 1);
        copied.insert(r.internalValues[0]);
    }
    QCOMPARE(copied, (std::set<double>{0, 2, 3, 4})); // the same elite as nsga2BreedsFromTheElite's

    StudyRecord study;
    study.directions = {kMin, kMax};
    study.systemAttrs["NSGAIISampler:parent:1"] = Json::array({3, 4, 6, 8, 9, 10});
    const StudyOptions continued = studyOptions(study);
    QCOMPARE(continued.sampler.kind, SamplerKind::Nsga2);
    QCOMPARE(continued.sampler.nsga2.populationSize, 6);
}

void TestMultiObjective::nsga2CrossoverTakesEachParameterFromAParent()
{
    Nsga2Options options;
    options.populationSize = 4;
    options.crossoverProb = 1.0;
    options.mutationProb = 0.0;
    std::vector<TrialRecord> trials;
    for (int n = 0; n < 4; ++n) // four non-dominated trials with distinct x and y
        trials.push_back(generationTrial(n, 0, n, 5 + n, {double(n), double(-n)}));
    std::map<std::int64_t, const TrialRecord*> byId;
    for (const TrialRecord& t : trials)
        byId[t.id] = &t;
    int mixed = 0;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
        const SampleResult r = sampleNsga2(options, trials, {kMin, kMin}, seed, xyRequests());
        const Json parents = r.trialSystemAttrs["nsga2:parents"];
        QCOMPARE(parents.size(), std::size_t(2));
        QVERIFY(parents[0] != parents[1]); // two different parents
        const TrialRecord* p0 = byId.at(parents[0].get<std::int64_t>());
        const TrialRecord* p1 = byId.at(parents[1].get<std::int64_t>());
        for (std::size_t i = 0; i < 2; ++i)
            QVERIFY(r.internalValues[i] == p0->params[i].internalValue ||
                    r.internalValues[i] == p1->params[i].internalValue);
        if (r.internalValues[1] - r.internalValues[0] != 5) // x and y from different parents
            ++mixed;
    }
    // Swapping probability 0.5 per parameter: about half of the children mix (x from one parent, y from the other).
    QVERIFY2(mixed > 100 && mixed < 200, qPrintable(QString::number(mixed)));
}

void TestMultiObjective::nsga2MutatesOneParameterInNOnAverage()
{
    Nsga2Options options; // mutation 1 / number of parameters (4): a quarter of the inherited values resampled
    options.populationSize = 2;
    options.crossoverProb = 0.0;
    std::vector<ParamRequest> requests{
        {"a", floatRange(0, 1)}, {"b", floatRange(0, 1)}, {"c", floatRange(0, 1)}, {"d", floatRange(0, 1)}};
    std::vector<TrialRecord> trials;
    for (int n = 0; n < 2; ++n) {
        TrialRecord t = completeTrial(n, {double(n), double(-n)});
        t.systemAttrs["nsga2:generation"] = 0;
        for (const ParamRequest& r : requests)
            t.params.push_back({r.name, 0.25 + 0.5 * n, r.distribution});
        trials.push_back(t);
    }
    int resampled = 0, total = 0;
    for (std::uint64_t seed = 0; seed < 500; ++seed)
        for (double v : sampleNsga2(options, trials, {kMin, kMin}, seed, requests).internalValues) {
            ++total;
            resampled += v != 0.25 && v != 0.75;
        }
    const double share = double(resampled) / total;
    QVERIFY2(share > 0.21 && share < 0.29, qPrintable(QString::number(share)));
}

void TestMultiObjective::nsga2PrefersFeasibleParents()
{
    // Population 2 of generation 0: four trials, the two with the best values infeasible. Constrained domination
    // ranks the feasible ones first, so copies come only from them.
    Nsga2Options options;
    options.populationSize = 2;
    options.crossoverProb = 0.0;
    options.mutationProb = 0.0;
    std::vector<TrialRecord> trials{generationTrial(0, 0, 0, 0, {0, 0}), generationTrial(1, 0, 1, 1, {0.5, 0.5}),
                                    generationTrial(2, 0, 2, 2, {5, 6}), generationTrial(3, 0, 3, 3, {6, 5})};
    trials[0].systemAttrs[kConstraintsAttr] = Json::array({1.0});
    trials[1].systemAttrs[kConstraintsAttr] = Json::array({0.5});
    trials[2].systemAttrs[kConstraintsAttr] = Json::array({-1.0});
    trials[3].systemAttrs[kConstraintsAttr] = Json::array({0.0});
    std::set<double> copied;
    for (std::uint64_t seed = 0; seed < 100; ++seed)
        copied.insert(sampleNsga2(options, trials, {kMin, kMin}, seed, xyRequests()).internalValues[0]);
    QCOMPARE(copied, (std::set<double>{2, 3}));
}

void TestMultiObjective::nsga2SettingsRoundTripAndRanges()
{
    SamplerSettings settings;
    settings.kind = SamplerKind::Nsga2;
    settings.seed = 4;
    settings.nsga2.populationSize = 20;
    settings.nsga2.mutationProb = 0.1;
    const Json json = settings.toJson();
    QCOMPARE(json["name"].get<std::string>(), std::string("nsga2"));
    QCOMPARE(json["population_size"].get<int>(), 20);
    QCOMPARE(json["crossover_prob"].get<double>(), 0.9);
    QCOMPARE(json["swapping_prob"].get<double>(), 0.5);
    const SamplerSettings back = SamplerSettings::fromJson(json);
    QCOMPARE(back.nsga2.populationSize, 20);
    QCOMPARE(back.nsga2.mutationProb, std::optional<double>(0.1));
    QCOMPARE(back.seed, std::optional<std::uint64_t>(4));
    QVERIFY(!SamplerSettings::fromJson(Json{{"name", "nsga2"}}).nsga2.mutationProb); // default: 1 / parameters
    QVERIFY_THROWS_EXCEPTION(InputError, SamplerSettings::fromJson(Json{{"name", "nsga2"}, {"population_size", 1}}));
    QVERIFY_THROWS_EXCEPTION(InputError, SamplerSettings::fromJson(Json{{"name", "nsga2"}, {"crossover_prob", 1.5}}));
}

void TestMultiObjective::cliCreateTellBestList()
{
    const QString dbPath = m_dir.filePath("cli.db");
    const QString space = m_dir.filePath("space.yaml");
    QVERIFY(writeTestFile(space, "autospeed.box: {type: uniform, min: 5, max: 10}\nautospeed.cls: {type: uniform, min: 0.2, max: 4}\n"));
    const CliResult created = runCli({"study", "create", "--db", dbPath, "--study", "speed", "--direction", "maximize",
                                      "--direction", "minimize", "--seed", "2", "--population-size", "4"});
    QCOMPARE(created.exitCode, 0);
    QVERIFY2(created.out.contains("created study 'speed' (maximize, minimize, sampler {"), qPrintable(created.out));
    QVERIFY(created.out.contains("\"name\":\"nsga2\"") && created.out.contains("\"population_size\":4"));
    const std::vector<std::pair<double, double>> values{{10, 5}, {12, 6}, {8, 4}, {12, 7}, {9, 5}};
    for (std::size_t i = 0; i < values.size(); ++i) {
        const CliResult ask = runCli({"study", "ask", "--db", dbPath, "--study", "speed", "--space", space});
        QCOMPARE(ask.exitCode, 0);
        const QStringList tell{"study",   "tell",  "--db",
                               dbPath,    "--study", "speed",
                               "--trial", QString::number(i), "--value",
                               QString::number(values[i].first), "--value", QString::number(values[i].second)};
        const CliResult told = runCli(i == 2 ? tell + QStringList{"--constraint", "1"} : tell);
        QCOMPARE(told.exitCode, 0);
        QCOMPARE(told.out.trimmed(), QString("trial %1: COMPLETE (values %2, %3)")
                                         .arg(i)
                                         .arg(values[i].first)
                                         .arg(values[i].second));
    }
    // Maximise the first, minimise the second: 0 (10, 5), 1 (12, 6) and 2 (8, 4, but infeasible) trade off; 3 is
    // dominated by 1, 4 by 0.
    const CliResult best = runCli({"study", "best", "--db", dbPath, "--study", "speed", "--json"});
    QCOMPARE(best.exitCode, 0);
    const Json front = Json::parse(best.out.toStdString())["best_trials"];
    QCOMPARE(front.size(), std::size_t(2));
    QCOMPARE(front[0]["number"].get<int>(), 0);
    QCOMPARE(front[0]["values"], Json::array({10.0, 5.0}));
    QCOMPARE(front[1]["number"].get<int>(), 1);
    QVERIFY(front[1]["params"].contains("autospeed.box"));
    // The hypervolume from the reference (0, 10) (the first objective is maximised: points must exceed 0), after
    // each feasible complete trial: 0 alone 10 x 5 = 50; with 1: 50 + 12 x 4 - 10 x 4 = 58; 3 and 4 are dominated.
    const CliResult volume =
        runCli({"study", "best", "--db", dbPath, "--study", "speed", "--json", "--reference", "0,10"});
    QCOMPARE(volume.exitCode, 0);
    const Json measured = Json::parse(volume.out.toStdString());
    QCOMPARE(measured["hypervolume"].get<double>(), 58.0);
    QCOMPARE(measured["hypervolume_history"], Json::parse("[[0, 50.0], [1, 58.0], [3, 58.0], [4, 58.0]]"));
    const CliResult badReference =
        runCli({"study", "best", "--db", dbPath, "--study", "speed", "--reference", "0"});
    QCOMPARE(badReference.exitCode, 2);
    QVERIFY2(badReference.err.contains("--reference '0' has 1 value(s); study 'speed' has 2 objectives"),
             qPrintable(badReference.err));
    QVERIFY(runCli({"study", "best", "--db", dbPath, "--study", "speed", "--reference", "0,10"})
                .out.contains("hypervolume 58 from reference (0, 10) over 4 counted trials"));
    const CliResult text = runCli({"study", "best", "--db", dbPath, "--study", "speed"});
    QVERIFY2(text.out.startsWith("Pareto front of 'speed' (maximize, minimize): 2 trials\n  trial 0: values 10, 5  ("),
             qPrintable(text.out));
    const CliResult list = runCli({"study", "list", "--db", dbPath, "--json"});
    const Json row = Json::parse(list.out.toStdString())["studies"][0];
    QCOMPARE(row["directions"], Json::array({"maximize", "minimize"}));
    QCOMPARE(row["sampler"].get<std::string>(), std::string("nsga2"));
    QCOMPARE(row["pareto_front"].get<int>(), 2);
    QVERIFY(runCli({"study", "list", "--db", dbPath}).out.contains("Pareto front of 2"));
    // After a population of four complete trials, the next ask is generation 1, bred from parents.
    const CliResult ask = runCli({"study", "ask", "--db", dbPath, "--study", "speed", "--space", space});
    QCOMPARE(ask.exitCode, 0);
    const auto store = openStore(dbPath.toStdString(), OpenMode::ReadOnly);
    const auto trial = store->trial(store->requireStudy("speed").id, 5);
    QVERIFY(trial);
    QCOMPARE(trial->systemAttrs["nsga2:generation"].get<int>(), 1);
    QVERIFY(trial->systemAttrs.contains("nsga2:parents"));
}

void TestMultiObjective::cliRefusesBadValues()
{
    const QString dbPath = m_dir.filePath("bad.db");
    QCOMPARE(runCli({"study", "create", "--db", dbPath, "--study", "two", "--direction", "minimize", "--direction",
                     "maximize"})
                 .exitCode,
             0);
    const CliResult badDirection =
        runCli({"study", "create", "--db", dbPath, "--study", "x", "--direction", "minimize", "--direction", "up"});
    QCOMPARE(badDirection.exitCode, 2);
    QVERIFY2(badDirection.err.contains("--direction 'up' is not minimize or maximize"), qPrintable(badDirection.err));
    const CliResult tpe = runCli({"study", "create", "--db", dbPath, "--study", "y", "--direction", "minimize",
                                  "--direction", "minimize", "--sampler", "tpe"});
    QCOMPARE(tpe.exitCode, 0); // TPE takes several objectives (MOTPE); the default stays NSGA-II
    const auto created = openStore(dbPath.toStdString(), OpenMode::ReadOnly);
    QCOMPARE(Study::load(*created, "y").options().sampler.kind, SamplerKind::Tpe);
    QCOMPARE(Study::load(*created, "two").options().sampler.kind, SamplerKind::Nsga2);
    const CliResult badPopulation = runCli({"study", "create", "--db", dbPath, "--study", "z", "--direction",
                                            "minimize", "--direction", "minimize", "--population-size", "1"});
    QCOMPARE(badPopulation.exitCode, 2);

    const QString space = m_dir.filePath("space.yaml");
    QVERIFY(writeTestFile(space, "autospeed.box: {type: uniform, min: 5, max: 10}\n"));
    QCOMPARE(runCli({"study", "ask", "--db", dbPath, "--study", "two", "--space", space}).exitCode, 0);
    const CliResult one = runCli({"study", "tell", "--db", dbPath, "--study", "two", "--trial", "0", "--value", "1"});
    QCOMPARE(one.exitCode, 2);
    QVERIFY2(one.err.contains("study 'two' has 2 objectives (MINIMIZE, MAXIMIZE): give 2 values, not 1"),
             qPrintable(one.err));
    const CliResult three = runCli({"study", "tell", "--db", dbPath, "--study", "two", "--trial", "0", "--value", "1",
                                    "--value", "2", "--value", "3"});
    QCOMPARE(three.exitCode, 2);
    const CliResult steps =
        runCli({"study", "tell", "--db", dbPath, "--study", "two", "--trial", "0", "--intermediate", "0=1"});
    QCOMPARE(steps.exitCode, 2);
    QVERIFY2(steps.err.contains("study 'two' has 2 objectives (MINIMIZE, MAXIMIZE): report 2 intermediate values per "
                                "step, not 1"),
             qPrintable(steps.err));
    const CliResult badStep =
        runCli({"study", "tell", "--db", dbPath, "--study", "two", "--trial", "0", "--intermediate", "0=1,x"});
    QCOMPARE(badStep.exitCode, 2);
    QVERIFY2(badStep.err.contains("--intermediate value 'x' is not a number"), qPrintable(badStep.err));
    const CliResult badConstraint = runCli({"study", "tell", "--db", dbPath, "--study", "two", "--trial", "0",
                                            "--value", "1", "--value", "2", "--constraint", "x"});
    QCOMPARE(badConstraint.exitCode, 2);
    QVERIFY2(badConstraint.err.contains("--constraint 'x' is not a number"), qPrintable(badConstraint.err));
    // Nothing of that was written: the trial is still running, without values or constraints.
    const auto store = openStore(dbPath.toStdString(), OpenMode::ReadOnly);
    const auto trial = store->trial(store->requireStudy("two").id, 0);
    QCOMPARE(trial->state, TrialState::Running);
    QVERIFY(trial->values.empty() && trial->intermediateValues.empty());
    QVERIFY(!trial->systemAttrs.contains(kConstraintsAttr));
    // An empty front is an exit 1 with the reason, and valid JSON.
    const CliResult empty = runCli({"study", "best", "--db", dbPath, "--study", "two", "--json"});
    QCOMPARE(empty.exitCode, 1);
    QCOMPARE(Json::parse(empty.out.toStdString())["best_trials"].size(), std::size_t(0));
}

// The knee is the front point nearest the ideal once each objective is scaled to the front's range, whatever the
// units; a front of fewer than 3 points has none. If this fails, the window marks an extreme of the front as its knee.
void TestMultiObjective::kneeIsTheBalancedTradeOff()
{
    // (1, 1000) (2, 300) (6, 100) (10, 0): scaled (0, 1) (1/9, 0.3) (5/9, 0.1) (1, 0); the second is nearest.
    const std::vector<std::vector<double>> front{{1, 1000}, {2, 300}, {6, 100}, {10, 0}};
    QCOMPARE(kneeIndex(front), std::optional<std::size_t>(1));
    // The same front in other units (first objective × 1000): the same knee.
    const std::vector<std::vector<double>> scaled{{1000, 1000}, {2000, 300}, {6000, 100}, {10000, 0}};
    QCOMPARE(kneeIndex(scaled), std::optional<std::size_t>(1));
    // A bend near the other end.
    const std::vector<std::vector<double>> other{{0, 10}, {5, 2}, {9, 1}, {10, 0}};
    QCOMPARE(kneeIndex(other), std::optional<std::size_t>(1));
    const std::vector<std::vector<double>> late{{0, 10}, {1, 9}, {8, 1}, {10, 0}};
    QCOMPARE(kneeIndex(late), std::optional<std::size_t>(2));
    QVERIFY(!kneeIndex(std::vector<std::vector<double>>{{0, 1}, {1, 0}}));
}

QTEST_GUILESS_MAIN(TestMultiObjective)
#include "tst_hpo_multiobjective.moc"
