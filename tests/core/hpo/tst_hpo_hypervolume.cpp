// Exact hypervolume and exclusive contributions, against values worked out by hand and against brute-force
// inclusion-exclusion over the union of boxes. If this fails, multi-objective search measures its fronts wrong:
// TPE weights trials by the wrong contributions and reports compare fronts by the wrong volume.
#include "core/hpo/hypervolume.h"
#include "core/store/pareto.h"
#include "core/util/error.h"

#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace pitwall;

namespace {

using Points = std::vector<std::vector<double>>;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double hv(const Points& points, const std::vector<double>& reference)
{
    return hypervolume(points, reference);
}

// The volume of the union of the boxes [p, reference): the sum over non-empty subsets S of
// (-1)^(|S|+1) times the volume of the boxes' intersection, prod_k max(0, reference_k - max_{p in S} p_k).
double inclusionExclusion(const Points& points, const std::vector<double>& reference)
{
    const std::size_t n = points.size();
    double total = 0.0;
    for (std::uint32_t subset = 1; subset < (1u << n); ++subset) {
        std::vector<double> corner(reference.size(), -kInf);
        int count = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if ((subset >> i) & 1u) {
                ++count;
                for (std::size_t k = 0; k < reference.size(); ++k)
                    corner[k] = std::max(corner[k], points[i][k]);
            }
        }
        double volume = 1.0;
        for (std::size_t k = 0; k < reference.size(); ++k)
            volume *= std::max(0.0, reference[k] - corner[k]);
        total += count % 2 == 1 ? volume : -volume;
    }
    return total;
}

// Random points, each value drawn from [0, 1.1) (some beyond the reference 1) or, with `ties`, from the
// integers 0..5 with reference 5 (repeated values in every objective, duplicates, points on the reference).
Points randomPoints(std::mt19937_64& rng, std::size_t count, std::size_t dims, bool ties)
{
    std::uniform_real_distribution<double> real(0.0, 1.1);
    std::uniform_int_distribution<int> integer(0, 5);
    Points points(count, std::vector<double>(dims));
    for (auto& p : points) {
        for (double& v : p)
            v = ties ? integer(rng) : real(rng);
    }
    return points;
}

bool close(double actual, double expected, double tolerance)
{
    return std::abs(actual - expected) <= tolerance;
}

} // namespace

class TestHypervolume : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void staircase2d();
    void boxes3d();
    void boxes4d();
    void singlePoint5d();
    void oneObjective();
    void duplicatesAndDominatedAddNothing();
    void pointsOnOrBeyondReferenceAddNothing();
    void orderDoesNotMatter();
    void matchesInclusionExclusion_data();
    void matchesInclusionExclusion();
    void algorithmsAgreeOnLargerSets();
    void contributionsOfStaircase();
    void contributionsMatchInclusionExclusion();
    void contributionsOfDominatedAndDuplicates();
    void errors();
    void minusInfinity();
    void timing5d();
    void defaultReferenceCountsEveryTrial();
};

void TestHypervolume::staircase2d()
{
    // Strips from the left: 3 x 1 + 2 x 1 + 1 x 1.
    QCOMPARE(hv({{1, 3}, {2, 2}, {3, 1}}, {4, 4}), 6.0);
    QCOMPARE(hv({}, {4, 4}), 0.0);
}

void TestHypervolume::boxes3d()
{
    // Three 3x3x1 slabs in [0,3)^3: everything but the cube [0,2)^3 that none of them reaches, 27 - 8.
    QCOMPARE(hv({{0, 0, 2}, {0, 2, 0}, {2, 0, 0}}, {3, 3, 3}), 19.0);
    // Boxes 3x3x1 and 2x2x3 overlapping in 2x2x1: 9 + 12 - 4.
    QCOMPARE(hv({{1, 1, 3}, {2, 2, 1}}, {4, 4, 4}), 17.0);
    // The same with a point inside both boxes and one inside the first only.
    QCOMPARE(hv({{1, 1, 3}, {2, 2, 1}, {2, 2, 3}, {3, 1, 3.5}}, {4, 4, 4}), 17.0);
}

