#include "core/engine/data/loaderbench.h"

#include "core/engine/data/loader.h"
#include "core/engine/data/sampler.h"
#include "core/util/error.h"
#include "core/util/machineload.h"
#include "core/util/pathcheck.h"

#include <sys/resource.h>

#include <chrono>
#include <ctime>
#include <filesystem>

namespace pitwall::engine::data {

using image::DctScale;
using image::JpegDecoder;
using image::readWholeFile;

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

double threadCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

} // namespace

double measureDecodeMs(const std::vector<std::string>& paths, int passes, DctScale scale, double* cpuMsPerImage)
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
        if (decoder.decode(bytes.data(), bytes.size(), scale, pixels, width, height, error))
            good.push_back(&bytes);
    if (good.empty())
        return 0;
    const auto start = Clock::now();
    const double cpuStart = threadCpuSeconds();
    for (int pass = 0; pass < passes; ++pass)
        for (const auto* bytes : good) {
            decoder.decode(bytes->data(), bytes->size(), scale, pixels, width, height, error);
            ++decoded;
        }
    if (cpuMsPerImage)
        *cpuMsPerImage = (threadCpuSeconds() - cpuStart) * 1000.0 / decoded;
    return seconds(start, Clock::now()) * 1000.0 / decoded;
}

LoaderBenchCheck checkLoaderBench(const LoaderBenchOptions& options)
{
    if (options.images.empty() == options.dataset.empty())
        throw InputError("give either --images DIR or --dataset DIR");
    if (options.batches < 1 || options.warmup < 0)
        throw InputError("--batches must be at least 1 and --warmup at least 0");
    const LoaderOptions& loader = options.loader;
    LoaderBenchCheck check;
    check.index = std::make_shared<DatasetIndex>(options.images.empty() ? indexDataset(options.dataset, options.split)
                                                                        : indexImageFolder(options.images));
    const std::int64_t perEpoch =
        EpochSampler(static_cast<std::int64_t>(check.index->samples.size()), loader.shard).samplesPerEpoch();
    if (perEpoch < loader.batchSize)
        throw InputError(SourceLocation{check.index->root}, "--batch " + std::to_string(loader.batchSize) +
                                                                ": the dataset has " + std::to_string(perEpoch) +
                                                                " usable sample(s), fewer than one batch");
    check.workers = loader.threads > 0 ? loader.threads : cpuShareThreads();
    if (loader.usePreprocessed) {
        check.cachePath =
            loader.cachePath.empty()
                ? (std::filesystem::path(check.index->root) / ".pitwall-cache" / "preprocessed.bin").string()
                : loader.cachePath;
        std::error_code error;
        if (!std::filesystem::exists(check.cachePath, error)) // an existing cache is read (and rebuilt in place)
            checkCanCreate(check.cachePath, PathKind::File, "--cache");
    }
    return check;
}

