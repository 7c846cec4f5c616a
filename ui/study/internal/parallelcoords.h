#pragma once
// Parallel coordinates: one vertical axis per parameter plus the objective, one polyline per trial, coloured
// by the objective. Drag along an axis to brush a range; trials outside any brush fade. A click on an axis
// clears its brush. Lines are painted once into a cached image (re-made on data, size, brush or palette
// change), so repaints are a blit even for thousands of trials. Many lines can be rasterised off the GUI
// thread (renderDenseLayer) and handed over with the data. The widget itself: GUI thread only.

#include <QImage>
#include <QList>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

class QPainter;

namespace pitwall::ui {

class ParallelCoordinates : public QWidget {
    Q_OBJECT
public:
    struct Axis {
        QString name;
        bool log = false;
        QStringList categories; // non-empty: a categorical axis (values are indices)
        double low = 0, high = 1;
    };

    using Brushes = std::vector<std::optional<std::pair<double, double>>>; // per axis, data units

    // What a dense line layer looks like besides the data: geometry and colours, taken on the GUI thread.
    struct LayerStyle {
        QSize pixelSize; // device pixels; empty: not laid out yet
        qreal dpr = 1;
        QRectF plot; // device-independent pixels
        QRgb base = 0, good = 0, bad = 0, text = 0;
        bool operator==(const LayerStyle& o) const
        {
            return pixelSize == o.pixelSize && dpr == o.dpr && plot == o.plot && base == o.base && good == o.good &&
                   bad == o.bad && text == o.text;
        }
    };
    LayerStyle layerStyle() const;
    const Brushes& brushes() const { return m_brushes; }
    // The lines of many rows as a density image over the base colour, without axes (see kDenseFrom); rows
    // outside `brushes` fade. Pure: any thread.
    static QImage renderDenseLayer(const std::vector<Axis>& axes, const std::vector<std::vector<double>>& rows,
                                   const Brushes& brushes, bool lowIsGood, const LayerStyle& style);

    explicit ParallelCoordinates(QWidget* parent = nullptr);

    // rows[i][a] is line i's value on axis a (NaN when missing); labels[i] names line i (a trial number).
    // The last axis colours the lines; `lowIsGood` says which end of it is drawn in the "good" colour.
    void setData(std::vector<Axis> axes, std::vector<std::vector<double>> rows, std::vector<int> labels,
                 bool lowIsGood);
    // The same with a dense layer rendered elsewhere for these rows, `style` and `layerBrushes`: painting only
    // blits it while the widget still matches them (otherwise the layer is rendered again when painted).
    void setData(std::vector<Axis> axes, std::vector<std::vector<double>> rows, std::vector<int> labels,
                 bool lowIsGood, QImage layer, const LayerStyle& style, const Brushes& layerBrushes);
    // A brush keeps values in [low, high] (data units) on one axis.
    void setBrush(int axis, double low, double high);
    void clearBrush(int axis);
    std::optional<std::pair<double, double>> brush(int axis) const;
    // Labels of the lines inside every brush (all lines when there is no brush).
    QList<int> selected() const;
    int axisCount() const { return static_cast<int>(m_axes.size()); }
    QStringList axisNames() const;

    QSize sizeHint() const override { return {480, 260}; }
    // Above this many lines they are drawn as a density image (see renderDense).
    static constexpr std::size_t kDenseFrom = 400;

Q_SIGNALS:
    void selectionChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    QRectF plotRect() const;
    double axisX(int axis) const;
    // 0 at the bottom of the axis, 1 at the top; NaN for a missing value.
    double normalised(int axis, double value) const;
    double valueAt(int axis, double t) const;
    bool inBrushes(std::size_t row) const;
    // Re-makes m_cache: the lines, then the axes over them.
    void renderLines();
    // m_cache's background: the dense layer (made again here when stale), or the base colour.
    void startCache(bool dense);
    void paintLines(QPainter& p); // one polyline per row (few rows), selected lines on top
    void paintAxes(QPainter& p);  // axes, names, ticks and brushes

    std::vector<Axis> m_axes;
    std::vector<std::vector<double>> m_rows;
    std::vector<int> m_labels;
    bool m_lowIsGood = true;
    Brushes m_brushes;
    QImage m_cache;
    QImage m_layer; // a dense layer made elsewhere, valid for m_layerStyle and m_layerBrushes
    LayerStyle m_layerStyle;
    Brushes m_layerBrushes;
    bool m_dirty = true;
    int m_dragAxis = -1;
    double m_dragStart = 0; // normalised
    bool m_dragMoved = false;
};

} // namespace pitwall::ui
