#include "ui/charts/markerlayer.h"

#include <QChart>
#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>

#include <cmath>

namespace pitwall::ui {

namespace {
// A disc of the marker's size, anti-aliased once and stamped at every point.
QImage disc(const QColor& color, qreal devicePixelRatio)
{
    const int side = static_cast<int>(std::ceil((MarkerLayer::kMarkerDiameterPx + 1) * devicePixelRatio));
    QImage image(side, side, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    image.setDevicePixelRatio(devicePixelRatio);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawEllipse(QRectF(0.5, 0.5, MarkerLayer::kMarkerDiameterPx, MarkerLayer::kMarkerDiameterPx));
    return image;
}
} // namespace

QImage MarkerLayer::render(const std::vector<Set>& sets, const Geometry& geometry)
{
    const QSizeF plot = geometry.plotSize;
    const ChartView::AxisRanges& r = geometry.ranges;
    if (plot.width() < 1 || plot.height() < 1 || !(r.x1 > r.x0) || !(r.y1 > r.y0))
        return {};
    const qreal dpr = geometry.devicePixelRatio > 0 ? geometry.devicePixelRatio : 1;
    QImage image(static_cast<int>(std::ceil(plot.width() * dpr)), static_cast<int>(std::ceil(plot.height() * dpr)),
                 QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    image.setDevicePixelRatio(dpr);
    QPainter painter(&image);
    const double sx = plot.width() / (r.x1 - r.x0);
    const double sy = plot.height() / (r.y1 - r.y0);
    const double half = (kMarkerDiameterPx + 1) / 2;
    for (const Set& set : sets) {
        const QImage stamp = disc(set.color, dpr);
        for (const QPointF& p : set.points) {
            if (!std::isfinite(p.x()) || !std::isfinite(p.y()))
                continue;
            const double x = (p.x() - r.x0) * sx;
            const double y = (r.y1 - p.y()) * sy;
            if (x < -half || y < -half || x > plot.width() + half || y > plot.height() + half)
                continue;
            // Whole device pixels: an unaligned stamp would be resampled, blurring it.
            painter.drawImage(QPointF(std::round((x - half) * dpr) / dpr, std::round((y - half) * dpr) / dpr), stamp);
        }
    }
    return image;
}

QLineSeries* MarkerLayer::legendEntry(ChartView* view, const QString& key, const QString& label, const QColor& color)
{
    QLineSeries* series = view->line(key, label);
    if (series->pen().color() != color || series->lightMarker().isNull()) {
        series->setPen(QPen(color, 5, Qt::NoPen)); // the width sizes the markers (1.5 × width)
        series->setPointsVisible(true);
        QImage marker(8, 8, QImage::Format_ARGB32_Premultiplied);
        marker.fill(Qt::transparent);
        QPainter painter(&marker);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(color);
        painter.drawEllipse(QRectF(0.5, 0.5, 7, 7));
        painter.end();
        series->setLightMarker(marker);
    }
    return series;
}

MarkerLayer::MarkerLayer(ChartView* view) : QGraphicsItem(view->chart()), m_view(view)
{
    // Above the grid and the axes (z 2 and 3 in Qt Charts), below the series (4 and up).
    setZValue(3.5);
    QChart* chart = view->chart();
    m_plotAreaChanged = QObject::connect(chart, &QChart::plotAreaChanged, view, [this](const QRectF&) { follow(); });
    follow();
}

MarkerLayer::~MarkerLayer()
{
    QObject::disconnect(m_plotAreaChanged); // the chart may outlive this item while it is torn down
}

void MarkerLayer::follow()
{
    const QRectF plot = m_view->chart()->plotArea();
    if (plot.size() != m_plot.size())
        prepareGeometryChange();
    m_plot = plot;
    setPos(plot.topLeft());
    update();
}

MarkerLayer::Geometry MarkerLayer::geometryNow() const
{
    Geometry geometry;
    geometry.plotSize = m_view->chart()->plotArea().size();
    geometry.devicePixelRatio = m_view->devicePixelRatioF();
    const auto horizontal = m_view->chart()->axes(Qt::Horizontal);
    const auto vertical = m_view->chart()->axes(Qt::Vertical);
    auto* x = horizontal.isEmpty() ? nullptr : qobject_cast<QValueAxis*>(horizontal.first());
    auto* y = vertical.isEmpty() ? nullptr : qobject_cast<QValueAxis*>(vertical.first());
    if (x && y) {
        geometry.ranges.x0 = x->min(), geometry.ranges.x1 = x->max();
        geometry.ranges.y0 = y->min(), geometry.ranges.y1 = y->max();
    }
    geometry.ranges.xStep = geometry.ranges.yStep = 0; // not part of what is drawn
    return geometry;
}

void MarkerLayer::setMarkers(std::vector<Set> sets, QImage image, const Geometry& geometry)
{
    m_sets = std::move(sets);
    m_image = std::move(image);
    m_imageGeometry = geometry;
    m_imageGeometry.ranges.xStep = m_imageGeometry.ranges.yStep = 0;
    if (m_image.isNull())
        m_imageGeometry = {}; // rendered when painted
    update();
}

QRectF MarkerLayer::boundingRect() const
{
    return QRectF(QPointF(0, 0), m_plot.size());
}

void MarkerLayer::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    if (m_sets.empty())
        return;
    const Geometry now = geometryNow();
    if (m_image.isNull() || !(now == m_imageGeometry)) {
        m_image = render(m_sets, now);
        m_imageGeometry = now;
    }
    if (!m_image.isNull())
        painter->drawImage(QPointF(0, 0), m_image);
}

} // namespace pitwall::ui
