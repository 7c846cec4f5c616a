// pitwall eval driving --policy RUN_ID[,RUN_ID...]|expert|idle
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/drive/policyreport.h"
#include "core/util/cancel.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

int evalDrivingCheck(const Args& args)
{
    const drive::PolicyEvalSpec spec = drive::policyEvalSpec(args);
    const std::vector<std::string> policies = drive::checkPolicies(spec);
    if (args.flag("json"))
        std::cout << drive::policyCheckJson(spec, policies).dump(2) << "\n";
    else
        std::fputs(drive::policyCheckText(spec, policies).c_str(), stdout);
    return kExitOk;
}

int evalDriving(const Args& args)
{
    const drive::PolicyEvalSpec spec = drive::policyEvalSpec(args);
    installInterruptHandlers(InterruptPolicy::Command);
    ProgressLine line;
    const drive::PolicyEvalResult result = drive::evaluatePolicies(spec, processCancelToken(), line.reporter());
    if (result.cancelled) {
        std::fprintf(stderr, "cancelled: the unfinished evaluation is not recorded\n");
        return 130;
    }
    if (args.flag("json"))
        std::cout << drive::policyEvalJson(spec, result).dump(2) << "\n";
    else
        std::fputs(drive::policyEvalText(spec, result).c_str(), stdout);
    return kExitOk;
}

} // namespace

void addEvalDetectionCommand(Cli& cli); // cmd_eval_detection.cpp

void addEvalCommands(Cli& cli)
{
    Command driving{"eval driving",
             "drive a policy in closed loop on synthetic routes and score it like the CARLA leaderboard",
             "--policy RUN_ID[,RUN_ID...]|expert|idle [--routes N] [--seed S] [--route-seconds T] [--replay DIR] [--db "
             "FILE]\n"
             "       [--json]",
             "Each route is a new synthetic world (road, traffic with car following and lane changes, pedestrians,\n"
             "obstacles, traffic lights) as long as the data-generating expert drives in T seconds; the policy has\n"
             "2T seconds. A PID controller tracks the policy's waypoints and target speed. Per route: driving score\n"
             "= route completion × infraction penalty (pedestrian 0.5, vehicle 0.6, static object 0.65, red light\n"
             "0.7, each once per object or light); leaving the road or crossing the centre line, and standing still\n"
             "for 60 s, end the route. The global score is the mean over routes ± its standard error (sample std over\n"
             "routes / √routes; JSON driving_score_stderr). The routes depend only on --seed and --routes, so every\n"
             "policy evaluated with the same seed drives the same routes.\n"
             "RUN_ID drives that run's model from its last checkpoint (results are recorded with the run); several\n"
             "ids (one run per training seed) add the mean ± sample std across runs, as LEAD reports, and the mean\n"
             "of the runs' standard errors over routes. The same seed, machine and --threads give the same score.\n"
             "'expert' is the data-generating expert through the same controller (should score near 100); 'idle'\n"
             "never moves.",
             {dbOption(),
              jsonOption(),
              {"policy", "RUN_ID[,RUN_ID...]|expert|idle", "what drives"},
              {"routes", "N", "routes to drive (default " + std::to_string(drive::kDefaultEvalRoutes) + ")"},
              {"seed", "S", "evaluation seed: the same seed gives the same routes and results (default 0)"},
              {"route-seconds", "T", "nominal route duration in simulated seconds (default 30)"},
              {"replay", "DIR", "write one PNG per route: snapshots with camera, top-down sketch and infractions"},
              {"plan-hz", "HZ", "how often a model plans, 1..20 (default 10)"},
              {"threads", "N", "torch threads for a model; scores depend on it (default 1, 0 = unchanged)"}},
             evalDriving};
    driving.check = evalDrivingCheck;
    cli.add(std::move(driving));
    addEvalDetectionCommand(cli);
}

} // namespace pitwall::cli
