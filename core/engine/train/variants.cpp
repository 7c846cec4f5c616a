#include "core/engine/train/variants.h"

#include "core/engine/drive/scoring.h"

#include "core/util/error.h"
#include "core/util/paths.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace pitwall::engine {

namespace fs = std::filesystem;

namespace {

SourceLocation at(const std::string& file, const YAML::Node& node)
{
    SourceLocation where{file};
    if (!node.Mark().is_null()) {
        where.line = node.Mark().line + 1;
        where.column = node.Mark().column + 1;
    }
    return where;
}

std::vector<std::string> stringList(const std::string& file, const YAML::Node& node, const std::string& what)
{
    std::vector<std::string> out;
    if (!node)
        return out;
    if (node.IsScalar())
        return {node.Scalar()};
    if (!node.IsSequence())
        throw InputError(at(file, node), "'" + what + "' must be a string or a list of strings");
    for (const YAML::Node& item : node) {
        if (!item.IsScalar())
            throw InputError(at(file, item), "'" + what + "' entries must be strings");
        out.push_back(item.Scalar());
    }
    return out;
}

std::vector<std::string> relativeTo(const std::string& file, const std::vector<std::string>& paths)
{
    std::vector<std::string> out;
    for (const std::string& p : paths)
        out.push_back(fs::path(p).is_absolute() ? p : (fs::path(file).parent_path() / p).lexically_normal().string());
    return out;
}

} // namespace

