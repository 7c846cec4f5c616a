// The tools of every workbench chart (ChartView, ui/charts/curves.h), driven through the real widget: smoothing
// against hand-computed debiased moving averages, the envelope keeping every extreme of a noisy million-point
// curve, the crosshair reading each series at the cursor, zoom by dragging, the wheel and Shift+drag panning,
// reset by double click and Escape, and exports that are valid SVG, PDF and CSV files.
#include "ui/charts/chartview.h"
#include "ui/charts/curves.h"
#include "ui/exporting.h"

#include <QtTest>

#include <QCategoryAxis>
#include <QChart>
#include <QFile>
#include <QLineSeries>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <cmath>
#include <random>

using namespace pitwall::ui;

namespace {

// A shown chart with one curve "loss" of y = x * x for x = 0..99.
struct SquareChart {
    ChartView view{QStringLiteral("Loss")};
    QLineSeries* series = nullptr;
    SquareChart()
    {
        view.resize(640, 420);
        view.setAxisTitles(QStringLiteral("step"), QStringLiteral("loss"));
        series = view.line(QStringLiteral("loss"));
        QList<QPointF> points;
        for (int i = 0; i < 100; ++i)
            points << QPointF(i, double(i) * i);
        view.setCurve(series, points);
        view.fitAxes();
        view.show();
        (void)QTest::qWaitForWindowExposed(&view);
        QCoreApplication::processEvents();
    }
    QWidget* port() { return view.viewport(); }
};

bool near(double a, double b, double tolerance)
{
    return std::abs(a - b) <= tolerance;
}

} // namespace

class TestChartTools : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void smoothingIsTheDebiasedMovingAverage();
    void envelopeKeepsEveryExtreme();
    void smoothedChartKeepsTheRawCurveFaintBehind();
    void crosshairReadsEverySeriesAtTheCursor();
    void dragZoomsAlongXAndFitsYToWhatIsIn();
    void wheelZoomsAroundTheCursorAndShiftDragPans();
    void ctrlDragZoomsABoxInXAndY();
    void logAxesShowDecadesAndThinInLogX();
    void timeAxesReadAsTimes();
    void exportsAreValidSvgPdfAndCsv();
};

void TestChartTools::smoothingIsTheDebiasedMovingAverage()
{
    // w = 0.5 over 1, 2, 3: (0.5)/(0.5) = 1; (0.25 + 1)/(0.75) = 5/3; (0.625 + 1.5)/(0.875) = 17/7.
    const QList<QPointF> out = debiasedEma({{0, 1}, {1, 2}, {2, 3}}, 0.5);
    QCOMPARE(out.size(), 3);
    QCOMPARE(out[0], QPointF(0, 1));
    QVERIFY(near(out[1].y(), 5.0 / 3.0, 1e-12));
    QVERIFY(near(out[2].y(), 17.0 / 7.0, 1e-12));
    QCOMPARE(out[2].x(), 2.0);
    // A NaN stays where it is and does not enter the average: 1, NaN, 3 gives (0.25 + 1.5)/0.75 = 7/3 last.
    const QList<QPointF> gap = debiasedEma({{0, 1}, {1, std::nan("")}, {2, 3}}, 0.5);
    QVERIFY(std::isnan(gap[1].y()));
    QVERIFY(near(gap[2].y(), 7.0 / 3.0, 1e-12));
    // A constant stays constant (the debiasing: no pull towards zero), and weight 0 changes nothing.
    const QList<QPointF> flat = debiasedEma({{0, 4}, {1, 4}, {2, 4}, {3, 4}}, 0.9);
    for (const QPointF& p : flat)
        QVERIFY(near(p.y(), 4, 1e-12));
    const QList<QPointF> same{{0, 1}, {1, 5}};
    QCOMPARE(debiasedEma(same, 0), same);
}

