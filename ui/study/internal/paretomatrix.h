#pragma once
// The scatter matrix of a study with three or more objectives (a page of the Study view beside the Pareto front):
// one small scatter per pair of objectives (row: the y objective, column: the x objective), every complete trial in
// each, the Pareto front (counting every objective) in green, dominated trials in the complete colour, infeasible
// ones grey; the diagonal names each objective with its direction and the range drawn. The pair the front chart
// shows is outlined; a click on another cell draws that pair there (pairChosen). Hovering names the trial under the
// cursor with all its values. Painted directly (a few thousand points in a dozen cells): GUI thread only.

#include "core/store/records.h"

#include <QStringList>
#include <QWidget>

#include <optional>
#include <utility>
#include <vector>

namespace pitwall::ui {

class ParetoMatrix : public QWidget {
    Q_OBJECT
public:
    enum class Kind { Dominated, Infeasible, Front };
    struct Point {
        std::vector<double> values; // one per objective
        int trial = 0;
        Kind kind = Kind::Dominated;
    };

    explicit ParetoMatrix(QWidget* parent = nullptr);

    // `names` and `directions` one per objective; `chosen` the (x, y) pair the front chart draws.
    void setData(std::vector<Point> points, QStringList names, std::vector<StudyDirection> directions,
                 std::pair<int, int> chosen);
    int objectives() const { return static_cast<int>(m_names.size()); }
    const std::vector<Point>& points() const { return m_points; }
    std::pair<int, int> chosen() const { return m_chosen; }
    // The cell of row `row` (the y objective) and column `column` (the x objective), in widget coordinates.
    QRect cellRect(int row, int column) const;
    // (row, column) of the cell at `pos`, or nullopt outside the grid.
    std::optional<std::pair<int, int>> cellAt(const QPoint& pos) const;
    // The widget position of a point with objective values (x, y) in the cell (row, column).
    QPointF position(int row, int column, double x, double y) const;
    // The trial drawn within 6 px of `pos`, nearest first (front over dominated), or nullopt.
    std::optional<int> trialAt(const QPoint& pos) const;

Q_SIGNALS:
    void pairChosen(int x, int y); // a click on an off-diagonal cell: column x, row y

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    QSize cellSize() const;
    std::pair<double, double> range(int objective) const; // padded

    std::vector<Point> m_points;
    QStringList m_names;
    std::vector<StudyDirection> m_directions;
    std::pair<int, int> m_chosen{0, 1};
    std::vector<std::pair<double, double>> m_ranges;  // per objective, as drawn (padded)
    std::vector<std::pair<double, double>> m_extents; // per objective, the values' lowest and highest
};

} // namespace pitwall::ui
