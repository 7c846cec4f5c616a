// Chart axes a reader can read at any size (ui/charts/axisscale.h, ChartView): 1-2-5 ticks within the budget,
// compact labels that tell neighbouring ticks apart (0, never -2.776e-17; 12k; 3.5e-4), no negative range for data
// that is not negative, horizontal labels that fit between their ticks; and, on the real window at 1024x700 and at
// the default size with the demo database, no axis label or title of any chart of the Live, Study, Compare and
// Benchmarks views elided ("…" in the chart's scene) and no negative axis under non-negative data.
#include "demodb.h"

#include "ui/charts/axisscale.h"
#include "ui/charts/chartview.h"
#include "ui/mainwindow.h"

#include <QtTest>

#include <QCategoryAxis>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QXYSeries>

#include <cmath>
#include <random>
#include <set>

using namespace pitwall;
using namespace pitwall::ui;

namespace {

// 1, 2 or 5 times a power of ten.
bool isOneTwoFive(double step)
{
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (std::abs(mantissa - m) < 1e-9 * m)
            return true;
    return false;
}

int intervalsOf(const AxisScale& s)
{
    return static_cast<int>(std::lround((s.hi - s.lo) / s.step));
}

// Every text the chart's scene shows (axis labels and titles are text items of the scene).
QStringList sceneTexts(QChartView* view)
{
    QStringList texts;
    for (QGraphicsItem* item : view->scene()->items()) {
        if (!item->isVisible())
            continue;
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item))
            texts << text->toPlainText();
        else if (auto* simple = dynamic_cast<QGraphicsSimpleTextItem*>(item))
            texts << simple->text();
    }
    return texts;
}

} // namespace

class TestChartAxes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void scalesStepOneTwoFiveWithinTheBudget();
    void scalesNeverGoNegativeForNonNegativeData();
    void labelsAreCompactAndDistinct();
    void horizontalLabelsFitBetweenTheirTicks();
    void timeTicksAreDistinct();
    void clockTicksFallOnWholeLocalTimes();
    void emptyChartSaysSoOnAUnitRange();
    void noViewElidesAnAxisLabel_data();
    void noViewElidesAnAxisLabel();

private:
    QTemporaryDir m_dir;
    QString m_db;
};

void TestChartAxes::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath("settings"));
    QCoreApplication::setOrganizationName("PitwallTest");
    m_db = m_dir.filePath("demo.db");
    demo::writeDemoDatabase(m_db);
}

void TestChartAxes::scalesStepOneTwoFiveWithinTheBudget()
{
    QCOMPARE(niceScale(0, 0.93, 5), (AxisScale{0, 1, 0.2}));
    QCOMPARE(niceScale(-0.3, 4.2, 5), (AxisScale{-2, 6, 2})); // -1..5 by 1 would be 6 intervals
    QCOMPARE(niceScale(97.6, 156.4, 4), (AxisScale{80, 160, 20}));
    QCOMPARE(niceScale(2, 3, 8, 1.0), (AxisScale{2, 3, 1})); // whole numbers: no tick between steps 2 and 3
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> exponent(-8, 8), unit(-1, 1);
    for (int i = 0; i < 20000; ++i) {
        const double scale = std::pow(10.0, exponent(rng));
        double lo = unit(rng) * scale, hi = unit(rng) * scale;
        const int budget = 1 + static_cast<int>(rng() % 10);
        const AxisScale s = niceScale(lo, hi, budget);
        if (hi < lo)
            std::swap(lo, hi);
        QVERIFY2(isOneTwoFive(s.step), qPrintable(QString("step %1").arg(s.step)));
        // A range across zero needs two intervals at least (ticks are multiples of the step).
        const int most = lo < 0 && hi > 0 ? std::max(budget, 2) : budget;
        QVERIFY2(intervalsOf(s) >= 1 && intervalsOf(s) <= most,
                 qPrintable(QString("%1 intervals for a budget of %2 (%3..%4)").arg(intervalsOf(s)).arg(budget).arg(lo).arg(hi)));
        QVERIFY2(s.lo <= lo + 1e-12 * scale && s.hi >= hi - 1e-12 * scale,
                 qPrintable(QString("%1..%2 does not cover %3..%4").arg(s.lo).arg(s.hi).arg(lo).arg(hi)));
    }
}

