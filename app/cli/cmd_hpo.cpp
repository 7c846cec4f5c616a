// pitwall hpo | pitwall worker: a hyperparameter search over logical devices, one worker process each.
#include "app/cli/cli.h"

#include "core/config/configargs.h"
#include "core/engine/train/trialrunner.h"
#include "core/sched/searchargs.h"
#include "core/sched/searchsetup.h"
#include "core/sched/trialloop.h"
#include "core/sched/trialstate.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <iostream>

namespace pitwall::cli {

namespace {

constexpr double kDefaultHeartbeatSeconds = 5.0;

// ---- pitwall worker --------------------------------------------------------------------------------------

int workerCommand(const Args& args)
{
    if (args.flag("stop-with-parent")) {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() == 1)
            return 130; // the pool died before the line above
    }
    installInterruptHandlers(InterruptPolicy::Worker);
    const std::string db = args.database();
    const std::string studyName = args.value("study", "");
    if (studyName.empty())
        throw InputError("--study is required: the study to work on");
    // The study's stored settings, overridden by what the command line gives.
    HpoSettings settings;
    {
        const auto store = openStore(db, OpenMode::ReadOnly);
        if (auto stored = readHpoSettings(store->requireStudy(studyName)))
            settings = *stored;
    }
    settings = workerSettingsFromArgs(args, settings);
    const SearchSetup setup = prepareSearch(settings, schemaWithWarnings());

    LogicalDevice device;
    device.id = args.value("device", "cpu:0.0");
    device.cpuSet = processCores();
    device.threads = static_cast<int>(args.integer("threads", static_cast<std::int64_t>(device.cpuSet.size()), 1));
    const std::unique_ptr<TrialRunner> runner = engine::makeTrialRunner(setup, db, device);
    WorkerLoopOptions loop;
    loop.storeLocation = db;
    loop.studyName = studyName;
    loop.space = &*setup.space;
    if (auto left = args.integer("trials-left", 1))
        loop.trialsLeft = static_cast<int>(*left);
    loop.workerId = args.value("worker-id", hostName() + ":" + std::to_string(::getpid()));
    loop.device = device.id;
    loop.workerLog = args.value("worker-log", "");
    loop.logDir = settings.logDir.empty() ? "hpo-logs" : settings.logDir;
    loop.heartbeatIntervalSeconds = args.positive("heartbeat-interval", kDefaultHeartbeatSeconds);
    loop.cancel = processCancelToken().flag();
    loop.message = [&](const std::string& text) {
        std::cerr << formatTimestamp(nowSeconds()).substr(11, 8) << " [" << device.id << "] " << text << std::endl;
    };
    const WorkerLoopResult result = runWorkerLoop(loop, *runner);
    loop.message("stopping: " + result.stopReason + " (" + std::to_string(result.trialsRun) +
                 " trial(s): " + std::to_string(result.complete) + " complete, " + std::to_string(result.pruned) +
                 " pruned, " + std::to_string(result.failed) + " failed)");
    return result.cancelled ? 130 : kExitOk;
}

} // namespace

// pitwall hpo itself: cmd_hpo_search.cpp.
int hpoCommand(const Args& args);
int hpoCheck(const Args& args);

