// ChartView's tools: smoothed and down-sampled curves, the crosshair, zoom and pan, and the data export.
#include "ui/charts/chartview.h"

#include "ui/charts/curves.h"
#include "ui/charts/lttb.h"
#include "ui/exporting.h"

#include <QAction>
#include <QChart>
#include <QFileDialog>
#include <QKeyEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace pitwall::ui {

namespace {

// The point of `points` (increasing x) nearest to x.
const QPointF* nearestSorted(const QList<QPointF>& points, double x)
{
    if (points.isEmpty())
        return nullptr;
    auto it = std::lower_bound(points.cbegin(), points.cend(), x,
                               [](const QPointF& p, double value) { return p.x() < value; });
    if (it == points.cend())
        return &points.constLast();
    if (it != points.cbegin() && x - std::prev(it)->x() < it->x() - x)
        --it;
    return &*it;
}

// The point nearest to x of points in any order.
const QPointF* nearestAny(const QList<QPointF>& points, double x)
{
    const QPointF* best = nullptr;
    for (const QPointF& p : points)
        if (std::isfinite(p.y()) && (!best || std::abs(p.x() - x) < std::abs(best->x() - x)))
            best = &p;
    return best;
}

QString valueText(double v)
{
    return std::abs(v) < 1e-12 ? QStringLiteral("0") : QString::number(v, 'g', 5);
}

// `points` with x replaced by f(x) (log10: a log axis' pixel columns are equal in log x).
QList<QPointF> mapX(const QList<QPointF>& points, double (*f)(double))
{
    QList<QPointF> out;
    out.reserve(points.size());
    for (const QPointF& p : points)
        out.append(QPointF(f(p.x()), p.y()));
    return out;
}
double log10of(double x)
{
    return std::log10(x);
}

} // namespace

void ChartView::addToolActions()
{
    addPngExportMenu(this); // "Save as PNG, SVG or PDF…"
    auto* data = new QAction(tr("Export data as CSV…"), this);
    connect(data, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export chart data"), objectName() + QStringLiteral(".csv"),
                                                          tr("CSV (*.csv)"));
        if (path.isEmpty())
            return;
        const QString error = writeText(dataCsv(), path);
        if (!error.isEmpty())
            QMessageBox::warning(this, tr("Export"), error);
    });
    addAction(data);
    auto* reset = new QAction(tr("Reset zoom (double click, Esc)"), this);
    reset->setObjectName(QStringLiteral("resetZoom"));
    connect(reset, &QAction::triggered, this, &ChartView::resetZoom);
    addAction(reset);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    setToolTip(tr("Drag along x to zoom, Ctrl+drag a box, Shift+drag to pan, wheel to zoom; double click or Esc "
                  "resets"));
}

void ChartView::offerLogScales()
{
    auto* logX = new QAction(tr("Log scale x"), this);
    logX->setObjectName(QStringLiteral("logScaleX"));
    logX->setCheckable(true);
    connect(logX, &QAction::toggled, this, [this](bool on) { setXAxis(on ? XAxis::Log : XAxis::Linear); });
    auto* logY = new QAction(tr("Log scale y"), this);
    logY->setObjectName(QStringLiteral("logScaleY"));
    logY->setCheckable(true);
    connect(logY, &QAction::toggled, this, &ChartView::setLogY);
    addAction(logX);
    addAction(logY);
}

QList<QPointF> ChartView::drawable(const QList<QPointF>& points) const
{
    const bool logX = m_xKind == XAxis::Log;
    if (!logX && !m_logY)
        return points;
    QList<QPointF> kept;
    kept.reserve(points.size());
    for (const QPointF& p : points)
        if ((!logX || p.x() > 0) && (!m_logY || p.y() > 0))
            kept.append(p);
    return kept;
}

double ChartView::toAxisX(double x) const
{
    return m_xKind == XAxis::Log ? std::log10(std::max(x, 1e-300)) : x;
}

