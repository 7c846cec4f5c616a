#pragma once
// Batch loaders: a stream of augmented, normalised image batches [B, 3, H, W] with their boxes. This header
// includes torch because the batch tensor is the point; callers that only need options or a benchmark use
// loaderoptions.h / loaderbench.h, which do not.
//
// Pitwall mode: a thread pool (sized from the logical device's CPU share) takes one sample at a time, in order,
// at most `prefetchBatches` batches ahead of the consumer; each sample is decoded and rendered by the fused kernel
// straight into its slot of the batch tensor (no per-sample tensors, no collate copy). Batch buffers are reused
// once the consumer has dropped every reference to them (CPU), or come from LibTorch's caching pinned-memory
// allocator (GPU). Reference mode works as PyTorch's DataLoader (referenceloader.cpp).
//
// Batches follow the sampler (sampler.h): epoch e holds floor(samplesPerEpoch / B) batches (the last partial batch
// is dropped); the stream runs on across epochs without draining. Every sample's augmentation depends only on
// (seed, epoch, dataset index, rank), so the bytes of a batch do not depend on the thread count.

#include "core/engine/data/cache.h"
#include "core/engine/data/loaderoptions.h"

#include <torch/torch.h>

#include <memory>

namespace pitwall::engine::data {

struct LoadedBatch {
    torch::Tensor images;                      // [B, 3, H, W] float32, normalised
    std::vector<std::vector<BoxLabel>> boxes;  // per sample, output pixels, after augmentation
    std::vector<std::int64_t> indices;         // dataset index of each sample
    std::vector<std::uint8_t> valid;           // 0 where the image could not be read (its slot is zeros)
    std::vector<std::uint8_t> decodedEighths;  // per sample: M of the M/8 scale it was decoded at (1..16);
                                               // 0 when it came from the pre-processed cache or did not decode
    std::int64_t epoch = 0;
    std::int64_t step = 0;                     // batch within the epoch
};

class BatchLoader {
public:
    virtual ~BatchLoader() = default;
    // Blocks until the next batch is ready. False after the last batch when options.epochs > 0. Rethrows a
    // failure of the pipeline itself (not of one image: that is a problem and an invalid slot).
    virtual bool next(LoadedBatch& batch) = 0;
    virtual std::int64_t batchesPerEpoch() const = 0;
    // Indexing problems, then images that could not be used so far (once per file).
    virtual std::vector<DataProblem> problems() const = 0;
    // CPU seconds of helper processes (Reference mode's workers); the caller's own process is not included.
    virtual double helperCpuSeconds() const { return 0; }
    virtual int workers() const = 0;
    virtual bool pinned() const { return false; }
    // The pre-processed cache's status (default when not used).
    virtual CacheStatus cacheStatus() const { return {}; }
};

// Builds the loader of options.mode. With options.usePreprocessed the cache is opened or built first (blocking).
// Throws InputError when the shard has fewer samples than one batch (use replication or a smaller batch).
std::unique_ptr<BatchLoader> makeBatchLoader(std::shared_ptr<const DatasetIndex> index, const LoaderOptions& options);

// Boxes packed as [B, maxBoxes, 5] float: (class, x0, y0, x1, y1) in output pixels; unused rows have class -1.
torch::Tensor packBoxes(const LoadedBatch& batch, int maxBoxes);

// The pre-processed cache of either loader: options.cachePath, else <dataset root>/.pitwall-cache/preprocessed.bin,
// opened, or built with `threads` threads at options.sample's output size from the dataset's images. Images that
// cannot be read are added to `problems` and stay unavailable in the cache.
std::unique_ptr<PreprocessedCache> openPreprocessedCache(const DatasetIndex& index, const LoaderOptions& options,
                                                         int threads, std::vector<DataProblem>& problems);

// Reference mode's loader (referenceloader.cpp).
std::unique_ptr<BatchLoader> makeReferenceLoader(std::shared_ptr<const DatasetIndex> index,
                                                 const LoaderOptions& options);

} // namespace pitwall::engine::data
