#include "core/jobs/hpojob.h"

#include "core/config/configargs.h"
#include "core/hpo/studyargs.h"
#include "core/jobs/internal/jobwords.h"
#include "core/util/error.h"

#include <cctype>

namespace pitwall {

namespace {

using jobs::addFlag;
using jobs::addOption;

void checkResumeArgs(const cmdline::Args& args)
{
    // The search's own settings and every sampler and pruner setting (stored with the study).
    std::vector<std::string> fixed{"space",  "command", "config",   "direction", "objective",   "constraint",
                                   "study",  "epochs",  "model",    "log-dir",   "term-grace",  "trial-timeout",
                                   "labels"};
    for (const cmdline::OptionSpec& option : studyOptionSpecs())
        fixed.push_back(option.name);
    for (const std::string& option : fixed)
        if (args.flag(option)) // given at all, with or without a value
            throw InputError::forOption(option, "--resume continues with the study's stored settings; --" + option +
                                                    " cannot change them (--trials, --partition, --backend and "
                                                    "--heartbeat-* can)");
    if (!args.positionals.empty())
        throw InputError("--resume continues with the study's stored configs; give no config arguments");
}

std::optional<double> seconds(const cmdline::Args& args, const std::string& name)
{
    return args.value(name) ? std::optional<double>(args.positive(name, 0, "number of seconds")) : std::nullopt;
}

// The sampler and pruner options whose values differ from a new study's defaults (the kinds always).
void addStudyOptions(std::vector<std::string>& words, const StudyOptions& options)
{
    const SamplerSettings& sampler = options.sampler;
    const TpeOptions tpe;
    addOption(words, "sampler", std::string(samplerKindName(sampler.kind)));
    if (sampler.seed)
        addOption(words, "seed", std::to_string(*sampler.seed));
    if (sampler.tpe.startupTrials != tpe.startupTrials)
        addOption(words, "startup-trials", std::to_string(sampler.tpe.startupTrials));
    if (sampler.tpe.version != tpe.version)
        addOption(words, "tpe-version", std::string(tpeVersionName(sampler.tpe.version)));
    if (sampler.tpe.multivariate)
        addFlag(words, *sampler.tpe.multivariate ? "multivariate" : "independent", true);
    if (sampler.tpe.constantLiar)
        addFlag(words, *sampler.tpe.constantLiar ? "constant-liar" : "no-constant-liar", true);
    addFlag(words, "hypervolume-weights", sampler.tpe.hypervolumeWeights);
    if (sampler.tpe.gamma)
        addOption(words, "tpe-gamma", sampler.tpe.gamma);
    if (sampler.tpe.refineEvery)
        addOption(words, "tpe-refine-every", std::to_string(*sampler.tpe.refineEvery));
    const Nsga2Options nsga2;
    if (sampler.nsga2.populationSize != nsga2.populationSize)
        addOption(words, "population-size", std::to_string(sampler.nsga2.populationSize));
    if (sampler.nsga2.mutationProb)
        addOption(words, "mutation-prob", sampler.nsga2.mutationProb);
    if (sampler.nsga2.crossoverProb != nsga2.crossoverProb)
        addOption(words, "crossover-prob", std::optional<double>(sampler.nsga2.crossoverProb));
    if (sampler.nsga2.swappingProb != nsga2.swappingProb)
        addOption(words, "swapping-prob", std::optional<double>(sampler.nsga2.swappingProb));
    const PrunerSettings& pruner = options.pruner;
    const PrunerSettings defaults = PrunerSettings::defaults(pruner.kind);
    addOption(words, "pruner", std::string(prunerKindName(pruner.kind)));
    if (pruner.warmupSteps != defaults.warmupSteps)
        addOption(words, "warmup-steps", std::to_string(pruner.warmupSteps));
    if (pruner.startupTrials != defaults.startupTrials)
        addOption(words, "pruner-startup-trials", std::to_string(pruner.startupTrials));
    if (pruner.minResource && pruner.minResource != defaults.minResource)
        addOption(words, "min-resource", std::to_string(*pruner.minResource));
    if (pruner.maxResource && pruner.maxResource != defaults.maxResource)
        addOption(words, "max-resource", std::to_string(*pruner.maxResource));
    if (pruner.reductionFactor != defaults.reductionFactor)
        addOption(words, "reduction-factor", std::to_string(pruner.reductionFactor));
}

std::string lowerCase(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::vector<std::string> HpoJob::toArgs() const
{
    std::vector<std::string> words = jobs::commandWords(kCommand);
    words.insert(words.end(), configs.begin(), configs.end());
    words.insert(words.end(), overrides.begin(), overrides.end());
    addOption(words, "resume", resume);
    if (!space.empty())
        addOption(words, "space", space);
    addOption(words, "trials", trials);
    addOption(words, "epochs", epochs);
    if (!command.empty())
        addOption(words, "command", command);
    for (const std::string& objective : objectives)
        addOption(words, "objective", objective);
    for (const std::string& constraint : constraints)
        addOption(words, "constraint", constraint);
    if (!model.empty())
        addOption(words, "model", model);
    addOption(words, "term-grace", termGraceSeconds);
    addOption(words, "trial-timeout", trialTimeoutSeconds);
    addOption(words, "study", study);
    for (StudyDirection direction : directions)
        addOption(words, "direction", lowerCase(studyDirectionName(direction)));
    if (!resume)
        addStudyOptions(words, studyOptions);
    addOption(words, "log-dir", logDir);
    addOption(words, "final-epochs", finalEpochs);
    addOption(words, "best-params", bestParams);
    addOption(words, "labels", labels);
    addOption(words, "partition", partition);
    addOption(words, "backend", backend);
    addOption(words, "heartbeat-interval", heartbeatIntervalSeconds);
    addOption(words, "heartbeat-grace", heartbeatGraceSeconds);
    addOption(words, "launcher", launcher);
    addOption(words, "slurm-args", slurmArgs);
    addOption(words, "db", database);
    if (confirmResume)
        words.push_back("--yes");
    return words;
}

HpoJob HpoJob::fromArgs(const cmdline::Args& args)
{
    HpoJob job;
    job.resume = args.value("resume");
    if (job.resume)
        checkResumeArgs(args);
    std::vector<std::string> files;
    splitConfigArgs(args, files, job.overrides);
    job.configs = args.values("config");
    job.configs.insert(job.configs.end(), files.begin(), files.end());
    job.space = args.value("space", "");
    job.trials = jobs::countOption(args, "trials", 1);
    job.epochs = jobs::countOption(args, "epochs", 1);
    job.command = args.value("command", "");
    job.objectives = args.values("objective");
    job.constraints = args.values("constraint");
    job.model = args.value("model", "");
    job.termGraceSeconds = seconds(args, "term-grace");
    job.trialTimeoutSeconds = seconds(args, "trial-timeout");
    job.study = args.value("study");
    job.directions = directionsFromArgs(args);
    job.studyOptions = studyOptionsFromArgs(args, job.directions.size());
    job.logDir = args.value("log-dir");
    job.finalEpochs = jobs::countOption(args, "final-epochs", 1);
    job.bestParams = args.value("best-params");
    job.labels = args.value("labels");
    job.partition = args.value("partition");
    job.backend = args.value("backend");
    job.heartbeatIntervalSeconds = seconds(args, "heartbeat-interval");
    job.heartbeatGraceSeconds = seconds(args, "heartbeat-grace");
    job.launcher = args.value("launcher");
    if (job.launcher && *job.launcher != "local" && *job.launcher != "slurm")
        throw InputError::forOption("launcher", "--launcher is local (workers on this machine) or slurm (the "
                                                "workers as one Slurm job), not '" + *job.launcher + "'");
    job.slurmArgs = args.value("slurm-args");
    if (job.slurmArgs && job.launcher != "slurm")
        throw InputError::forOption("slurm-args", "--slurm-args are sbatch options for --launcher slurm");
    job.database = args.value("db");
    job.confirmResume = args.flag("yes");
    if (job.confirmResume && !job.resume)
        throw InputError::forOption("yes", "--yes confirms what a --resume runs; this search is not a --resume");
    return job;
}

HpoJob HpoJob::fromArgs(const std::vector<std::string>& words)
{
    return fromArgs(jobs::parseJobWords(kCommand, optionSpecs(), words));
}

std::vector<cmdline::OptionSpec> HpoJob::optionSpecs()
{
    const std::vector<cmdline::OptionSpec> data{
        {"config", "CFG", "config file (repeatable; files may also be given as arguments)", true},
        {"space", "FILE", "search space YAML (AutoSpeed's format)"},
        {"trials", "N", "trials the study should have (failed trials count, cancelled ones do not)"},
        {"epochs", "E", "epochs per enabled stage of every trial (built-in), or {epochs} for the command"},
        {"partition", "MODE",
         "SPX, DPX, QPX or CPX: logical devices, one worker each (default: the config's); auto: the mode a stored "
         "measurement of this config on this machine recommends, measured first when there is none (pitwall bench "
         "partitions --recommend)"},
        {"backend", "NAME", "auto, cpu, cuda or hip (default: the config's device.backend, else auto)"},
        {"launcher", "NAME",
         "local: one worker per logical device on this machine (default); slurm: the workers as one Slurm job "
         "(sbatch, one task per logical device; stopping the search cancels it)"},
        {"slurm-args", "TEXT",
         "more sbatch options for --launcher slurm, e.g. \"--partition=gpu --ntasks=32 --gpus-per-task=1\" "
         "(they override Pitwall's --ntasks)"}};
    const std::vector<cmdline::OptionSpec> search{
        {"study", "NAME", "study name (default: <experiment.name>-hpo, or hpo for a command)"},
        {"command", "TEXT", "external command template run per trial instead of the built-in trainer"},
        {"objective", "KEY",
         "built-in: validation metric to optimise, e.g. val/waypoint_l1 (default: hpo.objective); repeatable, in "
         "pairs with --direction for several objectives, then any metric a trial records (full_fps, a command's "
         "final-line field)",
         true},
        {"direction", "DIR",
         "minimize or maximize (default: the config's hpo.direction, else minimize); once per objective", true},
        {"constraint", "KEY<=X",
         "a trial is feasible only when its metric KEY is <= X (or >= X); repeatable; infeasible trials are never "
         "best",
         true},
        {"final-epochs", "N", "afterwards, retrain default and best for N epochs and compare on held-out data"},
        {"best-params", "FILE",
         "where the best values go (default: <experiment.output_dir>/<study folder>/best_params.yaml)"},
        {"model", "NAME", "model plugin whose keys bare space names mean (default: experiment.model)"},
        {"labels", "FILE",
         "names for points of the space (NAME: {param: value, ...}, e.g. LEAD's variants): a trial with every value "
         "of a name carries it in the Pareto view and study best"},
        {"resume", "STUDY", "continue a search that pitwall hpo started"},
        {"yes", "",
         "with --resume: run the study's stored command and write to its stored folders (shown first) even if you "
         "did not start or confirm them on this machine"},
        {"log-dir", "DIR",
         "worker and trial logs (default: <experiment.output_dir>/<study folder>/hpo; the folder is "
         "the study name with other characters than A-Z a-z 0-9 . _ - replaced, plus a hash)"},
        {"heartbeat-interval", "S",
         "seconds between a worker's heartbeats (default 5, or a quarter of --heartbeat-grace if that is less)"},
        {"heartbeat-grace", "S",
         "a running trial without a heartbeat this long fails: its worker is gone, or stopped (\"no progress\"), "
         "or a process of the trial is stopped (default 60)"},
        {"term-grace", "S",
         "a command trial that is stopped (pruned, Ctrl-C) has S seconds after SIGTERM before "
         "SIGKILL (default 10); a second Ctrl-C stops everything at once"},
        {"trial-timeout", "S",
         "a trial running longer than S seconds fails (\"exceeded --trial-timeout S s\") and its processes are "
         "stopped (default: no limit; kept with the study for --resume)"}};
    return cmdline::withOptions(cmdline::withOptions(data, studyOptionSpecs()), search); // then sampler, pruner
}

const JobFields& HpoJob::fields()
{
    static const JobFields fields = jobs::jobFieldsOf(optionSpecs(), "configs", "");
    return fields;
}

std::string HpoJob::defaultStudyName(const std::optional<std::string>& experimentName)
{
    return experimentName ? *experimentName + "-hpo" : "hpo";
}

} // namespace pitwall