double ChartView::fromAxisX(double u) const
{
    return m_xKind == XAxis::Log ? std::pow(10.0, u) : u;
}

void ChartView::setCurve(QLineSeries* series, const QList<QPointF>& points)
{
    m_curves.insert(series, points);
    drawCurve(series);
}

void ChartView::drawCurve(QLineSeries* series)
{
    const bool logX = m_xKind == XAxis::Log;
    // On a log x axis the curve is thinned where its pixel columns are: in log10 x. The points kept get their x
    // back from the curve (log10 and back is not exact).
    const QList<QPointF> original = drawable(m_curves.value(series));
    const QList<QPointF> points = logX ? mapX(original, log10of) : original;
    const auto shown = [&](const QList<QPointF>& thinned) {
        if (!logX)
            return thinned;
        QList<QPointF> out;
        out.reserve(thinned.size());
        for (const QPointF& p : thinned) {
            const auto at = std::lower_bound(points.cbegin(), points.cend(), p.x(),
                                             [](const QPointF& q, double x) { return q.x() < x; });
            out.append(QPointF(at != points.cend() ? original[at - points.cbegin()].x() : std::pow(10.0, p.x()), p.y()));
        }
        return out;
    };
    const int columns = std::max(32, plotWidth());
    QLineSeries* raw = m_raw.value(series);
    if (m_smoothing > 0) {
        if (!raw) {
            // The raw curve, faint behind the smoothed one and out of the legend.
            raw = new QLineSeries;
            QColor colour = series->pen().color();
            colour.setAlphaF(0.25);
            QPen pen(colour);
            pen.setWidthF(1.0);
            raw->setPen(pen);
            // No name: out of the crosshair and the data export too (the smoothed series reports the raw values).
            chart()->addSeries(raw);
            raw->attachAxis(chart()->axes(Qt::Horizontal).constFirst());
            raw->attachAxis(chart()->axes(Qt::Vertical).constFirst());
            for (QLegendMarker* marker : chart()->legend()->markers(raw))
                marker->setVisible(false);
            m_raw.insert(series, raw);
        }
        raw->setVisible(series->isVisible());
        setPoints(raw, shown(envelope(points, columns)));
        // A smoothed curve has no spikes to keep: LTTB's fewer points draw it as well.
        setPoints(series, shown(lttb(debiasedEma(points, m_smoothing), 2 * columns)));
    } else {
        if (raw) {
            m_bounds.remove(raw);
            m_raw.remove(series);
            chart()->removeSeries(raw);
            delete raw;
        }
        setPoints(series, shown(envelope(points, columns)));
    }
}

void ChartView::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.999);
    if (weight == m_smoothing)
        return;
    m_smoothing = weight;
    for (auto it = m_curves.constBegin(); it != m_curves.constEnd(); ++it)
        drawCurve(static_cast<QLineSeries*>(const_cast<QXYSeries*>(it.key())));
    fitAxes();
}

QPair<double, double> ChartView::xRange() const
{
    if (auto* log = qobject_cast<QLogValueAxis*>(m_x))
        return {log->min(), log->max()};
    auto* axis = qobject_cast<QValueAxis*>(m_x);
    return axis ? qMakePair(axis->min(), axis->max()) : qMakePair(0.0, 1.0);
}

QPair<double, double> ChartView::yRange() const
{
    if (auto* log = qobject_cast<QLogValueAxis*>(m_y))
        return {log->min(), log->max()};
    auto* axis = qobject_cast<QValueAxis*>(m_y);
    return axis ? qMakePair(axis->min(), axis->max()) : qMakePair(0.0, 1.0);
}

double ChartView::xAt(const QPoint& viewPos) const
{
    const QPointF at = chart()->mapFromScene(mapToScene(viewPos));
    const QRectF plot = chart()->plotArea();
    const auto [lo, hi] = xRange();
    const double u0 = toAxisX(lo), u1 = toAxisX(hi);
    return plot.width() > 0 ? fromAxisX(u0 + (at.x() - plot.left()) / plot.width() * (u1 - u0)) : lo;
}

