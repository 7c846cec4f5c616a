// Grid sampling over the Cartesian product of the parameters' values, each point once, stored the way Optuna's
// GridSampler stores it (trial system attributes "search_space" and "grid_id", parameters in name order, the last
// one varying fastest), so either tool can continue the other's grid: grid_id numbers the product itself (Optuna
// 3.1) or its shuffle by the seed (the newest Optuna; GridOptions).
#include "core/hpo/internal/samplers.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <set>

namespace pitwall::hpo_internal {

namespace {

constexpr double kMaxGridPoints = 10'000'000.0;

// The values a parameter takes on the grid, in external representation.
Json gridValues(const ParamRequest& request)
{
    const Distribution& d = request.distribution;
    Json values = Json::array();
    switch (d.kind) {
    case Distribution::Kind::Categorical:
        for (const Json& choice : d.choices)
            values.push_back(choice);
        return values;
    case Distribution::Kind::Int: {
        const double step = d.step.value_or(1.0);
        for (double v = d.low; v <= d.high + 1e-9; v += step)
            values.push_back(static_cast<std::int64_t>(std::llround(v)));
        return values;
    }
    case Distribution::Kind::Float: {
        if (d.low == d.high)
            return Json::array({d.low});
        if (d.log || !d.step)
            throw InputError("grid sampling needs discrete values, but '" + request.name + "' is a continuous " +
                             (d.log ? "log " : "") + "range [" + formatDouble(d.low) + ", " + formatDouble(d.high) +
                             "]; give it a 'step' (uniform only) or list its values with type categorical");
        const double count = std::floor((d.high - d.low) / *d.step + 1e-9);
        for (double i = 0; i <= count; ++i)
            values.push_back(d.low + i * *d.step);
        return values;
    }
    }
    return values;
}

// Optuna compares grids value by value, NaN equal to NaN.
bool sameGrid(const Json& a, const Json& b)
{
    if (!a.is_object() || !b.is_object() || a.size() != b.size())
        return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
        if (!b.contains(it.key()) || !it.value().is_array())
            return false;
        const Json& other = b[it.key()];
        if (!other.is_array() || other.size() != it.value().size())
            return false;
        for (std::size_t i = 0; i < other.size(); ++i) {
            const Json& x = it.value()[i];
            const Json& y = other[i];
            if (x.is_number() && y.is_number()) {
                const double dx = x.get<double>(), dy = y.get<double>();
                if (!(dx == dy || (std::isnan(dx) && std::isnan(dy))))
                    return false;
            } else if (x != y) {
                return false;
            }
        }
    }
    return true;
}

// numpy's random_interval: a uniform integer in [0, max] by masked rejection of 32-bit draws (max < 2^32).
std::uint32_t numpyInterval(std::mt19937& generator, std::uint32_t max)
{
    if (max == 0)
        return 0;
    std::uint32_t mask = max;
    for (int shift : {1, 2, 4, 8, 16})
        mask |= mask >> shift;
    std::uint32_t value = 0;
    do
        value = static_cast<std::uint32_t>(generator()) & mask;
    while (value > max);
    return value;
}

// The shuffled grid orders, kept for the process (a grid of millions of points is shuffled once per seed).
std::shared_ptr<const std::vector<std::uint32_t>> shuffledGrid(std::uint32_t points, std::uint32_t seed)
{
    static std::mutex mutex;
    static std::map<std::pair<std::uint32_t, std::uint32_t>, std::shared_ptr<const std::vector<std::uint32_t>>> cache;
    const std::lock_guard lock(mutex);
    if (cache.size() >= 16 && !cache.count({points, seed})) // a few grids per process in practice; never unbounded
        cache.clear();
    auto& entry = cache[{points, seed}];
    if (!entry)
        entry = std::make_shared<const std::vector<std::uint32_t>>(numpyShuffledRange(points, seed));
    return entry;
}

class GridSampler final : public Sampler {
public:
    GridSampler(const GridOptions& options, std::uint64_t seed)
        : m_options(options), m_seed(static_cast<std::uint32_t>(seed & 0xffffffffu))
    {
    }

