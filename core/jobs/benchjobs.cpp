#include "core/jobs/benchjobs.h"

#include "core/config/configargs.h"
#include "core/devices/devices.h"
#include "core/jobs/internal/jobwords.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>
#include <type_traits>

namespace pitwall {

namespace {

using jobs::addFlag;
using jobs::addOption;

// Bounds that keep a typo from asking for gigabytes or a hundred thousand threads.
constexpr int kMaxImageSide = 8192;
constexpr int kMaxThreads = 256;
constexpr int kMaxBatch = 4096;
constexpr int kMaxCount = 1000000;
constexpr int kMaxSeed = 2147483647;

std::optional<int> intOption(const cmdline::Args& args, const std::string& name, int min, int max)
{
    const auto text = args.value(name);
    if (!text)
        return std::nullopt;
    const auto value = cmdline::integerWithin(*text, min, max);
    if (!value)
        throw InputError::forOption(name, "--" + name + " " + *text + ": give a whole number in " +
                                              std::to_string(min) + ".." + std::to_string(max));
    return static_cast<int>(*value);
}

// --NAME's value when it is one of `choices`; InputError "--NAME TEXT: give WHAT" otherwise.
std::optional<std::string> choiceOption(const cmdline::Args& args, const std::string& name,
                                        const std::vector<std::string>& choices, const std::string& what)
{
    const auto text = args.value(name);
    if (text && std::find(choices.begin(), choices.end(), *text) == choices.end())
        throw InputError::forOption(name, "--" + name + " " + *text + ": give " + what);
    return text;
}

std::vector<long long> parseSizes(const std::string& text)
{
    std::vector<long long> sizes;
    for (const std::string& part : split(text, ',')) {
        const auto size = parseInteger(trim(part));
        if (!size || *size < 1)
            throw InputError::forOption("batch-sizes",
                                        "--batch-sizes '" + text + "': '" + part + "' is not a batch size >= 1");
        sizes.push_back(*size);
    }
    return sizes;
}

std::vector<std::string> parseModes(const std::string& text)
{
    std::vector<std::string> modes;
    for (const std::string& name : split(text, ',')) {
        const auto mode = parsePartitionMode(trim(name));
        if (!mode)
            throw InputError::forOption("modes", "--modes: '" + name + "' is not one of SPX, DPX, QPX, CPX");
        modes.push_back(partitionModeName(*mode));
    }
    return modes;
}

template <typename T> std::string joined(const std::vector<T>& values)
{
    std::vector<std::string> texts;
    for (const T& v : values) {
        if constexpr (std::is_same_v<T, std::string>)
            texts.push_back(v);
        else
            texts.push_back(std::to_string(v));
    }
    return join(texts, ",");
}

} // namespace

std::vector<std::int64_t> parseSeeds(const std::string& text)
{
    std::vector<std::int64_t> seeds;
    if (auto count = parseInteger(text); count && text.find(',') == std::string::npos) {
        if (*count < 1)
            throw InputError::forOption("seeds", "--seeds " + text + ": give a count >= 1 or a list such as 0,1,2");
        for (long long s = 0; s < *count; ++s)
            seeds.push_back(s);
        return seeds;
    }
    for (const std::string& part : split(text, ',')) {
        const auto seed = parseInteger(part);
        if (!seed || *seed < 0)
            throw InputError::forOption("seeds", "--seeds '" + text + "': '" + part + "' is not a seed");
        seeds.push_back(*seed);
    }
    return seeds;
}

// ---- bench variants -------------------------------------------------------------------------------------

std::vector<std::string> VariantsBenchJob::toArgs() const
{
    std::vector<std::string> words = jobs::commandWords(kCommand);
    if (!file.empty())
        words.push_back(file);
    words.insert(words.end(), overrides.begin(), overrides.end());
    if (seeds)
        addOption(words, "seeds", joined(*seeds));
    if (!only.empty())
        addOption(words, "only", joined(only));
    addFlag(words, "markdown", markdown);
    addOption(words, "db", database);
    return words;
}

VariantsBenchJob VariantsBenchJob::fromArgs(const cmdline::Args& args)
{
    VariantsBenchJob job;
    std::vector<std::string> files;
    splitConfigArgs(args, files, job.overrides);
    if (files.size() > 1)
        throw InputError("give one variants file (e.g. configs/transfuser/speed.yaml), then any dotted.key=value "
                         "overrides");
    job.file = files.empty() ? std::string() : files.front();
    if (const auto seeds = args.value("seeds"))
        job.seeds = parseSeeds(*seeds);
    if (const auto only = args.value("only"))
        for (const std::string& name : split(*only, ','))
            job.only.push_back(trim(name));
    job.markdown = args.flag("markdown");
    job.database = args.value("db");
    return job;
}

VariantsBenchJob VariantsBenchJob::fromArgs(const std::vector<std::string>& words)
{
    return fromArgs(jobs::parseJobWords(kCommand, optionSpecs(), words));
}

std::vector<cmdline::OptionSpec> VariantsBenchJob::optionSpecs()
{
    return {{"seeds", "N|LIST", "seeds to train: a count (0..N-1) or a list such as 0,1,2 (default: the file's)"},
            {"only", "NAMES", "comma-separated variant names, run in that order (a name with a comma matches whole)"},
            {"markdown", "", "print the table as Markdown"}};
}

const JobFields& VariantsBenchJob::fields()
{
    static const JobFields fields = jobs::jobFieldsOf(optionSpecs(), "file", "file");
    return fields;
}

// ---- bench partitions -----------------------------------------------------------------------------------

std::vector<std::string> PartitionBenchJob::toArgs() const
{
    std::vector<std::string> words = jobs::commandWords(kCommand);
    words.insert(words.end(), overrides.begin(), overrides.end());
    for (const std::string& config : configs)
        addOption(words, "config", config);
    if (modes)
        addOption(words, "modes", joined(*modes));
    if (batchSizes)
        addOption(words, "batch-sizes", joined(*batchSizes));
    addOption(words, "epochs", epochs);
    addOption(words, "backend", backend);
    addOption(words, "out", out);
    addOption(words, "plot", plot);
    addOption(words, "db", database);
    addFlag(words, "recommend", recommend);
    return words;
}

PartitionBenchJob PartitionBenchJob::fromArgs(const cmdline::Args& args)
{
    PartitionBenchJob job;
    splitConfigArgs(args, job.configs, job.overrides);
    for (const std::string& file : args.values("config"))
        job.configs.push_back(file);
    if (const auto modes = args.value("modes"))
        job.modes = parseModes(*modes);
    if (const auto sizes = args.value("batch-sizes"))
        job.batchSizes = parseSizes(*sizes);
    job.epochs = jobs::countOption(args, "epochs", 1);
    job.backend = args.value("backend");
    job.out = args.value("out");
    job.plot = args.value("plot");
    job.database = args.value("db");
    job.recommend = args.flag("recommend");
    return job;
}

PartitionBenchJob PartitionBenchJob::fromArgs(const std::vector<std::string>& words)
{
    return fromArgs(jobs::parseJobWords(kCommand, optionSpecs(), words));
}

std::vector<cmdline::OptionSpec> PartitionBenchJob::optionSpecs()
{
    return {{"config", "CFG", "config file (repeatable; default configs/transfuser/smoke.yaml)", true},
            {"recommend", "", "a brief run to choose a mode: the config's batch size, 1 epoch (what hpo --partition "
                              "auto reuses)"},
            {"modes", "LIST", "partition modes (default SPX,DPX,QPX,CPX)"},
            {"batch-sizes", "LIST", "batch sizes per trainer (default 8,16,32; --recommend: the config's)"},
            {"epochs", "E", "epochs per run (default 2; --recommend: 1)"},
            {"backend", "NAME", "auto, cpu, cuda or hip (default: the config's device.backend)"},
            {"out", "DIR", "runs, logs and the plot (default <experiment.output_dir>/bench_partitions)"},
            {"plot", "FILE", "where to write the PNG (default <out>/partitions.png)"}};
}

const JobFields& PartitionBenchJob::fields()
{
    static const JobFields fields = jobs::jobFieldsOf(optionSpecs(), "configs", "");
    return fields;
}

// ---- bench loader ---------------------------------------------------------------------------------------

std::vector<std::string> LoaderBenchJob::toArgs() const
{
    std::vector<std::string> words = jobs::commandWords(kCommand);
    for (const auto& [name, value] : {std::pair{"images", &images}, {"dataset", &dataset}, {"split", &split}})
        if (!value->empty())
            addOption(words, name, *value);
    addOption(words, "batch", batch);
    addOption(words, "width", width);
    addOption(words, "height", height);
    addOption(words, "batches", batches);
    addOption(words, "warmup", warmup);
    addOption(words, "threads", threads);
    addOption(words, "prefetch", prefetch);
    addOption(words, "mode", mode);
    addFlag(words, "no-augment", noAugment);
    addFlag(words, "preprocessed", preprocessed);
    if (!cache.empty())
        addOption(words, "cache", cache);
    addOption(words, "dct-scale", dctScale);
    addOption(words, "decode", decode);
    addOption(words, "seed", seed);
    addOption(words, "db", database);
    return words;
}

LoaderBenchJob LoaderBenchJob::fromArgs(const cmdline::Args& args)
{
    if (!args.positionals.empty())
        throw InputError("pitwall bench loader takes no positional arguments (got '" + args.positionals.front() +
                         "'): name the images with --images DIR or --dataset DIR; it reads no config files or "
                         "key=value overrides");
    LoaderBenchJob job;
    job.images = args.value("images", "");
    job.dataset = args.value("dataset", "");
    job.split = args.value("split", "");
    job.batches = intOption(args, "batches", 1, kMaxCount);
    job.warmup = intOption(args, "warmup", 0, kMaxCount);
    job.batch = intOption(args, "batch", 1, kMaxBatch);
    job.width = intOption(args, "width", 1, kMaxImageSide);
    job.height = intOption(args, "height", 1, kMaxImageSide);
    job.threads = intOption(args, "threads", 0, kMaxThreads);
    job.prefetch = intOption(args, "prefetch", 1, kMaxBatch);
    job.seed = intOption(args, "seed", 0, kMaxSeed);
    job.noAugment = args.flag("no-augment");
    job.preprocessed = args.flag("preprocessed");
    job.cache = args.value("cache", "");
    job.mode = choiceOption(args, "mode", {"pitwall", "reference"}, "pitwall or reference");
    job.dctScale = choiceOption(args, "dct-scale", {"fast", "any", "any-up", "full"}, "fast, any, any-up or full");
    job.decode = choiceOption(args, "decode", {"region", "whole"}, "region or whole");
    job.database = args.value("db");
    return job;
}

LoaderBenchJob LoaderBenchJob::fromArgs(const std::vector<std::string>& words)
{
    return fromArgs(jobs::parseJobWords(kCommand, optionSpecs(), words));
}

std::vector<cmdline::OptionSpec> LoaderBenchJob::optionSpecs()
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

const JobFields& LoaderBenchJob::fields()
{
    static const JobFields fields = jobs::jobFieldsOf(optionSpecs(), "", "images");
    return fields;
}

} // namespace pitwall