double ChartView::yAt(const QPoint& viewPos) const
{
    const QPointF at = chart()->mapFromScene(mapToScene(viewPos));
    const QRectF plot = chart()->plotArea();
    const auto [lo, hi] = yRange();
    if (plot.height() <= 0)
        return lo;
    const double f = (plot.bottom() - at.y()) / plot.height();
    return m_logY ? lo * std::pow(hi / lo, f) : lo + f * (hi - lo);
}

QPoint ChartView::viewPosAt(double x, double y) const
{
    const QRectF plot = chart()->plotArea();
    const auto [x0, x1] = xRange();
    const auto [y0, y1] = yRange();
    const double fx = (toAxisX(x) - toAxisX(x0)) / (toAxisX(x1) - toAxisX(x0));
    const double fy = m_logY ? std::log(y / y0) / std::log(y1 / y0) : (y - y0) / (y1 - y0);
    const QPointF scene = chart()->mapToScene(QPointF(plot.left() + fx * plot.width(), plot.bottom() - fy * plot.height()));
    return mapFromScene(scene);
}

void ChartView::setZoomX(double lo, double hi)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return;
    m_zoomed = true;
    m_zoomLo = lo;
    m_zoomHi = hi;
    fitAxes();
    viewport()->update();
}

void ChartView::setZoomY(double lo, double hi)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || (m_logY && lo <= 0))
        return;
    m_zoomedY = true;
    m_zoomYLo = lo;
    m_zoomYHi = hi;
    fitAxes();
    viewport()->update();
}

void ChartView::resetZoom()
{
    if (!m_zoomed && !m_zoomedY)
        return;
    m_zoomed = m_zoomedY = false;
    fitAxes();
    viewport()->update();
}

bool ChartView::zoomedBounds(double& y0, double& y1) const
{
    y0 = std::numeric_limits<double>::infinity();
    y1 = -y0;
    for (auto b = m_bounds.constBegin(); b != m_bounds.constEnd(); ++b) {
        const QXYSeries* series = b.key();
        if (!series->isVisible())
            continue;
        const QList<QPointF> points = m_curves.contains(series) ? m_curves.value(series) : series->points();
        if (points.isEmpty() && std::isfinite(b->x0)) {
            // Drawn elsewhere (a MarkerLayer): its whole range.
            y0 = std::min(y0, m_logY ? b->positiveY0 : b->y0);
            y1 = std::max(y1, b->y1);
            continue;
        }
        for (const QPointF& p : points)
            if (p.x() >= m_zoomLo && p.x() <= m_zoomHi && std::isfinite(p.y()) && (!m_logY || p.y() > 0)) {
                y0 = std::min(y0, p.y());
                y1 = std::max(y1, p.y());
            }
    }
    return std::isfinite(y0);
}

QString ChartView::xText(double x, double step) const
{
    const QString title = m_xTitle.isEmpty() ? tr("x") : m_xTitle;
    switch (m_xKind) {
    case XAxis::Log:
        return QStringLiteral("%1 %2").arg(title, valueText(x));
    case XAxis::Elapsed:
        return QStringLiteral("%1 %2").arg(title, timeLabel(x, step < 1 ? 0.1 : 1));
    case XAxis::Clock:
        return QStringLiteral("%1 %2").arg(title, clockLabel(x, 1));
    case XAxis::Linear:
        break;
    }
    return QStringLiteral("%1 %2").arg(title, axisLabel(x, step));
}

