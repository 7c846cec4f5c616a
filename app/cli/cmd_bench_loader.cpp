// pitwall bench loader: the data-loading-only benchmark (ms/batch and CPU % without training).
#include "app/cli/cli.h"

#include "core/engine/data/loaderbench.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

// Bounds that keep a typo from asking for gigabytes or a hundred thousand threads.
constexpr int kMaxImageSide = 8192;
constexpr int kMaxThreads = 256;
constexpr int kMaxBatch = 4096;
constexpr int kMaxCount = 1000000;

int intOption(const Args& args, const std::string& name, int fallback, int min, int max)
{
    const auto text = args.value(name);
    if (!text)
        return fallback;
    const auto value = parseInteger(*text);
    if (!value || *value < min || *value > max)
        throw InputError("--" + name + " " + *text + ": give a whole number in " + std::to_string(min) + ".." +
                         std::to_string(max));
    return static_cast<int>(*value);
}

engine::data::LoaderBenchOptions optionsFrom(const Args& args)
{
    using namespace engine::data;
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
    const std::string scale = args.value("dct-scale", "fast");
    if (scale == "fast")
        l.sample.scaleChoice = ScaleChoice::FastEighths;
    else if (scale == "any")
        l.sample.scaleChoice = ScaleChoice::AnyEighth;
    else if (scale == "any-up")
        l.sample.scaleChoice = ScaleChoice::AnyEighthUp;
    else if (scale == "full")
        l.sample.scaleChoice = ScaleChoice::FullOnly;
    else
        throw InputError("--dct-scale " + scale + ": give fast, any, any-up or full");
    const std::string decode = args.value("decode", "region");
    if (decode != "region" && decode != "whole")
        throw InputError("--decode " + decode + ": give region or whole");
    l.sample.regionDecode = decode == "region";
    return o;
}

// `bench loader --check`: the options and the dataset as the benchmark would see them; no batch is loaded.
int benchLoaderCheck(const Args& args)
{
    const engine::data::LoaderBenchOptions options = optionsFrom(args);
    const engine::data::LoaderBenchCheck check = engine::data::checkLoaderBench(options);
    const auto& l = options.loader;
    const std::string kind = engine::data::datasetKindName(check.index->kind);
    const auto images = static_cast<long long>(check.index->samples.size());
    if (args.flag("json")) {
        std::cout << nlohmann::json{{"ok", true},
                                    {"mode", engine::data::loaderModeName(l.mode)},
                                    {"dataset_kind", kind},
                                    {"root", check.index->root},
                                    {"images", images},
                                    {"workers", check.workers},
                                    {"batch", l.batchSize},
                                    {"width", l.sample.outputWidth},
                                    {"height", l.sample.outputHeight},
                                    {"batches", options.batches},
                                    {"warmup", options.warmup},
                                    {"cache", check.cachePath}}
                         .dump(2)
                  << "\n";
        return kExitOk;
    }
    std::printf("ok: %s dataset of %lld images in %s\n", kind.c_str(), images, check.index->root.c_str());
    std::printf("ok: would measure %d batches of %d at %dx%d after %d warm-up with the %s loader (%d workers)%s\n",
                options.batches, l.batchSize, l.sample.outputWidth, l.sample.outputHeight, options.warmup,
                engine::data::loaderModeName(l.mode), check.workers,
                check.cachePath.empty() ? "" : (", pre-processed cache " + check.cachePath).c_str());
    return kExitOk;
}

