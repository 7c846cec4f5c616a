#include "ui/charts/chartview.h"

#include "ui/exporting.h"
#include "ui/theme.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <QXYSeries>

#include <cmath>
#include <limits>

namespace pitwall::ui {

namespace {

// The look every workbench chart shares: a titled chart with its legend below and thin margins.
QChart* newChart(QChartView* view, const QString& title)
{
    view->setObjectName(title.toLower().replace(QLatin1Char(' '), QLatin1Char('-')));
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    return chart;
}

// Colours of the chart, its axes and the view from the view's palette.
void applyTheme(QChartView* view)
{
    const QPalette pal = view->palette();
    QChart* c = view->chart();
    c->setBackgroundBrush(pal.color(QPalette::Base));
    c->setPlotAreaBackgroundVisible(false);
    c->setTitleBrush(pal.color(QPalette::Text));
    c->legend()->setLabelColor(pal.color(QPalette::Text));
    for (QAbstractAxis* axis : c->axes()) {
        axis->setLabelsColor(pal.color(QPalette::Text));
        axis->setTitleBrush(pal.color(QPalette::Text));
        axis->setGridLineColor(pal.color(QPalette::Mid));
        axis->setMinorGridLineColor(pal.color(QPalette::Midlight));
        axis->setLinePenColor(pal.color(QPalette::Mid));
    }
    view->setBackgroundBrush(pal.color(QPalette::Base));
}

} // namespace

ChartView::ChartView(const QString& title, QWidget* parent) : QChartView(parent)
{
    auto* chart = newChart(this, title);
    auto* x = new QValueAxis;
    x->setLabelFormat(QStringLiteral("%.4g"));
    chart->addAxis(x, Qt::AlignBottom);
    m_x = x;
    auto* y = new QValueAxis;
    y->setLabelFormat(QStringLiteral("%.4g"));
    chart->addAxis(y, Qt::AlignLeft);
    m_y = y;
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(200, 150);
    applyTheme(this);
    addPngExportMenu(this);
}

void ChartView::attach(QXYSeries* series)
{
    chart()->addSeries(series);
    series->attachAxis(m_x);
    series->attachAxis(m_y);
}

QLineSeries* ChartView::line(const QString& key, const QString& label)
{
    if (auto* existing = qobject_cast<QLineSeries*>(m_series.value(key)))
        return existing;
    auto* series = new QLineSeries;
    series->setName(label.isEmpty() ? key : label);
    QPen pen(seriesColor(m_nextColor++, palette()));
    pen.setWidthF(1.5);
    series->setPen(pen);
    m_series.insert(key, series);
    attach(series);
    updateLegend();
    return series;
}

void ChartView::addSeries(const QString& key, QXYSeries* series)
{
    m_series.insert(key, series);
    attach(series);
    updateLegend();
}

void ChartView::updateLegend()
{
    // Many series (per-head losses): a compact legend beside the plot instead of under it.
    QLegend* legend = chart()->legend();
    const bool many = m_series.size() > 4;
    legend->setAlignment(many ? Qt::AlignRight : Qt::AlignBottom);
    QFont font = this->font();
    if (many)
        font.setPointSizeF(font.pointSizeF() * 0.8);
    legend->setFont(font);
}

void ChartView::removeAll()
{
    chart()->removeAllSeries();
    m_series.clear();
    m_bounds.clear();
    m_nextColor = 0;
}

void ChartView::setPoints(QXYSeries* series, const QList<QPointF>& points)
{
    setBoundsOnly(series, points);
    series->replace(points);
}

void ChartView::setBoundsOnly(QXYSeries* series, const QList<QPointF>& points)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    Bounds b{inf, -inf, inf, -inf, inf};
    for (const QPointF& p : points) {
        if (!std::isfinite(p.y()) || !std::isfinite(p.x()))
            continue;
        b.x0 = std::min(b.x0, p.x());
        b.x1 = std::max(b.x1, p.x());
        b.y0 = std::min(b.y0, p.y());
        b.y1 = std::max(b.y1, p.y());
        if (p.y() > 0)
            b.positiveY0 = std::min(b.positiveY0, p.y());
    }
    m_bounds.insert(series, b);
}

