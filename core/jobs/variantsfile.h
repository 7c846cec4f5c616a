#pragma once
// The variant benchmark's file (`pitwall bench variants FILE`): the same experiment under several configurations,
// each trained for N seeds. Read by the benchmark (core/engine/train/variants.h) and written by the window's "Compare
// these"; one reader and one writer of the format:
//
//   name: lead-speed                  # study prefix in the results store
//   base: [bench_base.yaml]           # config files applied first to every variant (relative to this file)
//   seeds: [0, 1, 2]
//   quality: {metric: waypoint_l1, label: "Waypoint L1 (m)", better: lower}
//   driving: {routes: 200, route_seconds: 30}  # optional: closed-loop driving score of every seed's run
//   table: speed                      # or loader: the DALI evaluation's runtime / CPU table
//   variants:
//     - {name: Baseline, configs: [baseline.yaml], overrides: ["policy.transfuser.upsample_mode=bilinear"]}
//     - {name: Fast, overrides: [...], compare_to: Baseline}  # loader table: speed-up and CPU saving vs Baseline

#include <cstdint>
#include <string>
#include <vector>

namespace pitwall {

struct VariantSpec {
    std::string name;
    std::vector<std::string> configs; // resolved paths
    std::vector<std::string> overrides;
    std::string compareTo; // another variant's name: the loader table's speed-up and CPU saving are against it
};

enum class VariantsTableKind {
    Speed,  // LEAD's: per-stage time, compute and full FPS, quality
    Loader, // the DALI evaluation's training table: runtime per iteration (ms), CPU usage (%), speed-up, CPU saving
};

struct VariantsFile {
    std::string name;
    std::vector<std::string> base; // resolved paths
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
        // 200: the paired differences between variants get standard errors of about 0.4-2.1 points (the demo's),
        // so a 5-point difference shows (variantsRoutesAdvice says when it does not). `eval driving` takes 20.
        int routes = 200;
        double routeSeconds = 30;
        std::int64_t seed = 0;
    } driving;
};

// Reads and checks a variants file: known fields, their types and ranges, unique variant names, compare_to naming
// another variant; config paths made relative to the file's folder. InputError with file:line:column otherwise.
// The variants' configurations are not resolved here (engine::resolveVariants does that before anything trains).
VariantsFile readVariantsFile(const std::string& path);

// The file as YAML that readVariantsFile reads back as `file` (paths as they are in `file`; `comment`, when not
// empty, as "# comment" lines first). Fields at their defaults are left out.
std::string variantsFileYaml(const VariantsFile& file, const std::string& comment = {});

} // namespace pitwall
