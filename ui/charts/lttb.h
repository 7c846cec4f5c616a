#pragma once
// Largest-triangle-three-buckets down-sampling (Sveinn Steinarsson, 2013) for chart series: keeps the first
// and the last point and, from every bucket in between, the point that spans the largest triangle with the
// point kept before it and the mean of the next bucket — so peaks and dips survive. Points are expected in
// increasing x. Pure function; any thread.

#include <QList>
#include <QPointF>

namespace pitwall::ui {

// At most `threshold` points of `points` (all of them when there are fewer, or when threshold < 3).
QList<QPointF> lttb(const QPointF* points, qsizetype count, qsizetype threshold);
inline QList<QPointF> lttb(const QList<QPointF>& points, qsizetype threshold)
{
    return lttb(points.constData(), points.size(), threshold);
}

} // namespace pitwall::ui
