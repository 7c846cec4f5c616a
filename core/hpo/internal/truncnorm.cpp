#include "core/hpo/internal/truncnorm.h"

#include <cfloat>
#include <cmath>
#include <limits>

namespace pitwall::hpo_internal {

namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178; // log(sqrt(2 pi))

double ndtr(double a)
{
    const double x = a / std::sqrt(2.0);
    if (x < -1.0 / std::sqrt(2.0))
        return 0.5 * std::erfc(-x);
    if (x < 1.0 / std::sqrt(2.0))
        return 0.5 + 0.5 * std::erf(x);
    return 1.0 - 0.5 * std::erfc(x);
}

// log(exp(p) - exp(q)) for p >= q.
double logDiff(double logP, double logQ)
{
    return logP + std::log1p(-std::exp(logQ - logP));
}

double logSum(double logP, double logQ)
{
    const double high = std::max(logP, logQ);
    if (high == -std::numeric_limits<double>::infinity())
        return high;
    return high + std::log1p(std::exp(std::min(logP, logQ) - high));
}

// The x with logNdtr(x) == y, by bisection over [-100, 100] as Optuna does.
double ndtriExp(double y)
{
    double low = -100.0, high = 100.0;
    for (int i = 0; i < 100; ++i) {
        const double middle = 0.5 * (low + high);
        if (middle == low || middle == high)
            break;
        if (logNdtr(middle) < y)
            low = middle;
        else
            high = middle;
    }
    return 0.5 * (low + high);
}

} // namespace

double logNdtr(double a)
{
    if (a > 6.0)
        return -ndtr(-a); // log(1 - x) ~ -x
    if (a > -20.0)
        return std::log(ndtr(a));
    // Asymptotic series of the left tail.
    const double logLhs = -0.5 * a * a - std::log(-a) - kLogSqrt2Pi;
    double lastTotal = 0.0, rightHandSide = 1.0, numerator = 1.0, denomFactor = 1.0;
    const double denomCons = 1.0 / (a * a);
    int sign = 1;
    for (int i = 1; std::abs(lastTotal - rightHandSide) > DBL_EPSILON && i < 1000; ++i) {
        lastTotal = rightHandSide;
        sign = -sign;
        denomFactor *= denomCons;
        numerator *= 2 * i - 1;
        rightHandSide += sign * numerator * denomFactor;
    }
    return logLhs + std::log(rightHandSide);
}

double logGaussMass(double a, double b)
{
    if (b <= 0.0)
        return logDiff(logNdtr(b), logNdtr(a));
    if (a > 0.0)
        return logDiff(logNdtr(-a), logNdtr(-b));
    return std::log1p(-ndtr(a) - ndtr(-b));
}

double truncnormPpf(double q, double a, double b)
{
    if (a == b)
        return std::numeric_limits<double>::quiet_NaN();
    if (q <= 0.0)
        return a;
    if (q >= 1.0)
        return b;
    if (a < 0.0)
        return ndtriExp(logSum(logNdtr(a), std::log(q) + logGaussMass(a, b)));
    return -ndtriExp(logSum(logNdtr(-b), std::log1p(-q) + logGaussMass(a, b)));
}

} // namespace pitwall::hpo_internal
