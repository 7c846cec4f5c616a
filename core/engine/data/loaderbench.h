#pragma once
// The data-loading-only benchmark (`pitwall bench loader`): fetch batches without training, as DALI's
// "data-loading-only evaluation", and report ms/batch and process CPU % after warm-up next to the decode-bound
// floor measured in the same run. No torch.

#include "core/engine/data/cache.h"
#include "core/engine/data/loaderoptions.h"

#include <functional>
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
    double warmupSeconds = 0;
    double setupSeconds = 0;        // indexing, cache, starting the workers
    double loadBefore = 0, loadAfter = 0; // 1-minute load average
    bool pinned = false;
    CacheStatus cache;              // when pre-processed
    std::int64_t sampleSlots = 0;   // samples loaded, warm-up and measured batches together
    std::int64_t invalidSamples = 0;   // of sampleSlots: left empty because the image could not be read or decoded
    std::vector<DataProblem> problems; // once per file that failed
};

// Runs the benchmark. `message` gets progress lines. Throws InputError for bad options, a dataset with nothing
// usable, or when no sample decodes (naming the first files that failed): a timing of empty batches is no result.
LoaderBenchResult runLoaderBench(const LoaderBenchOptions& options,
                                 const std::function<void(const std::string&)>& message = {});

// Decodes `paths` at full scale on this thread `passes` times (the first read warms the page cache) and returns
// the mean ms per image of the timed passes. Unreadable files are skipped.
double measureDecodeMs(const std::vector<std::string>& paths, int passes = 2);

} // namespace pitwall::engine::data