void printLoaderBenchJson(const engine::data::LoaderBenchResult& r, const engine::data::LoaderOptions& l)
{
    nlohmann::json problems = nlohmann::json::array();
    for (const auto& p : r.problems)
        problems.push_back({{"file", p.file}, {"reason", p.reason}});
    nlohmann::json scales = nlohmann::json::object();
    for (const auto& [eighths, samples] : r.decodedEighths)
        scales[std::to_string(eighths)] = samples;
    nlohmann::json out{{"mode", r.mode},
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
                       {"decoded_scale", engine::data::describeDecodedScales(r.decodedEighths)},
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
    std::cout << out.dump(2) << "\n";
}

void printLoaderBenchText(const engine::data::LoaderBenchResult& r, const engine::data::LoaderOptions& l)
{
    std::printf("%s loader, %s dataset of %lld images, batch %d at %dx%d%s%s%s, %d workers on %d cores\n",
                r.mode.c_str(), r.datasetKind.c_str(), static_cast<long long>(r.images), l.batchSize,
                l.sample.outputWidth, l.sample.outputHeight, l.sample.augment.enabled ? ", augmented" : "",
                l.usePreprocessed ? ", pre-processed cache" : "",
                l.sample.regionDecode || l.usePreprocessed || l.mode != engine::data::LoaderMode::Pitwall
                    ? ""
                    : ", whole-image decode",
                r.workers, r.cores);
    if (l.usePreprocessed)
        std::printf("  cache: %s (%.2f s)\n", r.cache.rebuilt ? ("built: " + r.cache.why).c_str() : "reused",
                    r.cache.seconds);
    std::printf("  %.2f ms/batch, CPU %.0f %% (100 = one core) over %d batches after %d warm-up\n", r.msPerBatch,
                r.cpuPercent, r.batches, r.warmup);
    std::printf("  decode-bound floor: %.2f ms/image full-scale x %d / %d = %.2f ms/batch; ratio %.2f\n",
                r.decodeMsPerImage, l.batchSize, std::max(1, std::min(r.workers, r.cores)), r.floorMsPerBatch,
                r.floorRatio);
    std::printf("  decoded at %s: floor %.2f ms/image x %d / %d = %.2f ms/batch; ratio %.2f; at equal CPU %.2f\n",
                engine::data::describeDecodedScales(r.decodedEighths).c_str(), r.scaledDecodeMsPerImage,
                l.batchSize, std::max(1, std::min(r.workers, r.cores)), r.scaledFloorMsPerBatch,
                r.scaledFloorRatio, r.cpuFloorRatio);
    std::printf("  load average %.2f before, %.2f after\n", r.loadBefore, r.loadAfter);
    if (!r.problems.empty() || r.invalidSamples > 0) {
        std::printf("  %zu of %lld images could not be read or decoded; %lld of %lld sample slot(s) left empty:\n",
                    r.problems.size(), static_cast<long long>(r.images), static_cast<long long>(r.invalidSamples),
                    static_cast<long long>(r.sampleSlots));
        for (std::size_t i = 0; i < r.problems.size() && i < 20; ++i)
            std::printf("    %s: %s\n", r.problems[i].file.c_str(), r.problems[i].reason.c_str());
    }
}

int benchLoader(const Args& args)
{
    const engine::data::LoaderBenchOptions options = optionsFrom(args);
    const engine::data::LoaderBenchResult r =
        engine::data::runLoaderBench(options, [&](const std::string& text) { std::fprintf(stderr, "%s\n", text.c_str()); });
    if (args.flag("json"))
        printLoaderBenchJson(r, options.loader);
    else
        printLoaderBenchText(r, options.loader);
    return kExitOk;
}

} // namespace

void addLoaderBenchCommands(Cli& cli)
{
    Command loader{
        "bench loader",
        "data-loading-only benchmark: ms/batch and CPU % of the data pipeline",
        "--images DIR | --dataset DIR [--batch 8] [--width 1024 --height 372] [--batches 1000] [--warmup 300]\n"
        "    [--threads N] [--mode pitwall|reference] [--no-augment] [--preprocessed] [--json]",
        "Fetches batches without training, as DALI's data-loading-only evaluation: random zoom (0.86..1.25) and\n"
        "crop, horizontal flip, HSV jitter (AutoSpeed's gains), normalisation, batch [B,3,H,W] float. Reports\n"
        "ms/batch and process CPU % (user + system over wall, 100 = one core; reference mode adds its worker\n"
        "processes) after warm-up, and the decode-bound floor: libjpeg-turbo full-scale decode time per image,\n"
        "measured in the same run on one thread, x batch / min(workers, cores); then the scales the loader\n"
        "actually decoded at and the floor at those scales (and its ratio at equal CPU: loader CPU time per\n"
        "batch over the decode time of its images).\n"
        "--mode reference runs the PyTorch DataLoader design inside Pitwall (worker processes building whole\n"
        "batches from per-sample tensors, collated into shared memory) on the same files.",
        {{"images", "DIR", "a folder of JPEGs (searched recursively)"},
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
         {"seed", "S", "shuffle and augmentation seed (default 0)"},
         jsonOption()},
        benchLoader};
    loader.check = benchLoaderCheck;
    cli.add(std::move(loader));
}

} // namespace pitwall::cli
