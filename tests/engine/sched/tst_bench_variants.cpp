// `pitwall bench variants --markdown`: two variants of the smoke config, two seeds each. The printed table has
// LEAD's columns in the documented order, one row per variant in the file's order, and its times and quality
// cell (mean ± sample std) agree with the per-seed values the store holds for the variant's study. If this
// fails, the speed table misnames or reorders its columns, or reports numbers other than the runs it recorded.
// With a `driving` section and one seed, every variant's run is driven on the same routes, and its Driving Score
// cell is the recorded score ± its standard error over routes, as the line under the table says.
#include "../../core/pool/schedtestutil.h"

#include <QtTest>

#include <cmath>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;

namespace {

double mean(const std::vector<double>& values)
{
    double sum = 0;
    for (double v : values)
        sum += v;
    return sum / static_cast<double>(values.size());
}

// The sample mean and standard deviation (n − 1) of `values` as the table prints them: "mean ± std".
QString meanPlusMinusStd(const std::vector<double>& values, int decimals)
{
    const double m = mean(values);
    double squares = 0;
    for (double v : values)
        squares += (v - m) * (v - m);
    const double std = std::sqrt(squares / static_cast<double>(values.size() - 1));
    return QString::number(m, 'f', decimals) + " ± " + QString::number(std, 'f', decimals);
}

// A variants file named NAME.yaml on the smoke config: "name: NAME", its base, then `rest` (seeds, variants, ...).
QString writeVariants(QTemporaryDir& dir, const QString& name, const QString& rest)
{
    return schedtest::writeFile(
        dir, name + ".yaml",
        ("name: " + name + "\nbase: [" + sourcePath("/configs/transfuser/smoke.yaml") + "]\n" + rest).toUtf8());
}

} // namespace

class TestBenchVariants : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void markdownTableMatchesTheStore();
    void drivingScoreWithOneSeedShowsTheStandardError();
    void onlyPicksVariantsByNameEvenWithCommas();
};

void TestBenchVariants::markdownTableMatchesTheStore()
{
    QTemporaryDir dir;
    const QString file = writeVariants(dir, "tiny",
                                       "seeds: [0, 1]\n"
                                       "quality: {metric: waypoint_l1, label: \"Waypoint L1 (m)\", better: lower}\n"
                                       "variants:\n"
                                       "  - {name: Bilinear, overrides: [policy.transfuser.upsample_mode=bilinear]}\n"
                                       "  - {name: Nearest, overrides: [policy.transfuser.upsample_mode=nearest]}\n");
    const QString db = dir.filePath("v.db");
    const CliResult r = runCli({"bench", "variants", file, "--markdown", "--db", db, "data.synthetic.frames=60",
                                "training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1"},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));

    const QStringList lines = r.out.split('\n');
    const qsizetype header = lines.indexOf(QRegularExpression("^\\| Variant \\|.*"));
    QVERIFY2(header >= 0 && header + 3 < lines.size(), qPrintable(r.out));
    QCOMPARE(markdownCells(lines[header]), (QStringList{"Variant", "Pretrain (s)", "Post-train (s)", "Total (s)",
                                                        "Compute FPS", "Full FPS", "Waypoint L1 (m) ↓"}));
    QCOMPARE(markdownCells(lines[header + 1]), (QStringList{"---", "---:", "---:", "---:", "---:", "---:", "---:"}));
    QVERIFY2(r.out.contains("Waypoint L1 (m): mean ± sample std over 2 training seed(s)"), qPrintable(r.out));

    const QStringList variants{"Bilinear", "Nearest"};
    for (int v = 0; v < variants.size(); ++v) {
        const QStringList row = markdownCells(lines[header + 2 + v]);
        QCOMPARE(row.size(), 7);
        QCOMPARE(row[0], variants[v]);
        // One trial per seed in the study "<file name>/<variant>", with its final metrics and stage times.
        const auto trials = schedtest::trials(db, "tiny/" + variants[v].toStdString());
        QCOMPARE(trials.size(), std::size_t(2));
        std::vector<double> pretrain, posttrain, total, quality;
        for (const TrialRecord& t : trials) {
            QCOMPARE(t.state, TrialState::Complete);
            QCOMPARE(t.userAttrs["seed"].get<int>(), t.number);
            pretrain.push_back(t.userAttrs["stage_seconds/pretrain"].get<double>());
            posttrain.push_back(t.userAttrs["stage_seconds/posttrain"].get<double>());
            total.push_back(pretrain.back() + posttrain.back());
            quality.push_back(t.userAttrs["metrics"]["waypoint_l1"].get<double>());
        }
        QVERIFY2(quality[0] != quality[1], "the two seeds trained alike: the std would not be checked");
        QCOMPARE(row[1], QString::number(mean(pretrain), 'f', 1));
        QCOMPARE(row[2], QString::number(mean(posttrain), 'f', 1));
        QCOMPARE(row[3], QString::number(mean(total), 'f', 1));
        QCOMPARE(row[6], meanPlusMinusStd(quality, 3));
    }
    QVERIFY2(header + 2 + variants.size() == lines.size() || lines[header + 2 + variants.size()].isEmpty(),
             qPrintable(r.out)); // no row beyond the two variants
}

