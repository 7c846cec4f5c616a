#include "core/search/searchargs.h"

#include "core/config/configargs.h"
#include "core/devices/toolrunner.h"
#include "core/pool/commandline.h"
#include "core/pool/objectives.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/process.h"
#include "core/util/slurm.h"
#include "core/util/strings.h"

#include <unistd.h>

#include <algorithm>

namespace pitwall {

namespace {

// The settings of a new search from its spec.
HpoSettings newSettings(const HpoJob& job)
{
    HpoSettings s;
    for (const std::string& file : job.configs)
        s.configs.push_back(absolutePath(file));
    s.overrides = job.overrides;
    if (job.space.empty())
        throw InputError::forOption(
            "space", "--space SPACE.yaml is required: the search space (e.g. configs/transfuser/hpo/speed_space.yaml)");
    s.spacePath = absolutePath(job.space);
    s.command = job.command;
    if (!job.trials)
        throw InputError::forOption("trials", "--trials N is required: how many trials the study should have");
    s.targetTrials = *job.trials;
    s.epochs = job.epochs;
    checkObjectiveSpecs(job.objectives, job.directions.size(), job.constraints, !s.command.empty());
    if (job.directions.size() > 1) {
        // Several objectives: each names a metric the trial records; a command may instead print them in order.
        s.objectives = job.objectives;
        if (s.objectives.empty())
            s.objectives.assign(job.directions.size(), "");
        s.objective = s.objectives.front().empty() ? "objectives[0]" : s.objectives.front();
    } else {
        s.objective = job.objectives.empty() ? (s.command.empty() ? "" : "objective") : job.objectives.front();
        if (!s.command.empty() && !job.objectives.empty())
            throw InputError::forOption("objective",
                                        "--objective chooses a validation metric of the built-in trainer; a command "
                                        "reports its objective itself ({\"objective\": V})");
    }
    s.constraints = job.constraints;
    s.model = job.model;
    s.termGraceSeconds = job.termGraceSeconds.value_or(s.termGraceSeconds);
    s.trialTimeoutSeconds = job.trialTimeoutSeconds;
    return s;
}

} // namespace

SearchSpec searchSpecFromJob(const HpoJob& job)
{
    SearchSpec spec;
    spec.storeLocation = absoluteLocation(job.database.value_or(defaultDatabasePath()));
    spec.schema = schemaWithWarnings();
    spec.resumeStudy = job.resume;
    spec.confirmResume = job.confirmResume;
    if (spec.resumeStudy) {
        spec.targetTrials = job.trials;
    } else {
        spec.settings = newSettings(job);
        spec.studyName = job.study;
        spec.directions = job.directions;
        spec.study = job.studyOptions;
        spec.logDir = job.logDir;
        spec.labelsPath = job.labels;
    }
    spec.finalEpochs = job.finalEpochs;
    spec.bestParamsPath = job.bestParams;
    spec.partition = job.partition;
    spec.backend = job.backend;
    spec.heartbeatGraceSeconds = job.heartbeatGraceSeconds.value_or(60.0);
    spec.slurm = job.launcher == "slurm";
    if (spec.slurm && !findOnPath("sbatch"))
        throw InputError::forOption("launcher", "--launcher slurm: sbatch is not on PATH (install Slurm's client "
                                                "tools, or start the search where they are)");
    if (job.slurmArgs) {
        try {
            spec.slurmArgs = splitCommandLine(*job.slurmArgs);
        } catch (const InputError& e) {
            throw InputError::forOption("slurm-args", std::string("--slurm-args: ") + e.what());
        }
    }
    // The pool fails a trial whose live worker has not beaten for the grace period (workerpool.h's watchdog): a
    // worker beats at least four times in it unless --heartbeat-interval says otherwise, and twice at the least.
    spec.heartbeatIntervalSeconds =
        job.heartbeatIntervalSeconds.value_or(std::min(5.0, spec.heartbeatGraceSeconds / 4));
    if (spec.heartbeatGraceSeconds < 2 * spec.heartbeatIntervalSeconds)
        throw InputError::forOption("heartbeat-grace",
                                    "--heartbeat-grace (" + formatDouble(spec.heartbeatGraceSeconds) +
                                        " s) must be at least twice --heartbeat-interval (" +
                                        formatDouble(spec.heartbeatIntervalSeconds) +
                                        " s): a trial whose worker misses its beats that long fails");
    return spec;
}

SearchSpec searchSpecFromArgs(const cmdline::Args& args)
{
    return searchSpecFromJob(HpoJob::fromArgs(args));
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
    constexpr double kDefaultHeartbeatGraceSeconds = 60.0;
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
    loop.workerId = args.value("worker-id", hostName() + ":" + std::to_string(::getpid()) + slurmTaskLabel());
    loop.device = device.id;
    loop.workerLog = args.value("worker-log", "");
    loop.logDir = settings.logDir.empty() ? "hpo-logs" : settings.logDir;
    loop.heartbeatIntervalSeconds = args.positive("heartbeat-interval", kDefaultHeartbeatSeconds);
    // A worker started by hand or by Slurm looks after its study's vanished trials itself; one started by the pool
    // (it gives --worker-id) leaves that to the pool, as before.
    if (!args.value("worker-id"))
        loop.staleGraceSeconds = args.positive("heartbeat-grace", kDefaultHeartbeatGraceSeconds);
    return run;
}

std::vector<cmdline::OptionSpec> searchOptionSpecs()
{
    return HpoJob::optionSpecs();
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
            {"heartbeat-grace", "S",
             "fail another worker's running trial after S seconds without its heartbeat (default 60)"},
            {"worker-id", "ID", "identity given by the pool"},
            {"worker-log", "FILE", "this worker's log, recorded with its trials"},
            {"stop-with-parent", "", "cancel and exit when the parent process dies"}};
}

} // namespace pitwall