void TestChartTools::envelopeKeepsEveryExtreme()
{
    std::mt19937 rng(7);
    std::normal_distribution<double> noise(0, 1);
    QList<QPointF> points;
    const int n = 1'000'000;
    for (int i = 0; i < n; ++i)
        points << QPointF(i, noise(rng));
    points[123457].setY(80);   // a single-step spike
    points[876543].setY(-60);  // and a dip
    const int columns = 300;
    const QList<QPointF> out = envelope(points, columns);
    QVERIFY(out.size() <= 2 * columns + 2);
    QCOMPARE(out.first(), points.first());
    QCOMPARE(out.last(), points.last());
    QVERIFY(out.contains(points[123457]));
    QVERIFY(out.contains(points[876543]));
    for (qsizetype i = 1; i < out.size(); ++i)
        QVERIFY(out[i].x() > out[i - 1].x());
    // Every column's lowest and highest point is drawn.
    const double span = points.last().x() - points.first().x();
    std::vector<double> lo(columns, 1e300), hi(columns, -1e300);
    for (const QPointF& p : points) {
        const int c = std::min(columns - 1, static_cast<int>(p.x() / span * columns));
        lo[c] = std::min(lo[c], p.y());
        hi[c] = std::max(hi[c], p.y());
    }
    std::vector<double> keptLo(columns, 1e300), keptHi(columns, -1e300);
    for (const QPointF& p : out) {
        const int c = std::min(columns - 1, static_cast<int>(p.x() / span * columns));
        keptLo[c] = std::min(keptLo[c], p.y());
        keptHi[c] = std::max(keptHi[c], p.y());
    }
    for (int c = 0; c < columns; ++c) {
        QCOMPARE(keptLo[c], lo[c]);
        QCOMPARE(keptHi[c], hi[c]);
    }
    // Short curves are drawn as they are.
    const QList<QPointF> few{{0, 1}, {1, 3}, {2, 2}};
    QCOMPARE(envelope(few, 1), few);
}

void TestChartTools::smoothedChartKeepsTheRawCurveFaintBehind()
{
    SquareChart chart;
    QVERIFY(!chart.view.rawCompanion(chart.series));
    chart.view.setSmoothing(0.5);
    QLineSeries* raw = chart.view.rawCompanion(chart.series);
    QVERIFY(raw);
    QCOMPARE(raw->points().size(), 100);
    QCOMPARE(raw->points()[99].y(), 99.0 * 99.0);
    QVERIFY(raw->pen().color().alphaF() < 0.5);
    // The drawn curve is the smoothed one: 0, then (0.25 * 0 + 0.5 * 1) / 0.75 = 2/3 at step 1.
    QCOMPARE(chart.series->points().size(), 100);
    QVERIFY(near(chart.series->points()[1].y(), 2.0 / 3.0, 1e-12));
    QVERIFY(chart.series->points()[99].y() < 99.0 * 99.0);
    // The crosshair shows the smoothed value and the raw one.
    const QStringList lines = chart.view.crosshairLines(1.0);
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[1], QStringLiteral("loss: 0.66667 (raw 1)"));
    chart.view.setSmoothing(0);
    QVERIFY(!chart.view.rawCompanion(chart.series));
    QCOMPARE(chart.series->points()[1].y(), 1.0);
}

void TestChartTools::crosshairReadsEverySeriesAtTheCursor()
{
    SquareChart chart;
    QLineSeries* second = chart.view.line(QStringLiteral("lr"), QStringLiteral("learning rate"));
    QList<QPointF> lr;
    for (int i = 0; i < 100; ++i)
        lr << QPointF(i, 0.001 * (100 - i));
    chart.view.setCurve(second, lr);
    chart.view.fitAxes();
    QCoreApplication::processEvents();
    QVERIFY(std::isnan(chart.view.crosshairX()));
    QTest::mouseMove(chart.port(), chart.view.viewPosAt(50, 100));
    QTRY_VERIFY(std::isfinite(chart.view.crosshairX()));
    QVERIFY2(near(chart.view.crosshairX(), 50, 0.5), qPrintable(QString::number(chart.view.crosshairX())));
    const QStringList lines = chart.view.crosshairLines(chart.view.crosshairX());
    QCOMPARE(lines.size(), 3);
    QVERIFY2(lines[0].startsWith(QStringLiteral("step 50")), qPrintable(lines[0]));
    QCOMPARE(lines[1], QStringLiteral("loss: 2500"));
    QCOMPARE(lines[2], QStringLiteral("learning rate: 0.05"));
    // Off the plot (over the title): no crosshair.
    QTest::mouseMove(chart.port(), QPoint(chart.port()->width() / 2, 3));
    QTRY_VERIFY(std::isnan(chart.view.crosshairX()));
}

