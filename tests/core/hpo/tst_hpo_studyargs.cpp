// A new study's sampler and pruner from the options of `pitwall study create` and `pitwall hpo`
// (core/hpo/studyargs.h). If this fails, a study is created with other settings than were typed, Optuna's
// defaults changed, or a bad value is accepted instead of named.
#include "core/hpo/studyargs.h"
#include "core/util/error.h"

#include <QtTest>

using namespace pitwall;

namespace {

// studyOptionsFromArgs's InputError message for `args`, or "accepted".
QString refusal(const cmdline::Args& args)
{
    try {
        studyOptionsFromArgs(args);
        return "accepted";
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
}

} // namespace

class TestHpoStudyArgs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsAreOptunas();
    void optionsReachTheSettings();
    void badValuesNameTheOption_data();
    void badValuesNameTheOption();
    void contradictingSwitchesAreRefused();
};

void TestHpoStudyArgs::defaultsAreOptunas()
{
    const StudyOptions options = studyOptionsFromArgs({});
    QVERIFY(options.sampler.kind == SamplerKind::Tpe);
    QVERIFY(!options.sampler.seed);
    QCOMPARE(options.sampler.tpe.startupTrials, 10);
    QVERIFY(!options.sampler.tpe.multivariate);
    // Optuna 5's TPESampler defaults: multivariate on one objective, independent on several, the constant liar on.
    QVERIFY(options.sampler.tpe.version == TpeVersion::Optuna5);
    QVERIFY(options.sampler.tpe.multivariateFor(1));
    QVERIFY(!options.sampler.tpe.multivariateFor(2));
    QVERIFY(options.sampler.tpe.constantLiarOn());
    // Optuna's gamma: l(x) is the best 10 % (at most 25). Pitwall's addition: every 4th trial after 40 refines the
    // best one.
    QVERIFY(!options.sampler.tpe.gamma);
    QCOMPARE(options.sampler.tpe.gammaFor(), 0.1);
    QVERIFY(!options.sampler.tpe.refineEvery);
    QCOMPARE(options.sampler.tpe.refineEveryFor(), 4);
    QVERIFY(options.pruner.kind == PrunerKind::Median);
    QCOMPARE(options.pruner.startupTrials, 5);
    QCOMPARE(options.pruner.warmupSteps, std::int64_t(0));
}

void TestHpoStudyArgs::optionsReachTheSettings()
{
    cmdline::Args args;
    args.options = {{"sampler", {"random"}}, {"seed", {"42"}},           {"multivariate", {""}},
                    {"pruner", {"sha"}},     {"min-resource", {"3"}},    {"reduction-factor", {"2"}},
                    {"startup-trials", {"4"}}, {"constant-liar", {""}},   {"hypervolume-weights", {""}}};
    const StudyOptions options = studyOptionsFromArgs(args);
    QVERIFY(options.sampler.kind == SamplerKind::Random);
    QCOMPARE(options.sampler.seed.value_or(0), std::uint64_t(42));
    QCOMPARE(options.sampler.tpe.startupTrials, 4);
    QCOMPARE(options.sampler.tpe.multivariate, std::optional<bool>(true));
    QCOMPARE(options.sampler.tpe.constantLiar, std::optional<bool>(true));
    QVERIFY(options.sampler.tpe.hypervolumeWeights);
    QVERIFY(!studyOptionsFromArgs({}).sampler.tpe.hypervolumeWeights); // Optuna 5's uniform weights by default
    QVERIFY(options.pruner.kind == PrunerKind::SuccessiveHalving);
    QCOMPARE(options.pruner.minResource.value_or(0), std::int64_t(3));
    QCOMPARE(options.pruner.reductionFactor, 2);
    cmdline::Args old;
    old.options = {{"tpe-version", {"3.1"}}, {"independent", {""}}, {"no-constant-liar", {""}}};
    const StudyOptions oldOptions = studyOptionsFromArgs(old);
    QVERIFY(oldOptions.sampler.tpe.version == TpeVersion::Optuna31);
    QCOMPARE(oldOptions.sampler.tpe.multivariate, std::optional<bool>(false));
    QCOMPARE(oldOptions.sampler.tpe.constantLiar, std::optional<bool>(false));
    QCOMPARE(oldOptions.sampler.tpe.gammaFor(), 0.1);    // 3.1's gamma
    QCOMPARE(oldOptions.sampler.tpe.refineEveryFor(), 0); // and no refinement trials
    cmdline::Args noRefine;
    noRefine.options = {{"tpe-refine-every", {"0"}}};
    QCOMPARE(studyOptionsFromArgs(noRefine).sampler.tpe.refineEveryFor(), 0);
    noRefine.options = {{"tpe-refine-every", {"3"}}};
    QCOMPARE(studyOptionsFromArgs(noRefine).sampler.tpe.refineEveryFor(), 3);
    cmdline::Args gamma;
    gamma.options = {{"tpe-gamma", {"0.1"}}};
    QCOMPARE(studyOptionsFromArgs(gamma).sampler.tpe.gamma, std::optional<double>(0.1));
    cmdline::Args hyperband;
    hyperband.options = {{"pruner", {"hyperband"}}};
    QCOMPARE(studyOptionsFromArgs(hyperband).pruner.reductionFactor, 3); // Optuna's hyperband default
}

