#include "core/engine/drive/policyeval.h"

#include "core/store/pglocation.h"
#include "core/store/store.h"
#include "core/store/sqlitestore.h"
#include "core/util/error.h"

#include "core/drive/policy.h"
#include "core/store/store.h"
#include "core/util/strings.h"

#include <filesystem>

namespace pitwall::drive {

namespace {

// Drives every route with one policy; nullopt when cancelled.
std::optional<DrivingReport> drivePolicy(DrivingPolicy& policy, const DrivingEvalOptions& options,
                                         CancelToken& cancel, const ProgressReporter& reporter)
{
    DriveCallbacks callbacks;
    callbacks.cancel = &cancel;
    callbacks.progress = [&](const DriveProgress& p) {
        if (p.routesDone >= 0) // side by side: routes ended of all
            reporter.progress({policy.name() + " routes", static_cast<double>(p.routesDone),
                               static_cast<double>(p.routes),
                               "route " + std::to_string(p.route + 1) + " ended at RC " + formatFixed(p.completion, 0) +
                                   " %"});
        else
            reporter.progress({policy.name() + " route " + std::to_string(p.route + 1) + "/" +
                                   std::to_string(p.routes),
                               p.timeS, p.timeLimitS, "RC " + formatFixed(p.completion, 0) + " %"});
    };
    callbacks.routeDone = [&](const RouteResult& r) {
        reporter.phaseDone();
        reporter.message(policy.name() + " route " + std::to_string(r.index + 1) + "/" + std::to_string(options.routes) +
                         " (seed " + std::to_string(r.worldSeed) + "): " + routeStatusName(r.status) + ", DS " +
                         formatFixed(r.drivingScore, 1) + " (RC " + formatFixed(r.routeCompletion, 1) + " %, penalty " +
                         formatFixed(r.infractionPenalty, 3) + ")" +
                         (r.replayFile.empty() ? "" : ", replay " + r.replayFile));
    };
    std::vector<RouteResult> routes = driveRoutes(policy, options, callbacks);
    if (cancel.requested())
        return std::nullopt;
    return summarise(policy.name(), std::move(routes));
}

} // namespace

std::vector<std::string> checkPolicies(const PolicyEvalSpec& spec)
{
    validateEvalOptions(spec.options);
    std::vector<std::string> out;
    std::unique_ptr<Store> store;
    for (const PolicySource& source : spec.policies) {
        if (!source.runId) {
            out.push_back(source.text + ": built in");
            continue;
        }
        if (!store && !storeExists(spec.storeLocation))
            throw InputError(redactedLocation(spec.storeLocation) + ": no such results database, so no run " +
                             source.text + " (give --db FILE)");
        if (!store)
            store = openStore(spec.storeLocation, OpenMode::ReadOnly);
        RunModelInfo info;
        loadRunPolicy(*store, *source.runId, spec.model, &info);
        out.push_back("run " + source.text + ": model '" + info.model + "' from " + info.checkpoint);
    }
    return out;
}

PolicyEvalResult evaluatePolicies(const PolicyEvalSpec& spec, CancelToken& cancel, const ProgressReporter& reporter)
{
    validateEvalOptions(spec.options);
    PolicyEvalResult result;
    for (const PolicySource& source : spec.policies) {
        DrivingEvalOptions options = spec.options;
        options.replayDir = spec.replayDir.empty() || spec.policies.size() == 1
                                ? spec.replayDir
                                : (std::filesystem::path(spec.replayDir) / ("run_" + source.text)).string();
        std::unique_ptr<DrivingPolicy> policy;
        if (source.text == "expert") {
            policy = makeExpertPolicy();
        } else if (source.text == "idle") {
            policy = makeIdlePolicy();
        } else {
            auto store = openStore(spec.storeLocation, OpenMode::ReadOnly);
            RunModelInfo info;
            policy = loadRunPolicy(*store, *source.runId, spec.model, &info);
            options.replaySensors = info.sensors;
            reporter.message("run " + source.text + ": model '" + info.model + "' from " + info.checkpoint);
        }
        const std::optional<DrivingReport> report = drivePolicy(*policy, options, cancel, reporter);
        if (!report) {
            result.cancelled = true;
            return result;
        }
        if (source.runId)
            recordRunEvaluation(*openStore(spec.storeLocation), *source.runId, *report, options);
        result.reports.push_back(*report);
    }
    std::vector<double> ds, rc, ip;
    for (const DrivingReport& r : result.reports) {
        ds.push_back(r.drivingScore.mean);
        rc.push_back(r.routeCompletion.mean);
        ip.push_back(r.infractionPenalty.mean);
    }
    result.drivingScore = meanStd(ds);
    result.routeCompletion = meanStd(rc);
    result.infractionPenalty = meanStd(ip);
    result.drivingScoreStandardError = meanDrivingScoreStandardError(result.reports);
    return result;
}

} // namespace pitwall::drive
