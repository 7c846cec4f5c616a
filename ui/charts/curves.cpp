#include "ui/charts/curves.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace pitwall::ui {

QList<QPointF> debiasedEma(const QList<QPointF>& points, double weight)
{
    if (!(weight > 0))
        return points;
    const double w = std::min(weight, 0.999);
    QList<QPointF> out(points.size());
    QPointF* to = out.data(); // written in place: no per-point append
    double sum = 0;   // sum of w^age * y over the finite points so far, times (1 - w)
    double decay = 1; // w^n over the n finite points so far (0 once it underflows: no denormal arithmetic)
    for (const QPointF& p : points) {
        const double y = p.y();
        if (!std::isfinite(y)) {
            *to++ = p;
            continue;
        }
        sum = sum * w + (1 - w) * y;
        decay = decay > 1e-300 ? decay * w : 0.0;
        *to++ = QPointF(p.x(), sum / (1 - decay));
    }
    return out;
}

QList<QPointF> envelope(const QPointF* points, qsizetype count, int columns)
{
    columns = std::max(columns, 1);
    if (count <= 4 * static_cast<qsizetype>(columns))
        return QList<QPointF>(points, points + count);
    const double x0 = points[0].x();
    const double span = points[count - 1].x() - x0;
    QList<QPointF> out;
    out.reserve(2 * columns + 2);
    qsizetype i = 0;
    while (i < count) {
        // The column of point i, and the points that share it.
        const int column = span > 0 ? std::min(columns - 1, static_cast<int>((points[i].x() - x0) / span * columns))
                                    : 0;
        qsizetype end = i + 1, lo = i, hi = i;
        while (end < count) {
            const int c = span > 0 ? std::min(columns - 1, static_cast<int>((points[end].x() - x0) / span * columns))
                                   : 0;
            if (c != column)
                break;
            if (points[end].y() < points[lo].y())
                lo = end;
            if (points[end].y() > points[hi].y())
                hi = end;
            ++end;
        }
        // The column's lowest and highest point in x order; the curve's first and last point besides.
        std::array<qsizetype, 4> kept{i == 0 ? i : lo, lo, hi, end == count ? end - 1 : hi};
        std::sort(kept.begin(), kept.end());
        for (std::size_t k = 0; k < kept.size(); ++k)
            if (k == 0 || kept[k] != kept[k - 1])
                out.append(points[kept[k]]);
        i = end;
    }
    return out;
}

} // namespace pitwall::ui
