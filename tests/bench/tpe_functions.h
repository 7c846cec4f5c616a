#pragma once
// Test functions of the TPE benchmark (bench_tpe.cpp); bench_tpe_optuna.py defines the same ones for
// Optuna. Each has a search space and a known minimum. Two sets: the tuning set (the first seven, which TPE's
// defaults were compared on) and the held-out set (heldOut = true; chosen before any measurement on them, never used
// to pick a default), which says whether a default chosen on the tuning set carries over.

#include "core/hpo/sampler.h"
#include "tests/core/hpo/hpotestutil.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace tpebench {

struct TestFunction {
    std::string name;
    std::vector<pitwall::ParamRequest> space;
    std::function<double(const std::vector<double>&)> value; // internal values in space order
    double minimum;
    bool heldOut = false;
};

using hpotest::floatRange;
using hpotest::intRange;

inline pitwall::Distribution logRange(double low, double high)
{
    return floatRange(low, high, true);
}

// n float parameters x0..x{n-1}, each in [low, high].
inline std::vector<pitwall::ParamRequest> box(int n, double low, double high)
{
    std::vector<pitwall::ParamRequest> out;
    for (int i = 0; i < n; ++i)
        out.push_back({"x" + std::to_string(i), floatRange(low, high)});
    return out;
}

std::vector<TestFunction> heldOutFunctions();

