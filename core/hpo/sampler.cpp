#include "core/hpo/sampler.h"

#include "core/hpo/internal/motpe.h"
#include "core/hpo/internal/samplers.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pitwall {

std::string_view samplerKindName(SamplerKind kind)
{
    switch (kind) {
    case SamplerKind::Random:
        return "random";
    case SamplerKind::Grid:
        return "grid";
    case SamplerKind::Tpe:
        return "tpe";
    case SamplerKind::Nsga2:
        return "nsga2";
    }
    return "?";
}

std::string_view tpeVersionName(TpeVersion version)
{
    return version == TpeVersion::Optuna31 ? "3.1" : "5";
}

std::optional<TpeVersion> parseTpeVersion(std::string_view name)
{
    for (TpeVersion version : {TpeVersion::Optuna5, TpeVersion::Optuna31})
        if (name == tpeVersionName(version))
            return version;
    return std::nullopt;
}

std::optional<SamplerKind> parseSamplerKind(std::string_view name)
{
    for (SamplerKind kind : {SamplerKind::Random, SamplerKind::Grid, SamplerKind::Tpe, SamplerKind::Nsga2})
        if (name == samplerKindName(kind))
            return kind;
    return std::nullopt;
}

Json SamplerSettings::toJson() const
{
    Json json{{"name", samplerKindName(kind)}, {"seed", seed ? Json(*seed) : Json(nullptr)}};
    if (kind == SamplerKind::Tpe) {
        json["n_startup_trials"] = tpe.startupTrials;
        json["n_ei_candidates"] = tpe.eiCandidates;
        json["prior_weight"] = tpe.priorWeight;
        json["consider_prior"] = tpe.considerPrior;
        json["consider_magic_clip"] = tpe.considerMagicClip;
        json["consider_endpoints"] = tpe.considerEndpoints;
        json["tpe_version"] = tpeVersionName(tpe.version);
        json["multivariate"] = tpe.multivariate ? Json(*tpe.multivariate) : Json(nullptr);
        json["constant_liar"] = tpe.constantLiar ? Json(*tpe.constantLiar) : Json(nullptr);
        json["hypervolume_weights"] = tpe.hypervolumeWeights;
        json["gamma"] = tpe.gammaFor();
        json["refine_every"] = tpe.refineEveryFor();
        json["refine_extra_below"] = tpe.refineExtraBelow;
    }
    if (kind == SamplerKind::Grid)
        json["grid_version"] = grid.asOptuna31 ? "3.1" : "5";
    if (kind == SamplerKind::Nsga2) {
        json["population_size"] = nsga2.populationSize;
        json["mutation_prob"] = nsga2.mutationProb ? Json(*nsga2.mutationProb) : Json(nullptr);
        json["crossover_prob"] = nsga2.crossoverProb;
        json["swapping_prob"] = nsga2.swappingProb;
    }
    return json;
}

SamplerSettings SamplerSettings::fromJson(const Json& json)
{
    if (!json.is_object())
        throw InputError("sampler settings are not a JSON object: " + json.dump());
    SamplerSettings settings;
    try {
        const std::string name = json.value("name", "tpe");
        const auto kind = parseSamplerKind(name);
        if (!kind)
            throw InputError("unknown sampler '" + name + "' (known: random, grid, tpe, nsga2)");
        settings.kind = *kind;
        if (json.contains("seed") && !json["seed"].is_null())
            settings.seed = json["seed"].get<std::uint64_t>();
        TpeOptions& tpe = settings.tpe;
        tpe.startupTrials = json.value("n_startup_trials", tpe.startupTrials);
        tpe.eiCandidates = json.value("n_ei_candidates", tpe.eiCandidates);
        tpe.priorWeight = json.value("prior_weight", tpe.priorWeight);
        tpe.considerPrior = json.value("consider_prior", tpe.considerPrior);
        tpe.considerMagicClip = json.value("consider_magic_clip", tpe.considerMagicClip);
        tpe.considerEndpoints = json.value("consider_endpoints", tpe.considerEndpoints);
        // Settings stored before tpe_version existed are Optuna 3.1's TPE, with both switches spelled out.
        const std::string version = json.value("tpe_version", std::string(tpeVersionName(TpeVersion::Optuna31)));
        const auto parsed = parseTpeVersion(version);
        if (!parsed)
            throw InputError("unknown tpe_version '" + version + "' (known: 5, 3.1)");
        tpe.version = *parsed;
        tpe.hypervolumeWeights = json.value("hypervolume_weights", tpe.hypervolumeWeights);
        // Settings stored before gamma existed used Optuna's 0.1.
        tpe.gamma = json.value("gamma", 0.1);
        tpe.refineEvery = json.value("refine_every", 0); // stored before refinement existed: off
        tpe.refineExtraBelow = json.value("refine_extra_below", false); // stored before it existed: took slots
        for (auto [key, field] : {std::pair{"multivariate", &tpe.multivariate}, {"constant_liar", &tpe.constantLiar}})
            if (json.contains(key) && !json[key].is_null())
                *field = json[key].get<bool>();
        Nsga2Options& nsga2 = settings.nsga2;
        nsga2.populationSize = json.value("population_size", nsga2.populationSize);
        if (json.contains("mutation_prob") && !json["mutation_prob"].is_null())
            nsga2.mutationProb = json["mutation_prob"].get<double>();
        nsga2.crossoverProb = json.value("crossover_prob", nsga2.crossoverProb);
        nsga2.swappingProb = json.value("swapping_prob", nsga2.swappingProb);
        const std::string gridVersion = json.value("grid_version", "3.1"); // stored before it existed: 3.1's
        if (gridVersion != "5" && gridVersion != "3.1")
            throw InputError("unknown grid_version '" + gridVersion + "' (known: 5, 3.1)");
        settings.grid.asOptuna31 = gridVersion == "3.1";
    } catch (const Json::exception& error) {
        throw InputError("malformed sampler settings " + json.dump() + ": " + error.what());
    }
    if (settings.tpe.startupTrials < 0 || settings.tpe.eiCandidates < 1 || !(settings.tpe.priorWeight > 0.0) ||
        !(settings.tpe.gammaFor() > 0.0 && settings.tpe.gammaFor() <= 1.0) || settings.tpe.refineEveryFor() < 0 ||
        settings.tpe.refineEveryFor() == 1)
        throw InputError("sampler settings out of range: " + json.dump());
    const auto probability = [](double p) { return p >= 0.0 && p <= 1.0; };
    const Nsga2Options& nsga2 = settings.nsga2;
    if (nsga2.populationSize < 2 || (nsga2.mutationProb && !probability(*nsga2.mutationProb)) ||
        !probability(nsga2.crossoverProb) || !probability(nsga2.swappingProb))
        throw InputError("NSGA-II settings out of range (population_size >= 2, probabilities in [0, 1]): " +
                         json.dump());
    return settings;
}

