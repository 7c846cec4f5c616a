// "Which trial is best" has one rule (core/store/besttrial.h, Optuna's semantics): COMPLETE trials only, NaN
// skipped, +inf best when maximising and -inf when minimising, the lowest number of equals. This test feeds the
// edge cases (tests/support/besttrialcases.h) through a real results file and checks that every reader agrees:
// `pitwall study best` (Study::bestTrial), the study list (Store::listStudies), a search's progress line
// (countTrials) and the rule itself. If it fails, the CLI, the window and a job's message name different best
// trials for one study, or a NaN, a pruned or a running trial is reported as the best.
#include "../store/storetestutil.h"

#include "core/hpo/study.h"
#include "core/pool/trialstate.h"
#include "core/store/besttrial.h"
#include "tests/support/besttrialcases.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace pitwall;
using pitwall::test::BestTrialCase;

Q_DECLARE_METATYPE(BestTrialCase)

namespace {

// Writes the case as a study: through the Store where it stores such a trial, and as raw rows where it
// refuses to (a NaN value, a value on a FAIL, RUNNING or WAITING trial: what a damaged or foreign file holds).
void writeCase(const std::string& path, const BestTrialCase& c)
{
    std::vector<std::pair<std::int64_t, double>> rawValues; // trial id, value
    {
        auto store = openStore(path);
        const std::int64_t studyId = store->createStudy(c.name, {c.direction});
        for (const test::CaseTrial& spec : c.trials) {
            const bool waiting = spec.state == TrialState::Waiting;
            const TrialRecord trial = store->createTrial(studyId, waiting ? TrialState::Waiting : TrialState::Running);
            const bool nan = spec.value && std::isnan(*spec.value);
            switch (spec.state) {
            case TrialState::Complete:
                store->finishTrial(trial.id, TrialState::Complete, {nan ? 0.0 : spec.value.value_or(0.0)});
                if (nan)
                    rawValues.emplace_back(trial.id, *spec.value);
                break;
            case TrialState::Pruned: // stores its last intermediate value as its value, as Optuna 3.1
                if (spec.value)
                    store->reportIntermediate(trial.id, 0, *spec.value);
                store->finishTrial(trial.id, TrialState::Pruned, {});
                break;
            case TrialState::Fail:
                store->finishTrial(trial.id, TrialState::Fail, {});
                [[fallthrough]];
            case TrialState::Running:
            case TrialState::Waiting:
                if (spec.value)
                    rawValues.emplace_back(trial.id, *spec.value);
                break;
            }
        }
    }
    for (const auto& [trialId, value] : rawValues) {
        const std::string type = std::isnan(value)    ? "NAN"
                                 : value == HUGE_VAL  ? "INF_POS"
                                 : value == -HUGE_VAL ? "INF_NEG"
                                                      : "FINITE";
        const std::string stored = std::isfinite(value) ? std::to_string(value) : "NULL";
        storetest::query(path, "INSERT INTO trial_values (trial_id, objective, value, value_type) VALUES (" +
                                   std::to_string(trialId) + ", 0, " + stored + ", '" + type +
                                   "') ON CONFLICT (trial_id, objective) DO UPDATE SET value = excluded.value, "
                                   "value_type = excluded.value_type");
    }
}

QString describe(std::optional<int> number, std::optional<double> value)
{
    if (!number)
        return QStringLiteral("none");
    return QStringLiteral("#%1 = %2").arg(*number).arg(value ? QString::number(*value) : QStringLiteral("?"));
}

} // namespace

class TestHpoBest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void valueOrder();
    void tiesGoToTheLowestNumberInAnyOrder();
    void everyReaderAgrees_data();
    void everyReaderAgrees();

private:
    QTemporaryDir m_dir;
};

void TestHpoBest::valueOrder()
{
    const double inf = HUGE_VAL, nan = std::nan("");
    QVERIFY(betterValue(1.0, 2.0, StudyDirection::Minimize));
    QVERIFY(betterValue(2.0, 1.0, StudyDirection::Maximize));
    QVERIFY(!betterValue(1.0, 1.0, StudyDirection::Minimize)); // strict: an equal value is not better
    QVERIFY(betterValue(inf, 1e308, StudyDirection::Maximize));
    QVERIFY(betterValue(1e308, inf, StudyDirection::Minimize));
    QVERIFY(betterValue(-inf, -1e308, StudyDirection::Minimize));
    QVERIFY(betterValue(-1e308, -inf, StudyDirection::Maximize));
    QVERIFY(!betterValue(inf, inf, StudyDirection::Maximize));
    for (StudyDirection d : {StudyDirection::Minimize, StudyDirection::Maximize}) {
        QVERIFY(!betterValue(nan, 0.0, d)); // NaN never wins ...
        QVERIFY(!betterValue(nan, -inf, d));
        QVERIFY(!betterValue(nan, inf, d));
        QVERIFY(betterValue(inf, nan, d)); // ... and loses to anything, even the worst infinity
        QVERIFY(betterValue(-inf, nan, d));
    }
}

