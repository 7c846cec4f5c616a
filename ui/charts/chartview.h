#pragma once
// A Qt Charts view with what every workbench chart needs: one x axis and a linear or logarithmic y axis
// fitted to the data, series created on demand by key with palette-following colours, optional vertical
// markers (stage boundaries) painted over the plot, and the tools users expect of a scalar chart:
// - curves (setCurve) smoothed with a debiased exponential moving average (the raw curve faint behind) and
//   down-sampled to an envelope that keeps every spike (ui/charts/curves.h);
// - a crosshair that shows every series' value at the cursor;
// - an x axis by step, on a log scale, or by time (elapsed or time of day), and a log y axis;
// - zoom (drag along x, Ctrl+drag a box in x and y, or the wheel) and pan (Shift+drag or middle drag), reset by a
//   double click, Escape or the context menu;
// - export as PNG, SVG or PDF and of its data as CSV (context menu, Ctrl+E).
// GUI thread only.

#include "ui/charts/axisscale.h"
#include "ui/poller/liveseries.h"

#include <QChartView>
#include <QHash>

#include <limits>
#include <vector>

class QAbstractAxis;
class QKeyEvent;
class QMouseEvent;
class QWheelEvent;
class QAbstractBarSeries;
class QBarCategoryAxis;
class QBarSet;
class QLineSeries;
class QValueAxis;
class QXYSeries;

namespace pitwall::ui {

class ChartView : public QChartView {
    Q_OBJECT
public:
    explicit ChartView(const QString& title, QWidget* parent = nullptr);

    // The line series of `key`, created (with `label` in the legend) on first use.
    QLineSeries* line(const QString& key, const QString& label = {});
    QXYSeries* find(const QString& key) const { return m_series.value(key); }
    // Adds a series made by the caller (scatter, step line); the chart takes ownership.
    void addSeries(const QString& key, QXYSeries* series);
    void removeAll();
    // Sets a line's curve from all its points (increasing x): smoothed by the chart's smoothing weight, with the
    // raw curve faint behind when smoothing, and down-sampled to the plot's width (envelope). The points are
    // kept for smoothing changes, the crosshair's raw values and the data export.
    void setCurve(QLineSeries* series, const QList<QPointF>& points);
    // The smoothing weight in [0, 1) of every curve (0: none); redraws the curves set before.
    void setSmoothing(double weight);
    double smoothing() const { return m_smoothing; }
    // The faint raw curve behind a smoothed `series` (nullptr when not smoothing).
    QLineSeries* rawCompanion(const QXYSeries* series) const { return m_raw.value(series); }
    // Replaces a series' points in one bulk call (no per-point signals) and remembers their bounds, so that
    // fitAxes need not read the points back.
    void setPoints(QXYSeries* series, const QList<QPointF>& points);
    // Remembers the bounds of points that are drawn for `series` outside it (a MarkerLayer), so that fitAxes
    // includes them; the series keeps its own points (typically none: a legend entry only).
    void setBoundsOnly(QXYSeries* series, const QList<QPointF>& points);

    // What the x axis shows: numbers (steps, trial numbers; 1-2-5 ticks), numbers on a log scale (whole
    // decades), seconds since a start (m:ss) or Unix seconds as the local time of day (14:05).
    enum class XAxis { Linear, Log, Elapsed, Clock };
    // Sets the x axis' kind; the zoom is reset (its units change) and the curves are redrawn (a log axis drops
    // x <= 0 and down-samples in log x, where its pixel columns are).
    void setXAxis(XAxis kind);
    XAxis xAxis() const { return m_xKind; }
    // Offers "Log scale x" and "Log scale y" in the chart's context menu (for charts whose owner has no switch
    // of its own; the Live view has one for all its charts).
    void offerLogScales();

    // The axis ranges fitAxes sets for data within x0..x1, y0..y1 (infinite bounds: no data; on a log axis the
    // smallest positive value). Pure: any thread, so that what is drawn for the plot (a MarkerLayer image) can be
    // prepared off the GUI thread.
    struct AxisRanges {
        double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
        double xStep = 0, yStep = 0; // between ticks; 0 on a log axis
        bool operator==(const AxisRanges&) const = default;
    };
    // `budget`: how many tick intervals each axis has room for (tickBudget of the plot area and label height).
    // wholeX: the x values are whole numbers (steps, trial numbers): no tick between them.
    static AxisRanges fittedRanges(double x0, double x1, double y0, double y1, bool logY, TickBudget budget = {},
                                   bool wholeX = false, XAxis xKind = XAxis::Linear);
    // The budget fitAxes uses for this chart now: its plot area and its axis labels' line height.
    TickBudget tickBudgetNow() const;
    // The axis labels' line height in pixels (for tickBudget off the GUI thread).
    double labelHeight() const;
    // What an empty chart says in its middle (default: "No data yet").
    void setEmptyText(const QString& text);

    // A log y axis (whole decades); y <= 0 is not drawn. Redraws the curves.
    void setLogY(bool log);
    // A scatter of points: x gets the margin y has, so a marker at an extreme is drawn whole (curves' x is not padded).
    void setPadX(bool pad) { m_padX = pad; }
    bool logY() const { return m_logY; }
    void setAxisTitles(const QString& x, const QString& y);
    // The chart's title (an axis title that does not fit is appended to it: fitTitles).
    void setTitle(const QString& title);
    // The title as set, without an axis title appended.
    QString title() const { return m_title; }
    // Fits both axes to the points of the visible series (positive values only on a log axis), on "nice"
    // tick values. Changes the axes only when the range moved (a range change re-lays out the chart).
    void fitAxes();
    void setMarks(const std::vector<StageMark>& marks);
    // Plot width in device-independent pixels, for down-sampling to about 2 points per pixel.
    int plotWidth() const;
    // A linear axis whose tick labels are axisLabel's compact numbers, never elided (a QCategoryAxis).
    static QValueAxis* newLinearAxis();

