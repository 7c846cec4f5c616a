// NSGA-II after Optuna's NSGAIISampler (optuna/samplers/nsgaii/): trials are grouped into generations (the trial
// system attribute "nsga2:generation", Optuna 3.1's, or "NSGAIISampler:generation", the newest Optuna's); once a
// generation has population_size complete trials, it and the previous parent population are ranked by non-dominated
// sorting, the last rank that fits cut by crowding distance, and the elite become the parents of the next
// generation. A child takes each parameter from one of two parents chosen by
// binary tournament (uniform crossover, swapping probability 0.5) with probability crossover_prob, else copies a
// random parent; then each parameter is resampled at random with probability mutation_prob (1 / number of
// parameters by default). Parameters outside the parents' common space, and every parameter of the first
// generation, are sampled at random.
//
// Constraints (the trial attribute "constraints", feasible when all <= 0) switch ranking to constrained
// domination: feasible before infeasible, infeasible ones by their total violation.
//
// Stateless like the other samplers: the population follows from the trials on every ask (Optuna caches it in the
// study; the result is the same for the same trials); each generation's elite is remembered in the process.
#include "core/hpo/internal/samplers.h"
#include "core/store/pareto.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>

namespace pitwall::hpo_internal {

namespace {

constexpr const char* kGenerationAttr = "nsga2:generation";
// The newest Optuna's NSGAIISampler (5.1; its GA base class names the key after the sampler class) reads and
// writes the generation under this key: Pitwall reads either and writes both, so either Optuna continues its trials.
constexpr const char* kNewestGenerationAttr = "NSGAIISampler:generation";
constexpr const char* kParentsAttr = "nsga2:parents";
constexpr double kInf = std::numeric_limits<double>::infinity();

using Population = std::vector<const TrialRecord*>;

double violation(const std::vector<double>& constraints)
{
    double total = 0.0;
    for (double c : constraints)
        total += std::isnan(c) ? kInf : std::max(c, 0.0);
    return total;
}

// Optuna's _constrained_dominates for two COMPLETE trials; plain domination when `constrained` is false.
bool trialDominates(const TrialRecord& a, const TrialRecord& b, const std::vector<StudyDirection>& directions,
                    bool constrained)
{
    if (!constrained)
        return dominates(a.values, b.values, directions);
    const auto ca = trialConstraints(a);
    const auto cb = trialConstraints(b);
    if (!ca && !cb)
        return dominates(a.values, b.values, directions);
    if (!ca || !cb)
        return ca.has_value();
    const double va = violation(*ca);
    const double vb = violation(*cb);
    if (va == 0.0 && vb == 0.0)
        return dominates(a.values, b.values, directions);
    if (va == 0.0 || vb == 0.0)
        return va == 0.0;
    return va < vb;
}

// Non-dominated sorting in Optuna's order (ranks best first; inside a rank, the order its swap-remove loop leaves).
std::vector<Population> nonDominatedSort(Population population, const std::vector<StudyDirection>& directions,
                                         bool constrained)
{
    const std::size_t n = population.size();
    std::map<const TrialRecord*, int> dominatedCount;
    std::map<const TrialRecord*, std::vector<const TrialRecord*>> dominatesList;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            const TrialRecord* p = population[i];
            const TrialRecord* q = population[j];
            if (trialDominates(*p, *q, directions, constrained)) {
                dominatesList[p].push_back(q);
                ++dominatedCount[q];
            } else if (trialDominates(*q, *p, directions, constrained)) {
                dominatesList[q].push_back(p);
                ++dominatedCount[p];
            }
        }
    std::vector<Population> ranks;
    while (!population.empty()) {
        Population front;
        std::size_t i = 0;
        while (i < population.size()) {
            if (dominatedCount[population[i]] == 0) {
                front.push_back(population[i]);
                population[i] = population.back();
                population.pop_back();
            } else {
                ++i;
            }
        }
        for (const TrialRecord* x : front)
            for (const TrialRecord* y : dominatesList[x])
                --dominatedCount[y];
        ranks.push_back(std::move(front));
    }
    return ranks;
}

// Sorts by crowding distance, largest first (Optuna: each objective's stable sort in turn, a stable sort by
// distance, then the order reversed).
void crowdingDistanceSort(Population& population)
{
    std::map<const TrialRecord*, double> distance;
    if (population.empty())
        return;
    const std::size_t objectives = population.front()->values.size();
    for (std::size_t m = 0; m < objectives; ++m) {
        std::stable_sort(population.begin(), population.end(),
                         [m](const TrialRecord* a, const TrialRecord* b) { return a->values[m] < b->values[m]; });
        if (population.front()->values[m] == population.back()->values[m])
            continue;
        std::vector<double> vs{-kInf};
        for (const TrialRecord* t : population)
            vs.push_back(t->values[m]);
        vs.push_back(kInf);
        double low = 0.0, high = 0.0;
        for (double v : vs)
            if (v != -kInf) {
                low = v;
                break;
            }
        for (auto it = vs.rbegin(); it != vs.rend(); ++it)
            if (*it != kInf) {
                high = *it;
                break;
            }
        double width = high - low;
        if (!(width > 0.0))
            width = 1.0;
        for (std::size_t j = 0; j < population.size(); ++j) {
            const double gap = vs[j] == vs[j + 2] ? 0.0 : vs[j + 2] - vs[j];
            distance[population[j]] += gap / width;
        }
    }
    std::stable_sort(population.begin(), population.end(),
                     [&](const TrialRecord* a, const TrialRecord* b) { return distance[a] < distance[b]; });
    std::reverse(population.begin(), population.end());
}

Population selectElite(const Population& population, const std::vector<StudyDirection>& directions,
                       std::size_t size, bool constrained)
{
    Population elite;
    for (Population& rank : nonDominatedSort(population, directions, constrained)) {
        if (elite.size() + rank.size() < size) {
            elite.insert(elite.end(), rank.begin(), rank.end());
            continue;
        }
        crowdingDistanceSort(rank);
        elite.insert(elite.end(), rank.begin(), rank.begin() + static_cast<std::ptrdiff_t>(size - elite.size()));
        break;
    }
    return elite;
}

// selectElite, remembered: a generation's elite depends only on its members in order (their ids, values and
// constraints, which a finished trial keeps), so every ask after the first reuses it instead of sorting every
// generation again (Optuna keeps it in the study's system attributes for the same reason). Process-wide, bounded,
// any thread.
Population cachedElite(const Population& population, const std::vector<StudyDirection>& directions,
                       std::size_t size, bool constrained)
{
    std::vector<double> key = {static_cast<double>(size), constrained ? 1.0 : 0.0};
    for (StudyDirection d : directions)
        key.push_back(d == StudyDirection::Minimize ? 0.0 : 1.0);
    for (const TrialRecord* t : population) {
        key.push_back(static_cast<double>(t->id));
        key.insert(key.end(), t->values.begin(), t->values.end());
        if (const auto c = trialConstraints(*t))
            key.insert(key.end(), c->begin(), c->end());
        key.push_back(kInf); // separates the members
    }
    if (std::any_of(key.begin(), key.end(), [](double v) { return std::isnan(v); }))
        return selectElite(population, directions, size, constrained); // NaN has no order: no key
    static std::mutex mutex;
    static std::map<std::vector<double>, std::vector<std::size_t>> elites; // key -> positions in the population
    static std::vector<const std::vector<double>*> inserted;               // oldest first, for the bound
    constexpr std::size_t kBound = 4096;
    {
        const std::lock_guard lock(mutex);
        if (const auto it = elites.find(key); it != elites.end()) {
            Population elite;
            for (std::size_t position : it->second)
                elite.push_back(population[position]);
            return elite;
        }
    }
    Population elite = selectElite(population, directions, size, constrained);
    std::map<const TrialRecord*, std::size_t> positionOf;
    for (std::size_t i = 0; i < population.size(); ++i)
        positionOf.emplace(population[i], i);
    std::vector<std::size_t> positions;
    for (const TrialRecord* t : elite)
        positions.push_back(positionOf.at(t));
    const std::lock_guard lock(mutex);
    if (elites.size() >= kBound) {
        elites.erase(*inserted.front());
        inserted.erase(inserted.begin());
    }
    const auto [it, added] = elites.emplace(std::move(key), std::move(positions));
    if (added)
        inserted.push_back(&it->first);
    return elite;
}

std::optional<int> generationOf(const TrialRecord& trial)
{
    for (const char* key : {kGenerationAttr, kNewestGenerationAttr}) {
        const auto it = trial.systemAttrs.find(key);
        if (it != trial.systemAttrs.end() && it->is_number_integer())
            return it->get<int>();
    }
    return std::nullopt;
}

const TrialParam* findParam(const TrialRecord& trial, const std::string& name)
{
    for (const TrialParam& p : trial.params)
        if (p.name == name)
            return &p;
    return nullptr;
}

class Nsga2Sampler final : public Sampler {
public:
    explicit Nsga2Sampler(Nsga2Options options) : m_options(options) {}

