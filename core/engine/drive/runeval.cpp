#include "core/engine/drive/runeval.h"

#include "core/util/process.h"
#include "core/util/timefmt.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace pitwall::drive {

DrivingReport evaluateRun(const std::string& storeLocation, std::int64_t runId, DrivingEvalOptions options,
                          const ModelPolicyOptions& model, const DriveCallbacks& callbacks)
{
    validateEvalOptions(options);
    std::unique_ptr<DrivingPolicy> policy;
    {
        auto store = openStore(storeLocation, OpenMode::ReadOnly);
        RunModelInfo info;
        policy = loadRunPolicy(*store, runId, model, &info);
        options.replaySensors = info.sensors;
    }
    return evaluateDriving(*policy, options, callbacks);
}

std::vector<std::uint64_t> routeSeeds(const DrivingReport& report)
{
    std::vector<std::uint64_t> seeds;
    for (const RouteResult& r : report.routes)
        seeds.push_back(r.worldSeed);
    return seeds;
}

nlohmann::json drivingSummaryJson(const DrivingReport& report)
{
    nlohmann::json out = nlohmann::json::object();
    addScoreStats(out, "driving_score", report.drivingScore);
    addScoreStats(out, "route_completion", report.routeCompletion);
    addScoreStats(out, "infraction_penalty", report.infractionPenalty);
    out["infractions_per_km"] = report.infractionsPerKm;
    out["km_driven"] = report.distanceKm;
    out["routes"] = static_cast<double>(report.routes.size());
    for (InfractionType type : kInfractionTypes)
        out[std::string("infractions_per_km/") + infractionKey(type)] = report.perKm[static_cast<std::size_t>(type)];
    return out;
}

void recordRunEvaluation(Store& store, std::int64_t runId, const DrivingReport& report,
                         const DrivingEvalOptions& options)
{
    const double now = nowSeconds();
    const nlohmann::json summary = drivingSummaryJson(report);
    std::vector<MetricSample> samples;
    for (const auto& [key, value] : summary.items())
        samples.push_back(MetricSample{runId, "eval", 0, key, value.get<double>(), now});
    for (const RouteResult& r : report.routes) {
        samples.push_back(MetricSample{runId, "eval", r.index, "route/driving_score", r.drivingScore, now});
        samples.push_back(MetricSample{runId, "eval", r.index, "route/route_completion", r.routeCompletion, now});
        samples.push_back(MetricSample{runId, "eval", r.index, "route/infraction_penalty", r.infractionPenalty, now});
    }
    store.appendMetrics(samples);

    if (const std::optional<RunRecord> run = store.run(runId); run && run->trialId) {
        store.setTrialUserAttr(*run->trialId, "driving_score", report.drivingScore.mean);
        store.setTrialUserAttr(*run->trialId, "driving_score_stderr", report.drivingScore.standardError);
        store.setTrialUserAttr(*run->trialId, "route_completion", report.routeCompletion.mean);
        store.setTrialUserAttr(*run->trialId, "infraction_penalty", report.infractionPenalty.mean);
        store.setTrialUserAttr(*run->trialId, "infractions_per_km", report.infractionsPerKm);
    }

    BenchmarkRecord record;
    record.suite = "driving";
    record.name = "run " + std::to_string(runId);
    record.host = hostName();
    record.time = now;
    record.parameters = {{"run_id", runId},
                         {"routes", options.routes},
                         {"seed", options.seed},
                         {"route_seconds", options.routeSeconds},
                         {"time_limit_factor", options.timeLimitFactor},
                         {"traffic_density", options.world.trafficDensity},
                         {"pedestrian_density", options.world.pedestrianDensity},
                         {"route_seeds", routeSeeds(report)}};
    record.results = summary;
    store.addBenchmark(record);
    for (const RouteResult& r : report.routes) {
        if (r.replayFile.empty())
            continue;
        ArtifactRecord artifact;
        artifact.runId = runId;
        artifact.kind = "replay";
        artifact.path = std::filesystem::absolute(r.replayFile).string();
        char description[160];
        std::snprintf(description, sizeof description, "driving route %d (seed %llu): %s, DS %.1f", r.index,
                      static_cast<unsigned long long>(r.worldSeed), routeStatusName(r.status), r.drivingScore);
        artifact.description = description;
        artifact.time = now;
        store.addArtifact(artifact);
    }

    char text[200];
    std::snprintf(text, sizeof text,
                  "driving score %.1f ± %.1f (standard error) over %zu route(s), route std %.1f (RC %.1f %%, penalty "
                  "%.3f)",
                  report.drivingScore.mean, report.drivingScore.standardError, report.routes.size(),
                  report.drivingScore.std, report.routeCompletion.mean, report.infractionPenalty.mean);
    store.addEvent(runId, EventLevel::Info, text);
}

} // namespace pitwall::drive