void TestHypervolume::boxes4d()
{
    // Two 2x2x2x1 boxes overlapping in 1x2x2x1: 8 + 8 - 4 (the WFG path).
    QCOMPARE(hv({{0, 0, 0, 1}, {1, 0, 0, 0}}, {2, 2, 2, 2}), 12.0);
    // Four unit-thick slabs in [0,2)^4, one per objective: 16 minus the unit cube none reaches.
    QCOMPARE(hv({{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}, {2, 2, 2, 2}), 15.0);
}

void TestHypervolume::singlePoint5d()
{
    QCOMPARE(hv({{0.5, 1, 1.5, 2, 2.5}}, {3, 3, 3, 3, 3}), 2.5 * 2 * 1.5 * 1 * 0.5);
    QCOMPARE(hv({{-1, -2, -3, -4, -5, -6}}, {0, 0, 0, 0, 0, 0}), 720.0);
}

void TestHypervolume::oneObjective()
{
    QCOMPARE(hv({{3}, {1}, {2}, {7}}, {5}), 4.0);
}

void TestHypervolume::duplicatesAndDominatedAddNothing()
{
    QCOMPARE(hv({{1, 3}, {2, 2}, {3, 1}, {2, 2}, {3, 3}, {1, 3}, {3.5, 1}}, {4, 4}), 6.0);
    QCOMPARE(hv({{0, 0, 2}, {0, 2, 0}, {2, 0, 0}, {0, 2, 0}, {1, 2, 2}, {2, 2, 2}}, {3, 3, 3}), 19.0);
    QCOMPARE(hv({{0, 0, 0, 1}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 1, 1, 1}, {1, 0, 0, 1}}, {2, 2, 2, 2}), 12.0);
}

void TestHypervolume::pointsOnOrBeyondReferenceAddNothing()
{
    QCOMPARE(hv({{1, 3}, {2, 2}, {3, 1}, {4, 0}, {0, 4}, {-1, 5}, {9, 9}}, {4, 4}), 6.0);
    QCOMPARE(hv({{4, 0}}, {4, 4}), 0.0);
    QCOMPARE(hv({{0, 0, 0, 0, 3}}, {3, 3, 3, 3, 3}), 0.0);
    QCOMPARE(hv({{0, 0, 0, 0, kInf}, {1, 1, 1, 1, 1}}, {3, 3, 3, 3, 3}), 32.0);
}

void TestHypervolume::orderDoesNotMatter()
{
    std::mt19937_64 rng(7);
    for (std::size_t dims : {2u, 3u, 4u, 5u}) {
        Points points = randomPoints(rng, 12, dims, dims % 2 == 0);
        const std::vector<double> reference(dims, dims % 2 == 0 ? 5.0 : 1.0);
        const double expected = hv(points, reference);
        QVERIFY(expected > 0);
        for (int round = 0; round < 5; ++round) {
            std::shuffle(points.begin(), points.end(), rng);
            QCOMPARE(hv(points, reference), expected);
        }
    }
}

void TestHypervolume::matchesInclusionExclusion_data()
{
    QTest::addColumn<int>("dims");
    QTest::addColumn<bool>("ties");
    for (int dims = 2; dims <= 6; ++dims) {
        QTest::addRow("%dd", dims) << dims << false;
        QTest::addRow("%dd ties", dims) << dims << true;
    }
}

void TestHypervolume::matchesInclusionExclusion()
{
    QFETCH(int, dims);
    QFETCH(bool, ties);
    std::mt19937_64 rng(1000 + dims * 2 + (ties ? 1 : 0));
    const std::vector<double> reference(dims, ties ? 5.0 : 1.0);
    for (int round = 0; round < 40; ++round) {
        const std::size_t count = 1 + round % 10;
        const Points points = randomPoints(rng, count, dims, ties);
        const double expected = inclusionExclusion(points, reference);
        const double actual = hv(points, reference);
        QVERIFY2(close(actual, expected, 1e-9 * expected),
                 qPrintable(QString("round %1, %2 points: %3 vs inclusion-exclusion %4")
                                .arg(round)
                                .arg(count)
                                .arg(actual, 0, 'g', 17)
                                .arg(expected, 0, 'g', 17)));
    }
}

void TestHypervolume::algorithmsAgreeOnLargerSets()
{
    // A set in d objectives and the same set with an extra objective at 0 against reference 1 have the same
    // volume, but go through different algorithms (2-D sweep vs 3-D sweep, 3-D sweep vs WFG).
    std::mt19937_64 rng(99);
    for (std::size_t dims : {2u, 3u, 4u}) {
        for (bool ties : {false, true}) {
            Points points = randomPoints(rng, 60, dims, ties);
            std::vector<double> reference(dims, ties ? 5.0 : 1.0);
            const double expected = hv(points, reference);
            for (auto& p : points)
                p.push_back(0.0);
            reference.push_back(1.0);
            QVERIFY2(close(hv(points, reference), expected, 1e-9 * expected), qPrintable(QString::number(dims)));
        }
    }
}

