#include "core/hpo/hypervolume.h"

#include "core/store/pareto.h"

#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <string>

namespace pitwall {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Points with the same number of objectives, stored one after another.
struct PointSet {
    std::size_t dims = 0;
    std::vector<double> values;

    std::size_t size() const { return values.size() / dims; }
    const double* point(std::size_t i) const { return values.data() + i * dims; }
    void add(const double* p) { values.insert(values.end(), p, p + dims); }
};

bool weaklyDominates(const double* a, const double* b, std::size_t dims)
{
    for (std::size_t k = 0; k < dims; ++k) {
        if (a[k] > b[k])
            return false;
    }
    return true;
}

double boxVolume(const double* p, const double* reference, std::size_t dims)
{
    double volume = 1.0;
    for (std::size_t k = 0; k < dims; ++k)
        volume *= reference[k] - p[k];
    return volume;
}

// Indices of the set's points in the order `less` gives.
template <typename Less> std::vector<std::size_t> sortedIndices(const PointSet& set, Less less)
{
    std::vector<std::size_t> order(set.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return less(set.point(a), set.point(b)); });
    return order;
}

// The points that no other point weakly dominates, keeping one copy of each duplicate. A point can only be
// weakly dominated by one that sorts before it lexicographically, so after sorting each point is compared only
// with the points kept so far: O(n log n + n k d) for k kept.
PointSet nondominated(const PointSet& set)
{
    const std::size_t dims = set.dims;
    const auto order = sortedIndices(set, [dims](const double* a, const double* b) {
        return std::lexicographical_compare(a, a + dims, b, b + dims);
    });
    PointSet kept{dims, {}};
    for (std::size_t i : order) {
        const double* p = set.point(i);
        bool dominated = false;
        for (std::size_t j = 0; j < kept.size() && !dominated; ++j)
            dominated = weaklyDominates(kept.point(j), p, dims);
        if (!dominated)
            kept.add(p);
    }
    return kept;
}

double volume(const PointSet& set, const double* reference);

// 2 objectives: by increasing first objective, each point that lowers the best second objective so far adds
// the strip between its second objective and the previous best.
double sweep2d(const PointSet& set, const double* reference)
{
    const auto order = sortedIndices(
        set, [](const double* a, const double* b) { return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]); });
    double area = 0.0;
    double top = reference[1];
    for (std::size_t i : order) {
        const double* p = set.point(i);
        if (p[1] < top) {
            area += (reference[0] - p[0]) * (top - p[1]);
            top = p[1];
        }
    }
    return area;
}

// Adds (x, y) to a 2-D front (x -> y, y falling as x rises) and returns the area this adds to the region the
// front dominates below (reference[0], reference[1]). Points the new one weakly dominates leave the front.
double addToFront(std::map<double, double>& front, double x, double y, const double* reference)
{
    const auto atOrLeft = front.upper_bound(x);
    if (atOrLeft != front.begin() && std::prev(atOrLeft)->second <= y)
        return 0.0;
    auto it = front.lower_bound(x);
    double top = it == front.begin() ? reference[1] : std::prev(it)->second; // the staircase's height at x
    double left = x;
    double added = 0.0;
    while (it != front.end() && it->second >= y) {
        added += (top - y) * (it->first - left);
        left = it->first;
        top = it->second;
        it = front.erase(it);
    }
    const double right = it == front.end() ? reference[0] : it->first;
    added += (top - y) * (right - left);
    front.emplace_hint(it, x, y);
    return added;
}

// 3 objectives: by increasing third objective, the 2-D front of the points seen so far and the area it
// dominates are updated point by point; each slab between two consecutive third objectives adds that area
// times its thickness.
double sweep3d(const PointSet& set, const double* reference)
{
    const auto order = sortedIndices(set, [](const double* a, const double* b) { return a[2] < b[2]; });
    std::map<double, double> front;
    double area = 0.0;
    double total = 0.0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const double* p = set.point(order[i]);
        area += addToFront(front, p[0], p[1], reference);
        const double nextZ = i + 1 < order.size() ? set.point(order[i + 1])[2] : reference[2];
        total += area * (nextZ - p[2]);
    }
    return total;
}

