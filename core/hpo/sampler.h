#pragma once
// Samplers choose the parameter values of a new trial from the trials a study already has: random, grid
// (the Cartesian product, each point once), TPE (the newest Optuna's Tree-structured Parzen Estimator, or Optuna
// 3.1's by a setting; for several objectives the newest Optuna's MOTPE split) and NSGA-II (Optuna's NSGAIISampler, any number of objectives; the default for
// several).
//
// Samplers keep no state between calls: everything they learn comes from the trials passed in, as with
// Optuna over a shared database, so any process may ask for the next trial. A sampler is deterministic for
// a given SampleContext (the seed included). Thread safety: sample() is const and may run concurrently.

#include "core/store/records.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pitwall {

enum class SamplerKind { Random, Grid, Tpe, Nsga2 };
std::string_view samplerKindName(SamplerKind kind); // "random", "grid", "tpe", "nsga2"
std::optional<SamplerKind> parseSamplerKind(std::string_view name);

// Which Optuna's TPE Pitwall's follows. Optuna5 (the default for new studies): the newest Optuna's TPESampler
// (5.x): multivariate on one objective and independent on several unless told, the constant liar on unless told,
// neighbour-gap bandwidths for joint parameters, exact densities, log integers modelled as steps. Optuna31: Optuna
// 3.1's (independent and no liar unless told; Scott's-rule bandwidths when multivariate), as studies made before
// this setting existed keep.
enum class TpeVersion { Optuna5, Optuna31 };
std::string_view tpeVersionName(TpeVersion version); // "5", "3.1"
std::optional<TpeVersion> parseTpeVersion(std::string_view name);

// TPE's settings. With several objectives l(x) is formed by non-domination rank and hypervolume subset selection
// from ceil(0.1 n) trials, each weighing 1, infeasible trials last (Optuna 5's TPESampler; core/hpo/internal/motpe.h).
struct TpeOptions {
    TpeVersion version = TpeVersion::Optuna5;
    int startupTrials = 10; // random sampling until this many trials are complete or pruned
    int eiCandidates = 24;  // candidates drawn from l(x); the one maximising l(x)/g(x) wins
    double priorWeight = 1.0;
    bool considerPrior = true;
    bool considerMagicClip = true;
    bool considerEndpoints = false;
    std::optional<bool> multivariate; // model the parameters every finished trial shares jointly; none: the version's
    std::optional<bool> constantLiar; // running trials count as the worst observations; none: the version's default
    // Several objectives: weigh l(x)'s trials by their hypervolume contribution (Optuna 4.0-4.9) instead of 1 each
    // (Optuna 5).
    bool hypervolumeWeights = false;
    // One objective: the share of finished trials, at most 25, that forms l(x). None: 0.1 (Optuna's default_gamma,
    // the newest Optuna's and 3.1's). Stored as "gamma"; studies made before it existed read as 0.1.
    std::optional<double> gamma;
    // One objective, Pitwall's addition: once kRefineAfter trials have finished, trial numbers N with N % refineEvery
    // == refineEvery - 1 are refinement trials. Such a trial draws from l(x)'s kernel at the best complete trial
    // alone, its widths times a factor w, instead of TPE's l(x)/g(x) choice. w starts at 0.5, grows x1.5 after each
    // refinement trial that beat the best trial before it, and shrinks x1.5^(-1/4) after each that did not (the
    // one-fifth success rule of evolution strategies), within [0.001, 1]. Refinement trials carry the system
    // attribute kRefineAttr and otherwise count as any trial. 0: off (Optuna's TPE). None: the version's default,
    // kRefineEvery in 5 and 0 in 3.1. Stored as "refine_every"; studies made before it existed read as 0.
    std::optional<int> refineEvery;
    // With refinement on: a refinement trial takes no slot of l(x). l(x) is then the best gamma(n) trials of the
    // others, plus every refinement trial that ranks among them, so refinement trials bunched at the best trial do
    // not crowd TPE's own good trials out of l(x) (which left a search stuck in one basin more often). Stored as
    // "refine_extra_below"; studies stored before it existed read false (their refinement trials took slots).
    bool refineExtraBelow = true;