void TestChartTools::dragZoomsAlongXAndFitsYToWhatIsIn()
{
    SquareChart chart;
    QVERIFY(!chart.view.zoomed());
    QVERIFY(chart.view.xRange().second >= 99);
    QVERIFY(chart.view.yRange().second >= 9801);
    QTest::mousePress(chart.port(), Qt::LeftButton, {}, chart.view.viewPosAt(20, 100));
    QTest::mouseMove(chart.port(), chart.view.viewPosAt(30, 100));
    QTest::mouseMove(chart.port(), chart.view.viewPosAt(40, 100));
    QTest::mouseRelease(chart.port(), Qt::LeftButton, {}, chart.view.viewPosAt(40, 100));
    QVERIFY(chart.view.zoomed());
    const auto [x0, x1] = chart.view.xRange();
    QVERIFY2(near(x0, 20, 0.5) && near(x1, 40, 0.5), qPrintable(QStringLiteral("%1..%2").arg(x0).arg(x1)));
    // y fits 400..1600, the values within 20..40, not the 9801 at step 99.
    const auto [y0, y1] = chart.view.yRange();
    QVERIFY2(y1 >= 1600 && y1 <= 2000 && y0 >= 0 && y0 <= 400, qPrintable(QStringLiteral("%1..%2").arg(y0).arg(y1)));
    // A click without a drag does not zoom further; a double click resets.
    QTest::mouseClick(chart.port(), Qt::LeftButton, {}, chart.view.viewPosAt(30, 100));
    QCOMPARE(chart.view.xRange().first, x0);
    QTest::mouseDClick(chart.port(), Qt::LeftButton, {}, chart.view.viewPosAt(30, 100));
    QVERIFY(!chart.view.zoomed());
    QVERIFY(chart.view.xRange().second >= 99);
    QVERIFY(chart.view.yRange().second >= 9801);
    // Escape resets too, and so does the context menu's action.
    chart.view.setZoomX(10, 20);
    QVERIFY(chart.view.zoomed());
    chart.view.setFocus();
    QTest::keyClick(&chart.view, Qt::Key_Escape);
    QVERIFY(!chart.view.zoomed());
    chart.view.setZoomX(10, 20);
    QAction* reset = chart.view.findChild<QAction*>(QStringLiteral("resetZoom"));
    QVERIFY(reset && chart.view.actions().contains(reset));
    reset->trigger();
    QVERIFY(!chart.view.zoomed());
}

