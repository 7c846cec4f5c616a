#include "core/engine/train/variantsbenchreport.h"

#include "core/config/configargs.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

namespace pitwall::engine {

namespace {

// A variant's name as --only compares it: without the blanks after commas.
std::string comparable(const std::string& name)
{
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i)
        if (!(name[i] == ' ' && i > 0 && out.back() == ','))
            out += name[i];
    return out;
}

// The variants --only names, in its order. The option is comma-separated, so the name of a variant that has a
// comma ("Logits, nearest") arrives in pieces: consecutive pieces that together name a variant are that variant.
// InputError naming the file's variants for a name that matches none.
std::vector<VariantSpec> onlyVariants(const VariantsFile& file, const std::vector<std::string>& names,
                                      const std::string& path)
{
    const auto find = [&](const std::string& name) -> const VariantSpec* {
        for (const VariantSpec& v : file.variants)
            if (comparable(v.name) == comparable(name))
                return &v;
        return nullptr;
    };
    std::vector<VariantSpec> kept;
    for (std::size_t i = 0; i < names.size();) {
        std::string name;
        const VariantSpec* found = nullptr;
        std::size_t j = i;
        for (; j < names.size() && !found; ++j) {
            name += (j == i ? "" : ",") + names[j];
            found = find(name);
        }
        if (!found) {
            std::vector<std::string> all;
            for (const VariantSpec& v : file.variants)
                all.push_back("'" + v.name + "'");
            throw InputError::forOption("only", "--only: " + path + " has no variant named '" + names[i] +
                                                    "'; its variants: " + join(all, ", "));
        }
        kept.push_back(*found);
        i = j;
    }
    return kept;
}

// The variants file with the job's --seeds and --only applied.
VariantsFile variantsOfJob(const VariantsBenchJob& job)
{
    VariantsFile variants = readVariantsFile(job.file);
    if (job.seeds)
        variants.seeds = *job.seeds;
    if (!job.only.empty())
        variants.variants = onlyVariants(variants, job.only, job.file);
    return variants;
}

} // namespace

VariantsBenchSpec variantsBenchSpecFromJob(const VariantsBenchJob& job)
{
    if (job.file.empty())
        throw InputError(
            "give one variants file (e.g. configs/transfuser/speed.yaml), then any dotted.key=value overrides");
    VariantsBenchSpec spec;
    spec.file = variantsOfJob(job);
    spec.configs = resolveVariants(schemaWithWarnings(), spec.file, job.overrides);
    spec.storeLocation = job.database.value_or(defaultDatabasePath());
    return spec;
}

VariantsBenchSpec variantsBenchSpec(const cmdline::Args& args)
{
    return variantsBenchSpecFromJob(VariantsBenchJob::fromArgs(args));
}

nlohmann::json variantsCheckJson(const VariantsBenchSpec& spec, const std::vector<VariantCheck>& checks)
{
    std::size_t runs = 0;
    nlohmann::json variants = nlohmann::json::array();
    for (const VariantCheck& c : checks) {
        runs += c.seeds.size();
        variants.push_back({{"name", c.name}, {"study", c.study}, {"seeds", c.seeds}});
    }
    return nlohmann::json{
        {"ok", true}, {"name", spec.file.name}, {"variants", variants}, {"runs", runs}, {"driving", spec.file.driving.enabled}};
}

std::string variantsCheckText(const VariantsBenchSpec& spec, const std::vector<VariantCheck>& checks)
{
    std::string text;
    std::size_t runs = 0;
    for (const VariantCheck& c : checks) {
        runs += c.seeds.size();
        text += "ok: variant '" + c.name + "': study '" + c.study + "', " + std::to_string(c.seeds.size()) +
                " seed(s)\n";
    }
    return text + "ok: would train " + std::to_string(checks.size()) + " variant(s), " + std::to_string(runs) +
           " run(s)" + (spec.file.driving.enabled ? " and drive each in closed loop" : "") + ", into " +
           spec.storeLocation + "\n";
}

nlohmann::json variantsResultJson(const VariantsFile& variants, const std::vector<VariantResult>& results)
{
    nlohmann::json out{{"name", variants.name}, {"seeds", variants.seeds}, {"variants", nlohmann::json::array()}};
    for (const VariantResult& r : results)
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
            addPairedDifference(out["variants"][i], results, i);
        }
    return out;
}

nlohmann::json variantsResultJson(const VariantsFile& variants, const VariantsBenchResult& result)
{
    nlohmann::json out = variantsResultJson(variants, result.results);
    if (result.load.measured)
        out["machine"] = {{"load_before", result.load.loadBefore},
                          {"load_after", result.load.loadAfter},
                          {"other_cores_busy", result.load.otherCores},
                          {"cores", result.load.cores},
                          {"busy", result.load.busy()}};
    return out;
}

std::string variantsResultText(const VariantsBenchSpec& spec, const VariantsBenchResult& result, bool markdown)
{
    return "\n" + (markdown ? result.table.toMarkdown() : result.table.toText()) + "\n" + variantsLegend(spec.file) +
           " Studies: '" + spec.file.name + "/<variant>' in " + spec.storeLocation + "\n" +
           variantsPairedDifferences(spec.file, result.results) + variantsRoutesAdvice(spec.file, result.results) +
           result.load.text();
}

} // namespace pitwall::engine