// WFG for a non-dominated set: the sum over the points, worst last objective first, of each point's volume
// exclusive of the points after it. Those all have a last objective no worse than this point's, so the limit
// set (the later points clipped to this point's box) lies in one slice of the last objective and its volume
// is the slice's thickness times a hypervolume in one objective fewer.
double wfg(const PointSet& set, const double* reference)
{
    const std::size_t last = set.dims - 1;
    const auto order = sortedIndices(set, [last](const double* a, const double* b) { return a[last] > b[last]; });
    PointSet limit{last, {}};
    std::vector<double> clipped(last);
    double total = 0.0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const double* p = set.point(order[i]);
        limit.values.clear();
        for (std::size_t j = i + 1; j < order.size(); ++j) {
            const double* q = set.point(order[j]);
            for (std::size_t k = 0; k < last; ++k)
                clipped[k] = std::max(p[k], q[k]);
            limit.add(clipped.data());
        }
        const double slice = boxVolume(p, reference, last) - volume(nondominated(limit), reference);
        total += (reference[last] - p[last]) * slice;
    }
    return total;
}

// Hypervolume of finite points strictly below the reference; WFG needs them non-dominated.
double volume(const PointSet& set, const double* reference)
{
    if (set.size() == 0)
        return 0.0;
    if (set.size() == 1)
        return boxVolume(set.point(0), reference, set.dims);
    switch (set.dims) {
    case 1:
        return reference[0] - *std::min_element(set.values.begin(), set.values.end());
    case 2:
        return sweep2d(set, reference);
    case 3:
        return sweep3d(set, reference);
    default:
        return wfg(set, reference);
    }
}

// The validated input: the points strictly below the reference in every objective, and where they came from.
struct Contributing {
    PointSet set;
    std::vector<std::size_t> source; // index in the caller's points of each point in `set`
    bool unbounded = false;          // some point in `set` has -inf in an objective
};

bool hasMinusInfinity(const double* p, std::size_t dims)
{
    return std::any_of(p, p + dims, [](double v) { return v == -kInfinity; });
}

Contributing validate(std::span<const std::vector<double>> points, std::span<const double> reference)
{
    if (reference.empty())
        throw InputError("hypervolume: the reference point is empty");
    if (!std::all_of(reference.begin(), reference.end(), [](double v) { return std::isfinite(v); }))
        throw InputError("hypervolume: the reference point has a non-finite value");
    const std::size_t dims = reference.size();
    Contributing out{{dims, {}}, {}, false};
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (p.size() != dims)
            throw InputError("hypervolume: point " + std::to_string(i) + " has " + std::to_string(p.size()) +
                             " values, the reference has " + std::to_string(dims));
        if (std::any_of(p.begin(), p.end(), [](double v) { return std::isnan(v); }))
            throw InputError("hypervolume: point " + std::to_string(i) + " has a NaN value");
        bool below = true;
        for (std::size_t k = 0; k < dims && below; ++k)
            below = p[k] < reference[k];
        if (!below)
            continue;
        out.set.add(p.data());
        out.source.push_back(i);
        out.unbounded = out.unbounded || hasMinusInfinity(p.data(), dims);
    }
    return out;
}

} // namespace

double hypervolume(std::span<const std::vector<double>> points, std::span<const double> reference)
{
    const Contributing input = validate(points, reference);
    if (input.unbounded)
        return kInfinity;
    return volume(nondominated(input.set), reference.data());
}

