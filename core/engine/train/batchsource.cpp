#include "core/engine/train/batchsource.h"

#include "core/util/error.h"

#include <algorithm>

namespace pitwall::engine {

DataSplit dataSplitFromConfig(const ResolvedConfig& config)
{
    DataSplit split;
    split.validationFraction = config.getDouble("data.validation_fraction");
    split.hpoFraction = config.getBool("data.hpo_split") ? config.getDouble("data.hpo_validation_fraction") : 0.0;
    return split;
}

std::int64_t validationTailCount(std::int64_t count, double fraction, const std::string& what)
{
    const std::int64_t tail =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(count) * fraction));
    if (count - tail < 1)
        throw InputError(what + " has " + std::to_string(count) +
                         " usable sample(s): too few to split into training and validation");
    return tail;
}

std::unique_ptr<BatchSource> openBatchSource(const ModelPlan& plan, const std::string& dir, const DataSplit& split,
                                             const ResolvedConfig& config)
{
    if (plan.batches == BatchKind::DetectionImages)
        return makeDetectionBatches(dir, plan, split, config);
    return makeDrivingBatches(dir, split);
}

} // namespace pitwall::engine
