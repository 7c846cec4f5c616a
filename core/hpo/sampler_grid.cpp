// Grid sampling over the Cartesian product of the parameters' values, each point once, stored the way
// Optuna 3.1's GridSampler stores it (trial system attributes "search_space" and "grid_id", parameters in
// name order, the last one varying fastest), so either tool can continue the other's grid.
#include "core/hpo/internal/samplers.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>
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

class GridSampler final : public Sampler {
public:
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
        const std::int64_t gridId = unvisited[rng.index(unvisited.size())];

        // Mixed-radix digits of gridId, last parameter fastest (itertools.product order).
        std::vector<std::size_t> digits(sorted.size());
        std::int64_t rest = gridId;
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
};

} // namespace

std::unique_ptr<Sampler> makeGridSampler()
{
    return std::make_unique<GridSampler>();
}

} // namespace pitwall::hpo_internal
