#pragma once
// A Qt Charts view with what every workbench chart needs: one x axis and a linear or logarithmic y axis
// fitted to the data, series created on demand by key with palette-following colours, optional vertical
// markers (stage boundaries) painted over the plot, and "Save as PNG…" in its context menu. GUI thread only.

#include "ui/charts/axisscale.h"
#include "ui/poller/liveseries.h"

#include <QChartView>
#include <QHash>

#include <vector>

class QAbstractAxis;
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
    // Replaces a series' points in one bulk call (no per-point signals) and remembers their bounds, so that
    // fitAxes need not read the points back.
    void setPoints(QXYSeries* series, const QList<QPointF>& points);
    // Remembers the bounds of points that are drawn for `series` outside it (a MarkerLayer), so that fitAxes
    // includes them; the series keeps its own points (typically none: a legend entry only).
    void setBoundsOnly(QXYSeries* series, const QList<QPointF>& points);

    // The axis ranges fitAxes sets for data within x0..x1, y0..y1 (infinite bounds: no data). Pure: any
    // thread, so that what is drawn for the plot (a MarkerLayer image) can be prepared off the GUI thread.
    struct AxisRanges {
        double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
        double xStep = 0, yStep = 0; // between ticks; 0 on a log axis
        bool operator==(const AxisRanges&) const = default;
    };
    // `budget`: how many tick intervals each axis has room for (tickBudget of the plot area and label height).
    // wholeX: the x values are whole numbers (steps, trial numbers): no tick between them.
    static AxisRanges fittedRanges(double x0, double x1, double y0, double y1, bool logY, TickBudget budget = {},
                                   bool wholeX = false);
    // The budget fitAxes uses for this chart now: its plot area and its axis labels' line height.
    TickBudget tickBudgetNow() const;
    // The axis labels' line height in pixels (for tickBudget off the GUI thread).
    double labelHeight() const;
    // What an empty chart says in its middle (default: "No data yet").
    void setEmptyText(const QString& text);

    void setLogY(bool log);
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

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void changeEvent(QEvent* event) override;

private:
    void attach(QXYSeries* series);
    void plotAreaMoved();
    bool hasData() const;
    void updateLegend();

    struct Bounds {
        double x0, x1, y0, y1, positiveY0; // positiveY0: smallest y above 0 (for a log axis)
        bool wholeX = true;                // every x is a whole number
    };
    void fitTitles();
    QHash<QString, QXYSeries*> m_series;
    QHash<const QXYSeries*, Bounds> m_bounds;
    QAbstractAxis* m_x = nullptr;
    QAbstractAxis* m_y = nullptr;
    bool m_logY = false;
    int m_nextColor = 0;
    std::vector<StageMark> m_marks;
    QString m_yTitle;
    QString m_xTitle;
    QString m_title;
    QString m_emptyText;
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
