// pitwall eval driving --policy RUN_ID[,RUN_ID...]|expert|idle
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/drive/runeval.h"
#include "core/report/table.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace pitwall::cli {

namespace {



long long integerOption(const Args& args, const std::string& name, long long fallback, long long min, long long max)
{
    const auto text = args.value(name);
    if (!text)
        return fallback;
    const auto value = parseInteger(*text);
    if (!value || *value < min || *value > max)
        throw InputError("--" + name + " '" + *text + "': give an integer in " + std::to_string(min) + ".." +
                         std::to_string(max));
    return *value;
}

double doubleOption(const Args& args, const std::string& name, double fallback, double min, double max)
{
    const auto text = args.value(name);
    if (!text)
        return fallback;
    const auto value = parseDouble(*text);
    if (!value || *value < min || *value > max)
        throw InputError("--" + name + " '" + *text + "': give a number in " + formatDouble(min) + ".." +
                         formatDouble(max));
    return *value;
}

std::string infractionSummary(const drive::RouteResult& route)
{
    std::vector<std::string> parts;
    for (drive::InfractionType type : drive::kInfractionTypes)
        if (const int n = route.count(type))
            parts.push_back(std::string(drive::infractionKey(type)) + (n > 1 ? " ×" + std::to_string(n) : ""));
    return parts.empty() ? "–" : join(parts, ", ");
}

void printReport(const drive::DrivingReport& report)
{
    Table table({"Route", "Seed", "Status", "Length (m)", "Time (s)", "km", "RC (%)", "Penalty", "DS", "Infractions"});
    for (const drive::RouteResult& r : report.routes)
        table.addRow({std::to_string(r.index), std::to_string(r.worldSeed), drive::routeStatusName(r.status),
                      formatFixed(r.routeLengthM, 0), formatFixed(r.timeS, 1), formatFixed(r.distanceKm, 3),
                      formatFixed(r.routeCompletion, 1), formatFixed(r.infractionPenalty, 3),
                      formatFixed(r.drivingScore, 1), infractionSummary(r)});
    std::cout << "\n" << table.toText() << "\n";
    std::printf("policy %s, %zu route(s), %.3f km driven\n", report.policy.c_str(), report.routes.size(),
                report.distanceKm);
    std::printf("  driving score       %6.2f ± %.2f\n", report.drivingScore.mean, report.drivingScore.std);
    std::printf("  route completion    %6.2f ± %.2f %%\n", report.routeCompletion.mean, report.routeCompletion.std);
    std::printf("  infraction penalty  %6.3f ± %.3f\n", report.infractionPenalty.mean, report.infractionPenalty.std);
    std::printf("  infractions per km  %6.2f total", report.infractionsPerKm);
    for (drive::InfractionType type : drive::kInfractionTypes)
        if (report.counts[static_cast<std::size_t>(type)] > 0)
            std::printf(", %s %.2f", drive::infractionKey(type), report.perKm[static_cast<std::size_t>(type)]);
    std::printf("\n  (mean ± sample std over routes; DS = RC × penalty per route, CARLA leaderboard rules)\n");
}

// One policy to drive: a built-in one, or a run's model (runId set).
struct PolicyChoice {
    std::string text;
    std::optional<std::int64_t> runId;
};

std::vector<PolicyChoice> parsePolicies(const std::string& text)
{
    if (text == "expert" || text == "idle")
        return {{text, std::nullopt}};
    std::vector<PolicyChoice> out;
    for (const std::string& part : split(text, ',')) {
        const auto id = parseInteger(trim(part));
        if (!id || *id <= 0)
            throw InputError("--policy '" + text +
                             "': give expert, idle, a run id or a comma-separated list of run ids (one per training "
                             "seed; see 'pitwall db export --run')");
        out.push_back({trim(part), *id});
    }
    return out;
}

// Drives every route with one policy, printing progress; an empty report when cancelled.
std::optional<drive::DrivingReport> drivePolicy(drive::DrivingPolicy& policy, const drive::DrivingEvalOptions& options)
{
    ProgressLine line;
    drive::DriveCallbacks callbacks;
    callbacks.cancel = processCancelToken().flag();
    callbacks.progress = [&](const drive::DriveProgress& p) {
        line.update(policy.name() + " route " + std::to_string(p.route + 1) + "/" + std::to_string(p.routes), p.timeS,
                    p.timeLimitS, "RC " + formatFixed(p.completion, 0) + " %");
    };
    std::vector<drive::RouteResult> routes;
    for (const drive::RouteSpec& route : drive::routeSpecs(options)) {
        if (processCancelToken().requested())
            return std::nullopt;
        routes.push_back(drive::driveRoute(policy, route, options, callbacks));
        const drive::RouteResult& r = routes.back();
        line.finish();
        line.message(policy.name() + " route " + std::to_string(r.index + 1) + "/" + std::to_string(options.routes) +
                     " (seed " + std::to_string(r.worldSeed) + "): " + drive::routeStatusName(r.status) + ", DS " +
                     formatFixed(r.drivingScore, 1) + " (RC " + formatFixed(r.routeCompletion, 1) + " %, penalty " +
                     formatFixed(r.infractionPenalty, 3) + ")" +
                     (r.replayFile.empty() ? "" : ", replay " + r.replayFile));
    }
    if (processCancelToken().requested())
        return std::nullopt;
    return drive::summarise(policy.name(), std::move(routes));
}

int evalDriving(const Args& args)
{
    const auto policyText = args.value("policy");
    if (!policyText)
        throw InputError("give the policy with --policy RUN_ID[,RUN_ID...]|expert|idle");
    drive::DrivingEvalOptions options;
    options.routes = static_cast<int>(integerOption(args, "routes", 5, 1, 10000));
    options.seed = static_cast<std::uint64_t>(integerOption(args, "seed", 0, 0, 1LL << 62));
    options.routeSeconds = doubleOption(args, "route-seconds", 30, 2, 3600);
    drive::ModelPolicyOptions model;
    model.planIntervalS = 1.0 / doubleOption(args, "plan-hz", 10, 1, 20);
    model.threads = static_cast<int>(integerOption(args, "threads", 1, 0, 1024));
    drive::validateEvalOptions(options);
    const std::vector<PolicyChoice> policies = parsePolicies(*policyText);
    const std::string replayDir = args.value("replay", "");

    installInterruptHandlers(InterruptPolicy::Command);
    std::vector<drive::DrivingReport> reports;
    for (const PolicyChoice& choice : policies) {
        drive::DrivingEvalOptions runOptions = options;
        runOptions.replayDir = replayDir.empty() || policies.size() == 1
                                   ? replayDir
                                   : (std::filesystem::path(replayDir) / ("run_" + choice.text)).string();
        std::unique_ptr<drive::DrivingPolicy> policy;
        if (choice.text == "expert") {
            policy = drive::makeExpertPolicy();
        } else if (choice.text == "idle") {
            policy = drive::makeIdlePolicy();
        } else {
            auto store = openStore(args.database(), OpenMode::ReadOnly);
            drive::RunModelInfo info;
            policy = drive::loadRunPolicy(*store, *choice.runId, model, &info);
            runOptions.replaySensors = info.sensors;
            std::fprintf(stderr, "run %s: model '%s' from %s\n", choice.text.c_str(), info.model.c_str(),
                         info.checkpoint.c_str());
        }
        const std::optional<drive::DrivingReport> report = drivePolicy(*policy, runOptions);
        if (!report) {
            std::fprintf(stderr, "cancelled: the unfinished evaluation is not recorded\n");
            return 130;
        }
        if (choice.runId)
            drive::recordRunEvaluation(*openStore(args.database()), *choice.runId, *report, runOptions);
        reports.push_back(*report);
    }

    // Across runs (training seeds): mean ± sample std of each run's global figures.
    std::vector<double> ds, rc, ip;
    for (const drive::DrivingReport& r : reports) {
        ds.push_back(r.drivingScore.mean);
        rc.push_back(r.routeCompletion.mean);
        ip.push_back(r.infractionPenalty.mean);
    }
    const MeanStd dsAcross = meanStd(ds), rcAcross = meanStd(rc), ipAcross = meanStd(ip);
    const nlohmann::json optionsJson{
        {"routes", options.routes}, {"seed", options.seed}, {"route_seconds", options.routeSeconds}};
    if (args.flag("json")) {
        nlohmann::json out;
        if (reports.size() == 1) {
            out = drive::reportJson(reports.front());
        } else {
            out = {{"driving_score", dsAcross.mean},      {"driving_score_std", dsAcross.std},
                   {"route_completion", rcAcross.mean},   {"route_completion_std", rcAcross.std},
                   {"infraction_penalty", ipAcross.mean}, {"infraction_penalty_std", ipAcross.std},
                   {"runs", nlohmann::json::array()}};
            for (const drive::DrivingReport& r : reports)
                out["runs"].push_back(drive::reportJson(r));
        }
        out["options"] = optionsJson;
        std::cout << out.dump(2) << "\n";
        return kExitOk;
    }
    for (const drive::DrivingReport& r : reports)
        printReport(r);
    if (reports.size() > 1)
        std::printf("\nover %zu runs (training seeds), mean ± sample std of each run's score:\n"
                    "  driving score %.2f ± %.2f, route completion %.2f ± %.2f %%, infraction penalty %.3f ± %.3f\n",
                    reports.size(), dsAcross.mean, dsAcross.std, rcAcross.mean, rcAcross.std, ipAcross.mean,
                    ipAcross.std);
    if (policies.front().runId)
        std::printf("recorded with the run(s) in %s (metrics of stage 'eval', benchmark suite 'driving')\n",
                    args.database().c_str());
    return kExitOk;
}

} // namespace