std::unique_ptr<Sampler> makeSampler(const SamplerSettings& settings)
{
    switch (settings.kind) {
    case SamplerKind::Random:
        return hpo_internal::makeRandomSampler();
    case SamplerKind::Grid:
        return hpo_internal::makeGridSampler(settings.grid, settings.seed.value_or(0));
    case SamplerKind::Tpe:
        return hpo_internal::makeTpeSampler(settings.tpe, settings.tpe.hypervolumeWeights
                                                              ? hpo_internal::MotpeBelowWeights::HypervolumeContribution
                                                              : hpo_internal::MotpeBelowWeights::Uniform);
    case SamplerKind::Nsga2:
        return hpo_internal::makeNsga2Sampler(settings.nsga2);
    }
    return nullptr;
}

bool isSingleValued(const Distribution& d)
{
    switch (d.kind) {
    case Distribution::Kind::Categorical:
        return d.choices.size() == 1;
    case Distribution::Kind::Float:
        if (d.low == d.high)
            return true;
        return d.step && (d.high - d.low) < *d.step;
    case Distribution::Kind::Int:
        if (d.low == d.high)
            return true;
        return !d.log && (d.high - d.low) < d.step.value_or(1.0);
    }
    return false;
}

bool sameDistribution(const Distribution& a, const Distribution& b)
{
    if (a.kind != b.kind)
        return false;
    if (a.kind == Distribution::Kind::Categorical)
        return a.choices == b.choices;
    const double stepA = a.step.value_or(a.kind == Distribution::Kind::Int ? 1.0 : 0.0);
    const double stepB = b.step.value_or(b.kind == Distribution::Kind::Int ? 1.0 : 0.0);
    return a.low == b.low && a.high == b.high && a.log == b.log && stepA == stepB;
}

namespace hpo_internal {

double singleValue(const Distribution& d)
{
    return d.kind == Distribution::Kind::Categorical ? 0.0 : d.low;
}

double sampleUniformly(const Distribution& d, Rng& rng)
{
    if (isSingleValued(d))
        return singleValue(d);
    switch (d.kind) {
    case Distribution::Kind::Categorical:
        return static_cast<double>(std::min(rng.index(d.choices.size()), d.choices.size() - 1));
    case Distribution::Kind::Float:
        if (d.log)
            return std::min(std::exp(rng.uniform(std::log(d.low), std::log(d.high))),
                            std::nextafter(d.high, -std::numeric_limits<double>::infinity()));
        if (d.step) {
            const double x = rng.uniform(d.low - 0.5 * *d.step, d.high + 0.5 * *d.step);
            return std::clamp(roundHalfEven((x - d.low) / *d.step) * *d.step + d.low, d.low, d.high);
        }
        return std::min(rng.uniform(d.low, d.high), std::nextafter(d.high, -std::numeric_limits<double>::infinity()));
    case Distribution::Kind::Int: {
        if (d.log)
            return std::clamp(roundHalfEven(std::exp(rng.uniform(std::log(d.low - 0.5), std::log(d.high + 0.5)))),
                              d.low, d.high);
        const double step = d.step.value_or(1.0);
        const double x = rng.uniform(d.low - 0.5 * step, d.high + 0.5 * step);
        return std::clamp(roundHalfEven((x - d.low) / step) * step + d.low, d.low, d.high);
    }
    }
    return d.low;
}

namespace {

class RandomSampler final : public Sampler {
public:
    SampleResult sample(const SampleContext& context, const std::vector<ParamRequest>& requests) const override
    {
        Rng rng(context.seed);
        SampleResult result;
        for (const ParamRequest& request : requests)
            result.internalValues.push_back(sampleUniformly(request.distribution, rng));
        return result;
    }
};

} // namespace

std::unique_ptr<Sampler> makeRandomSampler()
{
    return std::make_unique<RandomSampler>();
}

} // namespace hpo_internal

} // namespace pitwall
