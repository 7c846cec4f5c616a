#pragma once
// `pitwall hpo`'s options as one typed spec: what the CLI parses (core/search/searchargs.h builds the search from it)
// and what the window's search page fills and reads back ("Edit spec"). No check beyond each value's own form here:
// a missing --space or --trials and everything else a search needs are checked where the search is set up.

#include "core/hpo/study.h"
#include "core/jobs/jobproblems.h"
#include "core/util/cmdline.h"

#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct HpoJob {
    static constexpr const char* kCommand = "hpo"; // the command's path after "pitwall"

    std::vector<std::string> configs;   // config files as given: --config's, then the positionals'
    std::vector<std::string> overrides; // dotted.key=value positionals
    std::optional<std::string> resume;  // --resume STUDY: then only trials, the final, partition, backend,
                                        // heartbeat and database fields may be set
    std::string space;                  // --space, "" when absent
    std::optional<int> trials;          // --trials, >= 1
    std::optional<int> epochs;          // --epochs, >= 1
    std::string command;                // --command TEXT, "" for the built-in trainer
    std::vector<std::string> objectives; // --objective, repeatable: several pair with --direction, one per objective
    std::vector<std::string> constraints; // --constraint "KEY<=X" / "KEY>=X", repeatable
    std::string model;
    std::optional<double> termGraceSeconds;    // > 0
    std::optional<double> trialTimeoutSeconds; // --trial-timeout, > 0; stored with the study
    std::optional<std::string> study;
    std::vector<StudyDirection> directions; // --direction, repeatable: one per objective; empty: the config's
    StudyOptions studyOptions; // sampler and pruner (its directions are `directions`): --sampler, --seed, ..., --pruner
    std::optional<std::string> logDir;
    std::optional<int> finalEpochs; // >= 1
    std::optional<std::string> bestParams;
    std::optional<std::string> labels;    // --labels FILE: named points of the space (core/hpo/triallabels.h)
    std::optional<std::string> partition; // as given (checked when the search is set up)
    std::optional<std::string> backend;
    std::optional<double> heartbeatIntervalSeconds, heartbeatGraceSeconds; // > 0
    std::optional<std::string> launcher;  // --launcher: "local" or "slurm" (checked here)
    std::optional<std::string> slurmArgs; // --slurm-args TEXT: sbatch options, only with --launcher slurm
    std::optional<std::string> database;                                   // --db
    bool confirmResume = false; // --yes: with --resume, run the stored command and folders even when they are not
                                // ones this user started or confirmed here (core/search/resumereview.h)

    // The command line after "pitwall": "hpo", the config files and overrides, then the options that are set (a
    // new search always names its sampler and pruner). fromArgs(toArgs()) gives this spec back.
    std::vector<std::string> toArgs() const;
    // From a parsed `pitwall hpo` (the CLI), or from its words after "pitwall" (the window: parsed with
    // commandOptionSpecs()). InputError naming the option for a malformed value, or for an option --resume cannot
    // change.
    static HpoJob fromArgs(const cmdline::Args& args);
    static HpoJob fromArgs(const std::vector<std::string>& words);

    // The study a search without --study writes to: "<experiment.name>-hpo", or "hpo" when no config names the
    // experiment. The one home of this rule (the CLI, the window's launch and its placeholder use it).
    static std::string defaultStudyName(const std::optional<std::string>& experimentName);

    // The options fromArgs reads besides --db and --json (`pitwall hpo --help` lists them in this order).
    static std::vector<cmdline::OptionSpec> optionSpecs();
    // The fields `pitwall hpo --check --json` reports problems at: configs, space, trials, epochs, sampler, pruner,
    // objective, direction, constraint, final_epochs, study, partition, backend, ... (one per option).
    static const JobFields& fields();
};

} // namespace pitwall