namespace {

Command hpoCommandSpec()
{
    return {"hpo",
         "hyperparameter search: one worker per logical device, trials from a YAML search space",
         "[CONFIG...] [dotted.key=value...] --space SPACE.yaml --trials N [--epochs E] [--partition SPX|DPX|QPX|CPX]\n"
         "       [--sampler tpe|random|grid] [--pruner median|sha|hyperband|none] [--study NAME] [--command \"...\"]\n"
         "       [--objective KEY] [--direction minimize|maximize] [--final-epochs N] [--best-params FILE]\n"
         "       [--db FILE] [--json]\n"
         "       pitwall hpo --resume STUDY [--trials N] [--partition MODE] [--db FILE]",
         "Creates a study, then starts one 'pitwall worker' per logical device of the partition mode (CPU: the\n"
         "cores split into 1/2/4/8 sets), each bound to its cores and thread count. Workers ask the study for\n"
         "a trial, run it and tell the result until the study has N trials; the samplers and pruners read the\n"
         "shared results database, so Optuna can watch or continue the study.\n\n"
         "A trial is either the built-in trainer on the config with the trial's values as overrides (--epochs\n"
         "sets every enabled stage; the objective is a validation metric, the config's hpo.objective and\n"
         "hpo.direction by default (val/loss, minimize; AutoSpeed-lite: val/map50_95, maximize, with AutoSpeed's\n"
         "AP unless autospeed.ap_method=coco), reported after every epoch that has it, for pruning), or an\n"
         "external --command run without a shell, with {name} replaced by the trial's values ({trial},\n"
         "{trial_dir}, {device}, {threads}, {epochs}, {config} too);\n"
         "it prints JSON lines {\"step\": S, \"value\": V} and finally {\"objective\": V} on stdout.\n\n"
         "A trial whose worker crashes, is killed or runs out of memory fails with the reason (trial attr\n"
         "fail_reason) and the search goes on. Ctrl-C (or pitwall hpo being killed) stops the workers: running\n"
         "trials end as FAIL 'cancelled' and do not count; 'pitwall hpo --resume STUDY' continues any interrupted\n"
         "search (trials whose worker vanished are failed once their heartbeat is older than the grace period)\n"
         "and runs the remaining trials.\n\n"
         "AutoSpeed's protocol: built-in trials tune on the training split only (data.hpo_split: its first 80 %\n"
         "trains, the last 20 % validates as val_hpo; override data.hpo_validation_fraction or data.hpo_split=false),\n"
         "so the validation split stays held out. At the end the best trial's values go to best_params.yaml;\n"
         "with --final-epochs N the default config (with the space's fixed values) and the best configuration\n"
         "each train N epochs on the whole training split and are evaluated on the held-out split: a table of\n"
         "P / R / mAP50 / mAP50-95 (or the objective), runs in studies '<study>/final-default|optimised'.",
         {dbOption(),
          jsonOption(),
          {"config", "CFG", "config file (repeatable; files may also be given as arguments)", true},
          {"space", "FILE", "search space YAML (AutoSpeed's format)"},
          {"trials", "N", "trials the study should have (failed trials count, cancelled ones do not)"},
          {"epochs", "E", "epochs per enabled stage of every trial (built-in), or {epochs} for the command"},
          {"partition", "MODE", "SPX, DPX, QPX or CPX: logical devices, one worker each (default: the config's)"},
          {"backend", "NAME", "auto, cpu, cuda or hip (default: the config's device.backend, else auto)"},
          {"sampler", "NAME", "tpe (default), random or grid"},
          {"seed", "S", "sampler seed"},
          {"pruner", "NAME", "median (default), sha, hyperband or none"},
          {"pruner-startup-trials", "N", "median: no pruning before this many finished trials (default 5)"},
          {"warmup-steps", "N", "median: no pruning before this step (default 0)"},
          {"study", "NAME", "study name (default: <experiment.name>-hpo, or hpo for a command)"},
          {"command", "TEXT", "external command template run per trial instead of the built-in trainer"},
          {"objective", "KEY", "built-in: validation metric to optimise, e.g. val/waypoint_l1 (default: hpo.objective)"},
          {"direction", "DIR", "minimize or maximize (default: the config's hpo.direction, else minimize)"},
          {"final-epochs", "N", "afterwards, retrain default and best for N epochs and compare on held-out data"},
          {"best-params", "FILE", "where the best values go (default: <experiment.output_dir>/<study folder>/best_params.yaml)"},
          {"model", "NAME", "model plugin whose keys bare space names mean (default: experiment.model)"},
          {"resume", "STUDY", "continue a search that pitwall hpo started"},
          {"log-dir", "DIR", "worker and trial logs (default: <experiment.output_dir>/<study folder>/hpo; the folder is "
                              "the study name with other characters than A-Z a-z 0-9 . _ - replaced, plus a hash)"},
          {"heartbeat-interval", "S", "seconds between a worker's heartbeats (default 5)"},
          {"heartbeat-grace", "S", "a running trial silent this long, with its worker gone, fails (default 60)"},
          {"term-grace", "S", "a command trial that is stopped (pruned, Ctrl-C) has S seconds after SIGTERM before "
                              "SIGKILL (default 10); a second Ctrl-C stops everything at once"}},
         hpoCommand};
}

Command workerCommandSpec()
{
    return {"worker",
             "run trials of a study: ask, run, tell, until the study has its trials",
             "--study NAME [--db FILE] [CONFIG...|--config CFG...] [overrides] [--command \"...\"] [--space FILE]\n"
             "       [--trials-left N] [--epochs E] [--device ID --threads T]",
             "What 'pitwall hpo' starts once per logical device; also for joining a study from another machine\n"
             "or a cluster job (same database). Settings missing from the command line come from the study\n"
             "(stored by pitwall hpo). Stops when the study has its target, after --trials-left trials, or on\n"
             "SIGINT/SIGTERM (the running trial ends as FAIL 'cancelled'; exit status 130).",
             {dbOption(),
              {"study", "NAME", "the study"},
              {"config", "CFG", "config file (repeatable)", true},
              {"command", "TEXT", "external command template"},
              {"space", "FILE", "search space YAML"},
              {"trials-left", "N", "run at most N trials"},
              {"epochs", "E", "epochs per enabled stage"},
              {"objective", "KEY", "validation metric (built-in trainer)"},
              {"model", "NAME", "model plugin whose keys bare space names mean"},
              {"device", "ID", "logical device id (recorded with the trial)"},
              {"threads", "T", "intra-op threads"},
              {"log-dir", "DIR", "trial folders and logs"},
              {"heartbeat-interval", "S", "seconds between heartbeats (default 5)"},
              {"worker-id", "ID", "identity given by the pool"},
              {"worker-log", "FILE", "this worker's log, recorded with its trials"},
              {"stop-with-parent", "", "cancel and exit when the parent process dies"}},
             workerCommand};
}

} // namespace

void addHpoCommands(Cli& cli)
{
    Command hpo = hpoCommandSpec();
    hpo.check = hpoCheck;
    cli.add(std::move(hpo));
    cli.add(workerCommandSpec());
}

} // namespace pitwall::cli
