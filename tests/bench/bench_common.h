#pragma once
// What the benchmarks that run a reference beside them share: mean ± sample sd, fixed-point text, and the output of
// a helper script run beside the executable (the build copies it there, so no source path is compiled in).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace benchcommon {

struct Summary {
    double mean = 0.0, sd = 0.0; // sd: the sample standard deviation (0 for one value)
};

inline Summary summarize(const std::vector<double>& values)
{
    Summary s;
    for (double v : values)
        s.mean += v / static_cast<double>(values.size());
    for (double v : values)
        s.sd += (v - s.mean) * (v - s.mean) / std::max<double>(1.0, static_cast<double>(values.size()) - 1);
    s.sd = std::sqrt(s.sd);
    return s;
}

inline std::string fixed(double value, int digits)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// A file beside this executable (build/bench/).
inline std::filesystem::path besideExecutable(const std::string& name)
{
    return std::filesystem::read_symlink("/proc/self/exe").parent_path() / name;
}

// Runs `command` through the shell and returns what it printed on stdout; false with `problem` set when it could
// not start or exited with a status other than 0.
inline bool commandOutput(const std::string& command, std::string& text, std::string& problem)
{
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
        problem = "cannot start " + command;
        return false;
    }
    char buffer[65536];
    std::size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
        text.append(buffer, n);
    const int status = pclose(pipe);
    if (status != 0) {
        problem = "`" + command + "` failed (status " + std::to_string(status) + ")";
        return false;
    }
    return true;
}

// The newest Optuna's interpreter: `given` when not empty, else the checkout's .venv-optuna, installed by
// packaging/install-optuna.sh if missing. The build writes the checkout's path beside the benchmarks
// (checkout.source), so none is compiled in. Empty with `problem` set when there is none.
inline std::string newestOptunaPython(const std::string& given, std::string& problem)
{
    if (!given.empty())
        return given;
    std::ifstream sourceFile(besideExecutable("checkout.source"));
    std::string checkout;
    std::getline(sourceFile, checkout);
    const std::string python = checkout + "/.venv-optuna/bin/python";
    if (!std::filesystem::exists(python)) {
        const std::string install = "bash '" + checkout + "/packaging/install-optuna.sh' >&2";
        std::fprintf(stderr, "%s is missing; running %s\n", python.c_str(), install.c_str());
        if (std::system(install.c_str()) != 0 || !std::filesystem::exists(python)) {
            problem = "no newest Optuna: `" + install + "` failed";
            return {};
        }
    }
    return python;
}

} // namespace benchcommon
