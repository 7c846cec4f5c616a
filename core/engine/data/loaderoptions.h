#pragma once
// Options of the batch loaders (loader.h), and their config keys. No torch, so the CLI and the trainer's
// headers can carry them.

#include "core/engine/data/sample.h"
#include "core/engine/data/sampler.h"

#include <cstdint>
#include <string>

namespace pitwall {
class ResolvedConfig;
}

namespace pitwall::engine::data {

enum class LoaderMode {
    Pitwall,   // per-sample tasks on a thread pool, fused kernel writing straight into the batch tensor
    Reference, // as PyTorch's DataLoader: worker processes, each building whole batches from per-sample tensors
};
const char* loaderModeName(LoaderMode mode);

struct LoaderOptions {
    LoaderMode mode = LoaderMode::Pitwall;
    int batchSize = 8;
    SampleOptions sample;       // output size, augmentation, normalisation, DCT scale choice
    int threads = 0;            // workers (threads, or processes in Reference mode); 0 = cpuShareThreads()
    int prefetchBatches = 4;    // Pitwall: batches in flight; Reference: batches per worker (prefetch_factor)
    ShardOptions shard;         // rank, world size, replication, shuffle, seed (also the augmentation seed)
    std::int64_t epochs = 0;    // 0 = an endless stream of epochs
    std::int64_t firstEpoch = 0; // the first epoch's number: a resumed run continues the numbering, so its
                                 // epochs get the same sample order and augmentation as uninterrupted ones
    bool usePreprocessed = false;
    std::string cachePath;      // empty: <dataset root>/.pitwall-cache/preprocessed.bin
    bool pinMemory = true;      // page-locked batches when a CUDA device is present
};

// The cores this process may run on, i.e. its logical device's CPU share once a worker is bound to it.
int cpuShareThreads();

// data.loader, data.use_preprocessed, data.decode (sample.scaleChoice and regionDecode),
// data.replicate_dataset_per_device, data.num_workers and data.prefetch_batches of a resolved configuration, for
// one rank of `worldSize` and a run's seed (which drives shuffling and augmentation).
LoaderOptions loaderOptionsFromConfig(const ResolvedConfig& config, std::uint64_t seed, int rank = 0,
                                      int worldSize = 1);

} // namespace pitwall::engine::data
