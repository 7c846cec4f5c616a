#pragma once
// The data-loading-only benchmark (`pitwall bench loader`): fetch batches without training, as DALI's
// "data-loading-only evaluation", and report ms/batch and process CPU % after warm-up next to the decode-bound
// floor measured in the same run. No torch.

#include "core/engine/data/cache.h"
#include "core/engine/data/dataset.h"
#include "core/engine/data/loaderoptions.h"
#include "core/image/jpeg.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pitwall::engine::data {

struct LoaderBenchOptions {
    std::string images;  // a folder of JPEGs (--images), or
    std::string dataset; // a dataset folder of any reader (--dataset)
    std::string split;   // YOLO / OpenLane split
    LoaderOptions loader;
    int batches = 1000;  // measured, after warm-up
    int warmup = 300;
    int floorImages = 64; // distinct images decoded (twice, one thread) for the floor
};

struct LoaderBenchResult {
    std::string mode;
    std::string datasetKind;
    std::int64_t images = 0;
    int workers = 0;
    int cores = 0;       // of this process (its logical device's share)
    int batches = 0, warmup = 0;
    double msPerBatch = 0;
    double cpuPercent = 0;          // (user + system CPU of this process and its helpers) / wall; 100 = one core
    double decodeMsPerImage = 0;    // libjpeg-turbo full-scale decode, one thread, bytes in memory
    double decodeMsBefore = 0, decodeMsAfter = 0; // the two floor measurements (the floor uses the smaller)
    double floorMsPerBatch = 0;     // decodeMsPerImage * batch / min(workers, cores)
    double floorRatio = 0;          // msPerBatch / floorMsPerBatch
    // The floor at the scales the loader actually decoded at (the DCT scale of each measured sample): the
    // floor images decoded at each of those scales, weighted by how often the loader used it.
    std::map<int, std::int64_t> decodedEighths; // M of M/8 -> measured samples decoded at it (0: cache)
    double scaledDecodeMsPerImage = 0;    // wall
    double scaledDecodeCpuMsPerImage = 0; // thread CPU time (what other processes on the core do not inflate)
    double scaledFloorMsPerBatch = 0; // scaledDecodeMsPerImage * batch / min(workers, cores)
    double scaledFloorRatio = 0;      // msPerBatch / scaledFloorMsPerBatch
    // At equal CPU, robust to other processes taking cores: the loader's CPU time per batch over the decode time
    // CPU time of the batch's images at their scales (1 = nothing but decoding, on every core it got).
    double cpuFloorRatio = 0;
    double warmupSeconds = 0;
    double setupSeconds = 0;        // indexing, cache, starting the workers
    double loadBefore = 0, loadAfter = 0; // 1-minute load average
    bool pinned = false;
    CacheStatus cache;              // when pre-processed
    std::int64_t sampleSlots = 0;   // samples loaded, warm-up and measured batches together
    std::int64_t invalidSamples = 0;   // of sampleSlots: left empty because the image could not be read or decoded
    std::vector<DataProblem> problems; // once per file that failed
};

// What runLoaderBench checks before it loads a batch (`pitwall bench loader --check`), without writing anything
// (no cache file, no worker): exactly one of images / dataset, the batch counts, the dataset (the folder exists
// and holds usable samples: JPEGs for `images`), at least one batch of samples, and a cache file that can be
// created. InputError for the first problem.
struct LoaderBenchCheck {
    std::shared_ptr<const DatasetIndex> index; // the dataset as indexed
    int workers = 0;                           // loader threads (Pitwall mode) or worker processes (reference mode)
    std::string cachePath; // pre-processed only: the cache file read, or built when missing or stale
};
LoaderBenchCheck checkLoaderBench(const LoaderBenchOptions& options);

// Runs the benchmark (checkLoaderBench first). `message` gets progress lines. Throws InputError for what the
// check finds, or when no sample decodes (naming the first files that failed): a timing of empty batches is no
// result.
LoaderBenchResult runLoaderBench(const LoaderBenchOptions& options,
                                 const std::function<void(const std::string&)>& message = {});

// Decodes `paths` at `scale` (full scale by default) on this thread `passes` times after one untimed pass and
// returns the mean wall ms per image of the timed passes (and the thread's CPU ms per image in cpuMsPerImage when
// given). Unreadable files are skipped.
double measureDecodeMs(const std::vector<std::string>& paths, int passes = 2, image::DctScale scale = {1, 1},
                       double* cpuMsPerImage = nullptr);

// The decoded scale most used, written "M/8" (e.g. "8/8", "6/8"), or "cache" / "none"; with others, their shares:
// "8/8 (6/8 12 %, 7/8 3 %)".
std::string describeDecodedScales(const std::map<int, std::int64_t>& decodedEighths);

} // namespace pitwall::engine::data
