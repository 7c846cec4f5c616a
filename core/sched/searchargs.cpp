#include "core/sched/searchargs.h"

#include "core/config/configargs.h"
#include "core/hpo/studyargs.h"
#include "core/util/error.h"
#include "core/util/paths.h"

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
        if (const auto text = args.value("direction")) {
            spec.direction = parseStudyDirection(*text);
            if (!spec.direction)
                throw InputError("--direction '" + *text + "' is not minimize or maximize");
        }
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

} // namespace pitwall
