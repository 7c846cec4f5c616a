// pitwall study create | ask | tell | should-prune | best | list
#include "app/cli/cli.h"

#include "core/config/configargs.h"
#include "core/hpo/study.h"
#include "core/hpo/studyargs.h"
#include "core/hpo/studyreport.h"
#include "core/hpo/tellrequest.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <iostream>

namespace pitwall::cli {

namespace {

std::string requireValue(const Args& args, const std::string& name, const std::string& what)
{
    auto value = args.value(name);
    if (!value || value->empty())
        throw InputError("--" + name + " is required: " + what);
    return *value;
}

int requireTrialNumber(const Args& args)
{
    const std::string text = requireValue(args, "trial", "the trial number that 'study ask' printed");
    const auto number = parseInteger(text);
    if (!number || *number < 0)
        throw InputError("--trial '" + text + "' is not a trial number (an integer >= 0)");
    return static_cast<int>(*number);
}

Study openStudy(Store& store, const Args& args)
{
    return Study::load(store, requireValue(args, "study", "the study's name"));
}

int createStudy(const Args& args)
{
    StudyOptions options = studyOptionsFromArgs(args);
    const std::string direction = toLower(args.value("direction", "minimize"));
    if (direction == "minimize")
        options.direction = StudyDirection::Minimize;
    else if (direction == "maximize")
        options.direction = StudyDirection::Maximize;
    else
        throw InputError("--direction '" + direction + "' is not minimize or maximize");

    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    const Study study = Study::create(*store, requireValue(args, "study", "a name for the new study"), options);
    std::cout << studyCreatedText(study.record().name, options, store->location());
    return kExitOk;
}

int askTrial(const Args& args)
{
    const Schema schema = schemaWithWarnings();
    std::vector<std::string> sections;
    if (auto model = args.value("model")) {
        sections = ownerSections(schema, *model);
        if (sections.empty())
            throw InputError("--model '" + *model + "' declares no config keys (known: " + join(schema.owners(), ", ") +
                             ")");
    }
    const SearchSpace space = SearchSpace::load(requireValue(args, "space", "the search space YAML"), schema, sections);
    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    Study study = openStudy(*store, args);
    const AskedTrial asked = study.ask(space);
    std::cout << askedTrialJson(asked).dump() << "\n";
    return kExitOk;
}

int tellTrial(const Args& args)
{
    const int number = requireTrialNumber(args);
    const TellRequest request =
        parseTellRequest(args.values("intermediate"), args.value("value"), args.value("state"),
                         [](const std::string& text) { std::cerr << "warning: " << text << "\n"; });
    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    Study study = openStudy(*store, args);
    for (const auto& [step, v] : request.intermediate)
        if (!study.report(number, step, v))
            std::cerr << "warning: trial " << number << " already has a value at step " << step
                      << "; the new one is ignored (as Optuna does)\n";
    if (!request.state)
        return kExitOk;
    const TrialState ended = study.tell(number, *request.state, request.value);
    if (ended != *request.state)
        std::cerr << "warning: the value " << formatDouble(*request.value) << " is not acceptable; trial " << number
                  << " is FAIL (as Optuna does)\n";
    std::cout << toldTrialText(study.requireTrial(number));
    return kExitOk;
}

int shouldPrune(const Args& args)
{
    const int number = requireTrialNumber(args);
    std::optional<std::int64_t> step;
    if (args.value("step"))
        step = args.integer("step", 0, 0);
    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    Study study = openStudy(*store, args);
    std::cout << (study.shouldPrune(number, step) ? "true" : "false") << "\n";
    return kExitOk;
}

int bestTrial(const Args& args)
{
    const auto store = openStore(args.database(), OpenMode::ReadOnly);
    Study study = openStudy(*store, args);
    const auto best = study.bestTrial();
    if (!best) {
        std::cerr << "study '" << study.record().name << "' has no complete trial yet\n";
        return kExitFailure;
    }
    if (args.flag("json"))
        std::cout << bestTrialJson(*best).dump() << "\n";
    else
        std::cout << bestTrialText(study.record().name, *best);
    return kExitOk;
}

int listStudies(const Args& args)
{
    const auto store = openStore(args.database(), OpenMode::ReadOnly);
    const auto studies = store->listStudies();
    if (args.flag("json"))
        std::cout << nlohmann::json{{"studies", studyListJson(studies)}}.dump(2) << "\n";
    else if (studies.empty())
        std::cout << "no studies in " << store->location() << "\n";
    else
        std::cout << studyListText(studies);
    return kExitOk;
}

OptionSpec studyOption()
{
    return {"study", "NAME", "the study's name"};
}
OptionSpec trialOption()
{
    return {"trial", "N", "the trial's number (printed by 'study ask')"};
}

} // namespace

void addStudyCommands(Cli& cli)
{
    cli.add({"study create",
             "create a study with its sampler and pruner",
             "--study NAME [--direction minimize|maximize] [--sampler random|grid|tpe] [--seed S]\n"
             "       [--pruner none|median|sha|hyperband] [options] [--db FILE]",
             "The study lives in the results database in Optuna's layout; the sampler and pruner settings are\n"
             "stored with it, so every later 'study ask' and 'study should-prune' uses them. Defaults are\n"
             "Optuna's: minimize, TPE (10 random start-up trials, 24 candidates), median pruner (5 start-up\n"
             "trials). sha: min resource auto, reduction factor 4; hyperband: min resource 1, max resource auto,\n"
             "reduction factor 3. A study that Optuna created (without these settings) uses TPE and median.",
             {dbOption(),
              studyOption(),
              {"direction", "DIR", "minimize (default) or maximize"},
              {"sampler", "NAME", "random, grid or tpe (default)"},
              {"seed", "S", "sampler seed: the same seed and history give the same parameters"},
              {"startup-trials", "N", "TPE: random trials before TPE takes over (default 10)"},
              {"multivariate", "", "TPE: model the parameters jointly"},
              {"constant-liar", "", "TPE: count running trials as bad, so parallel workers spread out"},
              {"pruner", "NAME", "none, median (default), sha or hyperband"},
              {"warmup-steps", "N", "median: no pruning before this step (default 0)"},
              {"pruner-startup-trials", "N", "median: no pruning before this many complete trials (default 5)"},
              {"min-resource", "N", "sha, hyperband: steps before the first rung"},
              {"max-resource", "N", "hyperband: the longest a trial runs (default: auto)"},
              {"reduction-factor", "N", "sha (default 4), hyperband (default 3)"}},
             createStudy});
    cli.add(
        {"study ask",
         "start a trial: sample its parameters and print them as one JSON line",
         "--study NAME --space SPACE.yaml [--model NAME] [--db FILE]",
         "Prints {\"number\": N, \"params\": {...}, \"fixed\": {...}, \"overrides\": [...]} on one line. params are\n"
         "the sampled values by the space's names; overrides are \"config.key=value\" for every name, ready\n"
         "for 'pitwall train'. Bare names in the space (box, min_lr) resolve inside --model's keys\n"
         "(e.g. --model autospeed: autospeed.box). The trial is RUNNING until 'study tell'.",
         {dbOption(),
          studyOption(),
          {"space", "FILE", "search space (AutoSpeed's YAML format)"},
          {"model", "NAME", "model plugin whose keys bare names resolve in"}},
         askTrial});
    cli.add({"study tell",
             "report intermediate values of a trial and/or finish it",
             "--study NAME --trial N [--intermediate STEP=VALUE]... [--value V | --state fail|pruned] [--db FILE]",
             "--intermediate reports a value at a step (e.g. an epoch), repeatable; --value completes the trial;\n"
             "--state pruned or fail ends it without a value (a pruned trial keeps its last intermediate value).\n"
             "A finished trial cannot change.",
             {dbOption(),
              studyOption(),
              trialOption(),
              {"value", "V", "the objective value; completes the trial"},
              {"state", "STATE", "complete, pruned or fail"},
              {"intermediate", "STEP=VALUE", "an intermediate value (repeatable)", true}},
             tellTrial});
    cli.add({"study should-prune",
             "ask the study's pruner whether a running trial should stop (prints true/false)",
             "--study NAME --trial N [--step S] [--db FILE]",
             "Judges the trial at its last reported step, or at --step S (which must have a value). Pruning is\n"
             "the caller's move: stop the work and run 'study tell --state pruned'.",
             {dbOption(), studyOption(), trialOption(), {"step", "S", "judge at this reported step"}},
             shouldPrune});
    cli.add({"study best",
             "show the best complete trial of a study",
             "--study NAME [--json] [--db FILE]",
             "--json prints {\"number\": N, \"value\": V, \"params\": {...}} on one line; an infinite V is the\n"
             "string \"inf\" or \"-inf\" (JSON has no infinity; as Optuna's storage writes it). Exit status 1\n"
             "when no trial is complete yet.",
             {dbOption(), studyOption(), jsonOption()},
             bestTrial});
    cli.add({"study list",
             "list the studies with their sampler, pruner and trial counts",
             "[--json] [--db FILE]",
             "Lists studies written by Pitwall and by Optuna.",
             {dbOption(), jsonOption()},
             listStudies});
}

} // namespace pitwall::cli