void TestChartAxes::scalesNeverGoNegativeForNonNegativeData()
{
    // Losses, learning rates, FPS, CPU and memory: the padding and the rounding never cross zero.
    QCOMPARE(niceScale(0, 5, 5).lo, 0.0);
    QVERIFY(niceScale(0.0005, 0.001, 3).lo >= 0);
    QCOMPARE(niceScale(0.0001, 0.001, 2).lo, 0.0);
    QVERIFY(niceScale(105.2, 105.7, 4).lo >= 0);
    QVERIFY(niceScale(-5, -0.001, 4).hi <= 0);
    for (double y0 : {0.0, 1e-4, 0.3, 97.6, 250e6}) {
        const auto r = ChartView::fittedRanges(0, 100, y0, y0 * 3 + 1, false, TickBudget{5, 5});
        QVERIFY2(r.y0 >= 0, qPrintable(QString("data from %1 gets an axis from %2").arg(y0).arg(r.y0)));
        QVERIFY(r.y1 >= y0 * 3 + 1);
    }
    // Negative data keeps its range.
    QVERIFY(ChartView::fittedRanges(0, 1, -3, 2, false, TickBudget{5, 5}).y0 <= -3);
}

void TestChartAxes::labelsAreCompactAndDistinct()
{
    QCOMPARE(axisLabel(0, 0.2), QString("0"));
    QCOMPARE(axisLabel(-2.7755575615628914e-17, 0.1), QString("0"));
    QCOMPARE(axisLabel(1e-13, 0), QString("0"));
    QCOMPARE(axisLabel(0.6000000000000001, 0.2), QString("0.6"));
    QCOMPARE(axisLabel(0.05, 0.01), QString("0.05"));
    QCOMPARE(axisLabel(100, 20), QString("100"));
    QCOMPARE(axisLabel(1500, 500), QString("1500"));
    QCOMPARE(axisLabel(12000, 2000), QString("12k"));
    QCOMPARE(axisLabel(15500, 500), QString("15.5k"));
    QCOMPARE(axisLabel(2500000, 500000), QString("2.5M"));
    QCOMPARE(axisLabel(3e9, 1e9), QString("3G"));
    QCOMPARE(axisLabel(0.00035, 0.00005), QString("3.5e-4"));
    QCOMPARE(axisLabel(0.0005, 0.0005), QString("5e-4"));
    QCOMPARE(axisLabel(-0.002, 0.001), QString("-0.002"));
    // The ticks of any scale get distinct labels, short unless the range is a sliver of its magnitude (1.1865e-8).
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> exponent(-9, 10), unit(-1, 1);
    for (int i = 0; i < 5000; ++i) {
        const double scale = std::pow(10.0, exponent(rng));
        const AxisScale s = niceScale(unit(rng) * scale, unit(rng) * scale, 1 + static_cast<int>(rng() % 10));
        std::set<QString> seen;
        for (int k = 0; k <= intervalsOf(s); ++k) {
            const QString label = axisLabel(s.lo + k * s.step, s.step);
            QVERIFY2(seen.insert(label).second, qPrintable("duplicate tick label " + label));
            QVERIFY2(label.size() <= 10, qPrintable("long tick label " + label));
        }
    }
}

void TestChartAxes::horizontalLabelsFitBetweenTheirTicks()
{
    for (double pixels : {90.0, 140.0, 300.0, 700.0})
        for (double hi : {1.0, 7.0, 65.0, 1234.0, 98765.0, 3.2e6}) {
            const AxisScale s = fittingScale(0, hi, pixels, 10.0, 10);
            const int n = intervalsOf(s);
            if (n > 1)
                for (int k = 0; k <= n; ++k)
                    QVERIFY2(axisLabel(s.lo + k * s.step, s.step).size() * 10.0 + 14 <= pixels / n,
                             qPrintable(QString("%1 px, 0..%2: %3 intervals").arg(pixels).arg(hi).arg(n)));
            QVERIFY(s.hi >= hi);
        }
    // More room, more ticks.
    QVERIFY(intervalsOf(fittingScale(0, 65, 700, 10, 10)) > intervalsOf(fittingScale(0, 65, 140, 10, 10)));
}