QStringList ChartView::crosshairLines(double x) const
{
    QStringList lines;
    if (!hasData() || !std::isfinite(x))
        return lines;
    const auto [lo, hi] = xRange();
    lines << xText(x, (hi - lo) / 1000);
    for (QAbstractSeries* abstract : chart()->series()) {
        auto* series = qobject_cast<QXYSeries*>(abstract);
        if (!series || !series->isVisible() || series->name().isEmpty())
            continue;
        const QPointF* drawn = nearestAny(series->points(), x);
        const auto curve = m_curves.constFind(series);
        const QPointF* full = curve != m_curves.constEnd() ? nearestSorted(*curve, x) : nullptr;
        if (m_raw.contains(series) && drawn && full)
            lines << tr("%1: %2 (raw %3)").arg(series->name(), valueText(drawn->y()), valueText(full->y()));
        else if (full)
            lines << QStringLiteral("%1: %2").arg(series->name(), valueText(full->y()));
        else if (drawn)
            lines << QStringLiteral("%1: %2").arg(series->name(), valueText(drawn->y()));
    }
    return lines;
}

void ChartView::drawCrosshair(QPainter* painter)
{
    const QRectF plot = chart()->plotArea();
    painter->save();
    if (m_drag == Drag::Zoom || m_drag == Drag::Box) {
        // The x range (or the box) being chosen.
        const QPointF a = chart()->mapFromScene(mapToScene(m_dragFrom));
        const QPointF b = chart()->mapFromScene(mapToScene(m_dragTo));
        QColor fill = palette().color(QPalette::Highlight);
        fill.setAlphaF(0.2);
        const bool box = m_drag == Drag::Box;
        painter->fillRect(QRectF(QPointF(std::min(a.x(), b.x()), box ? std::min(a.y(), b.y()) : plot.top()),
                                 QPointF(std::max(a.x(), b.x()), box ? std::max(a.y(), b.y()) : plot.bottom())),
                          fill);
    }
    if (std::isfinite(m_cursorX) && m_drag == Drag::None) {
        const QStringList lines = crosshairLines(m_cursorX);
        const double px = chart()->mapFromScene(mapToScene(viewPosAt(m_cursorX, yRange().first))).x();
        if (!lines.isEmpty() && px >= plot.left() && px <= plot.right()) {
            painter->setPen(QPen(palette().color(QPalette::Text), 1, Qt::DotLine));
            painter->drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
            const QFontMetricsF metrics(painter->font());
            double width = 0;
            for (const QString& line : lines)
                width = std::max(width, metrics.horizontalAdvance(line));
            QRectF box(0, 0, width + 10, metrics.height() * lines.size() + 6);
            box.moveTopLeft(QPointF(px + 8, plot.top() + 4));
            if (box.right() > plot.right())
                box.moveRight(px - 8);
            QColor back = palette().color(QPalette::ToolTipBase);
            back.setAlphaF(0.92);
            painter->setPen(palette().color(QPalette::Mid));
            painter->setBrush(back);
            painter->drawRect(box);
            painter->setPen(palette().color(QPalette::ToolTipText));
            for (qsizetype i = 0; i < lines.size(); ++i)
                painter->drawText(QPointF(box.left() + 5, box.top() + 3 + metrics.ascent() + i * metrics.height()),
                                  lines[i]);
        }
    }
    painter->restore();
}

void ChartView::mousePressEvent(QMouseEvent* event)
{
    const QPointF at = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    const bool inPlot = chart()->plotArea().contains(at);
    if (inPlot && (event->button() == Qt::LeftButton || event->button() == Qt::MiddleButton)) {
        const bool pan = event->button() == Qt::MiddleButton || event->modifiers().testFlag(Qt::ShiftModifier);
        const bool box = event->modifiers().testFlag(Qt::ControlModifier);
        m_drag = pan ? Drag::Pan : box ? Drag::Box : Drag::Zoom;
        m_dragFrom = m_dragTo = event->position().toPoint();
        event->accept();
        return;
    }
    QChartView::mousePressEvent(event);
}