void TestHpoBest::tiesGoToTheLowestNumberInAnyOrder()
{
    // Offered out of order (as a reader that meets trials by completion time would): the number decides.
    BestTracker best(StudyDirection::Maximize);
    QVERIFY(best.offer(5, 1.0));
    QVERIFY(best.offer(2, 1.0));
    QVERIFY(!best.offer(3, 1.0));
    QVERIFY(!best.offer(0, std::nan("")));
    QVERIFY(!best.offer(1, 0.5));
    QCOMPARE(best.number(), std::optional<int>(2));
    QCOMPARE(best.value(), std::optional<double>(1.0));

    TrialRecord running;
    running.state = TrialState::Running;
    running.values = {9.0};
    QVERIFY(!best.offer(running));
    QVERIFY(!rankedValue(running));

    std::vector<TrialRecord> trials(4);
    const std::vector<double> values = {0.5, 0.25, 0.25, 0.75};
    for (std::size_t i = 0; i < trials.size(); ++i) {
        trials[i].number = static_cast<int>(trials.size() - 1 - i); // stored newest first
        trials[i].state = TrialState::Complete;
        trials[i].values = {values[i]};
    }
    // Numbers 3, 2, 1, 0 hold 0.5, 0.25, 0.25, 0.75: trial 1 is the lowest number of the two 0.25s.
    QCOMPARE(bestTrialIndex(trials, StudyDirection::Minimize), std::optional<std::size_t>(2));
    QCOMPARE(rankedTrialNumbers(trials, StudyDirection::Minimize), (std::vector<int>{1, 2, 3, 0}));
    QCOMPARE(rankedTrialNumbers(trials, StudyDirection::Maximize, 2), (std::vector<int>{0, 3}));
}

void TestHpoBest::everyReaderAgrees_data()
{
    QTest::addColumn<BestTrialCase>("c");
    for (const BestTrialCase& c : test::bestTrialCases())
        QTest::newRow(c.name.c_str()) << c;
}

void TestHpoBest::everyReaderAgrees()
{
    QFETCH(BestTrialCase, c);
    const std::string path = m_dir.filePath(QString::fromStdString(c.name) + ".db").toStdString();
    writeCase(path, c);
    const QString wanted = describe(c.bestNumber, c.bestValue);

    // The rule itself, over the trials as a caller builds them.
    const std::vector<TrialRecord> built = test::caseTrials(c);
    const auto index = bestTrialIndex(built, c.direction);
    QCOMPARE(describe(index ? std::optional<int>(built[*index].number) : std::nullopt,
                      index ? std::optional<double>(built[*index].values.front()) : std::nullopt),
             wanted);
    const std::vector<int> ranked = rankedTrialNumbers(built, c.direction, 1);
    QCOMPARE(ranked.empty() ? std::optional<int>() : std::optional<int>(ranked.front()), c.bestNumber);

    auto store = openStore(path, OpenMode::ReadOnly);
    const StudyRecord study = store->requireStudy(c.name);
    const std::vector<TrialRecord> stored = store->trials(study.id);
    QCOMPARE(stored.size(), c.trials.size());

    // `pitwall study best`.
    {
        auto writable = openStore(path);
        const std::optional<TrialRecord> best = Study::load(*writable, c.name).bestTrial();
        QCOMPARE(describe(best ? std::optional<int>(best->number) : std::nullopt,
                          best ? std::optional<double>(best->values.front()) : std::nullopt),
                 wanted);
        QCOMPARE(best ? std::optional<int>(best->number) : std::nullopt, c.bestNumber);
        QCOMPARE(best ? std::optional<double>(best->values.front()) : std::nullopt, c.bestValue);
    }

    // The study list (`pitwall db info`, `pitwall study list`, the window's Studies view).
    const std::vector<StudySummary> summaries = store->listStudies();
    QCOMPARE(summaries.size(), std::size_t(1));
    QCOMPARE(describe(summaries[0].bestTrialNumber, summaries[0].bestValue), wanted);
    QCOMPARE(summaries[0].bestTrialNumber, c.bestNumber);
    QCOMPARE(summaries[0].bestValue, c.bestValue);

    // A search's progress line and a job's message, over the stored trials and over the built ones.
    for (const std::vector<TrialRecord>* trials : {&stored, &built}) {
        const StudyCounts counts = countTrials(*trials, c.direction);
        QCOMPARE(describe(counts.bestTrial, counts.bestValue), wanted);
        QCOMPARE(counts.bestTrial, c.bestNumber);
        QCOMPARE(counts.bestValue, c.bestValue);
    }
}

QTEST_GUILESS_MAIN(TestHpoBest)
#include "tst_hpo_best.moc"
