#include "core/hpo/studyargs.h"

#include "core/util/error.h"

namespace pitwall {

StudyOptions studyOptionsFromArgs(const cmdline::Args& args, std::size_t objectives)
{
    StudyOptions options;
    const std::string samplerName = args.value("sampler", objectives > 1 ? "nsga2" : "tpe");
    const auto sampler = parseSamplerKind(samplerName);
    if (!sampler)
        throw InputError::forOption("sampler",
                                    "--sampler '" + samplerName + "' is not one of random, grid, tpe, nsga2");
    options.sampler.kind = *sampler;
    if (auto seed = args.integer("seed", 0))
        options.sampler.seed = static_cast<std::uint64_t>(*seed);
    options.sampler.tpe.startupTrials =
        static_cast<int>(args.integer("startup-trials", options.sampler.tpe.startupTrials, 0));
    TpeOptions& tpe = options.sampler.tpe;
    if (const auto version = args.value("tpe-version")) {
        const auto parsed = parseTpeVersion(*version);
        if (!parsed)
            throw InputError::forOption("tpe-version", "--tpe-version '" + *version +
                                                           "' is not 5 (the newest Optuna's TPE) or 3.1 (Optuna 3.1's)");
        tpe.version = *parsed;
    }
    // A switch and its opposite: on, off, or the TPE version's default.
    const auto onOff = [&](const std::string& on, const std::string& off) -> std::optional<bool> {
        if (args.flag(on) && args.flag(off))
            throw InputError::forOption(off, "--" + on + " and --" + off + " contradict each other: give one");
        if (args.flag(on))
            return true;
        if (args.flag(off))
            return false;
        return std::nullopt;
    };
    tpe.multivariate = onOff("multivariate", "independent");
    tpe.constantLiar = onOff("constant-liar", "no-constant-liar");
    tpe.hypervolumeWeights = args.flag("hypervolume-weights");
    if (args.value("tpe-gamma"))
        tpe.gamma = args.numberIn("tpe-gamma", 0.0, 0.01, 1.0);
    if (args.value("tpe-refine-every")) {
        tpe.refineEvery = static_cast<int>(args.integer("tpe-refine-every", 0, 0));
        if (*tpe.refineEvery == 1)
            throw InputError::forOption("tpe-refine-every", "--tpe-refine-every 1 would leave no trial to TPE: give "
                                                            "0 (no refinement, Optuna's TPE) or 2 and more");
    }
    Nsga2Options& nsga2 = options.sampler.nsga2;
    nsga2.populationSize = static_cast<int>(args.integer("population-size", nsga2.populationSize, 2));
    if (args.value("mutation-prob"))
        nsga2.mutationProb = args.numberIn("mutation-prob", 0.0, 0.0, 1.0);
    nsga2.crossoverProb = args.numberIn("crossover-prob", nsga2.crossoverProb, 0.0, 1.0);
    nsga2.swappingProb = args.numberIn("swapping-prob", nsga2.swappingProb, 0.0, 1.0);

    const std::string prunerName = args.value("pruner", "median");
    const auto pruner = parsePrunerKind(prunerName);
    if (!pruner)
        throw InputError::forOption("pruner",
                                    "--pruner '" + prunerName + "' is not one of none, median, sha, hyperband");
    options.pruner = PrunerSettings::defaults(*pruner);
    options.pruner.warmupSteps = args.integer("warmup-steps", options.pruner.warmupSteps, 0);
    options.pruner.startupTrials =
        static_cast<int>(args.integer("pruner-startup-trials", options.pruner.startupTrials, 0));
    if (args.value("min-resource"))
        options.pruner.minResource = args.integer("min-resource", 1, 1);
    if (args.value("max-resource"))
        options.pruner.maxResource = args.integer("max-resource", 1, 1);
    options.pruner.reductionFactor =
        static_cast<int>(args.integer("reduction-factor", options.pruner.reductionFactor, 2));
    options.pruner = PrunerSettings::fromJson(options.pruner.toJson()); // range checks
    return options;
}

std::optional<StudyDirection> directionFromArgs(const cmdline::Args& args)
{
    const auto text = args.value("direction");
    if (!text)
        return std::nullopt;
    const auto direction = parseStudyDirection(*text);
    if (!direction)
        throw InputError::forOption("direction", "--direction '" + *text + "' is not minimize or maximize");
    return direction;
}

std::vector<StudyDirection> directionsFromArgs(const cmdline::Args& args)
{
    std::vector<StudyDirection> directions;
    for (const std::string& text : args.values("direction")) {
        const auto direction = parseStudyDirection(text);
        if (!direction)
            throw InputError::forOption("direction", "--direction '" + text + "' is not minimize or maximize");
        directions.push_back(*direction);
    }
    return directions;
}

std::vector<cmdline::OptionSpec> studyOptionSpecs()
{
    return {{"sampler", "NAME", "random, grid, tpe (default for one objective) or nsga2 (default for several)"},
            {"seed", "S", "sampler seed: the same seed and history give the same parameters"},
            {"startup-trials", "N", "TPE: random trials before TPE takes over (default 10)"},
            {"tpe-version", "V", "TPE as the newest Optuna's (5, the default) or Optuna 3.1's (3.1) does it"},
            {"multivariate", "", "TPE: model the parameters jointly (default with --tpe-version 5 and one objective)"},
            {"independent", "", "TPE: model each parameter on its own (default for several objectives, and in 3.1)"},
            {"constant-liar", "", "TPE: count running trials as bad, so parallel workers spread out (default in 5)"},
            {"no-constant-liar", "", "TPE: ignore running trials (default in 3.1)"},
            {"hypervolume-weights", "", "TPE, several objectives: weigh good trials by hypervolume contribution"},
            {"tpe-gamma", "F",
             "TPE, one objective: share of trials (max 25) forming l(x) (default 0.1, as Optuna)"},
            {"tpe-refine-every", "N",
             "TPE, one objective: after 40 trials every Nth refines the best one (default 4; 0: off, as Optuna)"},
            {"population-size", "N", "NSGA-II: trials per generation (default 50)"},
            {"mutation-prob", "P", "NSGA-II: chance to resample an inherited parameter (default 1/parameters)"},
            {"crossover-prob", "P", "NSGA-II: chance a child mixes two parents, else copies one (default 0.9)"},
            {"swapping-prob", "P", "NSGA-II: chance a parameter comes from the second parent (default 0.5)"},
            {"pruner", "NAME", "none, median (default), sha or hyperband"},
            {"warmup-steps", "N", "median: no pruning before this step (default 0)"},
            {"pruner-startup-trials", "N", "median: no pruning before this many complete trials (default 5)"},
            {"min-resource", "N", "sha, hyperband: steps before the first rung"},
            {"max-resource", "N", "hyperband: the longest a trial runs (default: auto)"},
            {"reduction-factor", "N", "sha (default 4), hyperband (default 3)"}};
}

} // namespace pitwall
