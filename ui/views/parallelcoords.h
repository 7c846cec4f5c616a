#pragma once
// Parallel coordinates: one vertical axis per parameter plus the objective, one polyline per trial, coloured
// by the objective. Drag along an axis to brush a range; trials outside any brush fade. A click on an axis
// clears its brush. Lines are painted once into a cached image (re-made on data, size, brush or palette
// change), so repaints are a blit even for thousands of trials. GUI thread only.

#include <QImage>
#include <QList>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

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

    explicit ParallelCoordinates(QWidget* parent = nullptr);

    // rows[i][a] is line i's value on axis a (NaN when missing); labels[i] names line i (a trial number).
    // The last axis colours the lines; `lowIsGood` says which end of it is drawn in the "good" colour.
    void setData(std::vector<Axis> axes, std::vector<std::vector<double>> rows, std::vector<int> labels,
                 bool lowIsGood);
    // A brush keeps values in [low, high] (data units) on one axis.
    void setBrush(int axis, double low, double high);
    void clearBrush(int axis);
    void clearBrushes();
    std::optional<std::pair<double, double>> brush(int axis) const;
    // Labels of the lines inside every brush (all lines when there is no brush).
    QList<int> selected() const;
    int axisCount() const { return static_cast<int>(m_axes.size()); }

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
    void renderLines();
    void renderDense(const QColor& good, const QColor& bad, bool anyBrush);

    std::vector<Axis> m_axes;
    std::vector<std::vector<double>> m_rows;
    std::vector<int> m_labels;
    bool m_lowIsGood = true;
    std::vector<std::optional<std::pair<double, double>>> m_brushes; // data units
    QImage m_cache;
    std::vector<std::uint32_t> m_count, m_shade, m_faded; // renderDense's per-pixel buffers
    bool m_dirty = true;
    int m_dragAxis = -1;
    double m_dragStart = 0; // normalised
    bool m_dragMoved = false;
};

} // namespace pitwall::ui
