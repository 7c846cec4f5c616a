// pitwall hpo | pitwall worker: a hyperparameter search over logical devices, one worker process each.
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/config/configargs.h"
#include "core/engine/train/experiment.h"
#include "core/engine/train/finalcomparison.h"
#include "core/engine/train/trialrunner.h"
#include "core/jobrun/jobsession.h"
#include "core/pool/trialloop.h"
#include "core/pool/trialstate.h"
#include "core/search/searchargs.h"
#include "core/search/searchreport.h"
#include "core/search/searchsetup.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/slurm.h"
#include "core/util/timefmt.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

// ---- pitwall worker --------------------------------------------------------------------------------------

int workerCommand(const Args& args)
{
    if (args.flag("stop-with-parent")) {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() == 1)
            return kExitCancelled; // the pool died before the line above
    }
    installInterruptHandlers(InterruptPolicy::Worker);
    keepChildrenOutOfSlurmWorld(); // a trial's `pitwall train` under this srun task is not a rank of a step
    const SearchSetup setup = prepareSearch(workerStudySettings(args), schemaWithWarnings());
    WorkerRun run = workerRunFromArgs(args, setup.settings);
    const std::unique_ptr<TrialRunner> runner = engine::makeTrialRunner(setup, run.loop.storeLocation, run.device);
    WorkerLoopOptions& loop = run.loop;
    loop.space = &*setup.space;
    loop.cancel = &processCancelToken();
    loop.message = [&](const std::string& text) {
        std::cerr << formatTimestamp(nowSeconds()).substr(11, 8) << " [" << loop.device << "] " << text << std::endl;
    };
    const WorkerLoopResult result = runWorkerLoop(loop, *runner);
    loop.message("stopping: " + result.stopReason + " (" + std::to_string(result.trialsRun) +
                 " trial(s): " + std::to_string(result.complete) + " complete, " + std::to_string(result.pruned) +
                 " pruned, " + std::to_string(result.failed) + " failed)");
    return result.cancelled ? kExitCancelled : kExitOk;
}

// ---- pitwall hpo -----------------------------------------------------------------------------------------

SearchSpec searchSpec(const Args& args)
{
    SearchSpec spec = searchSpecFromArgs(args);
    spec.prepareData = [](const ResolvedConfig& config, const ProgressReporter& reporter) {
        return engine::ensureDataset(config, reporter);
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
        return kExitCancelled;
    }
    if (!r.error.empty()) {
        std::fprintf(stderr, "pitwall hpo: %s\n", r.error.c_str());
        return kExitFailure;
    }
    if (!r.best && r.front.empty() && r.counts.pruned == 0) {
        std::fprintf(stderr, "pitwall hpo: no trial completed (see the fail reasons above and the logs in %s)\n",
                     r.settings.logDir.c_str());
        return kExitFailure;
    }
    return kExitOk;
}

int hpoCheck(const Args& args)
{
    return checkReport(args, HpoJob::fields(), [&] {
        const SearchCheck check = checkSearch(searchSpec(args));
        if (args.flag("json")) {
            std::cout << searchCheckJson(check).dump(2) << "\n";
            return kExitOk;
        }
        for (const std::string& warning : check.warnings)
            std::cerr << "warning: " << warning << "\n";
        std::fputs(searchCheckText(check).c_str(), stdout);
        return kExitOk;
    });
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
        runChildJob(
            spec.storeLocation, "hpo-final", {{"study", result.studyName}, {"final_epochs", *spec.finalEpochs}}, [&] {
                comparison = engine::runFinalComparison(result.setup, *result.best,
                                                        {*spec.finalEpochs, spec.storeLocation, result.studyName},
                                                        cancel, line.reporter());
                return cancel.requested() ? kExitCancelled : kExitOk;
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

} // namespace

void addHpoCommands(Cli& cli)
{
    cli.add({.path = "hpo",
             .options = withOptions({dbOption(), jsonOption()}, HpoJob::optionSpecs()),
             .run = hpoCommand,
             .check = hpoCheck});
    cli.add({.path = "worker", .options = withOptions({dbOption()}, workerOptionSpecs()), .run = workerCommand});
}

} // namespace pitwall::cli
