// After numpy/core/src/npysort/quicksort.cpp (aquicksort_) and heapsort.cpp (aheapsort_), numpy 1.24.
#include "core/hpo/internal/argsort.h"

#include <cmath>
#include <numeric>
#include <utility>

namespace pitwall::hpo_internal {

namespace {

constexpr std::ptrdiff_t kSmallQuicksort = 15; // partitions of at most 16 go to insertion sort

// numpy's ordering of doubles: NaN after everything.
bool less(double a, double b)
{
    return a < b || (std::isnan(b) && !std::isnan(a));
}

// aheapsort_ on order[first, first + count).
void heapsort(const std::vector<double>& v, std::size_t* first, std::ptrdiff_t count)
{
    auto a = [first](std::ptrdiff_t k) -> std::size_t& { return first[k - 1]; }; // 1-based, as numpy's
    // Moves `value` down from slot i of the heap a(1..n) to where it belongs.
    const auto siftDown = [&](std::ptrdiff_t i, std::ptrdiff_t n, std::size_t value) {
        for (std::ptrdiff_t j = i << 1; j <= n;) {
            if (j < n && less(v[a(j)], v[a(j + 1)]))
                j += 1;
            if (!less(v[value], v[a(j)]))
                break;
            a(i) = a(j);
            i = j;
            j += j;
        }
        a(i) = value;
    };
    for (std::ptrdiff_t l = count >> 1; l > 0; --l)
        siftDown(l, count, a(l));
    while (count > 1) {
        const std::size_t value = a(count);
        a(count) = a(1);
        count -= 1;
        siftDown(1, count, value);
    }
}

int mostSignificantBit(std::size_t n)
{
    int depth = 0;
    while (n >>= 1)
        ++depth;
    return depth;
}

} // namespace

std::vector<std::size_t> numpyArgsort(const std::vector<double>& v)
{
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    if (order.size() < 2)
        return order;

    std::size_t* pl = order.data();
    std::size_t* pr = order.data() + order.size() - 1;
    std::vector<std::size_t*> stack; // pairs (left, right) of partitions still to sort
    std::vector<int> depths;
    int depth = mostSignificantBit(order.size()) * 2;
    for (;;) {
        if (depth < 0) {
            heapsort(v, pl, pr - pl + 1);
        } else {
            while (pr - pl > kSmallQuicksort) {
                // Median of three, then partition around it.
                std::size_t* pm = pl + ((pr - pl) >> 1);
                if (less(v[*pm], v[*pl]))
                    std::swap(*pm, *pl);
                if (less(v[*pr], v[*pm]))
                    std::swap(*pr, *pm);
                if (less(v[*pm], v[*pl]))
                    std::swap(*pm, *pl);
                const double pivot = v[*pm];
                std::size_t* pi = pl;
                std::size_t* pj = pr - 1;
                std::swap(*pm, *pj);
                for (;;) {
                    do
                        ++pi;
                    while (less(v[*pi], pivot));
                    do
                        --pj;
                    while (less(pivot, v[*pj]));
                    if (pi >= pj)
                        break;
                    std::swap(*pi, *pj);
                }
                std::swap(*pi, *(pr - 1));
                // Continue with the smaller side, keep the larger for later.
                if (pi - pl < pr - pi) {
                    stack.push_back(pi + 1);
                    stack.push_back(pr);
                    pr = pi - 1;
                } else {
                    stack.push_back(pl);
                    stack.push_back(pi - 1);
                    pl = pi + 1;
                }
                depths.push_back(--depth);
            }
            // Insertion sort.
            for (std::size_t* pi = pl + 1; pi <= pr; ++pi) {
                const std::size_t vi = *pi;
                const double vp = v[vi];
                std::size_t* pj = pi;
                std::size_t* pk = pi - 1;
                while (pj > pl && less(vp, v[*pk]))
                    *pj-- = *pk--;
                *pj = vi;
            }
        }
        if (stack.empty())
            break;
        pr = stack.back();
        stack.pop_back();
        pl = stack.back();
        stack.pop_back();
        depth = depths.back();
        depths.pop_back();
    }
    return order;
}

} // namespace pitwall::hpo_internal
