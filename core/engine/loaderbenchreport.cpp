#include "core/engine/loaderbenchreport.h"

#include "core/util/error.h"
#include "core/util/printf.h"

#include <algorithm>

namespace pitwall::engine {

using namespace data;

namespace {

// Bounds that keep a typo from asking for gigabytes or a hundred thousand threads.
constexpr int kMaxImageSide = 8192;
constexpr int kMaxThreads = 256;
constexpr int kMaxBatch = 4096;
constexpr int kMaxCount = 1000000;

int intOption(const cmdline::Args& args, const std::string& name, int fallback, int min, int max)
{
    const auto text = args.value(name);
    if (!text)
        return fallback;
    const auto value = cmdline::integerWithin(*text, min, max);
    if (!value)
        throw InputError("--" + name + " " + *text + ": give a whole number in " + std::to_string(min) + ".." +
                         std::to_string(max));
    return static_cast<int>(*value);
}

ScaleChoice scaleChoice(const std::string& scale)
{
    if (scale == "fast")
        return ScaleChoice::FastEighths;
    if (scale == "any")
        return ScaleChoice::AnyEighth;
    if (scale == "any-up")
        return ScaleChoice::AnyEighthUp;
    if (scale == "full")
        return ScaleChoice::FullOnly;
    throw InputError("--dct-scale " + scale + ": give fast, any, any-up or full");
}

} // namespace

LoaderBenchOptions loaderBenchOptions(const cmdline::Args& args)
{
    if (!args.positionals.empty())
        throw InputError("pitwall bench loader takes no positional arguments (got '" + args.positionals.front() +
                         "'): name the images with --images DIR or --dataset DIR; it reads no config files or "
                         "key=value overrides");
    LoaderBenchOptions o;
    o.images = args.value("images", "");
    o.dataset = args.value("dataset", "");
    o.split = args.value("split", "");
    o.batches = intOption(args, "batches", 1000, 1, kMaxCount);
    o.warmup = intOption(args, "warmup", 300, 0, kMaxCount);
    LoaderOptions& l = o.loader;
    l.batchSize = intOption(args, "batch", 8, 1, kMaxBatch);
    l.sample.outputWidth = intOption(args, "width", 1024, 1, kMaxImageSide);
    l.sample.outputHeight = intOption(args, "height", 372, 1, kMaxImageSide);
    l.threads = intOption(args, "threads", 0, 0, kMaxThreads);
    l.prefetchBatches = intOption(args, "prefetch", l.prefetchBatches, 1, kMaxBatch);
    l.shard.seed = static_cast<std::uint64_t>(intOption(args, "seed", 0, 0, 2147483647));
    l.sample.augment.enabled = !args.flag("no-augment");
    l.usePreprocessed = args.flag("preprocessed");
    l.cachePath = args.value("cache", "");
    const std::string mode = args.value("mode", "pitwall");
    if (mode == "pitwall")
        l.mode = LoaderMode::Pitwall;
    else if (mode == "reference")
        l.mode = LoaderMode::Reference;
    else
        throw InputError("--mode " + mode + ": give pitwall or reference");
    if (l.mode == LoaderMode::Reference && !args.value("prefetch"))
        l.prefetchBatches = 2; // DataLoader's prefetch_factor
    l.sample.scaleChoice = scaleChoice(args.value("dct-scale", "fast"));
    const std::string decode = args.value("decode", "region");
    if (decode != "region" && decode != "whole")
        throw InputError("--decode " + decode + ": give region or whole");
    l.sample.regionDecode = decode == "region";
    return o;
}

nlohmann::json loaderBenchCheckJson(const LoaderBenchOptions& options, const LoaderBenchCheck& check)
{
    const LoaderOptions& l = options.loader;
    return nlohmann::json{{"ok", true},
                          {"mode", loaderModeName(l.mode)},
                          {"dataset_kind", datasetKindName(check.index->kind)},
                          {"root", check.index->root},
                          {"images", static_cast<long long>(check.index->samples.size())},
                          {"workers", check.workers},
                          {"batch", l.batchSize},
                          {"width", l.sample.outputWidth},
                          {"height", l.sample.outputHeight},
                          {"batches", options.batches},
                          {"warmup", options.warmup},
                          {"cache", check.cachePath}};
}

std::string loaderBenchCheckText(const LoaderBenchOptions& options, const LoaderBenchCheck& check)
{
    const LoaderOptions& l = options.loader;
    return stringPrintf("ok: %s dataset of %lld images in %s\n", datasetKindName(check.index->kind),
                        static_cast<long long>(check.index->samples.size()), check.index->root.c_str()) +
           stringPrintf("ok: would measure %d batches of %d at %dx%d after %d warm-up with the %s loader (%d "
                        "workers)%s\n",
                        options.batches, l.batchSize, l.sample.outputWidth, l.sample.outputHeight, options.warmup,
                        loaderModeName(l.mode), check.workers,
                        check.cachePath.empty() ? "" : (", pre-processed cache " + check.cachePath).c_str());
}

nlohmann::json loaderBenchResultJson(const LoaderBenchResult& r, const LoaderOptions& l)
{
    nlohmann::json problems = nlohmann::json::array();
    for (const auto& p : r.problems)
        problems.push_back({{"file", p.file}, {"reason", p.reason}});
    nlohmann::json scales = nlohmann::json::object();
    for (const auto& [eighths, samples] : r.decodedEighths)
        scales[std::to_string(eighths)] = samples;
    return nlohmann::json{{"mode", r.mode},
                          {"dataset_kind", r.datasetKind},
                          {"images", r.images},
                          {"batch", l.batchSize},
                          {"width", l.sample.outputWidth},
                          {"height", l.sample.outputHeight},
                          {"augment", l.sample.augment.enabled},
                          {"preprocessed", l.usePreprocessed},
                          {"decode", l.sample.regionDecode ? "region" : "whole"},
                          {"workers", r.workers},
                          {"cores", r.cores},
                          {"batches", r.batches},
                          {"warmup", r.warmup},
                          {"ms_per_batch", r.msPerBatch},
                          {"cpu_percent", r.cpuPercent},
                          {"decode_ms_per_image", r.decodeMsPerImage},
                          {"decode_ms_before", r.decodeMsBefore},
                          {"decode_ms_after", r.decodeMsAfter},
                          {"floor_ms_per_batch", r.floorMsPerBatch},
                          {"floor_ratio", r.floorRatio},
                          {"decoded_scale", describeDecodedScales(r.decodedEighths)},
                          {"decoded_eighths", scales},
                          {"scaled_decode_ms_per_image", r.scaledDecodeMsPerImage},
                          {"scaled_decode_cpu_ms_per_image", r.scaledDecodeCpuMsPerImage},
                          {"scaled_floor_ms_per_batch", r.scaledFloorMsPerBatch},
                          {"scaled_floor_ratio", r.scaledFloorRatio},
                          {"cpu_floor_ratio", r.cpuFloorRatio},
                          {"setup_seconds", r.setupSeconds},
                          {"warmup_seconds", r.warmupSeconds},
                          {"cache_rebuilt", r.cache.rebuilt},
                          {"cache_why", r.cache.why},
                          {"cache_seconds", r.cache.seconds},
                          {"pinned", r.pinned},
                          {"invalid_samples", r.invalidSamples},
                          {"sample_slots", r.sampleSlots},
                          {"failed_images", r.problems.size()},
                          {"problems", problems},
                          {"load_before", r.loadBefore},
                          {"load_after", r.loadAfter}};
}

std::string loaderBenchResultText(const LoaderBenchResult& r, const LoaderOptions& l)
{
    const int divisor = std::max(1, std::min(r.workers, r.cores));
    std::string text = stringPrintf(
        "%s loader, %s dataset of %lld images, batch %d at %dx%d%s%s%s, %d workers on %d cores\n", r.mode.c_str(),
        r.datasetKind.c_str(), static_cast<long long>(r.images), l.batchSize, l.sample.outputWidth,
        l.sample.outputHeight, l.sample.augment.enabled ? ", augmented" : "",
        l.usePreprocessed ? ", pre-processed cache" : "",
        l.sample.regionDecode || l.usePreprocessed || l.mode != LoaderMode::Pitwall ? "" : ", whole-image decode",
        r.workers, r.cores);
    if (l.usePreprocessed)
        text += stringPrintf("  cache: %s (%.2f s)\n", r.cache.rebuilt ? ("built: " + r.cache.why).c_str() : "reused",
                             r.cache.seconds);
    text += stringPrintf("  %.2f ms/batch, CPU %.0f %% (100 = one core) over %d batches after %d warm-up\n",
                         r.msPerBatch, r.cpuPercent, r.batches, r.warmup);
    text += stringPrintf("  decode-bound floor: %.2f ms/image full-scale x %d / %d = %.2f ms/batch; ratio %.2f\n",
                         r.decodeMsPerImage, l.batchSize, divisor, r.floorMsPerBatch, r.floorRatio);
    text += stringPrintf(
        "  decoded at %s: floor %.2f ms/image x %d / %d = %.2f ms/batch; ratio %.2f; at equal CPU %.2f\n",
        describeDecodedScales(r.decodedEighths).c_str(), r.scaledDecodeMsPerImage, l.batchSize, divisor,
        r.scaledFloorMsPerBatch, r.scaledFloorRatio, r.cpuFloorRatio);
    text += stringPrintf("  load average %.2f before, %.2f after\n", r.loadBefore, r.loadAfter);
    if (!r.problems.empty() || r.invalidSamples > 0) {
        text += stringPrintf(
            "  %zu of %lld images could not be read or decoded; %lld of %lld sample slot(s) left empty:\n",
            r.problems.size(), static_cast<long long>(r.images), static_cast<long long>(r.invalidSamples),
            static_cast<long long>(r.sampleSlots));
        for (std::size_t i = 0; i < r.problems.size() && i < 20; ++i)
            text += stringPrintf("    %s: %s\n", r.problems[i].file.c_str(), r.problems[i].reason.c_str());
    }
    return text;
}

std::vector<cmdline::OptionSpec> loaderBenchOptionSpecs()
{
    return {
        {"images", "DIR", "a folder of JPEGs (searched recursively)"},
        {"dataset", "DIR", "a dataset folder: synthetic world, YOLO (images/ + labels/) or OpenLane CIPO"},
        {"split", "NAME", "YOLO / OpenLane split (default: all)"},
        {"batch", "N", "batch size (default 8)"},
        {"width", "W", "output width (default 1024)"},
        {"height", "H", "output height (default 372)"},
        {"batches", "N", "batches measured after warm-up (default 1000)"},
        {"warmup", "N", "batches fetched before measuring (default 300)"},
        {"threads", "N", "loader threads, or worker processes in reference mode (default: this process's cores)"},
        {"prefetch", "N", "batches in flight (default 4; reference mode: 2 per worker, as prefetch_factor)"},
        {"mode", "MODE", "pitwall (default) or reference"},
        {"no-augment", "", "no random zoom, crop, flip or colour change (centred cover fit)"},
        {"preprocessed", "", "decode and resize once into a memory-mapped cache (data.use_preprocessed)"},
        {"cache", "FILE", "cache file (default DIR/.pitwall-cache/preprocessed.bin)"},
        {"dct-scale", "CHOICE",
         "DCT scales the decoder may use: fast (1/8, 1/4, 1/2, 1; default), any (M/8, M <= 8), any-up (M/8, M <= 16), "
         "full"},
        {"decode", "HOW",
         "region (default: only the pixels the crop reads, rendered band by band as they are decoded) or whole "
         "(decode the whole image, then render; the same output bytes)"},
        {"seed", "S", "shuffle and augmentation seed (default 0)"}};
}

} // namespace pitwall::engine
