// pitwall hpo: parses a search's options, runs it (core/sched/search.h, then the engine's final comparison)
// and prints the outcome. The worker side ('pitwall worker') and the command registration are in cmd_hpo.cpp.
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/train/experiment.h"
#include "core/engine/train/finalcomparison.h"
#include "core/sched/jobsession.h"
#include "core/sched/searchargs.h"
#include "core/sched/searchreport.h"
#include "core/util/cancel.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

SearchSpec searchSpec(const Args& args)
{
    SearchSpec spec = searchSpecFromArgs(args);
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
        if (!json)
            std::fputs(finalComparisonText(*spec.finalEpochs, result.studyName, *finalResults, finalNotes).c_str(),
                       stdout);
    }
    const bool cancelled = cancel.requested();
    if (json)
        std::cout << searchResultJson(spec.storeLocation, result, finalResults, finalNotes, cancelled).dump(2) << "\n";
    return searchExitStatus(spec, result, cancelled);
}

} // namespace pitwall::cli