void TestBenchVariants::drivingScoreWithOneSeedShowsTheStandardError()
{
    QTemporaryDir dir;
    const QString file = writeVariants(dir, "drive",
                                       "seeds: [0]\n"
                                       "driving: {routes: 2, route_seconds: 4, seed: 3}\n"
                                       "variants:\n"
                                       "  - {name: Bilinear, overrides: [policy.transfuser.upsample_mode=bilinear]}\n"
                                       "  - {name: Nearest, overrides: [policy.transfuser.upsample_mode=nearest]}\n");
    const QString db = dir.filePath("d.db");
    const CliResult r = runCli({"bench", "variants", file, "--markdown", "--db", db, "data.synthetic.frames=60",
                                "training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1"},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("Driving Score: ± is the standard error over routes (1 seed, 2 routes"), qPrintable(r.out));

    const QStringList lines = r.out.split('\n');
    const qsizetype header = lines.indexOf(QRegularExpression("^\\| Variant \\|.*"));
    QVERIFY2(header >= 0 && header + 3 < lines.size(), qPrintable(r.out));
    QCOMPARE(markdownCells(lines[header]).size(), 8); // no "DS s.e." column with one seed
    QCOMPARE(markdownCells(lines[header]).back(), QString("Driving Score ↑"));

    auto store = pitwall::openStore(db.toStdString(), pitwall::OpenMode::ReadOnly);
    const std::vector<BenchmarkRecord> driving = store->benchmarks("driving"); // one per run, in variant order
    const std::vector<BenchmarkRecord> variants = store->benchmarks("variants");
    QCOMPARE(driving.size(), std::size_t(2));
    QCOMPARE(variants.size(), std::size_t(2));
    // Paired: both variants' runs were scored on the same two routes.
    QCOMPARE(driving[0].parameters["route_seeds"].size(), std::size_t(2));
    QCOMPARE(driving[1].parameters["route_seeds"], driving[0].parameters["route_seeds"]);
    for (int v = 0; v < 2; ++v) {
        const double score = driving[v].results["driving_score"].get<double>();
        const double standardError = driving[v].results["driving_score_stderr"].get<double>();
        QCOMPARE(markdownCells(lines[header + 2 + v]).back(),
                 QString::number(score, 'f', 1) + " ± " + QString::number(standardError, 'f', 1));
        QCOMPARE(variants[v].results["driving_score_stderr"].get<double>(), standardError);
    }
    // The second variant against the first, route by route: with one seed the mean of the per-route differences
    // is the difference of the scores.
    QVERIFY2(r.out.contains("Driving Score, paired differences to Bilinear over the same 2 routes"), qPrintable(r.out));
    QVERIFY(!variants[0].results.contains("driving_score_diff"));
    const double diff = driving[1].results["driving_score"].get<double>() - driving[0].results["driving_score"].get<double>();
    QVERIFY(std::abs(variants[1].results["driving_score_diff"].get<double>() - diff) < 1e-9);
    QVERIFY(variants[1].results["driving_score_diff_stderr"].get<double>() >= 0);
}

// --only is comma-separated: a variant whose name has a comma is still picked by its name, the order of --only is
// kept, and a name that matches no variant is an error naming the file's variants (before, it was ignored).
void TestBenchVariants::onlyPicksVariantsByNameEvenWithCommas()
{
    QTemporaryDir dir;
    const QString file = writeVariants(dir, "named",
                                       "seeds: [0]\n"
                                       "quality: {metric: waypoint_l1, label: \"Waypoint L1 (m)\", better: lower}\n"
                                       "variants:\n"
                                       "  - {name: Baseline, overrides: []}\n"
                                       "  - {name: \"Logits, nearest\",\n"
                                       "     overrides: [policy.transfuser.upsample_mode=nearest]}\n"
                                       "  - {name: Frozen, overrides: [policy.transfuser.freeze_backbone=true]}\n");
    const QString db = dir.filePath("v.db");
    const CliResult picked =
        runCli({"bench", "variants", file, "--only", "Frozen,Logits, nearest", "--check", "--db", db}, dir.path());
    QVERIFY2(picked.exitCode == 0, qPrintable(picked.err));
    QCOMPARE(picked.out.split('\n').filter(QRegularExpression("^ok: variant ")),
             (QStringList{"ok: variant 'Frozen': study 'named/Frozen', 1 seed(s)",
                          "ok: variant 'Logits, nearest': study 'named/Logits, nearest', 1 seed(s)"}));
    const CliResult typo =
        runCli({"bench", "variants", file, "--only", "Baseline,Frozn", "--check", "--db", db}, dir.path());
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.contains("has no variant named 'Frozn'; its variants: 'Baseline', 'Logits, nearest', 'Frozen'"),
             qPrintable(typo.err));
}

QTEST_GUILESS_MAIN(TestBenchVariants)
#include "tst_bench_variants.moc"
