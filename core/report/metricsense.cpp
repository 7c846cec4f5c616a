#include "core/report/metricsense.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace pitwall {

namespace {
bool hasWord(const std::string& name, std::string_view word)
{
    // A word of the name: bounded by the ends, '_', '-', '.', '/' or ' ' ("l1" in "waypoint_l1", not in "cell1x").
    for (std::size_t at = name.find(word); at != std::string::npos; at = name.find(word, at + 1)) {
        const auto boundary = [](char c) { return c == '_' || c == '-' || c == '.' || c == '/' || c == ' '; };
        const bool left = at == 0 || boundary(name[at - 1]);
        const std::size_t end = at + word.size();
        const bool right = end == name.size() || boundary(name[end]);
        if (left && right)
            return true;
    }
    return false;
}
} // namespace

MetricSense metricSense(std::string_view full)
{
    const std::size_t slash = full.rfind('/');
    std::string name(slash == std::string_view::npos ? full : full.substr(slash + 1));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    // A spread is neither: smaller is more certain, not better.
    if (hasWord(name, "std") || hasWord(name, "stderr") || hasWord(name, "var"))
        return MetricSense::Unknown;
    // Higher first: "infraction_penalty" is CARLA's multiplier (1 = no infraction), better high.
    static constexpr std::array<std::string_view, 17> higher{
        "score", "miou", "iou", "map", "accuracy", "acc", "precision", "recall", "f1", "fps", "throughput",
        "completion", "penalty", "samples_per_second", "auc", "ap", "success"};
    static constexpr std::array<std::string_view, 19> lower{
        "loss", "mae", "mse", "rmse", "l1", "l2", "error", "err", "wait", "seconds", "ms", "s", "time", "latency",
        "memory", "mb", "infractions", "collisions", "ade"};
    for (std::string_view word : higher)
        if (hasWord(name, word))
            return MetricSense::HigherIsBetter;
    for (std::string_view word : lower)
        if (hasWord(name, word))
            return MetricSense::LowerIsBetter;
    return MetricSense::Unknown;
}

} // namespace pitwall
