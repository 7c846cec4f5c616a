#pragma once
// Variant benchmarks (`pitwall bench variants FILE`): the same experiment under several configurations,
// each trained for N seeds, summarised as LEAD's speed table (per-stage time, throughput, quality mean ± std).
// The file itself (its format, reader and writer) is core/jobs/variantsfile.h. Plain values only: no torch in this
// header.

#include "core/engine/train/experiment.h"
#include "core/jobs/variantsfile.h"
#include "core/report/table.h"

#include <string>
#include <vector>

namespace pitwall::engine {

using pitwall::readVariantsFile;
using pitwall::VariantsFile;
using pitwall::VariantSpec;
using pitwall::VariantsTableKind;

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
// Whether the routes were enough to separate the variants: the paired differences' standard errors against
// kTargetPairedStandardError (2.5 points, so that a 5-point difference is two of them). At most that: "Every paired
// standard error is at most 2.5 points (largest 1.9): ...". Above: the largest, and about how many routes would
// bring it to the target (standard errors shrink as 1/sqrt(routes)). Empty when variantsPairedDifferences is.
constexpr double kTargetPairedStandardError = 2.5;
std::string variantsRoutesAdvice(const VariantsFile& file, const std::vector<VariantResult>& results);
// For variant i > 0 with per-route scores like the first's: out["driving_score_diff"] and
// out["driving_score_diff_stderr"] (i minus the first, pairedDifference); nothing otherwise.
void addPairedDifference(nlohmann::json& out, const std::vector<VariantResult>& results, std::size_t i);
VariantResult summariseVariant(const VariantsFile& file, const std::string& name, const ExperimentResult& run);

} // namespace pitwall::engine
