// TPE against Optuna 3.1's TPE (Debian's python3-optuna), side by side in one run: the mean best value per
// test function after 50 and 100 trials over several seeds, and the time per trial with the study stored
// in SQLite (Pitwall through its store, ask/tell; Optuna with sqlite:/// storage, study.optimize).
//
//   bench_tpe [--seeds 10] [--trials 100] [--optuna-seeds N] [--functions branin,mixed] [--no-optuna]
//             [--folder DIR]
//
// The 50-trial figures are the first 50 trials of the 100-trial runs (TPE does not look at the budget).
// Both tools keep their study files in the same folder (default: the temp folder; e.g. /dev/shm to leave
// out the disk's sync cost, which dominates Optuna's time per trial on a disk).
#include "bench_common.h"
#include "tpe_functions.h"

#include "core/hpo/study.h"
#include "core/store/store.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>

using namespace pitwall;
using benchcommon::fixed;
using benchcommon::summarize;
using benchcommon::Summary;

namespace {

struct Runs {
    std::vector<std::vector<double>> best; // per seed: best value after trial 1..N
    std::vector<double> seconds;           // per seed: the whole loop
};

Runs runPitwall(const tpebench::TestFunction& function, int seeds, int trials, const std::filesystem::path& folder)
{
    Runs runs;
    for (int seed = 0; seed < seeds; ++seed) {
        const auto file = folder / (function.name + "-" + std::to_string(seed) + ".db");
        const auto store = openStore(file.string());
        StudyOptions options;
        options.sampler.seed = static_cast<std::uint64_t>(seed);
        Study study = Study::create(*store, function.name, options);
        std::vector<double> curve;
        double best = std::numeric_limits<double>::infinity();
        const auto start = std::chrono::steady_clock::now();
        for (int t = 0; t < trials; ++t) {
            const AskedTrial asked = study.ask(function.space);
            std::vector<double> values;
            for (const TrialParam& p : asked.trial.params)
                values.push_back(p.internalValue);
            const double value = function.value(values);
            study.tell(asked.trial.number, TrialState::Complete, value);
            best = std::min(best, value);
            curve.push_back(best);
        }
        runs.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        runs.best.push_back(curve);
    }
    return runs;
}

std::map<std::string, Runs> runOptuna(const std::string& functions, int seeds, int trials, const std::string& folder,
                                      std::string& problem)
{
    const std::string command = "/usr/bin/python3 '" + benchcommon::besideExecutable("bench_tpe_optuna.py").string() +
                                "' --seeds " + std::to_string(seeds) + " --trials " + std::to_string(trials) +
                                " --functions " + functions + " --folder '" + folder + "'";
    std::map<std::string, Runs> out;
    std::string text;
    if (!benchcommon::commandOutput(command, text, problem))
        return out;
    const auto json = nlohmann::json::parse(text);
    for (auto it = json.begin(); it != json.end(); ++it)
        out[it.key()] = {it.value()["best"].get<std::vector<std::vector<double>>>(),
                         it.value()["seconds"].get<std::vector<double>>()};
    return out;
}

std::vector<double> bestAt(const Runs& runs, int trials)
{
    std::vector<double> out;
    for (const auto& curve : runs.best)
        out.push_back(curve.at(static_cast<std::size_t>(trials - 1)));
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    int seeds = 10, trials = 100, optunaSeeds = -1;
    bool optuna = true;
    std::string functionList;
    std::filesystem::path base = std::filesystem::temp_directory_path();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (arg == "--seeds")
            seeds = std::stoi(next());
        else if (arg == "--trials")
            trials = std::stoi(next());
        else if (arg == "--optuna-seeds")
            optunaSeeds = std::stoi(next());
        else if (arg == "--functions")
            functionList = next();
        else if (arg == "--no-optuna")
            optuna = false;
        else if (arg == "--folder")
            base = next();
        else {
            std::cerr << "usage: bench_tpe [--seeds N] [--trials N] [--optuna-seeds N] [--functions a,b] [--no-optuna] "
                         "[--folder DIR]\n";
            return 2;
        }
    }
    if (optunaSeeds < 0)
        optunaSeeds = seeds;
    std::vector<tpebench::TestFunction> functions;
    std::vector<std::string> names;
    for (auto& f : tpebench::testFunctions())
        if (functionList.empty() || ("," + functionList + ",").find("," + f.name + ",") != std::string::npos) {
            names.push_back(f.name);
            functions.push_back(std::move(f));
        }
    const auto folder = base / ("pitwall-bench-tpe-" + std::to_string(getpid()));
    std::filesystem::create_directories(folder);

    std::map<std::string, Runs> mine;
    for (const auto& f : functions) {
        std::fprintf(stderr, "pitwall: %s ...\n", f.name.c_str());
        mine[f.name] = runPitwall(f, seeds, trials, folder);
    }
    std::filesystem::remove_all(folder);
    std::string problem;
    std::map<std::string, Runs> theirs;
    if (optuna) {
        std::fprintf(stderr, "optuna: %s ...\n", join(names, ",").c_str());
        theirs = runOptuna(join(names, ","), optunaSeeds, trials, base.string(), problem);
        if (!problem.empty())
            std::fprintf(stderr, "optuna side skipped: %s\n", problem.c_str());
    }

    std::printf("TPE, %d seeds (Optuna: %d), best value after N trials (mean ± sd); regret = best - known minimum;\n"
                "time per trial = ask + evaluate + tell with the study in SQLite in %s, over the %d-trial runs\n\n",
                seeds, optunaSeeds, base.string().c_str(), trials);
    std::printf("%-12s %6s  %-22s %-22s %12s  %14s %14s %9s\n", "function", "trials", "pitwall best", "optuna best",
                "regret ratio", "pitwall ms/tr", "optuna ms/tr", "speed-up");
    for (const auto& f : functions) {
        const Runs& p = mine[f.name];
        const bool haveOptuna = theirs.count(f.name) != 0;
        const double pitwallMs = summarize(p.seconds).mean * 1000.0 / trials;
        const double optunaMs = haveOptuna ? summarize(theirs[f.name].seconds).mean * 1000.0 / trials : 0.0;
        for (int n : {std::min(50, trials), trials}) {
            const Summary a = summarize(bestAt(p, n));
            std::string b = "-", ratio = "-", speed = "-", optunaTime = "-";
            if (haveOptuna) {
                const Summary o = summarize(bestAt(theirs[f.name], n));
                b = fixed(o.mean, 4) + " ± " + fixed(o.sd, 4);
                const double regretOptuna = o.mean - f.minimum;
                ratio = regretOptuna > 0 ? fixed((a.mean - f.minimum) / regretOptuna, 2) : "-";
                optunaTime = fixed(optunaMs, 2);
                speed = fixed(optunaMs / pitwallMs, 1) + "x";
            }
            std::printf("%-12s %6d  %-22s %-22s %12s  %14s %14s %9s\n", f.name.c_str(), n,
                        (fixed(a.mean, 4) + " ± " + fixed(a.sd, 4)).c_str(), b.c_str(), ratio.c_str(),
                        fixed(pitwallMs, 2).c_str(), optunaTime.c_str(), speed.c_str());
        }
    }
    std::printf("\nregret ratio < 1: Pitwall's mean best is closer to the minimum than Optuna's; speed-up = Optuna's "
                "time per trial / Pitwall's\n");
    return problem.empty() ? 0 : 1;
}