void TestChartAxes::timeTicksAreDistinct()
{
    QCOMPARE(niceTimeStep(1.3, 5), 0.5);
    QCOMPARE(niceTimeStep(7.9, 4), 2.0);
    QCOMPARE(niceTimeStep(100, 5), 30.0);
    QCOMPARE(niceTimeStep(4000, 4), 1800.0);
    QCOMPARE(timeLabel(0, 0.2), QString("0.0 s"));
    QCOMPARE(timeLabel(0.4, 0.2), QString("0.4 s"));
    QCOMPARE(timeLabel(75, 15), QString("1:15"));
    QCOMPARE(timeLabel(3725, 600), QString("1:02:05"));
    // The ticks of a timeline from 0.3 s to 3 h: never two equal labels (the timeline once read "0:00, 0:00, 0:01").
    for (double span : {0.3, 1.3, 2.0, 9.0, 59.0, 130.0, 1000.0, 4000.0, 11000.0})
        for (int ticks : {2, 4, 6, 9}) {
            const double step = niceTimeStep(span, ticks);
            std::set<QString> seen;
            for (double t = 0; t <= span + 1e-9; t += step)
                QVERIFY2(seen.insert(timeLabel(t, step)).second,
                         qPrintable(QString("span %1 s, step %2 s: '%3' twice").arg(span).arg(step).arg(timeLabel(t, step))));
        }
}

void TestChartAxes::clockTicksFallOnWholeLocalTimes()
{
    // A run from 13:52:10 to 16:07:40 local time (the zone is whatever this machine's is).
    const QDateTime start(QDate(2026, 12, 6), QTime(13, 52, 10));
    const double t0 = static_cast<double>(start.toSecsSinceEpoch()), t1 = t0 + 2 * 3600 + 15 * 60 + 30;
    for (double pixels : {220.0, 400.0, 900.0}) {
        const AxisScale s = timeScale(t0, t1, pixels, 7.0, TimeAxis::Clock);
        QVERIFY(s.lo <= t0 && s.hi >= t1);
        const double origin = timeOrigin(s.lo, s.step, TimeAxis::Clock);
        std::set<QString> seen;
        for (double t = s.lo; t <= s.hi + 1e-6; t += s.step) {
            const QDateTime at = QDateTime::fromSecsSinceEpoch(static_cast<qint64>(std::llround(t)));
            // On a whole multiple of the step in local time: 14:00, 14:30, not 13:52 + k * step.
            const int localSeconds = at.time().msecsSinceStartOfDay() / 1000;
            QVERIFY2(localSeconds % static_cast<int>(s.step) == 0,
                     qPrintable(QString("tick %1 on a %2 s step").arg(at.toString()).arg(s.step)));
            QVERIFY2(std::abs(std::remainder(t - origin, s.step)) < 1e-6, qPrintable(at.toString()));
            const QString label = clockLabel(t, s.step);
            QCOMPARE(label, at.toString(s.step >= 60 ? "HH:mm" : "HH:mm:ss"));
            QVERIFY2(seen.insert(label).second, qPrintable(label));
            QVERIFY2(label.size() * 7.0 + 14 <= pixels / ((s.hi - s.lo) / s.step) + 1e-9,
                     qPrintable(QString("'%1' in %2 px").arg(label).arg(pixels)));
        }
        QVERIFY(seen.size() >= 2);
    }
    QCOMPARE(clockLabel(t0, 1), QString("13:52:10"));
    QCOMPARE(clockLabel(t0 + 0.4, 0.2), QString("13:52:10.4"));
    // Elapsed time starts at 0, never below.
    const AxisScale e = timeScale(3, 3700, 600, 7.0, TimeAxis::Elapsed);
    QCOMPARE(e.lo, 0.0);
    QVERIFY(e.hi >= 3700);
    QCOMPARE(timeLabel(e.hi, e.step).count(QLatin1Char(':')), 2); // past an hour: h:mm:ss
}

