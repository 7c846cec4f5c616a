// pitwall bench variants FILE
#include "app/cli/cli.h"
#include "app/cli/configargs.h"
#include "app/cli/progress.h"

#include "core/engine/train/variantsbench.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <iostream>

namespace pitwall::cli {

namespace {

std::vector<std::int64_t> parseSeeds(const std::string& text)
{
    std::vector<std::int64_t> seeds;
    if (auto count = parseInteger(text); count && text.find(',') == std::string::npos) {
        if (*count < 1)
            throw InputError("--seeds " + text + ": give a count >= 1 or a list such as 0,1,2");
        for (long long s = 0; s < *count; ++s)
            seeds.push_back(s);
        return seeds;
    }
    for (const std::string& part : split(text, ',')) {
        const auto seed = parseInteger(part);
        if (!seed || *seed < 0)
            throw InputError("--seeds '" + text + "': '" + part + "' is not a seed");
        seeds.push_back(*seed);
    }
    return seeds;
}

// The variants file with --seeds and --only applied.
engine::VariantsFile variantsFromArgs(const Args& args, const std::string& path)
{
    engine::VariantsFile variants = engine::readVariantsFile(path);
    if (auto seeds = args.value("seeds"))
        variants.seeds = parseSeeds(*seeds);
    if (auto only = args.value("only")) {
        std::vector<engine::VariantSpec> kept;
        for (const std::string& name : split(*only, ','))
            for (const engine::VariantSpec& v : variants.variants)
                if (v.name == trim(name))
                    kept.push_back(v);
        if (kept.empty())
            throw InputError("--only '" + *only + "' names no variant of " + path);
        variants.variants = kept;
    }
    return variants;
}

void printJson(const engine::VariantsFile& variants, const std::vector<engine::VariantResult>& results)
{
    nlohmann::json out{{"name", variants.name}, {"seeds", variants.seeds}, {"variants", nlohmann::json::array()}};
    for (const engine::VariantResult& r : results)
        out["variants"].push_back({{"name", r.name},
                                   {"study", r.study},
                                   {"pretrain_seconds", r.pretrainSeconds.mean},
                                   {"posttrain_seconds", r.posttrainSeconds.mean},
                                   {"total_seconds", r.totalSeconds.mean},
                                   {"compute_fps", r.computeFps.mean},
                                   {"full_fps", r.fullFps.mean},
                                   {"quality_metric", variants.qualityMetric},
                                   {"quality_mean", r.quality.mean},
                                   {"quality_std", r.quality.std},
                                   {"seeds", r.quality.count}});
    if (variants.driving.enabled)
        for (std::size_t i = 0; i < results.size(); ++i) {
            out["variants"][i]["driving_score_mean"] = results[i].drivingScore.mean;
            out["variants"][i]["driving_score_std"] = results[i].drivingScore.std;
            out["variants"][i]["driving_score_stderr"] = results[i].drivingScoreStandardError;
        }
    std::cout << out.dump(2) << "\n";
}

// The file, --seeds, --only and the overrides resolved into what runVariantsBench runs (and --check checks).
engine::VariantsBenchSpec variantsSpec(const Args& args)
{
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    if (files.size() != 1)
        throw InputError("give one variants file (e.g. configs/transfuser/speed.yaml), then any dotted.key=value overrides");
    engine::VariantsBenchSpec spec;
    spec.file = variantsFromArgs(args, files[0]);
    spec.configs = engine::resolveVariants(schemaWithWarnings(), spec.file, overrides);
    spec.storeLocation = args.database();
    return spec;
}

int benchVariantsCheck(const Args& args)
{
    const engine::VariantsBenchSpec spec = variantsSpec(args);
    const std::vector<engine::VariantCheck> checks = engine::checkVariantsBench(spec);
    std::size_t runs = 0;
    nlohmann::json variants = nlohmann::json::array();
    for (const engine::VariantCheck& c : checks) {
        runs += c.seeds.size();
        variants.push_back({{"name", c.name}, {"study", c.study}, {"seeds", c.seeds}});
    }
    if (args.flag("json")) {
        std::cout << nlohmann::json{{"ok", true},
                                    {"name", spec.file.name},
                                    {"variants", variants},
                                    {"runs", runs},
                                    {"driving", spec.file.driving.enabled}}
                         .dump(2)
                  << "\n";
        return kExitOk;
    }
    for (const engine::VariantCheck& c : checks)
        std::cout << "ok: variant '" << c.name << "': study '" << c.study << "', " << c.seeds.size() << " seed(s)\n";
    std::cout << "ok: would train " << checks.size() << " variant(s), " << runs << " run(s)"
              << (spec.file.driving.enabled ? " and drive each in closed loop" : "") << ", into " << spec.storeLocation
              << "\n";
    return kExitOk;
}

int benchVariants(const Args& args)
{
    const engine::VariantsBenchSpec spec = variantsSpec(args);
    ProgressLine line;
    const engine::VariantsBenchResult out = engine::runVariantsBench(spec, processCancelToken(), line.reporter());
    const engine::VariantsFile& variants = spec.file;
    if (args.flag("json")) {
        printJson(variants, out.results);
        return kExitOk;
    }
    std::cout << "\n" << (args.flag("markdown") ? out.table.toMarkdown() : out.table.toText());
    std::cout << "\n"
              << engine::variantsLegend(variants) << " Studies: '" << variants.name << "/<variant>' in "
              << spec.storeLocation << "\n";
    return kExitOk;
}

} // namespace

void addBenchCommands(Cli& cli)
{
    Command variants{
        "bench variants",
        "train each variant of an experiment for N seeds and print LEAD's speed table",
        "FILE [dotted.key=value...] [--seeds N|LIST] [--only NAMES] [--markdown] [--db FILE] [--json]",
        "FILE lists a base config and variants (see configs/transfuser/speed.yaml). Each variant trains both\n"
        "stages for every seed as its own study '<name>/<variant>'; the table gives per-stage wall time,\n"
        "compute FPS (samples / step time after the batch arrived), full FPS (samples / epoch wall time) and the\n"
        "quality metric as mean ± sample std over seeds. Overrides apply to every variant. With a 'driving'\n"
        "section, every seed's run is also driven in closed loop ('pitwall eval driving', the same routes for\n"
        "every variant and seed) and the table gets a Driving Score column: with one seed, mean ± the standard\n"
        "error over routes; with several, mean ± sample std over seeds and a DS s.e. column (the mean of the\n"
        "seeds' standard errors over routes).",
        {dbOption(),
         jsonOption(),
         {"seeds", "N|LIST", "seeds to train: a count (0..N-1) or a list such as 0,1,2 (default: the file's)"},
         {"only", "NAMES", "comma-separated variant names to run"},
         {"markdown", "", "print the table as Markdown"}},
        benchVariants};
    variants.check = benchVariantsCheck;
    cli.add(std::move(variants));
}

} // namespace pitwall::cli