VariantsFile readVariantsFile(const std::string& path)
{
    YAML::Node root;
    try {
        root = YAML::Load(readTextFile(path));
    } catch (const YAML::ParserException& e) {
        throw InputError(SourceLocation{path, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg);
    }
    if (!root.IsMap())
        throw InputError(SourceLocation{path}, "a variants file is a mapping with 'name', 'seeds' and 'variants'");
    static const std::vector<std::string> known = {"name", "base", "seeds", "quality", "driving", "table", "variants"};
    for (const auto& item : root)
        if (std::find(known.begin(), known.end(), item.first.Scalar()) == known.end())
            throw InputError(at(path, item.first), "unknown field '" + item.first.Scalar() +
                                                       "' (known: name, base, seeds, quality, driving, table, variants)");
    VariantsFile file;
    file.name = root["name"] ? root["name"].as<std::string>() : fs::path(path).stem().string();
    file.base = relativeTo(path, stringList(path, root["base"], "base"));
    try {
        if (root["seeds"])
            for (const YAML::Node& s : root["seeds"])
                file.seeds.push_back(s.as<std::int64_t>());
    } catch (const YAML::Exception&) {
        throw InputError(at(path, root["seeds"]), "'seeds' must be a list of integers");
    }
    if (file.seeds.empty())
        file.seeds = {0};
    if (const YAML::Node q = root["quality"]) {
        if (!q.IsMap())
            throw InputError(at(path, q), "'quality' is a mapping {metric, label, better: lower|higher}");
        if (q["metric"])
            file.qualityMetric = q["metric"].as<std::string>();
        file.qualityLabel = q["label"] ? q["label"].as<std::string>() : file.qualityMetric;
        if (q["better"]) {
            const std::string better = q["better"].as<std::string>();
            if (better != "lower" && better != "higher")
                throw InputError(at(path, q["better"]), "'better' must be lower or higher, got '" + better + "'");
            file.qualityHigherIsBetter = better == "higher";
        }
    }
    if (const YAML::Node d = root["driving"]) {
        if (!d.IsMap())
            throw InputError(at(path, d), "'driving' is a mapping {routes, route_seconds, seed}");
        for (const auto& item : d)
            if (item.first.Scalar() != "routes" && item.first.Scalar() != "route_seconds" && item.first.Scalar() != "seed")
                throw InputError(at(path, item.first), "unknown field '" + item.first.Scalar() +
                                                           "' in 'driving' (known: routes, route_seconds, seed)");
        file.driving.enabled = true;
        try {
            file.driving.routes = d["routes"] ? d["routes"].as<int>() : file.driving.routes;
            file.driving.routeSeconds = d["route_seconds"] ? d["route_seconds"].as<double>() : file.driving.routeSeconds;
            file.driving.seed = d["seed"] ? d["seed"].as<std::int64_t>() : file.driving.seed;
        } catch (const YAML::Exception&) {
            throw InputError(at(path, d), "'driving' takes an integer 'routes' and 'seed' and a number 'route_seconds'");
        }
        if (file.driving.routes < 1 || file.driving.routeSeconds < 2 || file.driving.routeSeconds > 3600 || file.driving.seed < 0)
            throw InputError(at(path, d), "'driving' needs routes >= 1, route_seconds in 2..3600 and seed >= 0");
    }
    if (const YAML::Node t = root["table"]) {
        const std::string kind = t.IsScalar() ? t.Scalar() : "";
        if (kind != "speed" && kind != "loader")
            throw InputError(at(path, t), "'table' must be speed or loader, got '" + kind + "'");
        file.table = kind == "loader" ? VariantsTableKind::Loader : VariantsTableKind::Speed;
    }
    const YAML::Node variants = root["variants"];
    if (!variants || !variants.IsSequence() || variants.size() == 0)
        throw InputError(at(path, root), "'variants' must be a non-empty list");
    for (const YAML::Node& v : variants) {
        if (!v.IsMap() || !v["name"])
            throw InputError(at(path, v), "each variant needs a 'name' (and 'configs' and/or 'overrides')");
        VariantSpec spec;
        spec.name = v["name"].as<std::string>();
        for (const VariantSpec& other : file.variants)
            if (other.name == spec.name)
                throw InputError(at(path, v["name"]), "variant '" + spec.name + "' is listed twice");
        spec.configs = relativeTo(path, stringList(path, v["configs"], "configs"));
        spec.overrides = stringList(path, v["overrides"], "overrides");
        if (v["compare_to"])
            spec.compareTo = v["compare_to"].as<std::string>();
        file.variants.push_back(std::move(spec));
    }
    for (std::size_t i = 0; i < file.variants.size(); ++i) {
        const std::string& other = file.variants[i].compareTo;
        const bool known = std::any_of(file.variants.begin(), file.variants.end(),
                                       [&](const VariantSpec& v) { return v.name == other; });
        if (!other.empty() && (!known || other == file.variants[i].name))
            throw InputError(at(path, variants[i]["compare_to"]),
                             "variant '" + file.variants[i].name + "': compare_to '" + other +
                                 "' is not another variant of this file");
    }
    return file;
}

ResolvedConfig resolveVariant(const Schema& schema, const VariantsFile& file, const VariantSpec& variant,
                              const std::vector<std::string>& extraOverrides)
{
    std::vector<std::string> files = file.base;
    files.insert(files.end(), variant.configs.begin(), variant.configs.end());
    std::vector<std::string> overrides = variant.overrides;
    overrides.insert(overrides.end(), extraOverrides.begin(), extraOverrides.end());
    ResolvedConfig config = resolveConfig(schema, files, overrides);
    config.set("experiment.name", ConfigValue(file.name + "/" + variant.name),
               ValueOrigin{OriginKind::Program, {}, "variant benchmark"});
    return config;
}

VariantResult summariseVariant(const VariantsFile& file, const std::string& name, const ExperimentResult& run)
{
    VariantResult r;
    r.name = name;
    r.study = run.study;
    r.seeds = run.seeds;
    std::vector<double> pre, post, total, compute, full, quality;
    for (const SeedResult& s : run.seeds) {
        double preS = 0, postS = 0, samples = 0, stepSeconds = 0, wallSeconds = 0;
        for (const StageResult& st : s.train.stages) {
            (st.stage == "pretrain" ? preS : postS) += st.seconds;
            if (st.computeFps > 0)
                stepSeconds += st.seconds * st.fullFps / st.computeFps; // samples / compute FPS
            samples += st.seconds * st.fullFps;
            wallSeconds += st.seconds;
        }
        pre.push_back(preS);
        post.push_back(postS);
        total.push_back(preS + postS);
        if (stepSeconds > 0)
            compute.push_back(samples / stepSeconds);
        if (wallSeconds > 0)
            full.push_back(samples / wallSeconds);
        if (auto it = s.train.finalMetrics.find(file.qualityMetric); it != s.train.finalMetrics.end())
            quality.push_back(it->second);
    }
    r.pretrainSeconds = meanStd(pre);
    r.posttrainSeconds = meanStd(post);
    r.totalSeconds = meanStd(total);
    r.computeFps = meanStd(compute);
    r.fullFps = meanStd(full);
    r.quality = meanStd(quality);
    std::vector<double> perIteration;
    for (const SeedResult& s : run.seeds)
        if (!s.train.stages.empty() && s.train.stages.back().msPerIteration > 0)
            perIteration.push_back(s.train.stages.back().msPerIteration);
    r.msPerIteration = meanStd(perIteration);
    return r;
}

namespace {

Table loaderTable(const VariantsFile& file, const std::vector<VariantResult>& results)
{
    Table table({"Variant", "Runtime per iteration (ms)", "CPU usage (%)", "Speed-up", "CPU saving"});
    for (std::size_t i = 0; i < results.size(); ++i) {
        const VariantResult& r = results[i];
        std::string speedUp = "–", saving = "–";
        const std::string& other = file.variants[i].compareTo;
        for (const VariantResult& base : results)
            if (!other.empty() && base.name == other && r.msPerIteration.mean > 0 && base.cpuPercent > 0) {
                speedUp = "× " + formatFixed(base.msPerIteration.mean / r.msPerIteration.mean, 2);
                saving = formatFixed(100.0 * (1.0 - r.cpuPercent / base.cpuPercent), 0) + " %";
            }
        table.addRow({r.name, r.msPerIteration.toString(1), formatFixed(r.cpuPercent, 0), speedUp, saving});
    }
    return table;
}

} // namespace

Table variantsTable(const VariantsFile& file, const std::vector<VariantResult>& results)
{
    if (file.table == VariantsTableKind::Loader)
        return loaderTable(file, results);
    std::vector<std::string> header{"Variant", "Pretrain (s)", "Post-train (s)", "Total (s)", "Compute FPS", "Full FPS",
                                    file.qualityLabel + (file.qualityHigherIsBetter ? " ↑" : " ↓")};
    const bool severalSeeds = file.seeds.size() > 1;
    if (file.driving.enabled)
        header.push_back("Driving Score ↑");
    if (file.driving.enabled && severalSeeds)
        header.push_back("DS s.e.");
    Table table(header);
    for (const VariantResult& r : results) {
        std::vector<std::string> row{r.name, formatFixed(r.pretrainSeconds.mean, 1), formatFixed(r.posttrainSeconds.mean, 1),
                                     formatFixed(r.totalSeconds.mean, 1),
                                     // "–": every step was a warm-up step, none was timed
                                     r.computeFps.count ? formatFixed(r.computeFps.mean, 1) : std::string("–"),
                                     formatFixed(r.fullFps.mean, 1), r.quality.toString(3)};
        if (file.driving.enabled) {
            // One scored seed: its std over seeds would read "± 0.0"; the route-level standard error is what
            // tells whether two variants differ.
            MeanStd shown = r.drivingScore;
            if (shown.count == 1)
                shown.std = r.drivingScoreStandardError;
            row.push_back(shown.toString(1));
        }
        if (file.driving.enabled && severalSeeds)
            row.push_back(r.drivingScore.count ? formatFixed(r.drivingScoreStandardError, 1) : std::string("–"));
        table.addRow(row);
    }
    return table;
}

std::string variantsPairedDifferences(const VariantsFile& file, const std::vector<VariantResult>& results)
{
    if (!file.driving.enabled || results.size() < 2 || results.front().routeDrivingScores.empty())
        return {};
    const VariantResult& first = results.front();
    std::string text = "Driving Score, paired differences to " + first.name + " over the same " +
                       std::to_string(first.routeDrivingScores.size()) +
                       " routes (± the standard error of the per-route differences):";
    for (std::size_t i = 1; i < results.size(); ++i) {
        if (results[i].routeDrivingScores.size() != first.routeDrivingScores.size())
            return {};
        const drive::ScoreStats d = drive::pairedDifference(results[i].routeDrivingScores, first.routeDrivingScores);
        text += (i == 1 ? " " : ", ") + results[i].name + " " + (d.mean >= 0 ? "+" : "") + formatFixed(d.mean, 1) +
                " ± " + formatFixed(d.standardError, 1);
    }
    return text + "\n";
}

void addPairedDifference(nlohmann::json& out, const std::vector<VariantResult>& results, std::size_t i)
{
    if (i == 0 || i >= results.size() || results[0].routeDrivingScores.empty() ||
        results[i].routeDrivingScores.size() != results[0].routeDrivingScores.size())
        return;
    const drive::ScoreStats d = drive::pairedDifference(results[i].routeDrivingScores, results[0].routeDrivingScores);
    out["driving_score_diff"] = d.mean;
    out["driving_score_diff_stderr"] = d.standardError;
}

std::string variantsLegend(const VariantsFile& file)
{
    const std::string seeds = std::to_string(file.seeds.size()), routes = std::to_string(file.driving.routes);
    std::string text = file.qualityLabel;
    if (!file.driving.enabled)
        text += ": mean ± sample std over " + seeds + " training seed(s)";
    else if (file.seeds.size() == 1)
        text += ": mean ± sample std over 1 training seed(s); Driving Score: ± is the standard error over routes " +
                ("(1 seed, " + routes + " routes: sample std / √" + routes + ")");
    else
        text += " and Driving Score: mean ± sample std over " + seeds + " training seed(s); DS s.e.: the standard " +
                "error over routes (the mean of the seeds' standard errors over the same " + routes + " routes)";
    if (file.table == VariantsTableKind::Loader)
        return "Runtime per iteration: wall time per training step of the last stage (loading included), mean ± "
               "sample std over " + seeds + " seed(s); CPU usage: user + system time of the bench and its children "
               "(rank processes, loader workers) over the variant's wall time, 100 = one core; speed-up and CPU "
               "saving against the variant named by compare_to.";
    return text + "; times and FPS are means.";
}

} // namespace pitwall::engine
