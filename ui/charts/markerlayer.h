#pragma once
// Markers of many points (thousands of trials) drawn as one image over a ChartView's plot area, in place of
// a series' points: Qt Charts builds a hit-test shape and paints a marker per point, milliseconds on the
// GUI thread at 10,000 points. The image can be rendered off the GUI thread (render, for the plot size and
// axis ranges the chart will have) and handed in; paint() only draws it, and renders it again on the GUI
// thread only when the plot's size or the axes' ranges no longer match (a resize, a range that moved).
// The layer sits above the grid and axes and below the series (a best-so-far line stays on top).

#include "ui/charts/chartview.h"

#include <QColor>
#include <QGraphicsItem>
#include <QImage>
#include <QList>
#include <QPointF>
#include <QSizeF>

#include <vector>

namespace pitwall::ui {

class MarkerLayer : public QGraphicsItem {
public:
    // One kind of marker (complete, pruned): its points in data units and its colour; drawn in order.
    struct Set {
        QList<QPointF> points;
        QColor color;
    };
    // What an image is rendered for: the plot area's size (device-independent pixels), the axes' ranges
    // and the device pixel ratio.
    struct Geometry {
        QSizeF plotSize;
        ChartView::AxisRanges ranges;
        qreal devicePixelRatio = 1;
        bool operator==(const Geometry&) const = default;
    };

    static constexpr qreal kMarkerDiameterPx = 7.5;

    // The markers of `sets` for `geometry` (transparent elsewhere; null when the plot is empty). Pure: any thread.
    static QImage render(const std::vector<Set>& sets, const Geometry& geometry);

    // The legend entry of a set drawn by a layer: `view`'s line series `key` with no line and a round marker of
    // `color` (its points stay empty; setBoundsOnly gives fitAxes the set's bounds). GUI thread.
    static QLineSeries* legendEntry(ChartView* view, const QString& key, const QString& label, const QColor& color);

    // Attached to `view`'s chart, which owns it. GUI thread only, as everything below.
    explicit MarkerLayer(ChartView* view);
    ~MarkerLayer() override;

    // Shows `sets`; `image` is their rendering for `geometry` (null: rendered when painted).
    void setMarkers(std::vector<Set> sets, QImage image, const Geometry& geometry);
    const std::vector<Set>& sets() const { return m_sets; }
    // The number of markers plotted for set `index` (0 when there is no such set).
    qsizetype count(std::size_t index) const { return index < m_sets.size() ? m_sets[index].points.size() : 0; }
    // The geometry the chart has now (its plot area, its axes' ranges, the view's pixel ratio).
    Geometry geometryNow() const;
    // The image as last painted or handed in (for tests: what is on screen).
    const QImage& image() const { return m_image; }
    const Geometry& imageGeometry() const { return m_imageGeometry; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    void follow(); // the plot area moved or resized

    ChartView* m_view;
    std::vector<Set> m_sets;
    QImage m_image;
    Geometry m_imageGeometry;
    QRectF m_plot;
    QMetaObject::Connection m_plotAreaChanged;
};

} // namespace pitwall::ui