inline std::vector<TestFunction> testFunctions()
{
    constexpr double pi = 3.14159265358979323846;
    std::vector<TestFunction> out;
    out.push_back({"branin",
                   {{"x", floatRange(-5, 10)}, {"y", floatRange(0, 15)}},
                   [pi](const std::vector<double>& v) {
                       const double b = 5.1 / (4 * pi * pi), c = 5 / pi, t = 1 / (8 * pi);
                       const double y = v[1] - b * v[0] * v[0] + c * v[0] - 6;
                       return y * y + 10 * (1 - t) * std::cos(v[0]) + 10;
                   },
                   0.397887357729738});
    out.push_back({"hartmann3",
                   {{"x0", floatRange(0, 1)}, {"x1", floatRange(0, 1)}, {"x2", floatRange(0, 1)}},
                   [](const std::vector<double>& v) {
                       static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
                       static const double a[4][3] = {{3.0, 10, 30}, {0.1, 10, 35}, {3.0, 10, 30}, {0.1, 10, 35}};
                       static const double p[4][3] = {{0.3689, 0.1170, 0.2673},
                                                      {0.4699, 0.4387, 0.7470},
                                                      {0.1091, 0.8732, 0.5547},
                                                      {0.0381, 0.5743, 0.8828}};
                       double sum = 0.0;
                       for (int i = 0; i < 4; ++i) {
                           double inner = 0.0;
                           for (int j = 0; j < 3; ++j)
                               inner += a[i][j] * (v[j] - p[i][j]) * (v[j] - p[i][j]);
                           sum += alpha[i] * std::exp(-inner);
                       }
                       return -sum;
                   },
                   -3.86278214782076});
    out.push_back({"rosenbrock2",
                   {{"x", floatRange(-5, 10)}, {"y", floatRange(-5, 10)}},
                   [](const std::vector<double>& v) {
                       return (1 - v[0]) * (1 - v[0]) + 100 * (v[1] - v[0] * v[0]) * (v[1] - v[0] * v[0]);
                   },
                   0.0});
    out.push_back({"ackley2",
                   {{"x", floatRange(-32.768, 32.768)}, {"y", floatRange(-32.768, 32.768)}},
                   [pi](const std::vector<double>& v) {
                       return -20 * std::exp(-0.2 * std::sqrt(0.5 * (v[0] * v[0] + v[1] * v[1]))) -
                              std::exp(0.5 * (std::cos(2 * pi * v[0]) + std::cos(2 * pi * v[1]))) + std::exp(1.0) + 20;
                   },
                   0.0});
    out.push_back({"mixed",
                   {{"x", floatRange(-5, 5)}, {"n", intRange(0, 20)}, {"c", hpotest::choices({"a", "b", "c", "d"})}},
                   [](const std::vector<double>& v) {
                       static const double penalty[4] = {2.0, 0.0, 1.0, 3.0}; // by choice: a, b, c, d
                       return (v[0] - 1.5) * (v[0] - 1.5) + 0.5 * std::abs(v[1] - 7) + penalty[static_cast<int>(v[2])];
                   },
                   0.0});
    // Two higher-dimensional ones, where modelling the parameters jointly can matter.
    out.push_back({"hartmann6", box(6, 0, 1),
                   [](const std::vector<double>& v) {
                       static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
                       static const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                                      {0.05, 10, 17, 0.1, 8, 14},
                                                      {3, 3.5, 1.7, 10, 17, 8},
                                                      {17, 8, 0.05, 10, 0.1, 14}};
                       static const double p[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                                      {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                                      {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                                      {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
                       double sum = 0.0;
                       for (int i = 0; i < 4; ++i) {
                           double inner = 0.0;
                           for (int j = 0; j < 6; ++j)
                               inner += a[i][j] * (v[j] - p[i][j]) * (v[j] - p[i][j]);
                           sum -= alpha[i] * std::exp(-inner);
                       }
                       return sum;
                   },
                   -3.32236801141551});
    out.push_back({"styblinski4", box(4, -5, 5),
                   [](const std::vector<double>& v) {
                       double sum = 0.0;
                       for (double x : v)
                           sum += 0.5 * (x * x * x * x - 16 * x * x + 5 * x);
                       return sum;
                   },
                   -39.16616570377142 * 4});
    for (auto& f : heldOutFunctions())
        out.push_back(std::move(f));
    return out;
}

// The held-out set: other shapes (a valley with a saddle, a plateau of huge values, many regular local minima, steep
// narrow ridges, an ill-conditioned bowl) and a hyperparameter-like space with log-scale, stepped and categorical
// parameters.
inline std::vector<TestFunction> heldOutFunctions()
{
    constexpr double pi = 3.14159265358979323846;
    std::vector<TestFunction> out;
    out.push_back({"camel6",
                   {{"x", floatRange(-3, 3)}, {"y", floatRange(-2, 2)}},
                   [](const std::vector<double>& v) {
                       const double x = v[0], y = v[1];
                       return (4 - 2.1 * x * x + x * x * x * x / 3) * x * x + x * y + (-4 + 4 * y * y) * y * y;
                   },
                   -1.031628453489877, true});
    out.push_back({"goldstein",
                   {{"x", floatRange(-2, 2)}, {"y", floatRange(-2, 2)}},
                   [](const std::vector<double>& v) {
                       const double x = v[0], y = v[1];
                       const double a = 1 + (x + y + 1) * (x + y + 1) *
                                                (19 - 14 * x + 3 * x * x - 14 * y + 6 * x * y + 3 * y * y);
                       const double b = 30 + (2 * x - 3 * y) * (2 * x - 3 * y) *
                                                 (18 - 32 * x + 12 * x * x + 48 * y - 36 * x * y + 27 * y * y);
                       return a * b;
                   },
                   3.0, true});
    out.push_back({"levy4", box(4, -10, 10),
                   [pi](const std::vector<double>& v) {
                       const auto w = [&v](std::size_t i) { return 1 + (v[i] - 1) / 4; };
                       const auto sq = [](double a) { return a * a; };
                       double sum = sq(std::sin(pi * w(0)));
                       for (std::size_t i = 0; i + 1 < v.size(); ++i)
                           sum += sq(w(i) - 1) * (1 + 10 * sq(std::sin(pi * w(i) + 1)));
                       const double last = w(v.size() - 1);
                       return sum + sq(last - 1) * (1 + sq(std::sin(2 * pi * last)));
                   },
                   0.0, true});
    out.push_back({"rastrigin3", box(3, -5.12, 5.12),
                   [pi](const std::vector<double>& v) {
                       double sum = 10.0 * static_cast<double>(v.size());
                       for (double x : v)
                           sum += x * x - 10 * std::cos(2 * pi * x);
                       return sum;
                   },
                   0.0, true});
    out.push_back({"michalewicz2",
                   {{"x", floatRange(0, pi)}, {"y", floatRange(0, pi)}},
                   [](const std::vector<double>& v) {
                       double sum = 0.0;
                       for (std::size_t i = 0; i < v.size(); ++i)
                           sum -= std::sin(v[i]) *
                                  std::pow(std::sin(static_cast<double>(i + 1) * v[i] * v[i] / pi), 20);
                       return sum;
                   },
                   -1.8013034100985537, true});
    out.push_back({"ellipsoid5", box(5, -65.536, 65.536),
                   [](const std::vector<double>& v) {
                       double sum = 0.0, prefix = 0.0;
                       for (double x : v) {
                           prefix += x * x;
                           sum += prefix;
                       }
                       return sum;
                   },
                   0.0, true});
    out.push_back({"hparams",
                   {{"lr", logRange(1e-5, 1e-1)},
                    {"weight_decay", logRange(1e-6, 1e-2)},
                    {"layers", intRange(1, 8)},
                    {"width", intRange(32, 512, 32)},
                    {"activation", hpotest::choices({"relu", "gelu", "tanh"})},
                    {"dropout", floatRange(0, 0.5)}},
                   [](const std::vector<double>& v) {
                       static const double penalty[3] = {0.1, 0.0, 0.5}; // by choice: relu, gelu, tanh
                       const double lr = std::log10(v[0]) + 2.5, wd = std::log10(v[1]) + 4;
                       return lr * lr + 0.3 * wd * wd + 0.2 * std::abs(v[2] - 4) + std::abs(v[3] - 256) / 128 +
                              penalty[static_cast<int>(v[4])] + 2 * (v[5] - 0.1) * (v[5] - 0.1);
                   },
                   0.0, true});
    return out;
}

} // namespace tpebench
