#include "core/engine/train/variants.h"

#include "core/drive/scoring.h"

#include "core/util/error.h"

#include <algorithm>
#include <cmath>

namespace pitwall::engine {

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
            row.push_back(r.drivingScore.count == 1 ? formatFixed(r.drivingScore.mean, 1) + " ± " +
                                                          formatFixed(r.drivingScoreStandardError, 1)
                                                    : r.drivingScore.toString(1));
        }
        if (file.driving.enabled && severalSeeds)
            row.push_back(r.drivingScore.count ? formatFixed(r.drivingScoreStandardError, 1) : std::string("–"));
        table.addRow(row);
    }
    return table;
}

namespace {
// Whether every variant after the first drove the first's routes, so that they compare route by route.
bool pairedOnTheSameRoutes(const VariantsFile& file, const std::vector<VariantResult>& results)
{
    if (!file.driving.enabled || results.size() < 2 || results.front().routeDrivingScores.empty())
        return false;
    for (std::size_t i = 1; i < results.size(); ++i)
        if (results[i].routeDrivingScores.size() != results.front().routeDrivingScores.size())
            return false;
    return true;
}
} // namespace

std::string variantsPairedDifferences(const VariantsFile& file, const std::vector<VariantResult>& results)
{
    if (!pairedOnTheSameRoutes(file, results))
        return {};
    const VariantResult& first = results.front();
    std::string text = "Driving Score, paired differences to " + first.name + " over the same " +
                       std::to_string(first.routeDrivingScores.size()) +
                       " routes (± the standard error of the per-route differences):";
    for (std::size_t i = 1; i < results.size(); ++i) {
        const drive::ScoreStats d = drive::pairedDifference(results[i].routeDrivingScores, first.routeDrivingScores);
        text += (i == 1 ? " " : ", ") + results[i].name + " " + (d.mean >= 0 ? "+" : "") + formatFixed(d.mean, 1) +
                " ± " + formatFixed(d.standardError, 1);
    }
    return text + "\n";
}

std::string variantsRoutesAdvice(const VariantsFile& file, const std::vector<VariantResult>& results)
{
    if (!pairedOnTheSameRoutes(file, results))
        return {};
    const std::vector<double>& first = results.front().routeDrivingScores;
    double largest = 0;
    for (std::size_t i = 1; i < results.size(); ++i)
        largest = std::max(largest, drive::pairedDifference(results[i].routeDrivingScores, first).standardError);
    const double target = kTargetPairedStandardError;
    if (largest <= target)
        return "Every paired standard error is at most " + formatFixed(target, 1) + " points (largest " +
               formatFixed(largest, 1) + "): a difference of " + formatFixed(2 * target, 0) +
               " points or more is at least two standard errors.\n";
    const double routes = static_cast<double>(first.size());
    const auto needed = static_cast<long long>(std::ceil(routes * (largest / target) * (largest / target)));
    return "The largest paired standard error, " + formatFixed(largest, 1) + " points, is above " +
           formatFixed(target, 1) + ": a " + formatFixed(2 * target, 0) + "-point difference may not show. About " +
           std::to_string(needed) + " routes (driving.routes in the variants file) would bring it to " +
           formatFixed(target, 1) + "; it shrinks as 1/√routes.\n";
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
        text += file.seeds.size() == 1 ? std::string(": one training seed (no spread to show)")
                                       : ": mean ± sample std over " + seeds + " training seed(s)";
    else if (file.seeds.size() == 1)
        text += ": one training seed (no spread to show); Driving Score: ± is the standard error over routes " +
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
