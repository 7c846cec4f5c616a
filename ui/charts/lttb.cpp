#include "ui/charts/lttb.h"

#include <cmath>

namespace pitwall::ui {

QList<QPointF> lttb(const QPointF* points, qsizetype count, qsizetype threshold)
{
    if (threshold < 3 || count <= threshold)
        return QList<QPointF>(points, points + count);

    QList<QPointF> out;
    out.reserve(threshold);
    out.append(points[0]);
    // The first and last points are kept; the count - 2 points between them fall into threshold - 2 buckets.
    const double bucketSize = static_cast<double>(count - 2) / static_cast<double>(threshold - 2);
    qsizetype kept = 0;
    for (qsizetype bucket = 0; bucket < threshold - 2; ++bucket) {
        const qsizetype begin = static_cast<qsizetype>(std::floor(bucket * bucketSize)) + 1;
        const qsizetype end = static_cast<qsizetype>(std::floor((bucket + 1) * bucketSize)) + 1;
        // The mean of the next bucket (the last point for the last bucket).
        const qsizetype nextBegin = end;
        const qsizetype nextEnd = std::min(static_cast<qsizetype>(std::floor((bucket + 2) * bucketSize)) + 1, count);
        double meanX = 0, meanY = 0;
        const qsizetype nextCount = nextEnd - nextBegin;
        if (nextCount > 0 && bucket + 1 < threshold - 2) {
            for (qsizetype i = nextBegin; i < nextEnd; ++i) {
                meanX += points[i].x();
                meanY += points[i].y();
            }
            meanX /= static_cast<double>(nextCount);
            meanY /= static_cast<double>(nextCount);
        } else {
            meanX = points[count - 1].x();
            meanY = points[count - 1].y();
        }
        const double ax = points[kept].x();
        const double ay = points[kept].y();
        double bestArea = -1;
        qsizetype best = begin;
        for (qsizetype i = begin; i < end; ++i) {
            // Twice the triangle's area; the factor does not change which point wins.
            const double area = std::abs((ax - meanX) * (points[i].y() - ay) - (ax - points[i].x()) * (meanY - ay));
            if (area > bestArea) {
                bestArea = area;
                best = i;
            }
        }
        out.append(points[best]);
        kept = best;
    }
    out.append(points[count - 1]);
    return out;
}

} // namespace pitwall::ui