    // Zoom along x: the axis shows lo..hi (and y fits the points within) until resetZoom. setZoomY also fixes
    // y to lo..hi (a box drawn with Ctrl held); resetZoom releases both.
    void setZoomX(double lo, double hi);
    void setZoomY(double lo, double hi);
    void resetZoom();
    bool zoomed() const { return m_zoomed; }
    QPair<double, double> xRange() const;
    QPair<double, double> yRange() const;
    // The crosshair's text at x (what the cursor shows there): the x value, then one line per named series,
    // "name: value" at the nearest point (with the raw value beside a smoothed one). Empty without data.
    QStringList crosshairLines(double x) const;
    // The crosshair's text for an x value ("step 1.2k", "time 1:05", "time of day 14:05:30").
    QString xText(double x, double step) const;
    // The x value under a view position (plot coordinates), for the crosshair and tests.
    double xAt(const QPoint& viewPos) const;
    double yAt(const QPoint& viewPos) const;
    // Where the crosshair is (NaN: the cursor is not over the plot).
    double crosshairX() const { return m_cursorX; }
    QPoint viewPosAt(double x, double y) const;
    // Every series' points as CSV ("series,x,y"; all points given to setCurve, else those drawn).
    Q_INVOKABLE QString dataCsv() const;

Q_SIGNALS:
    // A left click in the plot that moved less than a zoom drag needs (view coordinates).
    void clicked(const QPoint& viewPos);

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void changeEvent(QEvent* event) override;
    // A new size from outside (the window resized, a tab shown) gets a fresh budget of refits (m_budgetRefits).
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override; // the same, and the titles fitted to the size shown
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void attach(QXYSeries* series);
    void addToolActions();
    void drawCurve(QLineSeries* series);
    void drawCrosshair(QPainter* painter);
    bool zoomedBounds(double& y0, double& y1) const;
    void swapAxis(QAbstractAxis*& slot, QAbstractAxis* fresh, Qt::Alignment where, const QString& title);
    QList<QPointF> drawable(const QList<QPointF>& points) const; // without what the log axes cannot show
    double toAxisX(double x) const;   // x in the axis' linear coordinate (log10 x on a log axis)
    double fromAxisX(double u) const; // and back
    void plotAreaMoved();
    bool hasData() const;
    void updateLegend();

    struct Bounds {
        double x0, x1, y0, y1, positiveY0; // positiveY0: smallest y above 0 (for a log axis)
        double positiveX0;                 // smallest x above 0
        bool wholeX = true;                // every x is a whole number
    };
    void fitTitles();
    QHash<QString, QXYSeries*> m_series;
    QHash<const QXYSeries*, Bounds> m_bounds;
    QAbstractAxis* m_x = nullptr;
    QAbstractAxis* m_y = nullptr;
    bool m_logY = false;
    bool m_padX = false;
    XAxis m_xKind = XAxis::Linear;
    int m_nextColor = 0;
    std::vector<StageMark> m_marks;
    QString m_yTitle;
    QString m_xTitle;
    QString m_title;
    QString m_emptyText;
    QHash<const QXYSeries*, QList<QPointF>> m_curves; // all points of the curves set by setCurve
    QHash<const QXYSeries*, QLineSeries*> m_raw;       // faint raw companions of smoothed curves
    double m_smoothing = 0;
    bool m_zoomed = false;
    double m_zoomLo = 0, m_zoomHi = 1;
    bool m_zoomedY = false;
    double m_zoomYLo = 0, m_zoomYHi = 1;
    double m_cursorX = std::numeric_limits<double>::quiet_NaN(); // crosshair (NaN: none)
    enum class Drag { None, Zoom, Box, Pan } m_drag = Drag::None;
    QPoint m_dragFrom, m_dragTo;
    TickBudget m_budget;     // the budget the axes were last fitted with
    int m_budgetRefits = 0;  // refits for a new plot size since the data last changed (bounded: no oscillation)
    bool m_refitQueued = false;
};

// Bar sets over named categories (one bar per set and category, side by side or stacked), with the value axis
// from zero to a "nice" maximum, the same palette-following look and "Save as PNG…" as ChartView. GUI thread
// only.
class BarChartView : public QChartView {
    Q_OBJECT
public:
    enum class Layout { Grouped, Stacked };
    struct BarSet {
        QString label;
        QList<double> values; // by category
    };
    BarChartView(const QString& title, Layout layout, QWidget* parent = nullptr);

    // Replaces every bar in one go.
    void setBars(const QStringList& categories, const std::vector<BarSet>& sets);
    void setValueTitle(const QString& title);
    QAbstractBarSeries* series() const { return m_series; }
    QStringList categories() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void colourBars(QBarSet* set, int index) const;

    Layout m_layout;
    QAbstractBarSeries* m_series = nullptr;
    QBarCategoryAxis* m_categories = nullptr;
    QValueAxis* m_values = nullptr;
};

} // namespace pitwall::ui
