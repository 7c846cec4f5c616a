// The closed-loop driving score as a search objective (`pitwall hpo --objective driving_score`):
// - a built-in search naming driving_score drives every completed trial on the same routes (hpo.driving.*), and the
//   trial's second value is the driving score recorded with its run; its standard error is kept and can constrain;
// - the routes pair: every trial's evaluation has the same route seeds, as many as hpo.driving.routes;
// - LEAD's variants (--labels) are kept with the study and study best names the front's trials by them;
// - driving_score can be the one objective: each trial's value is its recorded score; --final-epochs is refused;
// - a model that plans no waypoints (AutoSpeed-lite) is refused before anything is created, and a misspelt metric
//   gets "did you mean".
// If this fails, a speed-quality search scores its trials on different routes, or reports a driving score that is
// not the one recorded with the trial's run.
#include "../pool/schedtestutil.h"

#include "core/hpo/triallabels.h"
#include "core/store/store.h"

#include <QtTest>

#include "tests/support/components.h"

using namespace pitwall;
using namespace schedtest;

namespace {

const QString kSmoke = pitwall::test::sourcePath("/configs/transfuser/smoke.yaml");
const QString kSpace = pitwall::test::sourcePath("/configs/transfuser/hpo/speed_quality.yaml");

} // namespace

class TestSearchDriving : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void drivingScoreIsAnObjective();
    void drivingScoreIsTheOneObjective();
    void aModelThatDoesNotDriveIsRefused();

private:
    QTemporaryDir m_dir;
};

