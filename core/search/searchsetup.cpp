#include "core/search/searchsetup.h"

#include "core/pool/objectives.h"

#include "core/pool/commandline.h"
#include "core/pool/commandrunner.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace pitwall {

std::vector<std::string> epochOverrides(const ResolvedConfig& config, int epochs)
{
    std::vector<std::string> out;
    for (const char* key : {"training.stages.pretrain.epochs", "training.stages.posttrain.epochs"})
        if (config.contains(key) && config.getInt(key) > 0)
            out.push_back(std::string(key) + "=" + std::to_string(epochs));
    // A model that counts its own epochs (AutoSpeed-lite's autospeed.epochs) gets them too.
    if (config.contains("experiment.model")) {
        const std::string modelKey = config.getString("experiment.model") + ".epochs";
        if (config.contains(modelKey))
            out.push_back(modelKey + "=" + std::to_string(epochs));
    }
    return out;
}

ResolvedConfig SearchSetup::trialConfig(const std::vector<std::string>& trialOverrides) const
{
    std::vector<std::string> all = baseOverrides;
    all.insert(all.end(), trialOverrides.begin(), trialOverrides.end());
    return resolveConfig(schema, settings.configs, all);
}

SearchSetup prepareSearch(const HpoSettings& settings, const Schema& configSchema)
{
    SearchSetup setup;
    setup.settings = settings;
    if (settings.spacePath.empty())
        throw InputError::forOption("space", "give the search space (--space SPACE.yaml)");
    if (settings.targetTrials < 1)
        throw InputError::forOption("trials", "the number of trials must be at least 1 (--trials N)");
    if (settings.configs.empty() && settings.command.empty())
        throw InputError("give a config (--config CFG, for the built-in trainer) or an external --command");
    if (std::error_code ec; std::filesystem::is_directory(settings.spacePath, ec))
        throw InputError::forOption(
            "space", settings.spacePath + " is a directory; give the search space's YAML file (--space SPACE.yaml)");
    const std::string spaceText = readTextFile(settings.spacePath);
    const bool freeNames = settings.configs.empty();
    setup.schema = freeNames ? freeSpaceSchema(spaceText, settings.spacePath) : configSchema;
    setup.baseOverrides = settings.overrides;
    if (!freeNames && settings.command.empty()) // trials tune on train_hpo / val_hpo unless the overrides say not
        setup.baseOverrides.insert(setup.baseOverrides.begin(), "data.hpo_split=true");
    if (!freeNames) {
        ResolvedConfig base = resolveConfig(setup.schema, settings.configs, settings.overrides);
        if (settings.epochs) {
            const auto more = epochOverrides(base, *settings.epochs);
            if (more.empty() && setup.builtin())
                throw InputError::forOption(
                    "epochs", "--epochs: the config trains no stage (every training.stages.*.epochs is 0)");
            setup.baseOverrides.insert(setup.baseOverrides.end(), more.begin(), more.end());
            base = resolveConfig(setup.schema, settings.configs, setup.baseOverrides);
        }
        setup.base = std::move(base);
        const std::string model = settings.model.empty() ? setup.base->getString("experiment.model") : settings.model;
        setup.modelSections = ownerSections(setup.schema, model);
        if (setup.modelSections.empty() && !settings.model.empty())
            throw InputError::forOption("model", "--model '" + settings.model + "' declares no config keys (known: " +
                                                     join(setup.schema.owners(), ", ") + ")");
    }
    setup.space = SearchSpace::parse(spaceText, settings.spacePath, setup.schema, setup.modelSections);
    if (!setup.builtin()) {
        setup.commandWords = splitCommandLine(settings.command);
        if (!settings.epochs && commandPlaceholders(setup.commandWords).count("epochs"))
            throw InputError::forOption(
                "epochs", "the command uses {epochs}, but no --epochs E says how many: add --epochs E (the epochs "
                          "each trial trains), or leave {epochs} out of --command");
        checkCommandPlaceholders(setup.commandWords,
                                 knownPlaceholders(*setup.space, setup.base.has_value(), settings.epochs.has_value()));
        if (setup.commandWords.front().find('{') == std::string::npos)
            findExecutable(setup.commandWords.front()); // a missing program is found before any trial runs
    }
    return setup;
}

