// pitwall hpo: parses a search's options, runs it (core/sched/search.h, then the engine's final comparison)
// and prints the outcome. The worker side ('pitwall worker') and the command registration are in cmd_hpo.cpp.
#include "app/cli/cli.h"
#include "app/cli/configargs.h"
#include "app/cli/progress.h"

#include "core/engine/train/experiment.h"
#include "core/engine/train/finalcomparison.h"
#include "core/sched/jobsession.h"
#include "core/sched/search.h"
#include "core/sched/searchreport.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/paths.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

// --NAME as an int >= minimum (nullopt when absent).
std::optional<int> countOption(const Args& args, const std::string& name, int minimum)
{
    const auto value = args.integer(name, minimum);
    return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

// The settings of a new search from the command line.
HpoSettings newSettings(const Args& args)
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

SearchSpec searchSpec(const Args& args)
{
    SearchSpec spec;
    spec.storeLocation = absolutePath(args.database());
    spec.schema = schemaWithWarnings();
    spec.resumeStudy = args.value("resume");
    if (spec.resumeStudy) {
        for (const char* option : {"space", "command", "config", "sampler", "pruner", "direction", "objective", "study",
                                   "epochs", "model", "seed", "log-dir", "pruner-startup-trials", "warmup-steps",
                                   "term-grace"})
            if (args.value(option))
                throw InputError(std::string("--resume continues with the study's stored settings; --") + option +
                                 " cannot change them (--trials, --partition, --backend and --heartbeat-* can)");
        if (!args.positionals.empty())
            throw InputError("--resume continues with the study's stored configs; give no config arguments");
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
    spec.prepareData = [](const ResolvedConfig& config, const ProgressReporter& reporter) {
        return engine::ensureDataset(config, reporter.counter("synthesising frames"));
    };
    return spec;
}

int searchExitStatus(const SearchSpec& spec, const SearchResult& r, bool cancelled)
{
    if (cancelled) {
        std::fprintf(
            stderr,
            "cancelled: running trials ended as FAIL 'cancelled'; continue with: pitwall hpo --resume %s --db %s\n",
            r.studyName.c_str(), spec.storeLocation.c_str());
        return 130;
    }
    if (!r.error.empty()) {
        std::fprintf(stderr, "pitwall hpo: %s\n", r.error.c_str());
        return kExitFailure;
    }
    if (!r.best && r.counts.pruned == 0) {
        std::fprintf(stderr, "pitwall hpo: no trial completed (see the fail reasons above and the logs in %s)\n",
                     r.settings.logDir.c_str());
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace

int hpoCheck(const Args& args)
{
    const SearchCheck check = checkSearch(searchSpec(args));
    if (args.flag("json")) {
        std::cout << searchCheckJson(check).dump(2) << "\n";
        return kExitOk;
    }
    for (const std::string& warning : check.warnings)
        std::cerr << "warning: " << warning << "\n";
    std::fputs(searchCheckText(check).c_str(), stdout);
    return kExitOk;
}

int hpoCommand(const Args& args)
{
    const SearchSpec spec = searchSpec(args);
    const bool json = args.flag("json");
    ProgressLine line;
    installInterruptHandlers(InterruptPolicy::Command);
    CancelToken& cancel = processCancelToken();
    const SearchResult result = runSearch(spec, cancel, line.reporter());
    if (!json) {
        std::fputs(searchSummaryText(spec.storeLocation, result).c_str(), stdout);
        std::fflush(stdout);
    }
    std::optional<Table> finalResults;
    std::vector<std::string> finalNotes; // e.g. the AP method of the mAP columns
    if (result.searchDone && spec.finalEpochs) {
        // Its own job (hpo-final), inside the hpo job: the final studies and runs are linked to it.
        engine::FinalComparison comparison;
        constexpr int kCancelledExit = 130;
        runChildJob(spec.storeLocation, "hpo-final", {{"study", result.studyName}, {"final_epochs", *spec.finalEpochs}},
                    [&] {
                        comparison = engine::runFinalComparison(
                            result.setup, *result.best, {*spec.finalEpochs, spec.storeLocation, result.studyName},
                            cancel, line.reporter());
                        return cancel.requested() ? kCancelledExit : kExitOk;
                    });
        finalResults = engine::finalTable(comparison, objectiveMetric(result.settings.objective));
        finalNotes = engine::finalNotices(comparison);
        if (!json) {
            std::printf("\nheld-out validation after %d epoch(s) (studies '%s/final-default', '%s/final-optimised'):\n%s",
                        *spec.finalEpochs, result.studyName.c_str(), result.studyName.c_str(),
                        finalResults->toText().c_str());
            for (const std::string& note : finalNotes)
                std::printf("note: %s\n", note.c_str());
        }
    }
    const bool cancelled = cancel.requested();
    if (json)
        std::cout << searchResultJson(spec.storeLocation, result, finalResults, finalNotes, cancelled).dump(2) << "\n";
    return searchExitStatus(spec, result, cancelled);
}

} // namespace pitwall::cli
