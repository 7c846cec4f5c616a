// `pitwall hpo` with several objectives, over real searches of the trial script (mode mo prints
// {"objectives": [(x - 0.3)^2, (x - 0.7)^2], "f1": ..., "f2": ..., "fps": 100 x}):
// - a command's "objectives" list, one value per --direction, in order;
// - --objective KEY --direction D in pairs, on the numbers of the final line, with --constraint "KEY<=X" stored as
//   Optuna stores constraints (value - X) and infeasible trials off the front;
// - a wrong count or an unknown metric fails the trial with the reason; malformed pairs and constraints are refused
//   before anything is created.
// If this fails, a multi-objective search stores values in the wrong order, keeps infeasible trials on its front, or
// takes options that do not pair up.
#include "../pool/schedtestutil.h"

#include "core/hpo/study.h"
#include "core/store/pareto.h"
#include "core/store/store.h"

#include <QtTest>

#include <cmath>

using namespace pitwall;
using namespace schedtest;

namespace {

double f1(double x)
{
    return (x - 0.3) * (x - 0.3);
}
double f2(double x)
{
    return (x - 0.7) * (x - 0.7);
}
double g2(double x) // mode mocurve's second objective
{
    return (x - 0.4) * (x - 0.4);
}

} // namespace

class TestSearchMultiObjective : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void commandObjectivesInOrder();
    void namedObjectivesAndConstraints();
    void trialsFailWithTheReason();
    void vectorsArePruned();
    void badPairsAndConstraintsAreRefused_data();
    void badPairsAndConstraintsAreRefused();

private:
    CliResult search(const QString& db, const QStringList& extra)
    {
        const QString space = writeFile(m_dir, "space.yaml", "mode: mo\nx: {type: uniform, min: 0.0, max: 1.0}\n");
        return runCli(QStringList{"hpo", "--db", db, "--command", trialCommand(), "--space", space, "--seed", "3",
                                  "--pruner", "none", "--heartbeat-interval", "0.2"} +
                          extra,
                      m_dir.path());
    }
    QTemporaryDir m_dir;
};