namespace {
// A step of 1, 2 or 5 times a power of ten that splits `span` into about `ticks` intervals.
double niceStep(double span, int ticks)
{
    const double raw = span / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (raw <= m * magnitude)
            return m * magnitude;
    return 10 * magnitude;
}

// The "nice" range around lo..hi and its step.
struct NiceRange {
    double lo, hi, step;
};
NiceRange niceRange(double lo, double hi)
{
    const double step = niceStep(hi - lo, 5);
    return {std::floor(lo / step) * step, std::ceil(hi / step) * step, step};
}

void setLinearRange(QAbstractAxis* axis, double lo, double hi, double step)
{
    auto* value = qobject_cast<QValueAxis*>(axis);
    if (!value)
        return;
    const int ticks = static_cast<int>(std::lround((hi - lo) / step)) + 1;
    if (value->min() != lo || value->max() != hi)
        value->setRange(lo, hi);
    if (value->tickCount() != ticks)
        value->setTickCount(std::clamp(ticks, 2, 12));
}
} // namespace

void ChartView::setLogY(bool log)
{
    if (log == m_logY)
        return;
    m_logY = log;
    QAbstractAxis* old = m_y;
    if (log) {
        auto* axis = new QLogValueAxis;
        axis->setBase(10);
        axis->setLabelFormat(QStringLiteral("%.4g"));
        axis->setMinorTickCount(8);
        m_y = axis;
    } else {
        auto* axis = new QValueAxis;
        axis->setLabelFormat(QStringLiteral("%.4g"));
        m_y = axis;
    }
    chart()->addAxis(m_y, Qt::AlignLeft);
    for (QXYSeries* series : std::as_const(m_series)) {
        series->detachAxis(old);
        series->attachAxis(m_y);
    }
    chart()->removeAxis(old);
    delete old;
    m_y->setTitleText(m_yTitle);
    applyTheme(this);
}

void ChartView::setAxisTitles(const QString& x, const QString& y)
{
    m_x->setTitleText(x);
    m_yTitle = y;
    m_y->setTitleText(y);
}

ChartView::AxisRanges ChartView::fittedRanges(double x0, double x1, double y0, double y1, bool logY)
{
    if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(y1)) {
        x0 = 0, x1 = 1, y0 = logY ? 1 : 0, y1 = logY ? 10 : 1;
    }
    if (x1 <= x0)
        x1 = x0 + 1;
    AxisRanges ranges;
    const NiceRange x = niceRange(x0, x1);
    ranges.x0 = x.lo, ranges.x1 = x.hi, ranges.xStep = x.step;
    if (logY) {
        if (y1 <= y0)
            y1 = y0 * 10;
        // Whole decades, so the range (and the layout) changes only when the data crosses one.
        ranges.y0 = std::pow(10.0, std::floor(std::log10(y0)));
        ranges.y1 = std::pow(10.0, std::ceil(std::log10(y1)));
    } else {
        // A margin, so that markers and lines at the extremes are not cut by the plot's edge.
        const double pad = y1 > y0 ? (y1 - y0) * 0.03 : std::max(std::abs(y0) * 0.05, 1e-9);
        const NiceRange y = niceRange(y0 - pad, y1 + pad);
        ranges.y0 = y.lo, ranges.y1 = y.hi, ranges.yStep = y.step;
    }
    return ranges;
}

void ChartView::fitAxes()
{
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (QXYSeries* series : std::as_const(m_series)) {
        auto b = m_bounds.constFind(series);
        if (!series->isVisible() || b == m_bounds.constEnd())
            continue;
        x0 = std::min(x0, b->x0);
        x1 = std::max(x1, b->x1);
        y0 = std::min(y0, m_logY ? b->positiveY0 : b->y0);
        y1 = std::max(y1, b->y1);
    }
    for (const StageMark& mark : m_marks)
        if (std::isfinite(x0)) {
            x0 = std::min(x0, mark.x);
            x1 = std::max(x1, mark.x);
        }
    const AxisRanges ranges = fittedRanges(x0, x1, y0, y1, m_logY);
    setLinearRange(m_x, ranges.x0, ranges.x1, ranges.xStep);
    if (m_logY) {
        auto* log = qobject_cast<QLogValueAxis*>(m_y);
        if (log && (log->min() != ranges.y0 || log->max() != ranges.y1))
            log->setRange(ranges.y0, ranges.y1);
    } else {
        setLinearRange(m_y, ranges.y0, ranges.y1, ranges.yStep);
    }
}

