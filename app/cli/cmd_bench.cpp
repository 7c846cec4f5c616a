// pitwall bench variants FILE
#include "app/cli/cli.h"
#include "app/cli/configargs.h"
#include "app/cli/progress.h"

#include "core/engine/drive/runeval.h"
#include "core/engine/train/variants.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <unistd.h>

#include <cstdio>
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

// Drives every seed's run of a variant (the file's `driving` section) and records each result with its run.
MeanStd drivingScores(const engine::VariantsFile& file, const std::string& db, const engine::ExperimentResult& run,
                      ProgressLine& line)
{
    drive::DrivingEvalOptions options;
    options.routes = file.driving.routes;
    options.routeSeconds = file.driving.routeSeconds;
    options.seed = static_cast<std::uint64_t>(file.driving.seed);
    std::vector<double> scores;
    for (const engine::SeedResult& s : run.seeds) {
        drive::DriveCallbacks callbacks;
        callbacks.progress = [&](const drive::DriveProgress& p) {
            line.update("   driving seed " + std::to_string(s.seed) + " route " + std::to_string(p.route + 1) + "/" +
                            std::to_string(p.routes),
                        p.timeS, p.timeLimitS, "");
        };
        const drive::DrivingReport report = drive::evaluateRun(db, s.train.runId, options, {}, callbacks);
        drive::recordRunEvaluation(*openStore(db), s.train.runId, report, options);
        scores.push_back(report.drivingScore.mean);
    }
    line.finish();
    return meanStd(scores);
}

int benchVariants(const Args& args)
{
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    if (files.size() != 1)
        throw InputError("give one variants file (e.g. configs/transfuser/speed.yaml), then any dotted.key=value overrides");
    engine::VariantsFile variants = engine::readVariantsFile(files[0]);
    if (auto seeds = args.value("seeds"))
        variants.seeds = parseSeeds(*seeds);
    if (auto only = args.value("only")) {
        std::vector<engine::VariantSpec> kept;
        for (const std::string& name : split(*only, ','))
            for (const engine::VariantSpec& v : variants.variants)
                if (v.name == trim(name))
                    kept.push_back(v);
        if (kept.empty())
            throw InputError("--only '" + *only + "' names no variant of " + files[0]);
        variants.variants = kept;
    }
    // Every variant resolves before anything trains.
    const Schema schema = schemaWithWarnings();
    std::vector<ResolvedConfig> configs;
    for (const engine::VariantSpec& v : variants.variants)
        try {
            configs.push_back(engine::resolveVariant(schema, variants, v, overrides));
            engine::checkRunnable(configs.back());
        } catch (const InputError& e) {
            throw InputError("variant '" + v.name + "': " + e.what());
        }

    ProgressLine line;
    std::vector<engine::VariantResult> results;
    const std::string db = args.database();
    for (std::size_t i = 0; i < variants.variants.size(); ++i) {
        const std::string& name = variants.variants[i].name;
        line.message("== variant " + std::to_string(i + 1) + "/" + std::to_string(variants.variants.size()) + ": " + name);
        engine::ExperimentOptions options;
        options.storeLocation = db;
        options.seeds = variants.seeds;
        options.message = [&](const std::string& text) { line.message("   " + text); };
        options.dataProgress = [&](std::int64_t done, std::int64_t total) {
            line.update("   synthesising frames", static_cast<double>(done), static_cast<double>(total), "");
        };
        options.progress = [&](std::int64_t seed, const engine::TrainProgress& p) {
            if (!p.epochDone)
                line.update("   " + name + " seed " + std::to_string(seed) + " " + p.stage + " epoch " +
                                std::to_string(p.epoch + 1) + "/" + std::to_string(p.epochs),
                            static_cast<double>(p.step), static_cast<double>(p.stepsPerEpoch), "");
        };
        const engine::ExperimentResult run = engine::runExperiment(configs[i], options);
        line.finish();
        results.push_back(engine::summariseVariant(variants, name, run));
        if (variants.driving.enabled)
            results.back().drivingScore = drivingScores(variants, db, run, line);
    }
    const Table table = engine::variantsTable(variants, results);

    auto store = openStore(db);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    for (std::size_t i = 0; i < results.size(); ++i) {
        BenchmarkRecord record;
        record.suite = "variants";
        record.name = variants.name + "/" + results[i].name;
        record.host = host;
        record.time = nowSeconds();
        for (const ConfigEntry* e : configs[i].changedEntries())
            record.parameters[e->spec.key] = e->value.toJson();
        record.parameters["seeds"] = variants.seeds;
        record.results = table.toJson()[i];
        record.results["study"] = results[i].study;
        store->addBenchmark(record);
    }

    if (args.flag("json")) {
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
            }
        std::cout << out.dump(2) << "\n";
    } else {
        std::cout << "\n" << (args.flag("markdown") ? table.toMarkdown() : table.toText());
        std::cout << "\n" << variants.qualityLabel << (variants.driving.enabled ? " and Driving Score" : "")
                  << ": mean ± sample std over " << variants.seeds.size()
                  << " training seed(s); times and FPS are means. Studies: '" << variants.name << "/<variant>' in " << db
                  << "\n";
    }
    return kExitOk;
}

} // namespace

void addBenchCommands(Cli& cli)
{
    cli.add({"bench variants", "train each variant of an experiment for N seeds and print LEAD's speed table",
             "FILE [dotted.key=value...] [--seeds N|LIST] [--only NAMES] [--markdown] [--db FILE] [--json]",
             "FILE lists a base config and variants (see configs/transfuser/speed.yaml). Each variant trains both\n"
             "stages for every seed as its own study '<name>/<variant>'; the table gives per-stage wall time,\n"
             "compute FPS (samples / step time after the batch arrived), full FPS (samples / epoch wall time) and the\n"
             "quality metric as mean ± sample std over seeds. Overrides apply to every variant. With a 'driving'\n"
             "section, every seed's run is also driven in closed loop ('pitwall eval driving') and the table gets\n"
             "a Driving Score column (mean ± sample std over seeds).",
             {dbOption(), jsonOption(),
              {"seeds", "N|LIST", "seeds to train: a count (0..N-1) or a list such as 0,1,2 (default: the file's)"},
              {"only", "NAMES", "comma-separated variant names to run"},
              {"markdown", "", "print the table as Markdown"}},
             benchVariants});
}

} // namespace pitwall::cli
