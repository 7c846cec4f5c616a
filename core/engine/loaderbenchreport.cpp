#include "core/engine/loaderbenchreport.h"

#include "core/util/error.h"
#include "core/util/printf.h"

#include <algorithm>

namespace pitwall::engine {

using namespace data;
using image::ScaleChoice;

namespace {

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

LoaderBenchOptions loaderBenchOptionsFromJob(const LoaderBenchJob& job)
{
    LoaderBenchOptions o;
    o.images = job.images;
    o.dataset = job.dataset;
    o.split = job.split;
    o.batches = job.batches.value_or(1000);
    o.warmup = job.warmup.value_or(300);
    LoaderOptions& l = o.loader;
    l.batchSize = job.batch.value_or(8);
    l.sample.outputWidth = job.width.value_or(1024);
    l.sample.outputHeight = job.height.value_or(372);
    l.threads = job.threads.value_or(0);
    l.prefetchBatches = job.prefetch.value_or(l.prefetchBatches);
    l.shard.seed = static_cast<std::uint64_t>(job.seed.value_or(0));
    l.sample.augment.enabled = !job.noAugment;
    l.usePreprocessed = job.preprocessed;
    l.cachePath = job.cache;
    l.mode = job.mode.value_or("pitwall") == "reference" ? LoaderMode::Reference : LoaderMode::Pitwall;
    if (l.mode == LoaderMode::Reference && !job.prefetch)
        l.prefetchBatches = 2; // DataLoader's prefetch_factor
    l.sample.scaleChoice = scaleChoice(job.dctScale.value_or("fast"));
    l.sample.regionDecode = job.decode.value_or("region") == "region";
    return o;
}

LoaderBenchOptions loaderBenchOptions(const cmdline::Args& args)
{
    return loaderBenchOptionsFromJob(LoaderBenchJob::fromArgs(args));
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

} // namespace pitwall::engine