    // What applies: multivariate for a study with `objectives` objectives, the constant liar, gamma.
    bool multivariateFor(std::size_t objectives) const
    {
        return multivariate.value_or(version == TpeVersion::Optuna5 && objectives <= 1);
    }
    bool constantLiarOn() const { return constantLiar.value_or(version == TpeVersion::Optuna5); }
    double gammaFor() const { return gamma.value_or(0.1); }
    int refineEveryFor() const { return refineEvery.value_or(version == TpeVersion::Optuna5 ? kRefineEvery : 0); }

    static constexpr int kRefineEvery = 4;
    static constexpr int kRefineAfter = 40;
    static constexpr const char* kRefineAttr = "pitwall:refine";
};

// Grid sampling's settings. The newest Optuna's GridSampler (5.1) shuffles the grid with its seed (numpy's
// RandomState(seed or 0)) and gives trial N the shuffled grid's point N while N is below the grid's size (later
// trials: an unvisited point at random); Optuna 3.1 numbered the grid in product order and picked unvisited points at
// random. A grid_id means a different point under each rule, so a study shared with Optuna follows the rule of the
// Optuna it is shared with. Stored as "grid_version" ("5" | "3.1"); grid studies stored before it read as 3.1.
struct GridOptions {
    bool asOptuna31 = false;
};

// NSGA-II's settings, with Optuna's NSGAIISampler defaults.
struct Nsga2Options {
    int populationSize = 50;           // >= 2
    std::optional<double> mutationProb; // none: 1 / the number of inherited parameters
    double crossoverProb = 0.9;
    double swappingProb = 0.5; // uniform crossover: chance of taking a parameter from the second parent
};

struct SamplerSettings {
    SamplerKind kind = SamplerKind::Tpe;
    std::optional<std::uint64_t> seed; // none: every ask draws fresh entropy
    TpeOptions tpe;
    Nsga2Options nsga2;
    GridOptions grid;

    // {"name": "tpe", "seed": 1, "n_startup_trials": 10, ...} ({"name": "nsga2", "population_size": 50,
    // "mutation_prob": null, "crossover_prob": 0.9, "swapping_prob": 0.5}); fromJson fills what is missing with the
    // defaults and throws InputError for an unknown sampler name or a malformed value.
    Json toJson() const;
    static SamplerSettings fromJson(const Json& json);
};

// One parameter to sample, as the search space declares it.
struct ParamRequest {
    std::string name;
    Distribution distribution;
};

struct SampleContext {
    std::string studyName;
    StudyDirection direction = StudyDirection::Minimize; // the first objective's
    std::vector<StudyDirection> directions;              // every objective's; empty: one, `direction`
    std::span<const TrialRecord> trials; // the study's trials, in number order; the new trial may be among them
    int trialNumber = 0;                 // the trial being sampled
    std::uint64_t seed = 0;              // this trial's random seed
};

struct SampleResult {
    std::vector<double> internalValues;     // one per request, Optuna's internal representation
    Json trialSystemAttrs = Json::object(); // to store on the new trial (grid: search_space, grid_id)
};

class Sampler {
public:
    virtual ~Sampler() = default;
    // Throws InputError when the requests cannot be sampled (a continuous range on a grid, an exhausted
    // grid).
    virtual SampleResult sample(const SampleContext& context, const std::vector<ParamRequest>& requests) const = 0;
};

std::unique_ptr<Sampler> makeSampler(const SamplerSettings& settings);

// True when the distribution has a single value (Optuna's BaseDistribution.single()).
bool isSingleValued(const Distribution& distribution);
// Same kind, bounds, step, log and choices.
bool sameDistribution(const Distribution& a, const Distribution& b);

} // namespace pitwall