std::vector<double> hypervolumeContributions(std::span<const std::vector<double>> points,
                                             std::span<const double> reference)
{
    const Contributing input = validate(points, reference);
    const PointSet& set = input.set;
    const std::size_t dims = set.dims;
    std::vector<double> contributions(points.size(), 0.0);
    PointSet limit{dims, {}};
    std::vector<double> clipped(dims);
    for (std::size_t a = 0; a < set.size(); ++a) {
        const double* p = set.point(a);
        bool dominated = false;
        for (std::size_t b = 0; b < set.size() && !dominated; ++b)
            dominated = b != a && weaklyDominates(set.point(b), p, dims);
        if (dominated)
            continue;
        // A non-dominated point with -inf keeps an unbounded part of its box that no other point covers.
        if (hasMinusInfinity(p, dims)) {
            contributions[input.source[a]] = kInfinity;
            continue;
        }
        limit.values.clear();
        for (std::size_t b = 0; b < set.size(); ++b) {
            if (b == a)
                continue;
            const double* q = set.point(b);
            for (std::size_t k = 0; k < dims; ++k)
                clipped[k] = std::max(p[k], q[k]);
            limit.add(clipped.data());
        }
        const double exclusive = boxVolume(p, reference.data(), dims) - volume(nondominated(limit), reference.data());
        contributions[input.source[a]] = std::max(0.0, exclusive); // never negative but for rounding
    }
    return contributions;
}

std::vector<std::pair<int, double>> hypervolumeHistory(std::span<const TrialRecord> trials,
                                                       std::span<const StudyDirection> directions,
                                                       std::span<const double> reference)
{
    if (reference.size() != directions.size())
        throw InputError("the hypervolume reference has " + std::to_string(reference.size()) +
                         " value(s); the study has " + std::to_string(directions.size()) + " objective(s)");
    for (double r : reference)
        if (!std::isfinite(r))
            throw InputError("the hypervolume reference must be finite numbers");
    const std::vector<double> minimisedReference = minimisedValues(reference, directions);
    std::vector<const TrialRecord*> counted;
    for (const TrialRecord& t : trials)
        if (countsForFront(t, directions.size()) && isFeasible(t))
            counted.push_back(&t);
    std::sort(counted.begin(), counted.end(),
              [](const TrialRecord* a, const TrialRecord* b) { return a->number < b->number; });
    const std::vector<StudyDirection> minimise(directions.size(), StudyDirection::Minimize);
    std::vector<std::vector<double>> front;
    std::vector<std::pair<int, double>> history;
    double current = 0.0;
    for (const TrialRecord* t : counted) {
        std::vector<double> point = minimisedValues(t->values, directions);
        const bool dominated = std::any_of(front.begin(), front.end(), [&](const std::vector<double>& f) {
            return f == point || dominates(f, point, minimise);
        });
        if (!dominated) {
            std::erase_if(front, [&](const std::vector<double>& f) { return dominates(point, f, minimise); });
            front.push_back(std::move(point));
            current = hypervolume(front, minimisedReference);
        }
        history.emplace_back(t->number, current);
    }
    return history;
}

std::vector<double> defaultReference(std::span<const TrialRecord> trials, std::span<const StudyDirection> directions)
{
    const std::size_t dims = directions.size();
    std::vector<double> worst(dims, -std::numeric_limits<double>::infinity());
    std::vector<double> best(dims, std::numeric_limits<double>::infinity());
    bool any = false;
    for (const TrialRecord& t : trials) {
        if (!countsForFront(t, dims) || !isFeasible(t))
            continue;
        const std::vector<double> point = minimisedValues(t.values, directions);
        if (std::any_of(point.begin(), point.end(), [](double v) { return !std::isfinite(v); }))
            continue;
        any = true;
        for (std::size_t d = 0; d < dims; ++d) {
            worst[d] = std::max(worst[d], point[d]);
            best[d] = std::min(best[d], point[d]);
        }
    }
    if (!any)
        return {};
    std::vector<double> minimisedReference(dims);
    for (std::size_t d = 0; d < dims; ++d) {
        double margin = 0.1 * (worst[d] - best[d]);
        if (!(margin > 0))
            margin = worst[d] != 0 ? 0.1 * std::abs(worst[d]) : 1.0;
        minimisedReference[d] = worst[d] + margin;
    }
    return minimisedValues(minimisedReference, directions); // negating back is the same flip
}

} // namespace pitwall
