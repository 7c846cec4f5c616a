#include "ui/charts/chartview.h"

#include "ui/exporting.h"
#include "ui/theme.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QStackedBarSeries>
#include <QTimer>
#include <QValueAxis>
#include <QXYSeries>

#include <cmath>
#include <limits>
#include <tuple>

namespace pitwall::ui {

namespace {

// The look every workbench chart shares: a titled chart with its legend below and thin margins.
QChart* newChart(QChartView* view, const QString& title)
{
    view->setObjectName(title.toLower().replace(QLatin1Char(' '), QLatin1Char('-')));
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    // Room on the right for half of the last x label, which sits on the plot's edge.
    chart->setMargins(QMargins(4, 4, 14, 4));
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
    m_x = newLinearAxis();
    chart->addAxis(m_x, Qt::AlignBottom);
    m_y = newLinearAxis();
    chart->addAxis(m_y, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(200, 110);
    applyTheme(this);
    addToolActions();
    m_emptyText = tr("No data yet");
    m_title = title;
    // A new plot size may give the axes room for more or fewer ticks: refit once the layout settles.
    connect(chart, &QChart::plotAreaChanged, this, &ChartView::plotAreaMoved);
    fitAxes();
}

void ChartView::resizeEvent(QResizeEvent* event)
{
    m_budgetRefits = 0; // only the chart's own layout (titles, labels) can oscillate, never the view's size
    QChartView::resizeEvent(event);
}

void ChartView::showEvent(QShowEvent* event)
{
    QChartView::showEvent(event);
    m_budgetRefits = 0;
    plotAreaMoved();
}

void ChartView::plotAreaMoved()
{
    if (m_refitQueued || m_budgetRefits >= 3)
        return;
    m_refitQueued = true;
    QTimer::singleShot(0, this, [this] {
        m_refitQueued = false;
        if (tickBudgetNow() == m_budget) {
            fitTitles();
            return;
        }
        ++m_budgetRefits;
        const int refits = m_budgetRefits;
        fitAxes();
        m_budgetRefits = refits; // fitAxes from here is not a data change
    });
}

double ChartView::labelHeight() const
{
    return QFontMetricsF(m_y ? m_y->labelsFont() : font()).height();
}

TickBudget ChartView::tickBudgetNow() const
{
    return tickBudget(chart()->plotArea().size(), labelHeight());
}

void ChartView::setEmptyText(const QString& text)
{
    m_emptyText = text;
    viewport()->update();
}

bool ChartView::hasData() const
{
    for (auto it = m_bounds.constBegin(); it != m_bounds.constEnd(); ++it)
        if (std::isfinite(it->x0) && it.key()->isVisible())
            return true;
    return false;
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
    m_curves.clear();
    m_raw.clear();
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
    Bounds b{inf, -inf, inf, -inf, inf, inf};
    for (const QPointF& p : points) {
        if (!std::isfinite(p.y()) || !std::isfinite(p.x()))
            continue;
        b.x0 = std::min(b.x0, p.x());
        b.x1 = std::max(b.x1, p.x());
        b.y0 = std::min(b.y0, p.y());
        b.y1 = std::max(b.y1, p.y());
        if (p.y() > 0)
            b.positiveY0 = std::min(b.positiveY0, p.y());
        if (p.x() > 0)
            b.positiveX0 = std::min(b.positiveX0, p.x());
        if (p.x() != std::floor(p.x()))
            b.wholeX = false;
    }
    m_bounds.insert(series, b);
}

namespace {
// Puts `scale` on a linear axis: its range, and a label at every tick (a QCategoryAxis, whose labels are text:
// axisLabel's compact numbers); a plain QValueAxis gets the range and tick count.
void applyScale(QAbstractAxis* axis, const AxisScale& scale, ChartView::XAxis kind = ChartView::XAxis::Linear)
{
    auto* value = qobject_cast<QValueAxis*>(axis);
    if (!value)
        return;
    const int intervals = std::max(1, static_cast<int>(std::lround((scale.hi - scale.lo) / scale.step)));
    auto* category = qobject_cast<QCategoryAxis*>(axis);
    if (!category) {
        if (value->min() != scale.lo || value->max() != scale.hi)
            value->setRange(scale.lo, scale.hi);
        if (value->tickCount() != intervals + 1)
            value->setTickCount(std::clamp(intervals + 1, 2, 12));
        return;
    }
    // Ticks on the multiples of the step within the range (a zoomed range need not start on one).
    QList<double> ticks;
    const double origin = kind == ChartView::XAxis::Clock ? timeOrigin(scale.lo, scale.step, TimeAxis::Clock) : 0.0;
    const double first = origin + std::ceil((scale.lo - origin) / scale.step - 1e-9) * scale.step;
    for (int i = 0; first + i * scale.step <= scale.hi + scale.step * 1e-9 && i <= intervals + 1; ++i)
        ticks << first + i * scale.step;
    QStringList labels;
    for (double tick : ticks)
        labels << (kind == ChartView::XAxis::Elapsed ? timeLabel(tick, scale.step)
                   : kind == ChartView::XAxis::Clock ? clockLabel(tick, scale.step)
                                                     : axisLabel(tick, scale.step));
    if (category->categoriesLabels() == labels && category->min() == scale.lo && category->max() == scale.hi)
        return;
    for (const QString& label : category->categoriesLabels())
        category->remove(label);
    // Each label sits on its tick's value (the category that ends there); the first category starts a step
    // below the first tick, so that the lowest tick has its label too.
    category->setStartValue(first - scale.step);
    for (qsizetype i = 0; i < ticks.size(); ++i)
        category->append(labels[i], ticks[i]);
    category->setRange(scale.lo, scale.hi);
}
} // namespace

namespace {
QLogValueAxis* newLogAxis()
{
    auto* axis = new QLogValueAxis;
    axis->setBase(10);
    axis->setLabelFormat(QStringLiteral("%.4g"));
    axis->setMinorTickCount(8);
    return axis;
}

// Whole decades around lo..hi (lo > 0), so that the range (and the layout) changes only when the data crosses one.
QPair<double, double> decades(double lo, double hi)
{
    if (hi <= lo)
        hi = lo * 10;
    const double a = std::pow(10.0, std::floor(std::log10(lo))), b = std::pow(10.0, std::ceil(std::log10(hi)));
    return {a, b > a ? b : a * 10};
}
} // namespace

QValueAxis* ChartView::newLinearAxis()
{
    auto* axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setTruncateLabels(false);
    return axis;
}

void ChartView::swapAxis(QAbstractAxis*& slot, QAbstractAxis* fresh, Qt::Alignment where, const QString& title)
{
    QAbstractAxis* old = slot;
    slot = fresh;
    chart()->addAxis(fresh, where);
    // Every series, the faint raw companions of smoothed curves included.
    for (QAbstractSeries* series : chart()->series()) {
        series->detachAxis(old);
        series->attachAxis(fresh);
    }
    chart()->removeAxis(old);
    delete old;
    fresh->setTitleText(title);
    applyTheme(this);
}

void ChartView::setLogY(bool log)
{
    if (log == m_logY)
        return;
    m_logY = log;
    m_zoomedY = false;
    swapAxis(m_y, log ? static_cast<QAbstractAxis*>(newLogAxis()) : newLinearAxis(), Qt::AlignLeft, m_yTitle);
    for (auto it = m_curves.constBegin(); it != m_curves.constEnd(); ++it)
        drawCurve(static_cast<QLineSeries*>(const_cast<QXYSeries*>(it.key())));
    fitAxes();
}

void ChartView::setXAxis(XAxis kind)
{
    if (kind == m_xKind)
        return;
    const bool wasLog = m_xKind == XAxis::Log;
    m_xKind = kind;
    m_zoomed = m_zoomedY = false;
    if (wasLog != (kind == XAxis::Log))
        swapAxis(m_x, kind == XAxis::Log ? static_cast<QAbstractAxis*>(newLogAxis()) : newLinearAxis(), Qt::AlignBottom,
                 m_xTitle);
    for (auto it = m_curves.constBegin(); it != m_curves.constEnd(); ++it)
        drawCurve(static_cast<QLineSeries*>(const_cast<QXYSeries*>(it.key())));
    fitAxes();
    viewport()->update();
}

void ChartView::setTitle(const QString& title)
{
    m_title = title;
    fitTitles();
    if (chart()->plotArea().isEmpty())
        chart()->setTitle(title);
}

void ChartView::setAxisTitles(const QString& x, const QString& y)
{
    m_xTitle = x;
    m_yTitle = y;
    m_x->setTitleText(x);
    m_y->setTitleText(y);
    fitTitles();
}

ChartView::AxisRanges ChartView::fittedRanges(double x0, double x1, double y0, double y1, bool logY,
                                              TickBudget budget, bool wholeX, XAxis xKind)
{
    const bool logX = xKind == XAxis::Log;
    if (!std::isfinite(x0) || !std::isfinite(x1) || !std::isfinite(y0) || !std::isfinite(y1)) {
        // No data: 0..1 on both axes (1..10 on a log one), no margin.
        AxisRanges empty;
        empty.xStep = logX ? 0 : niceScale(0, 1, budget.x).step;
        if (logX)
            empty.x0 = 1, empty.x1 = 10;
        empty.yStep = logY ? 0 : niceScale(0, 1, budget.y).step;
        if (logY)
            empty.y0 = 1, empty.y1 = 10;
        return empty;
    }
    AxisRanges ranges;
    if (logX) {
        std::tie(ranges.x0, ranges.x1) = decades(x0, x1);
    } else if (xKind == XAxis::Elapsed || xKind == XAxis::Clock) {
        const AxisScale x = timeScale(x0, x1, budget.xPixels, budget.charWidth,
                                      xKind == XAxis::Clock ? TimeAxis::Clock : TimeAxis::Elapsed);
        ranges.x0 = x.lo, ranges.x1 = x.hi, ranges.xStep = x.step;
    } else {
        if (x1 <= x0)
            x1 = x0 + 1;
        const double minStep = wholeX ? 1.0 : 0.0;
        const AxisScale x = budget.xPixels > 0 ? fittingScale(x0, x1, budget.xPixels, budget.charWidth, budget.x, minStep)
                                               : niceScale(x0, x1, budget.x, minStep);
        ranges.x0 = x.lo, ranges.x1 = x.hi, ranges.xStep = x.step;
    }
    if (logY) {
        std::tie(ranges.y0, ranges.y1) = decades(y0, y1);
    } else {
        // A margin, so that markers and lines at the extremes are not cut by the plot's edge; never below zero for
        // data that is not (niceScale keeps lo >= 0 then).
        const double pad = y1 > y0 ? (y1 - y0) * 0.03 : std::max(std::abs(y0) * 0.05, 1e-9);
        const double lo = y0 >= 0 ? std::max(0.0, y0 - pad) : y0 - pad;
        const double hi = y1 <= 0 ? std::min(0.0, y1 + pad) : y1 + pad;
        const AxisScale y = niceScale(lo, hi, budget.y);
        ranges.y0 = y.lo, ranges.y1 = y.hi, ranges.yStep = y.step;
    }
    return ranges;
}

void ChartView::fitAxes()
{
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    bool wholeX = true;
    for (auto b = m_bounds.constBegin(); b != m_bounds.constEnd(); ++b) {
        if (!b.key()->isVisible())
            continue;
        wholeX = wholeX && b->wholeX;
        x0 = std::min(x0, m_xKind == XAxis::Log ? b->positiveX0 : b->x0);
        x1 = std::max(x1, b->x1);
        y0 = std::min(y0, m_logY ? b->positiveY0 : b->y0);
        y1 = std::max(y1, b->y1);
    }
    for (const StageMark& mark : m_marks)
        if (std::isfinite(x0) && (m_xKind != XAxis::Log || mark.x > 0)) {
            x0 = std::min(x0, mark.x);
            x1 = std::max(x1, mark.x);
        }
    m_budget = tickBudgetNow();
    m_budgetRefits = 0;
    for (const StageMark& mark : m_marks)
        wholeX = wholeX && mark.x == std::floor(mark.x);
    if (m_zoomed) {
        // The user's x range as it is (ticks on the multiples of a step that fits it); y fitted to what is in it.
        x0 = m_zoomLo, x1 = m_zoomHi;
        zoomedBounds(y0, y1);
    } else if (m_padX && m_xKind == XAxis::Linear && std::isfinite(x0) && x1 > x0) {
        // Markers at the extremes of x are not cut by the plot's edge either (as y's margin).
        const double pad = (x1 - x0) * 0.03;
        x0 = x0 >= 0 ? std::max(0.0, x0 - pad) : x0 - pad;
        x1 += pad;
    }
    AxisRanges ranges = fittedRanges(x0, x1, y0, y1, m_logY, m_budget, wholeX, m_xKind);
    if (m_zoomed)
        ranges.x0 = m_zoomLo, ranges.x1 = m_zoomHi;
    if (m_zoomedY) {
        // The box's y range as it is; ticks on a step that fits it.
        ranges.y0 = m_zoomYLo, ranges.y1 = m_zoomYHi;
        ranges.yStep = m_logY ? 0 : niceScale(m_zoomYLo, m_zoomYHi, m_budget.y).step;
    }
    if (auto* logX = qobject_cast<QLogValueAxis*>(m_x)) {
        if (logX->min() != ranges.x0 || logX->max() != ranges.x1)
            logX->setRange(ranges.x0, ranges.x1);
    } else {
        applyScale(m_x, {ranges.x0, ranges.x1, ranges.xStep}, m_xKind);
    }
    if (m_logY) {
        auto* log = qobject_cast<QLogValueAxis*>(m_y);
        if (log && (log->min() != ranges.y0 || log->max() != ranges.y1))
            log->setRange(ranges.y0, ranges.y1);
    } else {
        applyScale(m_y, {ranges.y0, ranges.y1, ranges.yStep});
    }
    fitTitles();
}

// Axis titles that do not fit beside or under a small plot move into the chart's title ("Data wait: ms per batch
// by step") instead of being elided.
void ChartView::fitTitles()
{
    const QRectF plot = chart()->plotArea();
    if (plot.isEmpty())
        return;
    const QFontMetricsF metrics(m_y->titleFont());
    const bool yFits = m_yTitle.isEmpty() || metrics.horizontalAdvance(m_yTitle) + 24 <= plot.height();
    const bool xFits = m_xTitle.isEmpty() || plot.height() >= 5 * metrics.height();
    m_y->setTitleText(yFits ? m_yTitle : QString());
    m_x->setTitleText(xFits ? m_xTitle : QString());
    // The longest of these that fits the chart's width: the y title matters more than the x one.
    const QString withY = yFits ? m_title : m_title + QStringLiteral(": ") + m_yTitle;
    QString title = xFits ? withY : withY + tr(" by ") + m_xTitle;
    const QFontMetricsF titleMetrics(chart()->titleFont());
    const double room = chart()->size().width() - 16;
    // Without room for both, the y title alone (a metric's name says more than "Metric per trial").
    const QString last = yFits ? m_title : titleMetrics.elidedText(m_yTitle, Qt::ElideMiddle, room);
    for (const QString& shorter : {withY, last})
        if (titleMetrics.horizontalAdvance(title) > room)
            title = shorter;
    if (chart()->title() != title)
        chart()->setTitle(title);
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
    drawCrosshair(painter);
    if (!hasData() && !m_emptyText.isEmpty()) {
        painter->save();
        painter->setPen(palette().color(QPalette::PlaceholderText));
        painter->drawText(chart()->plotArea().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                          m_emptyText);
        painter->restore();
    }
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
    m_values = ChartView::newLinearAxis();
    chart->addAxis(m_values, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(200, 110);
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
    const TickBudget budget = tickBudget(chart()->plotArea().size(), QFontMetricsF(m_values->labelsFont()).height());
    const ChartView::AxisRanges ranges = ChartView::fittedRanges(0, 1, 0, top > 0 ? top : 1, false, budget);
    applyScale(m_values, {0, ranges.y1, ranges.yStep});
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
