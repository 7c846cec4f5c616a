// LTTB down-sampling: what the live charts keep of a long series. If these fail, charts either drop the
// ends of a run or smooth away the spikes (a diverging loss) that the user needs to see.
#include "ui/charts/lttb.h"

#include <QtTest>

#include <cmath>

using pitwall::ui::lttb;

class TestLttb : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void keepsShortSeriesAsTheyAre();
    void keepsFirstAndLastAndTheRequestedCount();
    void picksTheExtremeOfABucket();
    void keepsOrderOfX();
    void keepsAPeakAndATroughOfANoisyMillion();
};

void TestLttb::keepsShortSeriesAsTheyAre()
{
    const QList<QPointF> points = {{0, 1}, {1, 2}, {2, 3}};
    QCOMPARE(lttb(points, 10), points);
    QCOMPARE(lttb(points, 2), points); // thresholds below 3 cannot keep both ends and a middle: unchanged
    QCOMPARE(lttb(QList<QPointF>{}, 10).size(), 0);
}

void TestLttb::keepsFirstAndLastAndTheRequestedCount()
{
    QList<QPointF> points;
    for (int i = 0; i < 1000; ++i)
        points << QPointF(i, std::sin(i / 10.0));
    const QList<QPointF> out = lttb(points, 100);
    QCOMPARE(out.size(), 100);
    QCOMPARE(out.first(), points.first());
    QCOMPARE(out.last(), points.last());
}

void TestLttb::picksTheExtremeOfABucket()
{
    // A flat line with one spike: 102 points, threshold 12 → 10 buckets of 10 points. The spike at x=55 sits
    // in bucket 5 ([51, 61)) and spans by far the largest triangle there.
    QList<QPointF> points;
    for (int i = 0; i < 102; ++i)
        points << QPointF(i, i == 55 ? 50.0 : 1.0);
    const QList<QPointF> out = lttb(points, 12);
    QCOMPARE(out.size(), 12);
    QVERIFY2(out.contains(QPointF(55, 50.0)), "the spike must survive down-sampling");
    // A dip as well.
    points[25] = QPointF(25, -30.0);
    QVERIFY(lttb(points, 12).contains(QPointF(25, -30.0)));
}

void TestLttb::keepsOrderOfX()
{
    QList<QPointF> points;
    for (int i = 0; i < 5000; ++i)
        points << QPointF(i * 0.5, std::cos(i * 0.01) + (i % 13) * 0.01);
    const QList<QPointF> out = lttb(points, 333);
    for (int i = 1; i < out.size(); ++i)
        QVERIFY(out[i].x() > out[i - 1].x());
}

void TestLttb::keepsAPeakAndATroughOfANoisyMillion()
{
    QList<QPointF> points;
    points.reserve(1000000);
    for (int i = 0; i < 1000000; ++i)
        points << QPointF(i, std::sin(i * 0.001) * 0.1 + ((static_cast<qint64>(i) * 7919) % 101) * 0.001);
    points[123456].setY(10.0);
    points[765432].setY(-10.0);
    const QList<QPointF> out = lttb(points, 2400);
    QCOMPARE(out.size(), 2400);
    QVERIFY(out.contains(points[123456]));
    QVERIFY(out.contains(points[765432]));
}

QTEST_APPLESS_MAIN(TestLttb)
#include "tst_lttb.moc"
