#pragma once
// numpy.argsort(values) with its default kind ("quicksort": numpy 1.24's introsort on doubles). The order of
// equal values is not stable but deterministic, and TPE's bandwidths depend on it when observations tie
// (integers, steps, repeated values), so Optuna's estimator is reproduced only with numpy's exact order.
// Internal to core/hpo.

#include <cstddef>
#include <vector>

namespace pitwall::hpo_internal {

// Indices that sort `values` ascending (NaN last), in numpy's default order for ties.
std::vector<std::size_t> numpyArgsort(const std::vector<double>& values);

} // namespace pitwall::hpo_internal
