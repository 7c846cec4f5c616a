#pragma once
// The truncated standard normal distribution as Optuna 3.1's TPE uses it (optuna/samplers/_tpe/
// _truncnorm.py): log-space CDF differences so that far tails stay accurate. a and b are the truncation
// bounds in standard units ((bound - mean) / sigma). Internal to core/hpo.

namespace pitwall::hpo_internal {

// log Phi(a), accurate far into the left tail.
double logNdtr(double a);
// log (Phi(b) - Phi(a)) for a <= b.
double logGaussMass(double a, double b);
// The q-quantile (q in [0, 1]) of the standard normal truncated to [a, b].
double truncnormPpf(double q, double a, double b);

} // namespace pitwall::hpo_internal
