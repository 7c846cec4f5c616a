#pragma once
// What a chart does to a curve before drawing it: smoothing with a debiased exponential moving average (the
// scalar dashboards' smoothing: a weight w in [0, 1), each point the average of the points so far with weights
// w^age, divided by 1 - w^n so that the first points are not pulled towards zero), and down-sampling to an
// envelope that keeps every spike (for each pixel column its lowest and highest point, in x order: the line drawn
// through them spans what the line through every point spans in that column; 4 points per column, with the
// columns' first and last, drew twice as many points for no visible gain and cost 3 ms more per Live view
// refresh). Pure functions; any thread.

#include <QList>
#include <QPointF>

namespace pitwall::ui {

// The smoothed curve: same x values, same length. Non-finite y values stay as they are and do not enter the
// average. weight <= 0 returns the points unchanged; weights are clamped below 1.
QList<QPointF> debiasedEma(const QList<QPointF>& points, double weight);

// At most 2 points per column of `columns` equal-width columns over the points' x range (points in increasing
// x), plus the curve's first and last point: per column its lowest and highest point, in x order and without
// repeats. Every point that is the lowest or the highest of its column survives, so no extreme disappears. All
// points when there are no more than 4 * columns of them.
QList<QPointF> envelope(const QPointF* points, qsizetype count, int columns);
inline QList<QPointF> envelope(const QList<QPointF>& points, int columns)
{
    return envelope(points.constData(), points.size(), columns);
}

} // namespace pitwall::ui
