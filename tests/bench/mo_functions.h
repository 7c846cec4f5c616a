#pragma once
// Test functions of the multi-objective benchmark (bench_mo.cpp); bench_mo_optuna.py defines the same ones for
// Optuna. Every objective is minimised and every parameter x0..x(n-1) lies in [0, 1]. Each function has a fixed
// reference point and the hypervolume of its true Pareto front against it, computed analytically.

#include "core/hpo/sampler.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace mobench {

struct TestFunction {
    std::string name;
    int parameters = 0;
    std::function<std::vector<double>(const std::vector<double>&)> values; // objective values of x0..x(n-1)
    std::vector<double> reference;
    double frontHypervolume = 0.0; // the most any set of trials can reach
};

inline std::vector<pitwall::ParamRequest> space(const TestFunction& function)
{
    std::vector<pitwall::ParamRequest> out;
    for (int i = 0; i < function.parameters; ++i) {
        pitwall::Distribution d;
        d.low = 0.0;
        d.high = 1.0;
        out.push_back({"x" + std::to_string(i), d});
    }
    return out;
}

inline std::vector<TestFunction> testFunctions()
{
    constexpr double pi = 3.14159265358979323846;
    // ZDT1/ZDT2 (Zitzler, Deb & Thiele 2000) with 3 parameters: g = 1 + 4.5 (x1 + x2), f1 = x0, f2 = g (1 - h(f1 / g))
    // with h = sqrt (convex front f2 = 1 - sqrt f1) or h = square (concave front f2 = 1 - f1^2), both for g = 1.
    auto zdt = [](bool convex) {
        return [convex](const std::vector<double>& x) {
            const double g = 1.0 + 9.0 * (x[1] + x[2]) / 2.0;
            const double ratio = x[0] / g;
            return std::vector<double>{x[0], g * (1.0 - (convex ? std::sqrt(ratio) : ratio * ratio))};
        };
    };
    std::vector<TestFunction> out;
    // The reference (1.1, 2.0) lets a trial with g up to about 2 count, so 100 trials show progress (against the
    // usual (1.1, 1.1) most seeds have nothing after 100). Front hypervolume: the strip f1 in [1, 1.1] (0.1 * 2.0)
    // plus the integral over [0, 1] of 2.0 - front(f1).
    out.push_back({"zdt1", 3, zdt(true), {1.1, 2.0}, 0.2 + 1.0 + 2.0 / 3.0});
    out.push_back({"zdt2", 3, zdt(false), {1.1, 2.0}, 0.2 + 1.0 + 1.0 / 3.0});
    // DTLZ2 (Deb, Thiele, Laumanns & Zitzler 2002) with 3 objectives and 4 parameters: g = sum over x2, x3 of
    // (xi - 0.5)^2; the front is the unit sphere's positive octant, so against (1.1, 1.1, 1.1) its hypervolume is the
    // box less the octant of the ball: 1.331 - pi / 6.
    out.push_back({"dtlz2",
                   4,
                   [pi](const std::vector<double>& x) {
                       const double g = (x[2] - 0.5) * (x[2] - 0.5) + (x[3] - 0.5) * (x[3] - 0.5);
                       const double a = x[0] * pi / 2, b = x[1] * pi / 2;
                       return std::vector<double>{(1 + g) * std::cos(a) * std::cos(b),
                                                  (1 + g) * std::cos(a) * std::sin(b), (1 + g) * std::sin(a)};
                   },
                   {1.1, 1.1, 1.1},
                   1.331 - pi / 6.0});
    return out;
}

} // namespace mobench
