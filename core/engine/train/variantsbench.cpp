#include "core/engine/train/variantsbench.h"

#include "core/engine/drive/runeval.h"
#include "core/engine/train/benchcheck.h"
#include "core/pool/trialstate.h"
#include "core/store/store.h"
#include "core/synth/dataset.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace pitwall::engine {

namespace {

// Drives every seed's run of a variant (the file's `driving` section) on the same routes, records each result
// with its run, and sets the variant's driving score and its route-level standard error.
void driveSeeds(const VariantsFile& file, const std::string& db, const ExperimentResult& run,
                const ProgressReporter& reporter, VariantResult& result)
{
    drive::DrivingEvalOptions options;
    options.routes = file.driving.routes;
    options.routeSeconds = file.driving.routeSeconds;
    options.seed = static_cast<std::uint64_t>(file.driving.seed);
    std::vector<drive::DrivingReport> reports;
    std::vector<double> scores;
    for (const SeedResult& s : run.seeds) {
        drive::DriveCallbacks callbacks;
        callbacks.progress = [&](const drive::DriveProgress& p) {
            reporter.progress({"   driving seed " + std::to_string(s.seed) + " route " + std::to_string(p.route + 1) +
                                   "/" + std::to_string(p.routes),
                               p.timeS, p.timeLimitS, ""});
        };
        const drive::DrivingReport report = drive::evaluateRun(db, s.train.runId, options, {}, callbacks);
        drive::recordRunEvaluation(*openStore(db), s.train.runId, report, options);
        scores.push_back(report.drivingScore.mean);
        reports.push_back(report);
    }
    reporter.phaseDone();
    result.drivingScore = meanStd(scores);
    result.drivingScoreStandardError = drive::meanDrivingScoreStandardError(reports);
    result.routeDrivingScores = drive::routeDrivingScores(reports);
}

void storeRecords(const VariantsBenchSpec& spec, const VariantsBenchResult& out)
{
    auto store = openStore(spec.storeLocation);
    const Json rows = out.table.toJson();
    for (std::size_t i = 0; i < out.results.size(); ++i) {
        BenchmarkRecord record;
        record.suite = "variants";
        record.name = spec.file.name + "/" + out.results[i].name;
        record.host = hostName();
        record.time = nowSeconds();
        for (const ConfigEntry* e : spec.configs[i].changedEntries())
            record.parameters[e->spec.key] = e->value.toJson();
        record.parameters["seeds"] = spec.file.seeds;
        record.results = rows[i];
        record.results["study"] = out.results[i].study;
        if (out.load.measured) {
            record.results["load_before"] = out.load.loadBefore;
            record.results["load_after"] = out.load.loadAfter;
            record.results["other_cores_busy"] = out.load.otherCores;
        }
        if (spec.file.driving.enabled) {
            record.results["driving_score_stderr"] = out.results[i].drivingScoreStandardError;
            addPairedDifference(record.results, out.results, i);
        }
        store->addBenchmark(record);
    }
}

} // namespace

std::vector<ResolvedConfig> resolveVariants(const Schema& schema, const VariantsFile& file,
                                            const std::vector<std::string>& overrides)
{
    std::vector<ResolvedConfig> configs;
    for (const VariantSpec& v : file.variants)
        try {
            configs.push_back(resolveVariant(schema, file, v, overrides));
            checkRunnable(configs.back());
        } catch (const InputError& e) {
            throw InputError("variant '" + v.name + "': " + e.what());
        }
    return configs;
}

std::vector<VariantCheck> checkVariantsBench(const VariantsBenchSpec& spec)
{
    const VariantsFile& file = spec.file;
    if (spec.configs.size() != file.variants.size())
        throw std::logic_error("checkVariantsBench: one resolved configuration per variant expected");
    std::vector<VariantCheck> checks;
    for (std::size_t i = 0; i < file.variants.size(); ++i) {
        const ResolvedConfig& config = spec.configs[i];
        VariantCheck check{file.variants[i].name, config.getString("experiment.name"), file.seeds};
        try {
            checkTrainingPaths(config, spec.storeLocation);
        } catch (const InputError& e) {
            throw InputError("variant '" + check.name + "': " + e.what());
        }
        if (check.seeds.empty())
            for (long long s : config.value("experiment.seeds").asIntList())
                check.seeds.push_back(s);
        checks.push_back(std::move(check));
    }
    return checks;
}

VariantsBenchResult runVariantsBench(const VariantsBenchSpec& spec, CancelToken& cancel,
                                     const ProgressReporter& reporter)
{
    checkVariantsBench(spec);
    const MachineLoadMeter machine;
    VariantsBenchResult out;
    const VariantsFile& file = spec.file;
    // Each variant is an equal part of the job's progress; with driving, its routes take the last fifth of it.
    const double part = 1.0 / static_cast<double>(std::max<std::size_t>(1, file.variants.size()));
    const double trainShare = file.driving.enabled ? 0.8 : 1.0;
    for (std::size_t i = 0; i < file.variants.size(); ++i) {
        const std::string& name = file.variants[i].name;
        reporter.message("== variant " + std::to_string(i + 1) + "/" + std::to_string(file.variants.size()) + ": " +
                         name);
        ExperimentOptions options;
        options.storeLocation = spec.storeLocation;
        options.seeds = file.seeds;
        options.cancel = &cancel;
        // The variant's lines indented under its heading, its progress bars named after it.
        const double from = static_cast<double>(i) * part;
        const ProgressReporter training = reporter.within(from, from + part * trainShare);
        options.reporter = reporter;
        options.reporter.onMessage = [&](const std::string& text) { reporter.message("   " + text); };
        options.reporter.onProgress = [&](const ProgressReport& p) {
            const bool data = p.label == synth::kSynthesisingFrames;
            ProgressReport named = p;
            named.label = "   " + (data ? p.label : name + " " + p.label);
            training.progress(named);
        };
        const double cpuStart = processTreeCpuSeconds();
        const auto wallStart = std::chrono::steady_clock::now();
        const ExperimentResult run = runExperiment(spec.configs[i], options);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
        const double cpu = processTreeCpuSeconds() - cpuStart;
        reporter.phaseDone();
        out.results.push_back(summariseVariant(file, name, run));
        out.results.back().cpuPercent = wall > 0 ? 100.0 * cpu / wall : 0;
        if (file.driving.enabled)
            driveSeeds(file, spec.storeLocation, run, reporter.within(from + part * trainShare, from + part),
                       out.results.back());
    }
    out.table = variantsTable(file, out.results);
    out.load = machine.finish();
    storeRecords(spec, out);
    return out;
}

} // namespace pitwall::engine
