#include "core/engine/drive/policyreport.h"

#include "core/report/table.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/printf.h"
#include "core/util/strings.h"

namespace pitwall::drive {

namespace {

std::string infractionSummary(const RouteResult& route)
{
    std::vector<std::string> parts;
    for (InfractionType type : kInfractionTypes)
        if (const int n = route.count(type))
            parts.push_back(std::string(infractionKey(type)) + (n > 1 ? " ×" + std::to_string(n) : ""));
    return parts.empty() ? "–" : join(parts, ", ");
}

} // namespace

std::string drivingReportText(const DrivingReport& report)
{
    Table table({"Route", "Seed", "Status", "Length (m)", "Time (s)", "km", "RC (%)", "Penalty", "DS", "Infractions"});
    for (const RouteResult& r : report.routes)
        table.addRow({std::to_string(r.index), std::to_string(r.worldSeed), routeStatusName(r.status),
                      formatFixed(r.routeLengthM, 0), formatFixed(r.timeS, 1), formatFixed(r.distanceKm, 3),
                      formatFixed(r.routeCompletion, 1), formatFixed(r.infractionPenalty, 3),
                      formatFixed(r.drivingScore, 1), infractionSummary(r)});
    std::string text = "\n" + table.toText() + "\n";
    text += stringPrintf("policy %s, %zu route(s), %.3f km driven\n", report.policy.c_str(), report.routes.size(),
                         report.distanceKm);
    text += stringPrintf("  driving score       %6.2f ± %.2f    (route std %.2f)\n", report.drivingScore.mean,
                         report.drivingScore.standardError, report.drivingScore.std);
    text += stringPrintf("  route completion    %6.2f ± %.2f %%  (route std %.2f %%)\n", report.routeCompletion.mean,
                         report.routeCompletion.standardError, report.routeCompletion.std);
    text += stringPrintf("  infraction penalty  %6.3f ± %.3f   (route std %.3f)\n", report.infractionPenalty.mean,
                         report.infractionPenalty.standardError, report.infractionPenalty.std);
    text += stringPrintf("  infractions per km  %6.2f total", report.infractionsPerKm);
    for (InfractionType type : kInfractionTypes)
        if (report.counts[static_cast<std::size_t>(type)] > 0)
            text += stringPrintf(", %s %.2f", infractionKey(type), report.perKm[static_cast<std::size_t>(type)]);
    text += stringPrintf("\n  (± is the standard error over routes (1 seed): sample std over the %zu routes / √%zu;\n"
                         "   DS = RC × penalty per route, CARLA leaderboard rules)\n",
                         report.routes.size(), report.routes.size());
    return text;
}

nlohmann::json policyEvalJson(const PolicyEvalSpec& spec, const PolicyEvalResult& result)
{
    nlohmann::json out;
    if (result.reports.size() == 1) {
        out = reportJson(result.reports.front());
    } else {
        out = {{"driving_score", result.drivingScore.mean},
               {"driving_score_std", result.drivingScore.std},
               {"driving_score_stderr", result.drivingScoreStandardError},
               {"route_completion", result.routeCompletion.mean},
               {"route_completion_std", result.routeCompletion.std},
               {"infraction_penalty", result.infractionPenalty.mean},
               {"infraction_penalty_std", result.infractionPenalty.std},
               {"runs", nlohmann::json::array()}};
        for (const DrivingReport& r : result.reports)
            out["runs"].push_back(reportJson(r));
    }
    out["options"] = {
        {"routes", spec.options.routes}, {"seed", spec.options.seed}, {"route_seconds", spec.options.routeSeconds}};
    return out;
}

std::string policyEvalAcrossRunsText(const PolicyEvalSpec& spec, const PolicyEvalResult& result)
{
    if (result.reports.size() <= 1)
        return "";
    return stringPrintf("\nover %zu runs (training seeds), mean ± sample std of each run's score:\n"
                        "  driving score %.2f ± %.2f (s.e. %.2f over %d routes), route completion %.2f ± %.2f %%, "
                        "infraction penalty %.3f ± %.3f\n"
                        "  (s.e.: the mean of the runs' standard errors over the same %d routes)\n",
                        result.reports.size(), result.drivingScore.mean, result.drivingScore.std,
                        result.drivingScoreStandardError, spec.options.routes, result.routeCompletion.mean,
                        result.routeCompletion.std, result.infractionPenalty.mean, result.infractionPenalty.std,
                        spec.options.routes);
}

PolicyEvalSpec policyEvalSpecFromJob(const DrivingEvalJob& job)
{
    if (job.policies.empty())
        throw InputError::forOption("policy", "give the policy with --policy RUN_ID[,RUN_ID...]|expert|idle");
    PolicyEvalSpec spec;
    spec.options.routes = job.routes.value_or(kDefaultEvalRoutes);
    spec.options.seed = static_cast<std::uint64_t>(job.seed.value_or(0));
    spec.options.routeSeconds = job.routeSeconds.value_or(30);
    spec.model.planIntervalS = 1.0 / job.planHz.value_or(10);
    spec.model.threads = job.threads.value_or(1);
    spec.options.routesTogether = job.routesTogether.value_or(spec.options.routesTogether);
    validateEvalOptions(spec.options);
    for (const std::string& policy : job.policies)
        spec.policies.push_back({policy, policy == "expert" || policy == "idle"
                                             ? std::nullopt
                                             : std::optional<std::int64_t>(*parseInteger(policy))});
    spec.replayDir = job.replay;
    spec.storeLocation = job.database.value_or(defaultDatabasePath());
    return spec;
}

PolicyEvalSpec policyEvalSpec(const cmdline::Args& args)
{
    return policyEvalSpecFromJob(DrivingEvalJob::fromArgs(args));
}

nlohmann::json policyCheckJson(const PolicyEvalSpec& spec, const std::vector<std::string>& policies)
{
    return nlohmann::json{{"ok", true}, {"policies", policies}, {"routes", spec.options.routes}};
}

std::string policyCheckText(const PolicyEvalSpec& spec, const std::vector<std::string>& policies)
{
    std::string text;
    for (const std::string& line : policies)
        text += "ok: " + line + "\n";
    return text + stringPrintf("ok: would drive %d route(s) per policy (seed %llu)\n", spec.options.routes,
                               static_cast<unsigned long long>(spec.options.seed));
}

std::string policyEvalText(const PolicyEvalSpec& spec, const PolicyEvalResult& result)
{
    std::string text;
    for (const DrivingReport& r : result.reports)
        text += drivingReportText(r);
    text += policyEvalAcrossRunsText(spec, result);
    if (spec.policies.front().runId)
        text += stringPrintf("recorded with the run(s) in %s (metrics of stage 'eval', benchmark suite 'driving')\n",
                             spec.storeLocation.c_str());
    return text;
}

} // namespace pitwall::drive