void addEvalDetectionCommand(Cli& cli); // cmd_eval_detection.cpp

void addEvalCommands(Cli& cli)
{
    cli.add({"eval driving",
             "drive a policy in closed loop on synthetic routes and score it like the CARLA leaderboard",
             "--policy RUN_ID[,RUN_ID...]|expert|idle [--routes N] [--seed S] [--route-seconds T] [--replay DIR] [--db "
             "FILE]\n"
             "       [--json]",
             "Each route is a new synthetic world (road, traffic with car following and lane changes, pedestrians,\n"
             "obstacles, traffic lights) as long as the data-generating expert drives in T seconds; the policy has\n"
             "2T seconds. A PID controller tracks the policy's waypoints and target speed. Per route: driving score\n"
             "= route completion × infraction penalty (pedestrian 0.5, vehicle 0.6, static object 0.65, red light\n"
             "0.7, each once per object or light); leaving the road or crossing the centre line, and standing still\n"
             "for 60 s, end the route. The global score is the mean over routes (± sample std).\n"
             "RUN_ID drives that run's model from its last checkpoint (results are recorded with the run); several\n"
             "ids (one run per training seed) add the mean ± sample std across runs, as LEAD reports. 'expert'\n"
             "is the data-generating expert through the same controller (should score near 100); 'idle' never moves.",
             {dbOption(),
              jsonOption(),
              {"policy", "RUN_ID[,RUN_ID...]|expert|idle", "what drives"},
              {"routes", "N", "routes to drive (default 5)"},
              {"seed", "S", "evaluation seed: the same seed gives the same routes and results (default 0)"},
              {"route-seconds", "T", "nominal route duration in simulated seconds (default 30)"},
              {"replay", "DIR", "write one PNG per route: snapshots with camera, top-down sketch and infractions"},
              {"plan-hz", "HZ", "how often a model plans, 1..20 (default 10)"},
              {"threads", "N", "torch threads for a model; scores depend on it (default 1, 0 = unchanged)"}},
             evalDriving});
    addEvalDetectionCommand(cli);
}

} // namespace pitwall::cli
