#pragma once
// A hyperparameter search as `pitwall hpo` runs it: create (or resume) a study, check everything first, then
// run one `pitwall worker` per logical device of a partition mode until the study has its trials, and write
// the best trial's values to best_params.yaml. The final comparison of default and best configuration is the
// engine's (core/engine/train/finalcomparison.h).

#include "core/hpo/study.h"
#include "core/pool/trialstate.h"
#include "core/pool/workerpool.h"
#include "core/search/searchsetup.h"
#include "core/util/cancel.h"
#include "core/util/progress.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct SearchSpec {
    std::string storeLocation;              // the results database, absolute
    Schema schema;                          // the config schema with the plugins' keys
    std::optional<std::string> resumeStudy; // continue this study with its stored settings (then `settings`,
                                            // `studyName`, `directions`, `study` and `logDir` are not used)
    HpoSettings settings;                   // a new search: configs, space, command, target, epochs, objective
    std::optional<int> targetTrials;        // resuming: a new target
    std::optional<std::string> studyName;   // default <experiment.name>-hpo, or "hpo" without a config
    std::vector<StudyDirection> directions; // one per objective; empty: the config's hpo.direction (built-in), else
                                            // minimize
    StudyOptions study;                     // sampler and pruner of a new study (its direction: see above)
    std::optional<std::string> partition;   // default: the stored one, else the config's device.partition_mode;
                                            // "auto": what a stored measurement recommends (core/search/partitionauto.h)
    std::optional<std::string> backend;     // default: the stored one, else the config's device.backend
    std::optional<std::string> logDir;      // default <experiment.output_dir>/<study>/hpo
    std::optional<std::string> labelsPath;  // a new study's named points (core/hpo/triallabels.h), kept with it
    std::optional<std::string> bestParamsPath; // default <experiment.output_dir>/<study>/best_params.yaml; resuming:
                                               // the path the study was started with
    bool confirmResume = false; // --yes: resume even when the stored command and folders are not ones this user
                                // started or confirmed on this machine (core/search/resumereview.h)
    std::optional<int> finalEpochs;         // a final comparison follows (checked here: built-in trainer only)
    double heartbeatIntervalSeconds = 5.0;
    double heartbeatGraceSeconds = 60.0;
    bool slurm = false;                 // --launcher slurm: the workers as one Slurm job (core/pool/slurmlauncher.h)
    std::vector<std::string> slurmArgs; // --slurm-args, split into words
    // The built-in trainer's dataset folder (engine::ensureDataset), prepared once before the workers start;
    // empty: no preparation.
    std::function<std::string(const ResolvedConfig&, const ProgressReporter&)> prepareData;
};

struct SearchResult {
    SearchSetup setup;       // what the trials ran on (for the final comparison)
    HpoSettings settings;    // as stored with the study
    std::string studyName;
    std::size_t workers = 0; // logical devices, one worker each
    double seconds = 0;      // the pool's wall time
    std::string error;       // the pool could not go on (empty: it ran to its end or was cancelled)
    std::vector<std::string> warnings; // every note also reported through ProgressReporter::warning
    std::vector<TrialRecord> trials;
    StudyCounts counts;
    std::optional<TrialRecord> best;
    std::vector<TrialRecord> front; // several objectives: the Pareto front (then `best` is empty, and no best
                                    // params are written)
    bool searchDone = false; // a best trial, not cancelled, no error: best params were written
    std::string bestParamsPath;
};

// Runs the search. `cancel` stops the workers (running trials end as FAIL 'cancelled'). InputError before
// anything is created when the spec cannot run (bad config, space, partition, an existing study name, ...).
SearchResult runSearch(const SearchSpec& spec, CancelToken& cancel, const ProgressReporter& reporter);

// What runSearch checks before it starts work, without writing anything (no results file, study, folder or
// job): configs, space, command placeholders, objective, sampler, partition and backend, the study's name.
// InputError for the first problem; otherwise what it would run and the warnings it would print.
struct SearchCheck {
    std::string studyName;
    int targetTrials = 0;
    std::string partition, backend;   // partition "auto" when it is yet to be measured
    std::string partitionReason;      // --partition auto: the measurement it rests on, or what would be measured
    std::vector<std::string> devices; // logical device ids, one worker each
    std::vector<std::string> warnings;
};
SearchCheck checkSearch(const SearchSpec& spec);

// The best trial's sampled parameters as YAML under the space's names (AutoSpeed's best_params.yaml), written
// to a temporary file and renamed. RuntimeError when it cannot be written.
void writeBestParams(const TrialRecord& best, const std::string& path);

// The text after the trial counter of a search's progress line ("running 2 · pending 1 · ... · best V (#N)").
std::string searchProgressDetail(const PoolStatus& status, std::optional<int> epochsPerTrial);

} // namespace pitwall