void TestChartTools::wheelZoomsAroundTheCursorAndShiftDragPans()
{
    SquareChart chart;
    const auto [a0, a1] = chart.view.xRange();
    const QPoint at = chart.view.viewPosAt(50, 100);
    const double centre = chart.view.xAt(at);
    QWheelEvent in(at, chart.port()->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                   Qt::NoScrollPhase, false);
    QApplication::sendEvent(chart.port(), &in);
    QVERIFY(chart.view.zoomed());
    const auto [b0, b1] = chart.view.xRange();
    QVERIFY(near(b1 - b0, (a1 - a0) * 0.8, 1e-6));
    // The value under the cursor stays under it.
    QVERIFY(near((centre - b0) / (b1 - b0), (centre - a0) / (a1 - a0), 1e-6));
    // Shift+drag by 10 steps to the left moves the range 10 steps to the right.
    const QPoint from = chart.view.viewPosAt(50, 100), to = chart.view.viewPosAt(40, 100);
    const double moved = chart.view.xAt(from) - chart.view.xAt(to);
    QTest::mousePress(chart.port(), Qt::LeftButton, Qt::ShiftModifier, from);
    QTest::mouseMove(chart.port(), to);
    QTest::mouseRelease(chart.port(), Qt::LeftButton, Qt::ShiftModifier, to);
    const auto [c0, c1] = chart.view.xRange();
    QVERIFY2(near(c0, b0 + moved, 1e-6) && near(c1, b1 + moved, 1e-6),
             qPrintable(QStringLiteral("%1..%2 after %3..%4").arg(c0).arg(c1).arg(b0).arg(b1)));
    // Zooming out past the data shows all of it again.
    QWheelEvent out(at, chart.port()->mapToGlobal(at), QPoint(), QPoint(0, -1200), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
    QApplication::sendEvent(chart.port(), &out);
    QVERIFY(!chart.view.zoomed());
}

void TestChartTools::ctrlDragZoomsABoxInXAndY()
{
    SquareChart chart;
    const QPoint from = chart.view.viewPosAt(20, 3000), to = chart.view.viewPosAt(60, 1000);
    QTest::mousePress(chart.port(), Qt::LeftButton, Qt::ControlModifier, from);
    QTest::mouseMove(chart.port(), to);
    QTest::mouseRelease(chart.port(), Qt::LeftButton, Qt::ControlModifier, to);
    const auto [x0, x1] = chart.view.xRange();
    const auto [y0, y1] = chart.view.yRange();
    // The box, not y fitted to 400..3600 (what the curve spans over 20..60).
    QVERIFY2(near(x0, 20, 0.5) && near(x1, 60, 0.5), qPrintable(QStringLiteral("%1..%2").arg(x0).arg(x1)));
    QVERIFY2(near(y0, 1000, 30) && near(y1, 3000, 30), qPrintable(QStringLiteral("%1..%2").arg(y0).arg(y1)));
    QTest::keyClick(&chart.view, Qt::Key_Escape);
    QVERIFY(chart.view.yRange().second >= 9801);
}

void TestChartTools::logAxesShowDecadesAndThinInLogX()
{
    // y = 1 / x over x = 0..100000: on log axes a straight line over five decades.
    ChartView view(QStringLiteral("Loss"));
    view.resize(640, 420);
    view.setAxisTitles(QStringLiteral("step"), QStringLiteral("loss"));
    view.offerLogScales();
    QLineSeries* series = view.line(QStringLiteral("loss"));
    QList<QPointF> points;
    for (int i = 0; i <= 100000; ++i)
        points << QPointF(i, 1.0 / std::max(i, 1));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setCurve(series, points);
    view.fitAxes();
    QAction* logX = view.findChild<QAction*>(QStringLiteral("logScaleX"));
    QAction* logY = view.findChild<QAction*>(QStringLiteral("logScaleY"));
    QVERIFY(logX && logY && view.actions().contains(logX) && view.actions().contains(logY));
    logX->trigger();
    logY->trigger();
    QCOMPARE(view.xAxis(), ChartView::XAxis::Log);
    QVERIFY(view.logY());
    QCoreApplication::processEvents();
    QCOMPARE(view.xRange(), qMakePair(1.0, 100000.0));
    QCOMPARE(view.yRange(), qMakePair(1e-5, 1.0));
    // x = 0 cannot be drawn; x = 1..10 take a fifth of the plot, so each of them is drawn (thinning in linear x
    // would have kept 2 of the first 170 steps).
    const QList<QPointF> drawn = series->points();
    QVERIFY(drawn.size() <= 4 * view.plotWidth() + 2);
    QVERIFY(!drawn.isEmpty() && drawn.first().x() > 0);
    for (int x = 1; x <= 10; ++x)
        QVERIFY2(std::any_of(drawn.begin(), drawn.end(), [x](const QPointF& p) { return p.x() == x; }),
                 qPrintable(QStringLiteral("step %1 is not drawn").arg(x)));
    // Positions map in log x: 100 sits two fifths of the way from 1 to 100000; the wheel zooms around the cursor in
    // log x (the value under it stays under it).
    const QPoint at = view.viewPosAt(100, 0.01);
    const QRectF plot = view.chart()->plotArea();
    const QPointF scene = view.chart()->mapFromScene(view.mapToScene(at));
    QVERIFY(near((scene.x() - plot.left()) / plot.width(), 0.4, 0.01));
    QVERIFY(near(view.xAt(at), 100, 2));
    QWheelEvent in(at, view.viewport()->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                   Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &in);
    const auto [lo, hi] = view.xRange();
    QVERIFY2(near(std::log10(hi / lo), 5 * 0.8, 1e-6), qPrintable(QStringLiteral("%1..%2").arg(lo).arg(hi)));
    QVERIFY(near(view.xAt(at), 100, 2));
    QVERIFY(view.crosshairLines(100).first().startsWith(QStringLiteral("step 100")));
    // Back to linear: every point again, from x = 0.
    logX->trigger();
    QCOMPARE(view.xAxis(), ChartView::XAxis::Linear);
    QVERIFY(!view.zoomed());
    QCOMPARE(view.xRange().first, 0.0);
}

void TestChartTools::timeAxesReadAsTimes()
{
    // Elapsed seconds 0..5400 (1 h 30 min): labels m:ss or h:mm:ss, distinct; the crosshair reads the time.
    ChartView view(QStringLiteral("Loss"));
    view.resize(640, 420);
    view.setAxisTitles(QStringLiteral("time"), QStringLiteral("loss"));
    QLineSeries* series = view.line(QStringLiteral("loss"));
    QList<QPointF> points;
    for (int i = 0; i <= 5400; i += 10)
        points << QPointF(i, 5400 - i);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setXAxis(ChartView::XAxis::Elapsed);
    view.setCurve(series, points);
    view.fitAxes();
    QCoreApplication::processEvents();
    auto* x = qobject_cast<QCategoryAxis*>(view.chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(x);
    const QStringList labels = x->categoriesLabels();
    QVERIFY2(labels.size() >= 3, qPrintable(labels.join(", ")));
    QCOMPARE(labels.first(), QStringLiteral("0:00"));
    QVERIFY2(labels.contains(QStringLiteral("1:00:00")), qPrintable(labels.join(", ")));
    QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
    QCOMPARE(view.crosshairLines(65).first(), QStringLiteral("time 1:05"));
    // Wall time: Unix seconds drawn as the local time of day.
    const double t0 = static_cast<double>(QDateTime(QDate(2026, 12, 6), QTime(13, 52, 10)).toSecsSinceEpoch());
    for (QPointF& p : points)
        p.setX(p.x() + t0);
    view.setXAxis(ChartView::XAxis::Clock);
    view.setCurve(series, points);
    view.fitAxes();
    QCoreApplication::processEvents();
    const QStringList clock = qobject_cast<QCategoryAxis*>(view.chart()->axes(Qt::Horizontal).value(0))->categoriesLabels();
    QVERIFY2(clock.contains(QStringLiteral("14:00")) && clock.contains(QStringLiteral("15:00")), qPrintable(clock.join(", ")));
    QCOMPARE(view.crosshairLines(t0 + 65).first(), QStringLiteral("time 13:53:15"));
}

void TestChartTools::exportsAreValidSvgPdfAndCsv()
{
    SquareChart chart;
    chart.view.setSmoothing(0.6);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString svgPath = dir.filePath("loss.svg"), pdfPath = dir.filePath("loss.pdf"), csvPath = dir.filePath("loss.csv");
    QCOMPARE(writeSvg(chart.view, svgPath), QString());
    QCOMPARE(writePdf(chart.view, pdfPath), QString());
    QCOMPARE(writeText(chart.view.dataCsv(), csvPath), QString());

    // SVG: well-formed XML with an <svg> root, the chart's title as text and its curves as vector paths.
    QFile svg(svgPath);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svg);
    int paths = 0;
    bool title = false;
    QString root;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (root.isEmpty())
            root = xml.name().toString();
        if (xml.name() == QLatin1String("path") || xml.name() == QLatin1String("polyline"))
            ++paths;
        if (xml.name() == QLatin1String("text") && xml.readElementText(QXmlStreamReader::IncludeChildElements).contains("Loss"))
            title = true;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(root, QStringLiteral("svg"));
    QVERIFY2(paths >= 2, qPrintable(QString::number(paths)));
    QVERIFY(title);

    // PDF: a header, one page, a cross-reference table and the end-of-file marker.
    QFile pdf(pdfPath);
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    const QByteArray bytes = pdf.readAll();
    QVERIFY(bytes.startsWith("%PDF-1."));
    QVERIFY(bytes.trimmed().endsWith("%%EOF"));
    QCOMPARE(bytes.count("/Type /Page\n") + bytes.count("/Type /Page ") + bytes.count("/Type /Page>"), 1);
    QVERIFY(bytes.contains("startxref"));

    // CSV: the header names the axes, then every raw point of the curve (not the smoothed or down-sampled ones).
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList rows = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 101);
    QCOMPARE(rows[0].trimmed(), QStringLiteral("series,step,loss"));
    QCOMPARE(rows[100].trimmed(), QStringLiteral("loss,99,9801"));
}

QTEST_MAIN(TestChartTools)
#include "tst_charttools.moc"