namespace {

// Runs the warm-up and the measured batches: time per batch, CPU share, and per sample slot whether it decoded
// and (measured batches only) at which scale.
void measureLoader(BatchLoader& loader, const LoaderBenchOptions& options, LoaderBenchResult& r,
                   const std::function<void(const std::string&)>& say)
{
    LoadedBatch batch;
    bool measuring = false;
    const auto count = [&](const LoadedBatch& b) {
        for (std::uint8_t v : b.valid) {
            r.invalidSamples += v ? 0 : 1;
            ++r.sampleSlots;
        }
        if (measuring)
            for (std::uint8_t m : b.decodedEighths)
                ++r.decodedEighths[m];
    };
    const auto warmStart = Clock::now();
    for (int i = 0; i < options.warmup; ++i) {
        if (!loader.next(batch))
            throw InputError("the loader ran out of batches during warm-up");
        count(batch);
    }
    r.warmupSeconds = seconds(warmStart, Clock::now());
    say("warm-up done (" + std::to_string(options.warmup) + " batches); measuring " +
        std::to_string(options.batches));
    measuring = true;
    const double cpuStart = processCpuSeconds() + loader.helperCpuSeconds();
    const auto start = Clock::now();
    for (int i = 0; i < options.batches; ++i) {
        if (!loader.next(batch))
            throw InputError("the loader ran out of batches");
        count(batch);
    }
    const double wall = seconds(start, Clock::now());
    const double cpu = processCpuSeconds() + loader.helperCpuSeconds() - cpuStart;
    r.msPerBatch = wall * 1000.0 / options.batches;
    r.cpuPercent = wall > 0 ? 100.0 * cpu / wall : 0;
    r.problems = loader.problems();
}

// A run in which no sample decoded times nothing: bad input, naming the first files that failed.
void requireDecodedSamples(const LoaderBenchResult& r, const DatasetIndex& index)
{
    if (r.sampleSlots == 0 || r.invalidSamples != r.sampleSlots)
        return;
    std::vector<Diagnostic> diagnostics{
        {SourceLocation{index.root}, "no sample decoded: all " + std::to_string(r.sampleSlots) +
                                         " samples loaded were empty (" + std::to_string(r.problems.size()) + " of " +
                                         std::to_string(r.images) + " images failed); no timing"}};
    for (std::size_t i = 0; i < r.problems.size() && i < kMaxNamedProblems; ++i)
        diagnostics.push_back({SourceLocation{r.problems[i].file}, r.problems[i].reason});
    if (r.problems.size() > kMaxNamedProblems)
        diagnostics.push_back({{}, std::to_string(r.problems.size() - kMaxNamedProblems) + " more problems"});
    throw InputError(diagnostics);
}

// The decode floors the measured time is compared with: full-scale decode (the smaller of the measurements before
// and after), and decode at the scales the loader used, weighted by how often it used them.
void measureDecodeFloors(LoaderBenchResult& r, const std::vector<std::string>& floorPaths, int batchSize)
{
    r.decodeMsAfter = measureDecodeMs(floorPaths);
    r.decodeMsPerImage = std::min(r.decodeMsBefore, r.decodeMsAfter);
    const int parallel = std::max(1, std::min(r.workers, r.cores));
    r.floorMsPerBatch = r.decodeMsPerImage * batchSize / parallel;
    r.floorRatio = r.floorMsPerBatch > 0 ? r.msPerBatch / r.floorMsPerBatch : 0;
    std::int64_t decoded = 0;
    double wallWeighted = 0, cpuWeighted = 0;
    for (const auto& [eighths, samples] : r.decodedEighths) {
        if (eighths == 0)
            continue;
        double cpuMs = 0;
        const double wallMs = measureDecodeMs(floorPaths, 2, DctScale{eighths, 8}, &cpuMs);
        wallWeighted += wallMs * static_cast<double>(samples);
        cpuWeighted += cpuMs * static_cast<double>(samples);
        decoded += samples;
    }
    if (decoded > 0) {
        r.scaledDecodeMsPerImage = wallWeighted / static_cast<double>(decoded);
        r.scaledDecodeCpuMsPerImage = cpuWeighted / static_cast<double>(decoded);
        r.scaledFloorMsPerBatch = r.scaledDecodeMsPerImage * batchSize / parallel;
        r.scaledFloorRatio = r.msPerBatch / r.scaledFloorMsPerBatch;
        r.cpuFloorRatio = r.msPerBatch * r.cpuPercent / 100.0 / (r.scaledDecodeCpuMsPerImage * batchSize);
    }
}

} // namespace

LoaderBenchResult runLoaderBench(const LoaderBenchOptions& options,
                                 const std::function<void(const std::string&)>& message)
{
    const auto say = [&](const std::string& text) {
        if (message)
            message(text);
    };
    LoaderBenchResult r;
    r.loadBefore = loadAverage1();
    r.batches = options.batches;
    r.warmup = options.warmup;
    const auto setupStart = Clock::now();
    const std::shared_ptr<const DatasetIndex> index = checkLoaderBench(options).index;
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
    measureLoader(*loader, options, r, say);
    loader.reset();
    requireDecodedSamples(r, *index);
    measureDecodeFloors(r, floorPaths, options.loader.batchSize);
    r.loadAfter = loadAverage1();
    return r;
}

std::string describeDecodedScales(const std::map<int, std::int64_t>& decodedEighths)
{
    std::int64_t total = 0;
    auto most = decodedEighths.end();
    for (auto it = decodedEighths.begin(); it != decodedEighths.end(); ++it) {
        total += it->second;
        if (most == decodedEighths.end() || it->second > most->second)
            most = it;
    }
    const auto name = [](int eighths) {
        return eighths == 0 ? std::string("cache") : std::to_string(eighths) + "/8";
    };
    if (most == decodedEighths.end())
        return "none";
    std::string text = name(most->first);
    std::string others;
    for (const auto& [eighths, samples] : decodedEighths)
        if (eighths != most->first) {
            const double percent = 100.0 * static_cast<double>(samples) / static_cast<double>(total);
            others += (others.empty() ? "" : ", ") + name(eighths) + " " +
                      std::to_string(static_cast<int>(percent + 0.5)) + " %";
        }
    return others.empty() ? text : text + " (" + others + ")";
}

} // namespace pitwall::engine::data