    SampleResult sample(const SampleContext& context, const std::vector<ParamRequest>& requests) const override
    {
        // Parameters in name order (Optuna sorts the grid's keys).
        std::vector<const ParamRequest*> sorted;
        for (const ParamRequest& request : requests)
            sorted.push_back(&request);
        std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
        Json space = Json::object();
        std::vector<std::size_t> sizes;
        double points = 1.0;
        for (const ParamRequest* request : sorted) {
            Json values = gridValues(*request);
            sizes.push_back(values.size());
            points *= static_cast<double>(values.size());
            space[request->name] = std::move(values);
        }
        if (points > kMaxGridPoints)
            throw InputError("the grid has " + formatDouble(points) + " points; at most " +
                             formatDouble(kMaxGridPoints) + " are supported");
        const auto total = static_cast<std::int64_t>(points);

        const std::int64_t gridId = pickGridId(context, space, total);
        // The product index of that point: the id itself (Optuna 3.1), or its place in the shuffled grid.
        const std::int64_t product =
            m_options.asOptuna31 ? gridId
                                 : (*shuffledGrid(static_cast<std::uint32_t>(total), m_seed))[static_cast<std::size_t>(gridId)];

        // Mixed-radix digits of the product index, last parameter fastest (itertools.product order).
        std::vector<std::size_t> digits(sorted.size());
        std::int64_t rest = product;
        for (std::size_t i = sorted.size(); i-- > 0;) {
            digits[i] = static_cast<std::size_t>(rest % static_cast<std::int64_t>(sizes[i]));
            rest /= static_cast<std::int64_t>(sizes[i]);
        }
        SampleResult result;
        for (const ParamRequest& request : requests) {
            const auto position = static_cast<std::size_t>(
                std::find_if(sorted.begin(), sorted.end(), [&](auto* r) { return r == &request; }) - sorted.begin());
            result.internalValues.push_back(request.distribution.toInternal(space[request.name][digits[position]]));
        }
        result.trialSystemAttrs = {{"search_space", space}, {"grid_id", gridId}};
        return result;
    }

private:
    // The newest Optuna gives trial N the grid's point N while N is below its size; otherwise (and always as Optuna
    // 3.1) an unvisited point at random, or with none left a point still running (a parallel worker re-runs it).
    std::int64_t pickGridId(const SampleContext& context, const Json& space, std::int64_t total) const
    {
        if (!m_options.asOptuna31 && context.trialNumber >= 0 && context.trialNumber < total)
            return context.trialNumber;
        std::set<std::int64_t> finished, running;
        for (const TrialRecord& trial : context.trials) {
            if (trial.number == context.trialNumber || !trial.systemAttrs.contains("grid_id") ||
                !trial.systemAttrs.contains("search_space") || !sameGrid(trial.systemAttrs["search_space"], space))
                continue;
            const Json& id = trial.systemAttrs["grid_id"];
            if (!id.is_number_integer())
                continue;
            if (trial.state == TrialState::Running)
                running.insert(id.get<std::int64_t>());
            else if (trial.state != TrialState::Waiting)
                finished.insert(id.get<std::int64_t>());
        }
        std::vector<std::int64_t> unvisited;
        for (std::int64_t id = 0; id < total; ++id)
            if (!finished.count(id) && !running.count(id))
                unvisited.push_back(id);
        if (unvisited.empty()) // every point is finished or being evaluated: re-run a running one, like Optuna
            for (std::int64_t id = 0; id < total; ++id)
                if (!finished.count(id))
                    unvisited.push_back(id);
        if (unvisited.empty())
            throw InputError("the grid is exhausted: all " + std::to_string(total) +
                             " points have finished trials in study '" + context.studyName + "'");

        Rng rng(context.seed);
        return unvisited[rng.index(unvisited.size())];
    }

    GridOptions m_options;
    std::uint32_t m_seed; // numpy's legacy seeding takes 32 bits
};

} // namespace

std::vector<std::uint32_t> numpyShuffledRange(std::uint32_t n, std::uint32_t seed)
{
    std::vector<std::uint32_t> x(n);
    std::iota(x.begin(), x.end(), 0u);
    std::mt19937 generator(seed); // numpy's mt19937_seed is the reference init_genrand, as std::mt19937's
    for (std::uint32_t i = n; i-- > 1;)
        std::swap(x[i], x[numpyInterval(generator, i)]);
    return x;
}

std::unique_ptr<Sampler> makeGridSampler(const GridOptions& options, std::uint64_t seed)
{
    return std::make_unique<GridSampler>(options, seed);
}

} // namespace pitwall::hpo_internal