void TestHypervolume::contributionsOfStaircase()
{
    const Points points = {{1, 3}, {2, 2}, {3, 1}};
    QCOMPARE(hypervolumeContributions(points, std::vector<double>{4, 4}), std::vector<double>({1, 1, 1}));
    QCOMPARE(hypervolumeContributions(Points{}, std::vector<double>{4, 4}), std::vector<double>());
    // Each 3x3x1 slab keeps 9 - 3 - 3 + 1 = 4 to itself.
    QCOMPARE(hypervolumeContributions(Points{{0, 0, 2}, {0, 2, 0}, {2, 0, 0}}, std::vector<double>{3, 3, 3}),
             std::vector<double>({4, 4, 4}));
}

void TestHypervolume::contributionsMatchInclusionExclusion()
{
    std::mt19937_64 rng(2024);
    for (std::size_t dims = 2; dims <= 6; ++dims) {
        for (int round = 0; round < 20; ++round) {
            const bool ties = round % 2 == 1;
            const std::vector<double> reference(dims, ties ? 5.0 : 1.0);
            const Points points = randomPoints(rng, 1 + round % 10, dims, ties);
            const double total = inclusionExclusion(points, reference);
            const std::vector<double> contributions = hypervolumeContributions(points, reference);
            QCOMPARE(contributions.size(), points.size());
            double sum = 0.0;
            for (std::size_t i = 0; i < points.size(); ++i) {
                Points others = points;
                others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
                const double expected = total - inclusionExclusion(others, reference);
                QVERIFY2(close(contributions[i], expected, 1e-9 * total),
                         qPrintable(QString("%1 objectives, round %2, point %3: %4 vs %5")
                                        .arg(dims)
                                        .arg(round)
                                        .arg(i)
                                        .arg(contributions[i], 0, 'g', 17)
                                        .arg(expected, 0, 'g', 17)));
                QVERIFY(contributions[i] >= 0.0);
                sum += contributions[i];
            }
            QVERIFY2(sum <= total * (1 + 1e-12), "the exclusive parts are disjoint pieces of the union");
        }
    }
}

void TestHypervolume::contributionsOfDominatedAndDuplicates()
{
    // (3,3) is dominated, (2,2) appears twice: removing either copy changes nothing; (5,0) is beyond the reference.
    const Points points = {{1, 3}, {2, 2}, {3, 1}, {3, 3}, {2, 2}, {5, 0}};
    QCOMPARE(hypervolumeContributions(points, std::vector<double>{4, 4}), std::vector<double>({1, 0, 1, 0, 0, 0}));
    const Points points5d = {{0, 0, 0, 0, 1}, {1, 1, 1, 1, 1}, {1, 0, 0, 0, 0}};
    QCOMPARE(hypervolumeContributions(points5d, std::vector<double>{2, 2, 2, 2, 2}), std::vector<double>({8, 0, 8}));
}

void TestHypervolume::errors()
{
    const std::vector<double> reference = {4, 4};
    QVERIFY_THROWS_EXCEPTION(InputError, hv({{1, kNaN}}, reference));
    QVERIFY_THROWS_EXCEPTION(InputError, hv({{5, kNaN}}, reference)); // even where it would add nothing
    QVERIFY_THROWS_EXCEPTION(InputError, hv({{1, 3}, {1, 2, 3}}, reference));
    QVERIFY_THROWS_EXCEPTION(InputError, hv({{1}}, reference));
    QVERIFY_THROWS_EXCEPTION(InputError, hv({{1, 3}}, {4, kNaN}));
    QVERIFY_THROWS_EXCEPTION(InputError, hv({{1, 3}}, {4, kInf}));
    QVERIFY_THROWS_EXCEPTION(InputError, hv({}, {}));
    QVERIFY_THROWS_EXCEPTION(InputError, hypervolumeContributions(Points{{1, kNaN}}, reference));
    QVERIFY_THROWS_EXCEPTION(InputError, hypervolumeContributions(Points{{1, 2, 3}}, reference));
    QVERIFY_THROWS_EXCEPTION(InputError, hypervolumeContributions(Points{{1, 2}}, std::vector<double>{}));
}

