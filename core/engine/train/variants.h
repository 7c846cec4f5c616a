#pragma once
// Variant benchmarks (`pitwall bench variants FILE`): the same experiment under several configurations,
// each trained for N seeds, summarised as LEAD's speed table (per-stage time, throughput, quality mean ± std).
//
// Variants file (YAML):
//   name: lead-speed                  # study prefix in the results store
//   base: [bench_base.yaml]           # config files applied first to every variant (relative to this file)
//   seeds: [0, 1, 2]
//   quality: {metric: waypoint_l1, label: "Waypoint L1 (m)", better: lower}
//   driving: {routes: 20, route_seconds: 30}  # optional: closed-loop driving score of every seed's run
//   table: speed                      # or loader: the DALI evaluation's runtime / CPU table (below)
//   variants:
//     - {name: Baseline, configs: [baseline.yaml], overrides: ["policy.transfuser.upsample_mode=bilinear"]}
//     - {name: Fast, overrides: [...], compare_to: Baseline}  # loader table: speed-up and CPU saving vs Baseline
// Plain values only: no torch in this header.

#include "core/engine/train/experiment.h"
#include "core/report/table.h"

#include <string>
#include <vector>

namespace pitwall::engine {

struct VariantSpec {
    std::string name;
    std::vector<std::string> configs;   // resolved paths
    std::vector<std::string> overrides;
    std::string compareTo; // another variant's name: the loader table's speed-up and CPU saving are against it
};

enum class VariantsTableKind {
    Speed,  // LEAD's: per-stage time, compute and full FPS, quality
    Loader, // the DALI evaluation's training table: runtime per iteration (ms), CPU usage (%), speed-up, CPU saving
};

struct VariantsFile {
    std::string name;
    std::vector<std::string> base;      // resolved paths
    std::vector<std::int64_t> seeds;
    std::string qualityMetric = "waypoint_l1";
    std::string qualityLabel = "Waypoint L1 (m)";
    bool qualityHigherIsBetter = false;
    std::vector<VariantSpec> variants;
    VariantsTableKind table = VariantsTableKind::Speed;
    // The `driving` section: when present, each seed's run is driven after training (drive/runeval.h) on the
    // same routes for every variant and seed (they depend only on `seed` and `routes`), and the table gets a
    // Driving Score column: with one seed, mean ± the standard error over routes; with several, mean ± sample
    // std over seeds and a "DS s.e." column (the mean of the seeds' standard errors over routes).
    struct Driving {
        bool enabled = false;
        int routes = 20; // as `pitwall eval driving`
        double routeSeconds = 30;
        std::int64_t seed = 0;
    } driving;
};

// Reads and checks a variants file, and resolves every variant's configuration (so a bad variant fails
// before anything trains). InputError with file:line:column otherwise.
VariantsFile readVariantsFile(const std::string& path);
ResolvedConfig resolveVariant(const Schema& schema, const VariantsFile& file, const VariantSpec& variant,
                              const std::vector<std::string>& extraOverrides);

struct VariantResult {
    std::string name;
    std::string study;
    std::vector<SeedResult> seeds;
    MeanStd pretrainSeconds, posttrainSeconds, totalSeconds, computeFps, fullFps, quality;
    // Filled by the caller when file.driving.enabled: the seeds' driving scores, and the route-level standard
    // error (drive::meanDrivingScoreStandardError over the seeds' reports; with one seed, its own).
    MeanStd drivingScore;
    double drivingScoreStandardError = 0;
    // Per route (in route order), the mean over the seeds of the route's driving score; empty when the seeds did not
    // drive the same routes (drive::routeDrivingScores). The table's paired differences come from these.
    std::vector<double> routeDrivingScores;
    // Wall time per training step of the last stage, and the CPU time of this process and its
    // children (rank processes, loader workers) over the variant's wall time, 100 = one core (filled by the caller).
    MeanStd msPerIteration;
    double cpuPercent = 0;
};

// file.table Loader: Variant | Runtime per iteration (ms) | CPU usage (%) | Speed-up | CPU saving (the last two
// against the variant's compare_to, "–" without one). Otherwise the LEAD-style table: Variant | Pretrain (s) | Post-train (s) | Total (s) | Compute FPS | Full FPS | quality
// [| Driving Score [| DS s.e.]] (DS s.e. with more than one seed).
Table variantsTable(const VariantsFile& file, const std::vector<VariantResult>& results);
// What the table's ± mean, for the line under it: "Waypoint L1 (m): mean ± sample std over 1 training
// seed(s); Driving Score: ± is the standard error over routes (1 seed, N routes); times and FPS are means."
std::string variantsLegend(const VariantsFile& file);

// With driving and two variants or more: every variant after the first against the first, route by route on the
// same routes: "Paired differences to <first> over the same N routes (± standard error of the per-route
// differences): <name> +8.0 ± 2.1, ...\n". Empty otherwise, or when a variant has no per-route scores (or another
// number of routes) than the first.
std::string variantsPairedDifferences(const VariantsFile& file, const std::vector<VariantResult>& results);
// For variant i > 0 with per-route scores like the first's: out["driving_score_diff"] and
// out["driving_score_diff_stderr"] (i minus the first, pairedDifference); nothing otherwise.
void addPairedDifference(nlohmann::json& out, const std::vector<VariantResult>& results, std::size_t i);
VariantResult summariseVariant(const VariantsFile& file, const std::string& name, const ExperimentResult& run);

} // namespace pitwall::engine