void TestSearchMultiObjective::commandObjectivesInOrder()
{
    const QString db = m_dir.filePath("order.db");
    const CliResult r = search(db, {"--study", "mo", "--trials", "6", "--direction", "minimize", "--direction",
                                    "minimize", "--partition", "SPX"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::vector<TrialRecord> all = trials(db, "mo");
    QCOMPARE(all.size(), std::size_t(6));
    for (const TrialRecord& t : all) {
        QCOMPARE(t.state, TrialState::Complete);
        const double x = param(t, "x").get<double>();
        QCOMPARE(t.values, (std::vector<double>{f1(x), f2(x)}));
        QCOMPARE(t.systemAttrs["nsga2:generation"].get<int>(), 0); // NSGA-II: the default for several objectives
    }
    // On [0.3, 0.7] the two objectives trade off: nothing dominates a trial there, so each is on the front.
    const auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    const StudyRecord study = store->requireStudy("mo");
    QCOMPARE(study.directions, (std::vector<StudyDirection>{StudyDirection::Minimize, StudyDirection::Minimize}));
    std::vector<int> front;
    for (std::size_t i : paretoFrontIndices(all, study.directions))
        front.push_back(all[i].number);
    for (const TrialRecord& t : all) {
        const double x = param(t, "x").get<double>();
        if (x >= 0.3 && x <= 0.7)
            QVERIFY(std::find(front.begin(), front.end(), t.number) != front.end());
    }
    QVERIFY2(r.out.contains(QString("Pareto front: %1 trial(s) (objectives[0], objectives[1])").arg(front.size())),
             qPrintable(r.out));
    QVERIFY2(!r.out.contains("best parameters written"), qPrintable(r.out)); // no single best
    QVERIFY(!QFile::exists(m_dir.filePath("mo/best_params.yaml")));
}

void TestSearchMultiObjective::namedObjectivesAndConstraints()
{
    const QString db = m_dir.filePath("named.db");
    const CliResult r =
        search(db, {"--study", "named", "--trials", "8", "--sampler", "random", "--objective", "f1", "--direction",
                    "minimize", "--objective", "fps", "--direction", "maximize", "--constraint", "fps <= 60", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::vector<TrialRecord> all = trials(db, "named");
    QCOMPARE(all.size(), std::size_t(8));
    for (const TrialRecord& t : all) {
        const double x = param(t, "x").get<double>();
        QCOMPARE(t.values, (std::vector<double>{f1(x), 100 * x}));
        QCOMPARE(t.systemAttrs[kConstraintsAttr], Json::array({100 * x - 60}));
    }
    // The front by hand: feasible (x <= 0.6), then minimise f1 and maximise x: x in [0.3, 0.6] trade off, and the
    // largest feasible x below 0.3 if no feasible x is in [0.3, 0.6].
    const Json report = Json::parse(r.out.toStdString());
    std::vector<int> front = report["pareto_front"].get<std::vector<int>>();
    QVERIFY(!front.empty());
    for (const TrialRecord& t : all) {
        const double x = param(t, "x").get<double>();
        const bool on = std::find(front.begin(), front.end(), t.number) != front.end();
        if (x > 0.6)
            QVERIFY2(!on, qPrintable(QString("infeasible trial %1 (x = %2) on the front").arg(t.number).arg(x)));
        else if (x >= 0.3)
            QVERIFY2(on, qPrintable(QString("trial %1 (x = %2) missing from the front").arg(t.number).arg(x)));
    }
    QCOMPARE(report["objectives"], Json::array({"f1", "fps"}));
    QCOMPARE(report["best_params"], Json(nullptr));
}

void TestSearchMultiObjective::trialsFailWithTheReason()
{
    const QString db = m_dir.filePath("fail.db");
    // Three directions, but the command prints two values.
    const CliResult three = search(db, {"--study", "three", "--trials", "2", "--direction", "minimize", "--direction",
                                        "minimize", "--direction", "maximize"});
    QCOMPARE(three.exitCode, 1); // the search ran; every trial failed
    QVERIFY2(three.err.contains("no trial completed"), qPrintable(three.err));
    for (const TrialRecord& t : trials(db, "three")) {
        QCOMPARE(t.state, TrialState::Fail);
        QCOMPARE(failReason(t), std::string("the command printed 2 objectives; the study has 3"));
    }
    // A metric the trial does not record.
    const CliResult unknown = search(db, {"--study", "unknown", "--trials", "1", "--objective", "nope",
                                          "--direction", "minimize", "--objective", "fps", "--direction", "maximize"});
    QCOMPARE(unknown.exitCode, 1);
    const std::vector<TrialRecord> failed = trials(db, "unknown");
    QCOMPARE(failed.size(), std::size_t(1));
    QCOMPARE(failed[0].state, TrialState::Fail);
    QCOMPARE(failReason(failed[0]), std::string("the trial recorded no 'nope' (it recorded: f1, f2, fps)"));
}

void TestSearchMultiObjective::vectorsArePruned()
{
    // Intermediate vectors each step; the median pruner read for vectors stops trials dominated at their step by more
    // than half of the completed ones.
    const QString db = m_dir.filePath("prune.db");
    const QString space = writeFile(m_dir, "curve.yaml", "mode: mocurve\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    const CliResult r = runCli({"hpo", "--db", db, "--command", trialCommand(), "--space", space, "--seed", "5",
                                "--sampler", "random", "--pruner", "median", "--pruner-startup-trials", "2",
                                "--heartbeat-interval", "0.2", "--study", "curves", "--trials", "12", "--direction",
                                "minimize", "--direction", "minimize"},
                               m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    int pruned = 0, complete = 0;
    for (const TrialRecord& t : trials(db, "curves")) {
        const double x = param(t, "x").get<double>();
        QVERIFY(!t.intermediateVectors.empty());
        const auto& [step, vector] = *t.intermediateVectors.begin();
        QCOMPARE(step, std::int64_t(0));
        QCOMPARE(vector, (std::vector<double>{f1(x) + 1.0, g2(x) + 1.0}));
        if (t.state == TrialState::Pruned) {
            ++pruned;
            QVERIFY(t.intermediateVectors.size() < 4); // stopped before its last step
        } else {
            QCOMPARE(t.state, TrialState::Complete);
            ++complete;
            QCOMPARE(t.intermediateVectors.size(), std::size_t(4));
            QCOMPARE(t.values, (std::vector<double>{f1(x), g2(x)}));
        }
    }
    QCOMPARE(pruned + complete, 12);
    QVERIFY2(pruned > 0 && complete >= 2, qPrintable(QString("%1 pruned, %2 complete").arg(pruned).arg(complete)));
}

void TestSearchMultiObjective::badPairsAndConstraintsAreRefused_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("objectives without directions")
        << QStringList{"--objective", "f1", "--objective", "fps", "--direction", "minimize"}
        << "--objective and --direction come in pairs, one per objective: 2 objectives, 1 direction";
    QTest::newRow("one objective, two directions")
        << QStringList{"--objective", "f1", "--direction", "minimize", "--direction", "maximize"}
        << "--objective and --direction come in pairs, one per objective: 2 directions, 1 objective";
    QTest::newRow("no operator") << QStringList{"--constraint", "fps<60"}
                                 << "--constraint 'fps<60' has no <= or >=: give KEY<=X or KEY>=X, e.g. \"full_fps>=30\"";
    QTest::newRow("no bound") << QStringList{"--constraint", "fps>=fast"}
                              << "--constraint 'fps>=fast' has no finite number after the operator";
}

void TestSearchMultiObjective::badPairsAndConstraintsAreRefused()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    const QString db = m_dir.filePath("refused.db");
    const CliResult r = search(db, QStringList{"--study", "bad", "--trials", "2"} + extra);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(trials(db, "bad").empty()); // nothing created
}

QTEST_GUILESS_MAIN(TestSearchMultiObjective)
#include "tst_search_multiobjective.moc"