void TestHpoStudyArgs::badValuesNameTheOption_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("sampler") << "sampler" << "cmaes" << "--sampler 'cmaes' is not one of random, grid, tpe, nsga2";
    QTest::newRow("pruner") << "pruner" << "patient" << "--pruner 'patient' is not one of none, median, sha, hyperband";
    QTest::newRow("negative seed") << "seed" << "-1" << "--seed '-1' is not an integer >= 0";
    QTest::newRow("reduction factor") << "reduction-factor" << "1" << "--reduction-factor '1' is not an integer >= 2";
    QTest::newRow("min resource") << "min-resource" << "0" << "--min-resource '0' is not an integer >= 1";
    QTest::newRow("tpe version") << "tpe-version" << "4"
                                 << "--tpe-version '4' is not 5 (the newest Optuna's TPE) or 3.1 (Optuna 3.1's)";
    QTest::newRow("tpe gamma 0") << "tpe-gamma" << "0" << "--tpe-gamma '0': give a number in 0.01..1";
    QTest::newRow("tpe gamma 1.5") << "tpe-gamma" << "1.5" << "--tpe-gamma '1.5': give a number in 0.01..1";
    QTest::newRow("tpe refine every -1") << "tpe-refine-every" << "-1"
                                         << "--tpe-refine-every '-1' is not an integer >= 0";
    QTest::newRow("tpe refine every 1") << "tpe-refine-every" << "1"
                                        << "--tpe-refine-every 1 would leave no trial to TPE: give 0 (no refinement, "
                                           "Optuna's TPE) or 2 and more";
}

void TestHpoStudyArgs::badValuesNameTheOption()
{
    QFETCH(QString, option);
    QFETCH(QString, value);
    QFETCH(QString, message);
    cmdline::Args args;
    args.options[option.toStdString()] = {value.toStdString()};
    QCOMPARE(refusal(args), message);
}

void TestHpoStudyArgs::contradictingSwitchesAreRefused()
{
    for (const auto& [on, off] : {std::pair{"multivariate", "independent"}, {"constant-liar", "no-constant-liar"}}) {
        cmdline::Args args;
        args.options = {{on, {""}}, {off, {""}}};
        QCOMPARE(refusal(args), QString("--%1 and --%2 contradict each other: give one").arg(on, off));
    }
}

QTEST_GUILESS_MAIN(TestHpoStudyArgs)
#include "tst_hpo_studyargs.moc"