void TestSearchDriving::drivingScoreIsAnObjective()
{
    QVERIFY(m_dir.isValid());
    const QString db = m_dir.filePath("drive.db");
    const CliResult r = runCli({"hpo", kSmoke, "hpo.driving.routes=5", "--space", kSpace, "--trials", "2", "--epochs",
                                "1", "--partition", "DPX", "--db", db, "--study", "sq", "--sampler", "random",
                                "--seed", "2", "--objective", "full_fps", "--direction", "maximize", "--objective",
                                "driving_score", "--direction", "maximize", "--constraint", "driving_score_stderr<=1000",
                                "--labels", pitwall::test::sourcePath("/configs/transfuser/hpo/lead_variants.yaml")},
                               m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const std::vector<TrialRecord> all = trials(db, "sq");
    QCOMPARE(all.size(), std::size_t(2));
    auto store = openStore(db.toStdString());
    // LEAD's eight variants are kept with the study; study best names the ones its front trials are.
    const std::vector<TrialLabel> labels =
        trialLabelsFromJson(store->requireStudy("sq").userAttrs.value(kLabelsAttr, Json()));
    QCOMPARE(labels.size(), std::size_t(8));
    QCOMPARE(labels[2].name, std::string("Logits + nearest"));
    const CliResult best = runCli({"study", "best", "--db", db, "--study", "sq", "--json"}, m_dir.path());
    QCOMPARE(best.exitCode, 0);
    for (const Json& t : Json::parse(best.out.toStdString())["best_trials"]) {
        const TrialRecord& record = all.at(t["number"].get<std::size_t>());
        QCOMPARE(t["labels"], Json(labelsOf(record, labels)));
    }
    std::vector<BenchmarkRecord> drives = store->benchmarks("driving");
    QCOMPARE(drives.size(), std::size_t(2));
    const Json seeds = drives.front().parameters["route_seeds"];
    QCOMPARE(seeds.size(), std::size_t(5));
    for (const BenchmarkRecord& d : drives) {
        QCOMPARE(d.parameters["route_seeds"], seeds); // paired: the same routes for every trial
        QCOMPARE(d.parameters["routes"].get<int>(), 5);
    }
    for (const TrialRecord& t : all) {
        QVERIFY2(t.state == TrialState::Complete, qPrintable(QString::fromStdString(failReason(t))));
        QCOMPARE(t.values.size(), std::size_t(2));
        // The second value is the score recorded with the trial's run, and its standard error is kept beside it.
        QCOMPARE(t.values[1], t.userAttrs["driving_score"].get<double>());
        QVERIFY(t.values[1] >= 0.0 && t.values[1] <= 100.0);
        QVERIFY(t.values[0] > 0.0); // full FPS
        const double stderr = t.userAttrs["driving_score_stderr"].get<double>();
        QVERIFY(stderr > 0.0);
        const Json constraints = t.systemAttrs["constraints"];
        QCOMPARE(constraints.size(), std::size_t(1));
        QCOMPARE(constraints[0].get<double>(), stderr - 1000.0);
        // The run's own record of it names the same score.
        bool found = false;
        for (const BenchmarkRecord& d : drives)
            found = found || (d.parameters["run_id"] == t.userAttrs["run_id"] &&
                              d.results["driving_score"].get<double>() == t.values[1]);
        QVERIFY(found);
    }
}

void TestSearchDriving::drivingScoreIsTheOneObjective()
{
    const QString db = m_dir.filePath("one.db");
    const CliResult r = runCli({"hpo", kSmoke, "hpo.driving.routes=3", "hpo.driving.route_seconds=8", "--space", kSpace,
                                "--trials", "2", "--epochs", "1", "--partition", "DPX", "--db", db, "--study", "ds",
                                "--sampler", "random", "--seed", "3", "--objective", "driving_score", "--direction",
                                "maximize"},
                               m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const std::vector<TrialRecord> all = trials(db, "ds");
    QCOMPARE(all.size(), std::size_t(2));
    auto store = openStore(db.toStdString());
    QCOMPARE(store->requireStudy("ds").directions, std::vector<StudyDirection>{StudyDirection::Maximize});
    for (const TrialRecord& t : all) {
        QVERIFY2(t.state == TrialState::Complete, qPrintable(QString::fromStdString(failReason(t))));
        QCOMPARE(t.values.size(), std::size_t(1));
        QCOMPARE(t.values[0], t.userAttrs["driving_score"].get<double>()); // the score, not the validation loss
    }
    QCOMPARE(store->benchmarks("driving").size(), std::size_t(2));
    // Its best is the better score.
    const CliResult best = runCli({"study", "best", "--db", db, "--study", "ds", "--json"}, m_dir.path());
    QCOMPARE(best.exitCode, 0);
    const double top = std::max(all[0].values[0], all[1].values[0]);
    QCOMPARE(Json::parse(best.out.toStdString())["value"].get<double>(), top);

    const CliResult final = runCli({"hpo", kSmoke, "--space", kSpace, "--trials", "1", "--db", m_dir.filePath("f.db"),
                                    "--objective", "driving_score", "--direction", "maximize", "--final-epochs", "1"},
                                   m_dir.path());
    QCOMPARE(final.exitCode, 2);
    QVERIFY2(final.err.contains("closed-loop 'driving_score'"), qPrintable(final.err));
}

void TestSearchDriving::aModelThatDoesNotDriveIsRefused()
{
    const QString db = m_dir.filePath("refused.db");
    const CliResult autospeed = runCli(
        {"hpo", pitwall::test::sourcePath("/configs/autospeed/smoke.yaml"), "--space",
         pitwall::test::sourcePath("/configs/autospeed/hpo/all_params.yaml"), "--trials", "2", "--db", db, "--objective",
         "val/map50", "--direction", "maximize", "--objective", "driving_score", "--direction", "maximize"},
        m_dir.path());
    QCOMPARE(autospeed.exitCode, 2);
    QVERIFY2(autospeed.err.contains("a closed-loop driving metric, but model 'autospeed' does not drive"),
             qPrintable(autospeed.err));
    const CliResult typo =
        runCli({"hpo", kSmoke, "--space", kSpace, "--trials", "2", "--db", db, "--objective", "full_fps", "--direction",
                "maximize", "--objective", "driving_scor", "--direction", "maximize"},
               m_dir.path());
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.contains("did you mean driving_score?"), qPrintable(typo.err));
    const CliResult alone = runCli({"hpo", pitwall::test::sourcePath("/configs/autospeed/smoke.yaml"), "--space",
                                    pitwall::test::sourcePath("/configs/autospeed/hpo/all_params.yaml"), "--trials", "2",
                                    "--db", db, "--objective", "driving_score", "--direction", "maximize"},
                                   m_dir.path());
    QCOMPARE(alone.exitCode, 2);
    QVERIFY2(alone.err.contains("model 'autospeed' does not drive"), qPrintable(alone.err));
    const QString labels = writeFile(m_dir, "labels.yaml", "Baseline: {upsample_mode: bicubic}\n");
    const CliResult bad = runCli({"hpo", kSmoke, "--space", kSpace, "--trials", "2", "--db", db, "--labels", labels},
                                 m_dir.path());
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("labels.yaml:1:27: label 'Baseline': 'bicubic' is not one of upsample_mode's values "
                              "(bilinear, nearest)"),
             qPrintable(bad.err));
    QVERIFY(!QFile::exists(db));
}

QTEST_GUILESS_MAIN(TestSearchDriving)
#include "tst_search_driving.moc"
