#include "app/cli/configargs.h"

#include "core/util/error.h"
#include "core/util/paths.h"

#include <iostream>

namespace pitwall::cli {

void splitConfigArgs(const Args& args, std::vector<std::string>& files, std::vector<std::string>& overrides)
{
    for (const std::string& word : args.positionals) {
        const auto eq = word.find('=');
        if (eq != std::string::npos && word.substr(0, eq).find('/') == std::string::npos)
            overrides.push_back(word);
        else
            files.push_back(word);
    }
}

void absoluteConfigArgs(const Args& args, std::vector<std::string>& files, std::vector<std::string>& overrides)
{
    std::vector<std::string> given;
    splitConfigArgs(args, given, overrides);
    for (const std::string& file : args.values("config"))
        files.push_back(absolutePath(file));
    for (const std::string& file : given)
        files.push_back(absolutePath(file));
}

Schema schemaWithWarnings()
{
    std::vector<Diagnostic> problems;
    Schema schema = loadSchema(&problems);
    for (const Diagnostic& d : problems)
        std::cerr << "warning: plugin schema left out: " << d.toString() << "\n";
    return schema;
}

ResolvedConfig resolveConfigArgs(const Args& args, bool requireFile)
{
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    if (requireFile && files.empty())
        throw InputError("give a config file (e.g. configs/transfuser/smoke.yaml), then any dotted.key=value overrides");
    if (files.empty() && overrides.empty())
        throw InputError("give at least one config file or dotted.key=value override");
    return resolveConfig(schemaWithWarnings(), files, overrides);
}

StudyOptions studyOptionsFromArgs(const Args& args)
{
    StudyOptions options;
    const std::string samplerName = args.value("sampler", "tpe");
    const auto sampler = parseSamplerKind(samplerName);
    if (!sampler)
        throw InputError("--sampler '" + samplerName + "' is not one of random, grid, tpe");
    options.sampler.kind = *sampler;
    if (auto seed = args.integer("seed", 0))
        options.sampler.seed = static_cast<std::uint64_t>(*seed);
    options.sampler.tpe.startupTrials =
        static_cast<int>(args.integer("startup-trials", options.sampler.tpe.startupTrials, 0));
    options.sampler.tpe.multivariate = args.flag("multivariate");
    options.sampler.tpe.constantLiar = args.flag("constant-liar");

    const std::string prunerName = args.value("pruner", "median");
    const auto pruner = parsePrunerKind(prunerName);
    if (!pruner)
        throw InputError("--pruner '" + prunerName + "' is not one of none, median, sha, hyperband");
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

} // namespace pitwall::cli