void TestChartAxes::emptyChartSaysSoOnAUnitRange()
{
    ChartView view("Throughput");
    view.resize(400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.fitAxes();
    auto* y = qobject_cast<QValueAxis*>(view.chart()->axes(Qt::Vertical).value(0));
    QVERIFY(y);
    QCOMPARE(y->min(), 0.0); // not -0.5..1.5
    QCOMPARE(y->max(), 1.0);
    view.setEmptyText("Appears with the first logged steps");
    const QImage image = view.grab().toImage();
    // The text is drawn in the middle of the plot: some pixels there are not the background's.
    const QRect plot = view.chart()->plotArea().toRect();
    int inked = 0;
    const QRgb background = image.pixel(plot.center().x(), plot.top() + 2);
    for (int x = plot.left(); x < plot.right(); ++x)
        for (int dy = -6; dy <= 6; ++dy)
            inked += image.pixel(x, plot.center().y() + dy) != background;
    QVERIFY2(inked > 50, qPrintable(QString("%1 pixels of text").arg(inked)));
}

void TestChartAxes::noViewElidesAnAxisLabel_data()
{
    QTest::addColumn<int>("view");
    QTest::addColumn<QString>("study");
    QTest::addColumn<QSize>("size");
    for (const QSize size : {QSize(1024, 700), QSize(1200, 760)}) {
        const QString at = QString(" %1x%2").arg(size.width()).arg(size.height());
        QTest::newRow(qPrintable("live" + at)) << int(View::Live) << "transfuser-seeds" << size;
        QTest::newRow(qPrintable("study" + at)) << int(View::Study) << "autospeed-hpo" << size;
        QTest::newRow(qPrintable("compare" + at)) << int(View::Compare) << "transfuser-seeds" << size;
        QTest::newRow(qPrintable("benchmarks" + at)) << int(View::Benchmarks) << "transfuser-seeds" << size;
    }
}

void TestChartAxes::noViewElidesAnAxisLabel()
{
    QFETCH(int, view);
    QFETCH(QString, study);
    QFETCH(QSize, size);
    MainWindow window;
    window.resize(size);
    window.focusStudy(study);
    window.showView(static_cast<View>(view));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_COMPARE(window.size(), size); // every view fits a 1024x700 window (no minimum height above it)
    window.openDatabase(m_db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(static_cast<View>(view)), 20000);
    // Compare's curves are on its Curves tab.
    for (QTabWidget* tabs : window.findChildren<QTabWidget*>())
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i) == QLatin1String("Curves"))
                tabs->setCurrentIndex(i);
    QTest::qWait(50); // let queued refits after the layout run (ChartView::plotAreaMoved)
    QCoreApplication::processEvents();
    int charts = 0, withData = 0;
    for (ChartView* chart : window.findChildren<ChartView*>()) {
        if (!chart->isVisible())
            continue;
        ++charts;
        const QStringList texts = sceneTexts(chart);
        // The walk sees the axes' tick labels (each a text item of the scene): at least the y axis's two.
        auto* axis = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Vertical).value(0));
        if (axis)
            for (const QString& label : axis->categoriesLabels())
                if (axis->endValue(label) >= axis->min() && axis->endValue(label) <= axis->max())
                    QVERIFY2(texts.contains(label), qPrintable(chart->chart()->title() + ": no text item '" + label +
                                                               "' among " + texts.join(", ")));
        for (const QString& text : texts)
            QVERIFY2(!text.contains(QChar(0x2026)) && !text.contains(QLatin1String("...")),
                     qPrintable(QString("%1: '%2' is elided").arg(chart->chart()->title(), text)));
        // Non-negative data never gets a negative axis.
        double minY = std::numeric_limits<double>::infinity();
        for (QAbstractSeries* series : chart->chart()->series())
            if (auto* xy = qobject_cast<QXYSeries*>(series))
                for (const QPointF& p : xy->points())
                    minY = std::min(minY, p.y());
        if (std::isfinite(minY)) {
            ++withData;
            auto* y = qobject_cast<QValueAxis*>(chart->chart()->axes(Qt::Vertical).value(0));
            if (y && minY >= 0)
                QVERIFY2(y->min() >= 0, qPrintable(QString("%1: data from %2, axis from %3")
                                                       .arg(chart->chart()->title())
                                                       .arg(minY)
                                                       .arg(y->min())));
        }
    }
    QVERIFY2(charts > 0 && withData > 0, qPrintable(QString("%1 charts, %2 with data").arg(charts).arg(withData)));
}

QTEST_MAIN(TestChartAxes)
#include "tst_chartaxes.moc"
