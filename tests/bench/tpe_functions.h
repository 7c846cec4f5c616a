#pragma once
// Test functions of the TPE benchmark (bench_tpe.cpp); bench_tpe_optuna.py defines the same ones for
// Optuna. Each has a search space and a known minimum.

#include "core/hpo/sampler.h"

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
};

inline pitwall::Distribution floatRange(double low, double high)
{
    pitwall::Distribution d;
    d.low = low;
    d.high = high;
    return d;
}

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
    pitwall::Distribution n;
    n.kind = pitwall::Distribution::Kind::Int;
    n.low = 0;
    n.high = 20;
    n.step = 1;
    pitwall::Distribution c;
    c.kind = pitwall::Distribution::Kind::Categorical;
    c.choices = {"a", "b", "c", "d"};
    out.push_back({"mixed",
                   {{"x", floatRange(-5, 5)}, {"n", n}, {"c", c}},
                   [](const std::vector<double>& v) {
                       static const double penalty[4] = {2.0, 0.0, 1.0, 3.0}; // by choice: a, b, c, d
                       return (v[0] - 1.5) * (v[0] - 1.5) + 0.5 * std::abs(v[1] - 7) + penalty[static_cast<int>(v[2])];
                   },
                   0.0});
    // Two higher-dimensional ones, where modelling the parameters jointly can matter.
    std::vector<pitwall::ParamRequest> six;
    for (int i = 0; i < 6; ++i)
        six.push_back({"x" + std::to_string(i), floatRange(0, 1)});
    out.push_back({"hartmann6", six,
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
    std::vector<pitwall::ParamRequest> four;
    for (int i = 0; i < 4; ++i)
        four.push_back({"x" + std::to_string(i), floatRange(-5, 5)});
    out.push_back({"styblinski4", four,
                   [](const std::vector<double>& v) {
                       double sum = 0.0;
                       for (double x : v)
                           sum += 0.5 * (x * x * x * x - 16 * x * x + 5 * x);
                       return sum;
                   },
                   -39.16616570377142 * 4});
    return out;
}

} // namespace tpebench
