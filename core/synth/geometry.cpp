#include "core/synth/geometry.h"

namespace pitwall::synth {

namespace {

// Half the extent of an oriented rectangle projected on unit axis `axis`.
double projectedRadius(Vec2 axis, double halfLength, double halfWidth, double yaw)
{
    const Vec2 forward = direction(yaw);
    const Vec2 left{-forward.y, forward.x};
    return halfLength * std::abs(axis.dot(forward)) + halfWidth * std::abs(axis.dot(left));
}

} // namespace

bool footprintsOverlap(Vec2 centreA, double halfLengthA, double halfWidthA, double yawA, Vec2 centreB,
                       double halfLengthB, double halfWidthB, double yawB)
{
    const Vec2 offset = centreB - centreA;
    const double yaws[2] = {yawA, yawB};
    for (double yaw : yaws) {
        const Vec2 forward = direction(yaw);
        const Vec2 axes[2] = {forward, {-forward.y, forward.x}};
        for (Vec2 axis : axes) {
            const double distance = std::abs(offset.dot(axis));
            if (distance > projectedRadius(axis, halfLengthA, halfWidthA, yawA) +
                               projectedRadius(axis, halfLengthB, halfWidthB, yawB))
                return false;
        }
    }
    return true;
}

} // namespace pitwall::synth
