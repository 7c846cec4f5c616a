#include "core/sched/searchargs.h"

#include "core/config/configargs.h"
#include "core/hpo/studyargs.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/process.h"

#include <unistd.h>

namespace pitwall {

namespace {

// --NAME as an int >= minimum (nullopt when absent).
std::optional<int> countOption(const cmdline::Args& args, const std::string& name, int minimum)
{
    const auto value = args.integer(name, minimum);
    return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

// The settings of a new search from the command line.
HpoSettings newSettings(const cmdline::Args& args)
{
    HpoSettings s;
    absoluteConfigArgs(args, s.configs, s.overrides);
    const auto space = args.value("space");
    if (!space)
        throw InputError(
            "--space SPACE.yaml is required: the search space (e.g. configs/transfuser/hpo/speed_space.yaml)");
    s.spacePath = absolutePath(*space);
    s.command = args.value("command", "");
    const auto trials = countOption(args, "trials", 1);
    if (!trials)
        throw InputError("--trials N is required: how many trials the study should have");
    s.targetTrials = *trials;
    s.epochs = countOption(args, "epochs", 1);
    s.objective = args.value("objective", s.command.empty() ? "" : "objective"); // built-in: hpo.objective later
    if (!s.command.empty() && args.value("objective"))
        throw InputError("--objective chooses a validation metric of the built-in trainer; a command reports its "
                         "objective itself ({\"objective\": V})");
    s.model = args.value("model", "");
    s.termGraceSeconds = args.positive("term-grace", s.termGraceSeconds, "number of seconds");
    return s;
}

void checkResumeArgs(const cmdline::Args& args)
{
    for (const char* option : {"space", "command", "config", "sampler", "pruner", "direction", "objective", "study",
                               "epochs", "model", "seed", "log-dir", "pruner-startup-trials", "warmup-steps",
                               "term-grace"})
        if (args.value(option))
            throw InputError(std::string("--resume continues with the study's stored settings; --") + option +
                             " cannot change them (--trials, --partition, --backend and --heartbeat-* can)");
    if (!args.positionals.empty())
        throw InputError("--resume continues with the study's stored configs; give no config arguments");
}

} // namespace

SearchSpec searchSpecFromArgs(const cmdline::Args& args)
{
    SearchSpec spec;
    spec.storeLocation = absolutePath(args.database());
    spec.schema = schemaWithWarnings();
    spec.resumeStudy = args.value("resume");
    if (spec.resumeStudy) {
        checkResumeArgs(args);
        spec.targetTrials = countOption(args, "trials", 1);
    } else {
        spec.settings = newSettings(args);
        spec.studyName = args.value("study");
        spec.direction = directionFromArgs(args);
        spec.study = studyOptionsFromArgs(args);
        spec.logDir = args.value("log-dir");
    }
    spec.finalEpochs = countOption(args, "final-epochs", 1);
    spec.bestParamsPath = args.value("best-params");
    spec.partition = args.value("partition");
    spec.backend = args.value("backend");
    spec.heartbeatGraceSeconds = args.positive("heartbeat-grace", 60.0, "number of seconds");
    spec.heartbeatIntervalSeconds = args.positive("heartbeat-interval", 5.0, "number of seconds");
    return spec;
}

HpoSettings workerSettingsFromArgs(const cmdline::Args& args, HpoSettings settings)
{
    HpoSettings given;
    absoluteConfigArgs(args, given.configs, given.overrides);
    if (!given.configs.empty() || args.value("command")) {
        settings.configs = given.configs;
        settings.overrides = given.overrides;
        settings.command = args.value("command", "");
    }
    if (auto space = args.value("space"))
        settings.spacePath = absolutePath(*space);
    if (auto epochs = args.integer("epochs", 0))
        settings.epochs = *epochs;
    settings.objective = args.value("objective", settings.objective);
    settings.model = args.value("model", settings.model);
    settings.logDir = args.value("log-dir", settings.logDir);
    if (settings.targetTrials < 1)
        settings.targetTrials = 1; // the loop reads the live target from the study; this only passes the checks
    return settings;
}

HpoSettings workerStudySettings(const cmdline::Args& args)
{
    const std::string studyName = args.required("study", "the study to work on");
    HpoSettings settings;
    {
        const auto store = openStore(args.database(), OpenMode::ReadOnly);
        if (auto stored = readHpoSettings(store->requireStudy(studyName)))
            settings = *stored;
    }
    return workerSettingsFromArgs(args, settings);
}

WorkerRun workerRunFromArgs(const cmdline::Args& args, const HpoSettings& settings)
{
    constexpr double kDefaultHeartbeatSeconds = 5.0;
    WorkerRun run;
    LogicalDevice& device = run.device;
    device.id = args.value("device", "cpu:0.0");
    device.cpuSet = processCores();
    device.threads = static_cast<int>(args.integer("threads", static_cast<std::int64_t>(device.cpuSet.size()), 1));
    WorkerLoopOptions& loop = run.loop;
    loop.storeLocation = args.database();
    loop.studyName = args.value("study", "");
    if (auto left = args.integer("trials-left", 1))
        loop.trialsLeft = static_cast<int>(*left);
    loop.workerId = args.value("worker-id", hostName() + ":" + std::to_string(::getpid()));
    loop.device = device.id;
    loop.workerLog = args.value("worker-log", "");
    loop.logDir = settings.logDir.empty() ? "hpo-logs" : settings.logDir;
    loop.heartbeatIntervalSeconds = args.positive("heartbeat-interval", kDefaultHeartbeatSeconds);
    return run;
}

std::vector<cmdline::OptionSpec> searchOptionSpecs()
{
    const std::vector<cmdline::OptionSpec> data{
        {"config", "CFG", "config file (repeatable; files may also be given as arguments)", true},
        {"space", "FILE", "search space YAML (AutoSpeed's format)"},
        {"trials", "N", "trials the study should have (failed trials count, cancelled ones do not)"},
        {"epochs", "E", "epochs per enabled stage of every trial (built-in), or {epochs} for the command"},
        {"partition", "MODE", "SPX, DPX, QPX or CPX: logical devices, one worker each (default: the config's)"},
        {"backend", "NAME", "auto, cpu, cuda or hip (default: the config's device.backend, else auto)"}};
    const std::vector<cmdline::OptionSpec> search{
        {"study", "NAME", "study name (default: <experiment.name>-hpo, or hpo for a command)"},
        {"command", "TEXT", "external command template run per trial instead of the built-in trainer"},
        {"objective", "KEY", "built-in: validation metric to optimise, e.g. val/waypoint_l1 (default: hpo.objective)"},
        {"direction", "DIR", "minimize or maximize (default: the config's hpo.direction, else minimize)"},
        {"final-epochs", "N", "afterwards, retrain default and best for N epochs and compare on held-out data"},
        {"best-params", "FILE",
         "where the best values go (default: <experiment.output_dir>/<study folder>/best_params.yaml)"},
        {"model", "NAME", "model plugin whose keys bare space names mean (default: experiment.model)"},
        {"resume", "STUDY", "continue a search that pitwall hpo started"},
        {"log-dir", "DIR",
         "worker and trial logs (default: <experiment.output_dir>/<study folder>/hpo; the folder is "
         "the study name with other characters than A-Z a-z 0-9 . _ - replaced, plus a hash)"},
        {"heartbeat-interval", "S", "seconds between a worker's heartbeats (default 5)"},
        {"heartbeat-grace", "S", "a running trial silent this long, with its worker gone, fails (default 60)"},
        {"term-grace", "S",
         "a command trial that is stopped (pruned, Ctrl-C) has S seconds after SIGTERM before "
         "SIGKILL (default 10); a second Ctrl-C stops everything at once"}};
    return cmdline::withOptions(cmdline::withOptions(data, studyOptionSpecs()), search); // then sampler, pruner
}

std::vector<cmdline::OptionSpec> workerOptionSpecs()
{
    return {{"study", "NAME", "the study"},
            {"config", "CFG", "config file (repeatable)", true},
            {"command", "TEXT", "external command template"},
            {"space", "FILE", "search space YAML"},
            {"trials-left", "N", "run at most N trials"},
            {"epochs", "E", "epochs per enabled stage"},
            {"objective", "KEY", "validation metric (built-in trainer)"},
            {"model", "NAME", "model plugin whose keys bare space names mean"},
            {"device", "ID", "logical device id (recorded with the trial)"},
            {"threads", "T", "intra-op threads"},
            {"log-dir", "DIR", "trial folders and logs"},
            {"heartbeat-interval", "S", "seconds between heartbeats (default 5)"},
            {"worker-id", "ID", "identity given by the pool"},
            {"worker-log", "FILE", "this worker's log, recorded with its trials"},
            {"stop-with-parent", "", "cancel and exit when the parent process dies"}};
}

} // namespace pitwall
