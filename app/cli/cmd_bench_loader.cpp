// pitwall bench loader: the data-loading-only benchmark (ms/batch and CPU % without training).
#include "app/cli/cli.h"

#include "core/engine/loaderbenchreport.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

// `bench loader --check`: the options and the dataset as the benchmark would see them; no batch is loaded.
int benchLoaderCheck(const Args& args)
{
    const engine::data::LoaderBenchOptions options = engine::loaderBenchOptions(args);
    const engine::data::LoaderBenchCheck check = engine::data::checkLoaderBench(options);
    if (args.flag("json"))
        std::cout << engine::loaderBenchCheckJson(options, check).dump(2) << "\n";
    else
        std::fputs(engine::loaderBenchCheckText(options, check).c_str(), stdout);
    return kExitOk;
}

int benchLoader(const Args& args)
{
    const engine::data::LoaderBenchOptions options = engine::loaderBenchOptions(args);
    const engine::data::LoaderBenchResult r =
        engine::data::runLoaderBench(options, [&](const std::string& text) { std::fprintf(stderr, "%s\n", text.c_str()); });
    if (args.flag("json"))
        std::cout << engine::loaderBenchResultJson(r, options.loader).dump(2) << "\n";
    else
        std::fputs(engine::loaderBenchResultText(r, options.loader).c_str(), stdout);
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