    SampleResult sample(const SampleContext& context, const std::vector<ParamRequest>& requests) const override
    {
        std::vector<StudyDirection> directions = context.directions;
        if (directions.empty())
            directions = {context.direction};
        Rng rng(context.seed);

        std::map<int, Population> byGeneration;
        bool constrained = false;
        for (const TrialRecord& t : context.trials) {
            if (t.number == context.trialNumber || !countsForFront(t, directions.size()))
                continue;
            if (const auto g = generationOf(t)) {
                byGeneration[*g].push_back(&t);
                constrained = constrained || trialConstraints(t).has_value();
            }
        }
        const auto size = static_cast<std::size_t>(m_options.populationSize);
        Population parents;
        int parentGeneration = -1;
        for (;;) {
            Population population = byGeneration[parentGeneration + 1];
            if (population.size() < size)
                break;
            population.insert(population.end(), parents.begin(), parents.end());
            parents = cachedElite(population, directions, size, constrained);
            ++parentGeneration;
        }

        SampleResult result;
        result.trialSystemAttrs[kGenerationAttr] = parentGeneration + 1;
        result.trialSystemAttrs[kNewestGenerationAttr] = parentGeneration + 1;
        std::vector<std::optional<double>> inherited(requests.size());
        if (parentGeneration >= 0)
            inherit(requests, parents, directions, constrained, rng, inherited, result);
        for (std::size_t i = 0; i < requests.size(); ++i)
            result.internalValues.push_back(inherited[i] ? *inherited[i] : sampleUniformly(requests[i].distribution, rng));
        return result;
    }

private:
    // Fills `inherited` for the parameters every parent has with the requested distribution (and that have more than
    // one value): crossover or a copy, then mutation (which leaves a parameter to random sampling).
    void inherit(const std::vector<ParamRequest>& requests, const Population& parents,
                 const std::vector<StudyDirection>& directions, bool constrained, Rng& rng,
                 std::vector<std::optional<double>>& inherited, SampleResult& result) const
    {
        std::vector<std::size_t> categorical, numerical;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            const Distribution& d = requests[i].distribution;
            if (isSingleValued(d))
                continue;
            const bool shared = std::all_of(parents.begin(), parents.end(), [&](const TrialRecord* t) {
                const TrialParam* p = findParam(*t, requests[i].name);
                return p && sameDistribution(p->distribution, d);
            });
            if (shared)
                (d.kind == Distribution::Kind::Categorical ? categorical : numerical).push_back(i);
        }
        std::vector<std::optional<double>> child(requests.size());
        if (rng.uniform() < m_options.crossoverProb) {
            Population chosen;
            for (int k = 0; k < 2; ++k)
                chosen.push_back(tournament(parents, chosen, directions, constrained, rng));
            // Uniform crossover: each parameter from the second parent when the draw is >= swapping_prob.
            for (const std::vector<std::size_t>* group : {&categorical, &numerical})
                for (std::size_t i : *group) {
                    const TrialRecord* from = rng.uniform() >= m_options.swappingProb ? chosen[1] : chosen[0];
                    child[i] = findParam(*from, requests[i].name)->internalValue;
                }
            result.trialSystemAttrs[kParentsAttr] = Json::array({chosen[0]->id, chosen[1]->id});
        } else {
            const TrialRecord* parent = parents[std::min(rng.index(parents.size()), parents.size() - 1)];
            for (const std::vector<std::size_t>* group : {&categorical, &numerical})
                for (std::size_t i : *group)
                    child[i] = findParam(*parent, requests[i].name)->internalValue;
            result.trialSystemAttrs[kParentsAttr] = Json::array({parent->id});
        }
        const std::size_t inheritedCount = categorical.size() + numerical.size();
        const double mutation = m_options.mutationProb.value_or(1.0 / std::max<double>(1.0, static_cast<double>(inheritedCount)));
        for (std::size_t i = 0; i < requests.size(); ++i)
            if (child[i] && rng.uniform() >= mutation)
                inherited[i] = child[i];
    }

    static const TrialRecord* tournament(const Population& parents, const Population& chosen,
                                         const std::vector<StudyDirection>& directions, bool constrained, Rng& rng)
    {
        Population pool;
        for (const TrialRecord* t : parents)
            if (std::find(chosen.begin(), chosen.end(), t) == chosen.end())
                pool.push_back(t);
        const TrialRecord* a = pool[std::min(rng.index(pool.size()), pool.size() - 1)];
        const TrialRecord* b = pool[std::min(rng.index(pool.size()), pool.size() - 1)];
        return trialDominates(*a, *b, directions, constrained) ? a : b;
    }

    Nsga2Options m_options;
};

} // namespace

std::unique_ptr<Sampler> makeNsga2Sampler(const Nsga2Options& options)
{
    return std::make_unique<Nsga2Sampler>(options);
}

} // namespace pitwall::hpo_internal