std::optional<long long> gridPoints(const SearchSpace& space)
{
    double points = 1.0;
    for (const SpaceParam& p : space.params()) {
        if (!p.searched())
            continue;
        const Distribution d = p.distribution();
        if (d.kind == Distribution::Kind::Categorical)
            points *= static_cast<double>(d.choices.size());
        else if (d.kind == Distribution::Kind::Int)
            points *= std::floor((d.high - d.low) / d.step.value_or(1.0) + 1e-9) + 1.0;
        else if (d.step && !d.log)
            points *= std::floor((d.high - d.low) / *d.step + 1e-9) + 1.0;
        else
            return std::nullopt;
    }
    return static_cast<long long>(points);
}

std::string objectiveMetric(const std::string& objective)
{
    return startsWith(objective, "val/") ? objective.substr(4) : objective;
}

namespace {

// The model a built-in search trains, and its validation metrics as val/NAME (empty: not known before training).
std::pair<std::string, std::vector<std::string>> validationMetrics(const SearchSetup& setup)
{
    if (!setup.builtin() || !setup.base)
        return {};
    std::string model = setup.settings.model.empty() ? setup.base->getString("experiment.model") : setup.settings.model;
    const std::vector<std::string> modelMetrics = setup.schema.metrics(model);
    if (modelMetrics.empty())
        return {};
    std::vector<std::string> known;
    for (const auto& names : {setup.schema.metrics("core"), modelMetrics})
        for (const std::string& name : names)
            known.push_back("val/" + name);
    return {std::move(model), std::move(known)};
}

} // namespace

void checkRecordedKey(const SearchSetup& setup, const std::string& key, const std::string& option)
{
    const auto [model, known] = validationMetrics(setup);
    if (known.empty())
        return;
    const std::string asMetric = "val/" + objectiveMetric(key);
    if (std::find(known.begin(), known.end(), asMetric) != known.end() || key == "full_fps" || key == "compute_fps")
        return;
    const bool drives = setup.schema.drives(model);
    if (isDrivingMetric(key)) {
        if (drives)
            return;
        throw InputError::forOption(option, "--" + option + " names '" + key + "', a closed-loop driving metric, but "
                                            "model '" + model + "' does not drive (it plans no waypoints)");
    }
    for (const char* perStage : {"full_fps/", "compute_fps/", "stage_seconds/"})
        if (startsWith(key, perStage) && key.size() > std::string(perStage).size())
            return;
    std::vector<std::string> names = known;
    for (const char* other : {"full_fps", "compute_fps", "full_fps/STAGE", "compute_fps/STAGE", "stage_seconds/STAGE"})
        names.push_back(other);
    if (drives)
        names.insert(names.end(), std::begin(kDrivingMetrics), std::end(kDrivingMetrics));
    std::string message = "--" + option + " names '" + key + "', which a trial of model '" + model + "' never records";
    auto near = nearestNames(key, names, 1);
    if (near.empty())
        near = nearestNames(asMetric, names, 1); // "los" for val/loss
    if (!near.empty())
        message += " (did you mean " + near.front() + "?)";
    message += "; it records " + join(names, ", ");
    throw InputError::forOption(option, message);
}

void checkObjective(const SearchSetup& setup, const std::string& objective, const std::string& source)
{
    const auto [model, known] = validationMetrics(setup);
    if (known.empty())
        return;
    const std::string wanted = "val/" + objectiveMetric(objective);
    if (std::find(known.begin(), known.end(), wanted) != known.end())
        return;
    std::string message = source + " '" + objective + "' is not a validation metric that model '" + model + "' records";
    const auto near = nearestNames(wanted, known, 1);
    if (!near.empty())
        message += " (did you mean " + near.front() + "?)";
    message += "; known objectives: " + join(known, ", ");
    if (source == "the study's objective")
        throw InputError(message);
    throw InputError::forOption("objective", message); // --objective, or the config's hpo.objective it stands for
}

} // namespace pitwall
