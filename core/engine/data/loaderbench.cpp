#include "core/engine/data/loaderbench.h"

#include "core/engine/data/loader.h"
#include "core/util/error.h"

#include <sys/resource.h>

#include <chrono>
#include <fstream>

namespace pitwall::engine::data {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxNamedProblems = 10; // files named when nothing decodes

double seconds(Clock::time_point from, Clock::time_point to)
{
    return std::chrono::duration<double>(to - from).count();
}

double processCpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

double loadAverage()
{
    std::ifstream in("/proc/loadavg");
    double load = 0;
    in >> load;
    return load;
}

} // namespace

double measureDecodeMs(const std::vector<std::string>& paths, int passes)
{
    std::vector<std::vector<std::uint8_t>> files;
    for (const std::string& path : paths) {
        std::vector<std::uint8_t> bytes;
        std::string error;
        if (readWholeFile(path, bytes, error))
            files.push_back(std::move(bytes));
    }
    JpegDecoder decoder;
    std::vector<std::uint8_t> pixels;
    int width = 0, height = 0, decoded = 0;
    std::string error;
    // One untimed pass: page-faults the output buffer and drops files that do not decode.
    std::vector<const std::vector<std::uint8_t>*> good;
    for (const auto& bytes : files)
        if (decoder.decode(bytes.data(), bytes.size(), DctScale{1, 1}, pixels, width, height, error))
            good.push_back(&bytes);
    if (good.empty())
        return 0;
    const auto start = Clock::now();
    for (int pass = 0; pass < passes; ++pass)
        for (const auto* bytes : good) {
            decoder.decode(bytes->data(), bytes->size(), DctScale{1, 1}, pixels, width, height, error);
            ++decoded;
        }
    return seconds(start, Clock::now()) * 1000.0 / decoded;
}

LoaderBenchResult runLoaderBench(const LoaderBenchOptions& options,
                                 const std::function<void(const std::string&)>& message)
{
    const auto say = [&](const std::string& text) {
        if (message)
            message(text);
    };
    if (options.images.empty() == options.dataset.empty())
        throw InputError("give either --images DIR or --dataset DIR");
    if (options.batches < 1 || options.warmup < 0)
        throw InputError("--batches must be at least 1 and --warmup at least 0");
    LoaderBenchResult r;
    r.loadBefore = loadAverage();
    r.batches = options.batches;
    r.warmup = options.warmup;
    const auto setupStart = Clock::now();
    auto index = std::make_shared<DatasetIndex>(options.images.empty() ? indexDataset(options.dataset, options.split)
                                                                       : indexImageFolder(options.images));
    r.datasetKind = datasetKindName(index->kind);
    r.images = static_cast<std::int64_t>(index->samples.size());
    r.cores = cpuShareThreads();

    std::vector<std::string> floorPaths;
    for (std::size_t i = 0; i < index->samples.size() && static_cast<int>(i) < options.floorImages; ++i)
        floorPaths.push_back(index->samples[i].imagePath);
    say("decode floor: " + std::to_string(floorPaths.size()) + " images at full scale, one thread");
    r.decodeMsBefore = measureDecodeMs(floorPaths);

    say(std::string("starting the ") + loaderModeName(options.loader.mode) + " loader");
    std::unique_ptr<BatchLoader> loader = makeBatchLoader(index, options.loader);
    r.mode = loaderModeName(options.loader.mode);
    r.workers = loader->workers();
    r.pinned = loader->pinned();
    r.cache = loader->cacheStatus();
    r.setupSeconds = seconds(setupStart, Clock::now());

    LoadedBatch batch;
    const auto count = [&](const LoadedBatch& b) {
        for (std::uint8_t v : b.valid) {
            r.invalidSamples += v ? 0 : 1;
            ++r.sampleSlots;
        }
    };
    const auto warmStart = Clock::now();
    for (int i = 0; i < options.warmup; ++i) {
        if (!loader->next(batch))
            throw InputError("the loader ran out of batches during warm-up");
        count(batch);
    }
    r.warmupSeconds = seconds(warmStart, Clock::now());
    say("warm-up done (" + std::to_string(options.warmup) + " batches); measuring " +
        std::to_string(options.batches));
    const double cpuStart = processCpuSeconds() + loader->helperCpuSeconds();
    const auto start = Clock::now();
    for (int i = 0; i < options.batches; ++i) {
        if (!loader->next(batch))
            throw InputError("the loader ran out of batches");
        count(batch);
    }
    const double wall = seconds(start, Clock::now());
    const double cpu = processCpuSeconds() + loader->helperCpuSeconds() - cpuStart;
    r.msPerBatch = wall * 1000.0 / options.batches;
    r.cpuPercent = wall > 0 ? 100.0 * cpu / wall : 0;
    r.problems = loader->problems();
    batch = {};
    loader.reset();
    if (r.sampleSlots > 0 && r.invalidSamples == r.sampleSlots) {
        std::vector<Diagnostic> diagnostics{
            {SourceLocation{index->root}, "no sample decoded: all " + std::to_string(r.sampleSlots) +
                                              " samples loaded were empty (" + std::to_string(r.problems.size()) +
                                              " of " + std::to_string(r.images) + " images failed); no timing"}};
        for (std::size_t i = 0; i < r.problems.size() && i < kMaxNamedProblems; ++i)
            diagnostics.push_back({SourceLocation{r.problems[i].file}, r.problems[i].reason});
        if (r.problems.size() > kMaxNamedProblems)
            diagnostics.push_back({{}, std::to_string(r.problems.size() - kMaxNamedProblems) + " more problems"});
        throw InputError(diagnostics);
    }

    r.decodeMsAfter = measureDecodeMs(floorPaths);
    r.decodeMsPerImage = std::min(r.decodeMsBefore, r.decodeMsAfter);
    const int parallel = std::max(1, std::min(r.workers, r.cores));
    r.floorMsPerBatch = r.decodeMsPerImage * options.loader.batchSize / parallel;
    r.floorRatio = r.floorMsPerBatch > 0 ? r.msPerBatch / r.floorMsPerBatch : 0;
    r.loadAfter = loadAverage();
    return r;
}

} // namespace pitwall::engine::data
