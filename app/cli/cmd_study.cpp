// pitwall study create | ask | tell | should-prune | best | list
#include "app/cli/cli.h"

#include "core/config/configargs.h"
#include "core/hpo/asktell.h"
#include "core/hpo/study.h"
#include "core/hpo/studyargs.h"
#include "core/hpo/studyreport.h"
#include "core/hpo/tellrequest.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/printable.h"
#include "core/util/strings.h"

#include <iostream>

namespace pitwall::cli {

namespace {

int requireTrialNumber(const Args& args)
{
    const std::string text = args.required("trial", "the trial number that 'study ask' printed");
    const auto number = parseInteger(text);
    if (!number || *number < 0)
        throw InputError("--trial '" + text + "' is not a trial number (an integer >= 0)");
    return static_cast<int>(*number);
}

Study openStudy(Store& store, const Args& args)
{
    return Study::load(store, args.required("study", "the study's name"));
}

int createStudy(const Args& args)
{
    const std::vector<StudyDirection> directions = directionsFromArgs(args);
    StudyOptions options = studyOptionsFromArgs(args, directions.size());
    if (!directions.empty())
        options.direction = directions.front();
    if (directions.size() > 1)
        options.directions = directions;
    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    const Study study = Study::create(*store, args.required("study", "a name for the new study"), options);
    std::cout << studyCreatedText(study.record().name, options, store->location());
    return kExitOk;
}

int askTrial(const Args& args)
{
    const SearchSpace space =
        loadAskSpace(schemaWithWarnings(), args.required("space", "the search space YAML"), args.value("model"));
    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    Study study = openStudy(*store, args);
    std::cout << askedTrialJson(study.ask(space)).dump() << "\n";
    return kExitOk;
}

int tellTrial(const Args& args)
{
    const int number = requireTrialNumber(args);
    const TellWarning warn = [](const std::string& text) { std::cerr << "warning: " << text << "\n"; };
    const TellRequest request = parseTellRequest(args.values("intermediate"), args.values("value"),
                                                 args.values("constraint"), args.value("state"), warn);
    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    Study study = openStudy(*store, args);
    if (applyTellRequest(study, number, request, warn))
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
    if (study.objectiveCount() > 1) {
        const std::vector<TrialRecord> front = study.bestTrials();
        std::optional<HypervolumeReport> volume;
        if (const auto reference = args.value("reference"))
            volume = hypervolumeReport(*store, study.record(), *reference);
        const std::vector<TrialLabel> labels = trialLabelsFromJson(study.record().userAttrs.value(kLabelsAttr, Json()));
        if (args.flag("json"))
            std::cout << bestTrialsJson(front, volume, labels).dump() << "\n";
        else
            std::cout << bestTrialsText(study.record(), front, volume, labels);
        if (front.empty())
            std::cerr << "study '" << printable(study.record().name) << "' has no complete feasible trial yet\n";
        return front.empty() ? kExitFailure : kExitOk;
    }
    const auto best = study.bestTrial();
    if (!best) {
        std::cerr << "study '" << printable(study.record().name) << "' has no complete trial yet\n";
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
    cli.add({.path = "study create",
             .options = withOptions({dbOption(),
                                     studyOption(),
                                     {"direction", "DIR",
                                      "minimize (default) or maximize; once per objective for several (repeatable)",
                                      true}},
                                    studyOptionSpecs()),
             .run = createStudy});
    cli.add({.path = "study ask",
             .options = {dbOption(),
                         studyOption(),
                         {"space", "FILE", "search space (AutoSpeed's YAML format)"},
                         {"model", "NAME",
                          "model plugin whose keys bare names resolve in (every name must then be its key); "
                          "without it, a name of no config key is a free parameter"}},
             .run = askTrial});
    cli.add({.path = "study tell",
             .options = {dbOption(),
                         studyOption(),
                         trialOption(),
                         {"value", "V", "an objective value; completes the trial (once per objective, in order)",
                          true},
                         {"constraint", "C",
                          "a constraint value, feasible when <= 0 (repeatable; stored as Optuna stores them)", true},
                         {"state", "STATE", "complete, pruned or fail"},
                         {"intermediate", "STEP=VALUE", "an intermediate value (repeatable)", true}},
             .run = tellTrial});
    cli.add({.path = "study should-prune",
             .options = {dbOption(), studyOption(), trialOption(), {"step", "S", "judge at this reported step"}},
             .run = shouldPrune});
    cli.add({.path = "study best",
             .options = {dbOption(),
                         studyOption(),
                         jsonOption(),
                         {"reference", "R1,R2,...",
                          "several objectives: also the front's hypervolume and its history over trials, measured "
                          "from this point (one value per objective, in its units)"}},
             .run = bestTrial});
    cli.add({.path = "study list", .options = {dbOption(), jsonOption()}, .run = listStudies});
}

} // namespace pitwall::cli