void ChartView::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::Zoom || m_drag == Drag::Box) {
        m_dragTo = pos;
    } else if (m_drag == Drag::Pan) {
        const double shift = toAxisX(xAt(m_dragFrom)) - toAxisX(xAt(pos));
        const auto [lo, hi] = xRange();
        m_dragFrom = pos;
        setZoomX(fromAxisX(toAxisX(lo) + shift), fromAxisX(toAxisX(hi) + shift));
    } else {
        const QPointF at = chart()->mapFromScene(mapToScene(pos));
        m_cursorX = chart()->plotArea().contains(at) ? xAt(pos) : std::numeric_limits<double>::quiet_NaN();
    }
    viewport()->update();
    QChartView::mouseMoveEvent(event);
}

void ChartView::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_drag == Drag::None) {
        QChartView::mouseReleaseEvent(event);
        return;
    }
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if ((drag == Drag::Zoom || drag == Drag::Box) && std::abs(m_dragTo.x() - m_dragFrom.x()) >= 5) {
        const double a = xAt(m_dragFrom), b = xAt(m_dragTo);
        if (drag == Drag::Box && std::abs(m_dragTo.y() - m_dragFrom.y()) >= 5) {
            const double c = yAt(m_dragFrom), d = yAt(m_dragTo);
            m_zoomedY = true;
            m_zoomYLo = std::min(c, d);
            m_zoomYHi = std::max(c, d);
        }
        setZoomX(std::min(a, b), std::max(a, b));
    } else if (drag == Drag::Zoom && event->button() == Qt::LeftButton &&
               (m_dragTo - m_dragFrom).manhattanLength() < 5) {
        Q_EMIT clicked(event->position().toPoint());
    }
    viewport()->update();
    event->accept();
}

void ChartView::mouseDoubleClickEvent(QMouseEvent* event)
{
    m_drag = Drag::None;
    resetZoom();
    event->accept();
}

void ChartView::wheelEvent(QWheelEvent* event)
{
    const int delta = event->angleDelta().y();
    if (delta == 0 || !hasData()) {
        QChartView::wheelEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    const double centre = toAxisX(xAt(pos));
    const auto [lo, hi] = xRange();
    const double factor = std::pow(0.8, delta / 120.0);
    const double newLo = fromAxisX(centre - (centre - toAxisX(lo)) * factor);
    const double newHi = fromAxisX(centre + (toAxisX(hi) - centre) * factor);
    // Zoomed out past the data: back to all of it.
    double dataLo = std::numeric_limits<double>::infinity(), dataHi = -dataLo;
    for (auto b = m_bounds.constBegin(); b != m_bounds.constEnd(); ++b)
        if (b.key()->isVisible() && std::isfinite(b->x0))
            dataLo = std::min(dataLo, b->x0), dataHi = std::max(dataHi, b->x1);
    if (factor > 1 && newLo <= dataLo && newHi >= dataHi)
        resetZoom();
    else
        setZoomX(newLo, newHi);
    event->accept();
}

void ChartView::leaveEvent(QEvent* event)
{
    m_cursorX = std::numeric_limits<double>::quiet_NaN();
    viewport()->update();
    QChartView::leaveEvent(event);
}

void ChartView::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && (m_zoomed || m_zoomedY)) {
        resetZoom();
        event->accept();
        return;
    }
    QChartView::keyPressEvent(event);
}

QString ChartView::dataCsv() const
{
    QString out = csvRecord({tr("series"), m_xTitle.isEmpty() ? tr("x") : m_xTitle, m_yTitle.isEmpty() ? tr("y") : m_yTitle});
    for (QAbstractSeries* abstract : chart()->series()) {
        auto* series = qobject_cast<QXYSeries*>(abstract);
        if (!series || series->name().isEmpty())
            continue;
        const QList<QPointF> points = m_curves.contains(series) ? m_curves.value(series) : series->points();
        for (const QPointF& p : points)
            out += csvRecord({series->name(), QString::number(p.x(), 'g', 17), QString::number(p.y(), 'g', 17)});
    }
    return out;
}

} // namespace pitwall::ui