void ChartView::setMarks(const std::vector<StageMark>& marks)
{
    m_marks = marks;
    viewport()->update();
}

int ChartView::plotWidth() const
{
    return std::max(1, static_cast<int>(chart()->plotArea().width()));
}

void ChartView::drawForeground(QPainter* painter, const QRectF& rect)
{
    QChartView::drawForeground(painter, rect);
    if (m_marks.empty() || m_series.isEmpty())
        return;
    const QRectF plot = chart()->plotArea();
    QXYSeries* reference = *m_series.constBegin();
    painter->save();
    QPen pen(palette().color(QPalette::Text));
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(1.0);
    painter->setPen(pen);
    for (const StageMark& mark : m_marks) {
        const QPointF at = chart()->mapToPosition(QPointF(mark.x, 1.0), reference);
        if (at.x() < plot.left() - 0.5 || at.x() > plot.right() + 0.5)
            continue;
        painter->drawLine(QPointF(at.x(), plot.top()), QPointF(at.x(), plot.bottom()));
        painter->drawText(QPointF(at.x() + 3, plot.top() + painter->fontMetrics().ascent() + 1), mark.name);
    }
    painter->restore();
}

void ChartView::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyTheme(this);
}

BarChartView::BarChartView(const QString& title, Layout layout, QWidget* parent) : QChartView(parent), m_layout(layout)
{
    auto* chart = newChart(this, title);
    m_categories = new QBarCategoryAxis;
    chart->addAxis(m_categories, Qt::AlignBottom);
    m_values = new QValueAxis;
    m_values->setLabelFormat(QStringLiteral("%.4g"));
    chart->addAxis(m_values, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(200, 150);
    applyTheme(this);
    addPngExportMenu(this);
}

void BarChartView::setBars(const QStringList& categories, const std::vector<BarSet>& sets)
{
    chart()->removeAllSeries();
    if (m_layout == Layout::Stacked)
        m_series = new QStackedBarSeries;
    else
        m_series = new QBarSeries;
    double top = 0;
    std::vector<double> stacked(static_cast<std::size_t>(categories.size()), 0.0);
    for (std::size_t i = 0; i < sets.size(); ++i) {
        auto* set = new QBarSet(sets[i].label);
        colourBars(set, static_cast<int>(i));
        for (int c = 0; c < categories.size(); ++c) {
            const double v = std::isfinite(sets[i].values.value(c)) ? sets[i].values.value(c) : 0.0;
            set->append(v);
            stacked[static_cast<std::size_t>(c)] += v;
            top = std::max(top, m_layout == Layout::Stacked ? stacked[static_cast<std::size_t>(c)] : v);
        }
        m_series->append(set);
    }
    chart()->addSeries(m_series);
    m_categories->setCategories(categories);
    m_series->attachAxis(m_categories);
    m_series->attachAxis(m_values);
    const ChartView::AxisRanges ranges = ChartView::fittedRanges(0, 1, 0, top > 0 ? top : 1, false);
    setLinearRange(m_values, 0, ranges.y1, ranges.yStep);
}

void BarChartView::setValueTitle(const QString& title)
{
    m_values->setTitleText(title);
}

QStringList BarChartView::categories() const
{
    return m_categories->categories();
}

void BarChartView::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() != QEvent::PaletteChange)
        return;
    applyTheme(this);
    if (m_series)
        for (int i = 0; i < m_series->count(); ++i)
            colourBars(m_series->barSets().at(i), i);
}

void BarChartView::colourBars(QBarSet* set, int index) const
{
    set->setColor(seriesColor(index, palette()));
    set->setBorderColor(palette().color(QPalette::Base));
    set->setLabelColor(palette().color(QPalette::Text));
}

} // namespace pitwall::ui
