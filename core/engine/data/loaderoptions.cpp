#include "core/engine/data/loaderoptions.h"

#include "core/config/config.h"
#include "core/devices/devices.h"

namespace pitwall::engine::data {

const char* loaderModeName(LoaderMode mode)
{
    return mode == LoaderMode::Pitwall ? "pitwall" : "reference";
}

int cpuShareThreads()
{
    return static_cast<int>(processCores().size());
}

LoaderOptions loaderOptionsFromConfig(const ResolvedConfig& config, std::uint64_t seed, int rank, int worldSize)
{
    LoaderOptions o;
    o.mode = config.getString("data.loader") == "reference" ? LoaderMode::Reference : LoaderMode::Pitwall;
    o.usePreprocessed = config.getBool("data.use_preprocessed");
    if (config.getString("data.decode") == "full") {
        o.sample.scaleChoice = image::ScaleChoice::FullOnly;
        o.sample.regionDecode = false;
    }
    o.shard.replicate = config.getBool("data.replicate_dataset_per_device");
    o.threads = static_cast<int>(config.getInt("data.num_workers"));
    o.prefetchBatches = static_cast<int>(config.getInt("data.prefetch_batches"));
    o.shard.rank = rank;
    o.shard.worldSize = worldSize;
    o.shard.seed = seed;
    return o;
}

} // namespace pitwall::engine::data
