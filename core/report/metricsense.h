#pragma once
// Which way a metric is better, from its name, for tables that colour differences (the Compare view's deltas):
// losses, errors and times are better lower; scores, accuracies, IoU, mAP and throughput higher. The name's last
// component ("metrics/waypoint_l1" -> "waypoint_l1") decides; a name that says neither is Unknown and is left
// uncoloured (better no colour than a wrong one). A study's objective takes the study's direction instead.

#include <string_view>

namespace pitwall {

enum class MetricSense { Unknown, LowerIsBetter, HigherIsBetter };

MetricSense metricSense(std::string_view name);

} // namespace pitwall