void TestHypervolume::minusInfinity()
{
    QCOMPARE(hv({{-kInf, 1}}, {3, 3}), kInf);
    QCOMPARE(hv({{0, 0, 0, 0}, {1, -kInf, 2, 2}}, {3, 3, 3, 3}), kInf);
    // Not below the reference in the other objective: it adds nothing, so nothing is unbounded.
    QCOMPARE(hv({{-kInf, 5}, {1, 1}}, {3, 3}), 4.0);
    QCOMPARE(hv({{-kInf, 3}, {1, 1}}, {3, 3}), 4.0); // on the reference counts as not below it
    // The finite point keeps [0,3) x [0,1) to itself; the other's exclusive part is unbounded.
    QCOMPARE(hypervolumeContributions(Points{{-kInf, 1}, {0, 0}}, std::vector<double>{3, 3}),
             std::vector<double>({kInf, 3}));
    // Dominated by an unbounded point: still nothing of its own.
    QCOMPARE(hypervolumeContributions(Points{{-kInf, 1}, {0, 2}}, std::vector<double>{3, 3}),
             std::vector<double>({kInf, 0}));
}

void TestHypervolume::timing5d()
{
    // 100 points on the unit sphere's positive part: none dominates another.
    std::mt19937_64 rng(5);
    std::normal_distribution<double> normal;
    Points points(100, std::vector<double>(5));
    for (auto& p : points) {
        double norm = 0.0;
        for (double& v : p) {
            v = std::abs(normal(rng));
            norm += v * v;
        }
        for (double& v : p)
            v /= std::sqrt(norm);
    }
    const std::vector<double> reference(5, 1.1);
    QElapsedTimer timer;
    timer.start();
    const double volume = hv(points, reference);
    const double volumeMs = timer.nsecsElapsed() / 1e6;
    timer.restart();
    const std::vector<double> contributions = hypervolumeContributions(points, reference);
    const double contributionsMs = timer.nsecsElapsed() / 1e6;
    QVERIFY(volume > 0 && volume < std::pow(1.1, 5));
    QCOMPARE(contributions.size(), points.size());
    qDebug("hypervolume of 100 non-dominated points in 5 objectives: %.2f ms; all 100 contributions: %.2f ms", volumeMs,
           contributionsMs);
}

// The window's reference when none is given: each objective's worst counted value pushed 10 % of its range out, in
// the objective's own units (a maximised one below its lowest value); infeasible, pruned and short trials are not
// counted. If this fails, the window's hypervolume chart leaves trials out or measures from a wrong corner.
void TestHypervolume::defaultReferenceCountsEveryTrial()
{
    auto trial = [](int number, TrialState state, std::vector<double> values) {
        TrialRecord t;
        t.number = number;
        t.state = state;
        t.values = std::move(values);
        return t;
    };
    std::vector<TrialRecord> trials{trial(0, TrialState::Complete, {1.0, 100.0}),
                                    trial(1, TrialState::Complete, {3.0, 300.0}),
                                    trial(2, TrialState::Complete, {2.0, 200.0}),
                                    trial(3, TrialState::Pruned, {50.0, 1.0}),
                                    trial(4, TrialState::Complete, {9.0}),
                                    trial(5, TrialState::Complete, {40.0, 10.0})};
    trials[5].systemAttrs[kConstraintsAttr] = Json(std::vector<double>{1.0}); // infeasible
    const std::vector<StudyDirection> dirs{StudyDirection::Minimize, StudyDirection::Maximize};
    const std::vector<double> ref = defaultReference(trials, dirs);
    QCOMPARE(ref.size(), std::size_t(2));
    QCOMPARE(ref[0], 3.0 + 0.1 * 2.0);     // worst minimised 3, range 2
    QCOMPARE(ref[1], 100.0 - 0.1 * 200.0); // worst maximised 100, range 200
    // Every counted trial adds volume from it: the history grows at each front trial.
    const auto history = hypervolumeHistory(trials, dirs, ref);
    QCOMPARE(history.size(), std::size_t(3));
    QVERIFY(history[0].second > 0);
    QVERIFY(history[1].second > history[0].second);
    // Equal values: 10 % of the value, then 1 around zero.
    const std::vector<TrialRecord> same{trial(0, TrialState::Complete, {5.0, 0.0}), trial(1, TrialState::Complete, {5.0, 0.0})};
    QCOMPARE(defaultReference(same, dirs), (std::vector<double>{5.5, -1.0}));
    QVERIFY(defaultReference(std::vector<TrialRecord>{trials[3]}, dirs).empty());
}

QTEST_GUILESS_MAIN(TestHypervolume)
#include "tst_hpo_hypervolume.moc"
