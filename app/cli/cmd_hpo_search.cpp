// pitwall hpo: parses a search's options, runs it (core/sched/search.h, then the engine's final comparison)
// and prints the outcome. The worker side ('pitwall worker') and the command registration are in cmd_hpo.cpp.
#include "app/cli/cli.h"
#include "app/cli/configargs.h"
#include "app/cli/progress.h"

#include "core/engine/train/experiment.h"
#include "core/engine/train/finalcomparison.h"
#include "core/sched/jobsession.h"
#include "core/sched/search.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

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

Json trialJson(const TrialRecord& t)
{
    Json params = Json::object();
    for (const TrialParam& p : t.params)
        params[p.name] = p.value();
    Json row{{"number", t.number}, {"state", trialStateName(t.state)}, {"params", params}};
    row["value"] = t.values.empty() ? Json(nullptr) : Json(t.values.front());
    if (const auto reason = t.systemAttrs.find(kFailReasonAttr); reason != t.systemAttrs.end())
        row["fail_reason"] = *reason;
    row["interrupted"] = isInterrupted(t);
    row["intermediate_values"] = t.intermediateValues.size();
    return row;
}

void printSummary(const SearchSpec& spec, const SearchResult& r)
{
    const StudyCounts& c = r.counts;
    std::printf("\nstudy '%s' in %s: %d complete, %d pruned, %d failed (%d interrupted) in %.1f s on %zu worker(s)\n",
                r.studyName.c_str(), spec.storeLocation.c_str(), c.complete, c.pruned, c.failed, c.interrupted,
                r.seconds, r.workers);
    for (const TrialRecord& t : r.trials)
        if (t.state == TrialState::Fail && !isInterrupted(t) && t.systemAttrs.contains(kFailReasonAttr))
            std::printf("  trial %d failed: %s\n", t.number,
                        split(t.systemAttrs[kFailReasonAttr].get<std::string>(), '\n').front().c_str());
    if (r.best) {
        std::printf("best trial %d: %s %s\n", r.best->number, r.settings.objective.c_str(),
                    formatDouble(r.best->values.front()).c_str());
        for (const TrialParam& p : r.best->params)
            std::printf("  %s: %s\n", p.name.c_str(), overrideText(p.value()).c_str());
    }
    if (r.searchDone)
        std::printf("best parameters written to %s\n", r.bestParamsPath.c_str());
    std::fflush(stdout);
}

Json searchJson(const SearchSpec& spec, const SearchResult& r, const std::optional<Table>& finalResults,
                const std::vector<std::string>& finalNotes, bool cancelled)
{
    const StudyCounts& c = r.counts;
    Json out{{"study", r.studyName},
             {"db", spec.storeLocation},
             {"target", r.settings.targetTrials},
             {"workers", r.workers},
             {"partition", r.settings.partition},
             {"backend", r.settings.backend},
             {"seconds", r.seconds},
             {"cancelled", cancelled},
             {"error", r.error},
             {"warnings", r.warnings},
             {"objective", r.settings.objective},
             {"counts",
              {{"complete", c.complete},
               {"pruned", c.pruned},
               {"failed", c.failed},
               {"interrupted", c.interrupted},
               {"running", c.running},
               {"epochs", c.epochsDone}}},
             {"best", r.best ? trialJson(*r.best) : Json(nullptr)},
             {"best_params", r.searchDone ? Json(r.bestParamsPath) : Json(nullptr)},
             {"final", finalResults ? finalResults->toJson() : Json(nullptr)},
             {"final_notes", finalNotes},
             {"trials", Json::array()}};
    for (const TrialRecord& t : r.trials)
        out["trials"].push_back(trialJson(t));
    return out;
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
        std::cout << Json{{"ok", true},          {"study", check.studyName},   {"trials", check.targetTrials},
                          {"partition", check.partition}, {"backend", check.backend}, {"devices", check.devices},
                          {"warnings", check.warnings}}
                         .dump(2)
                  << "\n";
        return kExitOk;
    }
    for (const std::string& warning : check.warnings)
        std::cerr << "warning: " << warning << "\n";
    std::printf("ok: study '%s' would run %d trial(s) on %zu %s worker(s) (%s: %s)\n", check.studyName.c_str(),
                check.targetTrials, check.devices.size(), check.backend.c_str(), check.partition.c_str(),
                join(check.devices, ", ").c_str());
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
    if (!json)
        printSummary(spec, result);
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
        std::cout << searchJson(spec, result, finalResults, finalNotes, cancelled).dump(2) << "\n";
    return searchExitStatus(spec, result, cancelled);
}

} // namespace pitwall::cli
