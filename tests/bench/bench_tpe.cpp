// Single-objective TPE against the newest Optuna's (5.x, .venv-optuna from packaging/install-optuna.sh) and Optuna
// 3.1's (Debian's python3-optuna), side by side in one run, each with the defaults its user gets: the mean best
// value per test function after 50 and 100 trials over several seeds, and how much of Optuna's gain over random
// search Pitwall keeps. Pitwall runs in process through Study (the sampler `pitwall hpo` and `study ask` use):
// its TPE with new studies' defaults (--tpe-version 5), its TPE as Optuna 3.1 (--tpe-version 3.1), and its random
// search, the baseline of the gains. Optuna runs through bench_tpe_optuna.py (study.optimize, sqlite:/// storage).
//
//   bench_tpe [--seeds 10] [--trials 100] [--optuna-seeds N] [--functions branin,mixed] [--set tuning|held-out|all]
//             [--variant LABEL=JSON]... [--optuna-results FILE] [--no-optuna] [--no-optuna31] [--no-pitwall31]
//             [--optuna-in-memory] [--dump FILE] [--folder DIR] [--optuna-python PATH]
//
// --set picks the tuning functions (the seven TPE's defaults were compared on), the held-out ones (never used to
// pick a default; tpe_functions.h) or both (default). --variant adds a Pitwall TPE whose sampler settings are the
// defaults patched with JSON, in the keys a study stores ('cand128={"n_ei_candidates": 128}'), to the kept table.
// --optuna-results FILE keeps the newest Optuna's runs: functions found there (same seeds and trials) are read, the
// others run and are added, so variants can be compared again without rerunning Optuna. --optuna-in-memory runs
// Optuna's studies in memory instead of SQLite: the same trials (both sides are seeded), about 20 times faster, but
// its time per trial then leaves out storage. --no-pitwall31 leaves out Pitwall's TPE as 3.1. --dump FILE writes
// each tool's best value per seed after the last trial as JSON ({function: {tool: [...]}}).
//
// kept share = (random's mean best - Pitwall's) / (random's mean best - Optuna's): 1.0 keeps all of Optuna's gain,
// more is better than Optuna. The 50-trial figures are the first 50 trials of the 100-trial runs (TPE does not look
// at the budget). Every tool keeps its study files in the same folder (default: the temp folder; e.g. /dev/shm to
// leave out the disk's sync cost, which dominates Optuna's time per trial on a disk).
#include "bench_common.h"
#include "tpe_functions.h"

#include "core/hpo/study.h"
#include "core/store/store.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>

using namespace pitwall;
using benchcommon::fixed;
using benchcommon::summarize;
using benchcommon::Summary;

namespace {

struct Runs {
    std::vector<std::vector<double>> best; // per seed: best value after trial 1..N
    std::vector<double> seconds;           // per seed: the whole loop
};

Runs runPitwall(const tpebench::TestFunction& function, const SamplerSettings& sampler, int seeds, int trials,
              const std::filesystem::path& folder)
{
    Runs runs;
    for (int seed = 0; seed < seeds; ++seed) {
        const auto file = folder / (function.name + "-" + std::to_string(seed) + ".db");
        std::filesystem::remove(file);
        const auto store = openStore(file.string());
        StudyOptions options;
        options.sampler = sampler;
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

std::map<std::string, Runs> runOptuna(const std::string& python, const std::string& functions, int seeds, int trials,
                                      const std::string& folder, bool inMemory, std::string& problem)
{
    const std::string command = "'" + python + "' '" + benchcommon::besideExecutable("bench_tpe_optuna.py").string() +
                                "' --seeds " + std::to_string(seeds) + " --trials " + std::to_string(trials) +
                                " --functions " + functions + " --folder '" + folder + "'" +
                                (inMemory ? " --in-memory" : "");
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

// The newest Optuna's runs read from `file` for the functions it holds with the same seeds and trials.
std::map<std::string, Runs> readOptunaResults(const std::filesystem::path& file, int seeds, int trials)
{
    std::map<std::string, Runs> out;
    std::ifstream in(file);
    if (!in)
        return out;
    const auto json = nlohmann::json::parse(in);
    if (json.value("seeds", -1) != seeds || json.value("trials", -1) != trials) {
        std::fprintf(stderr, "%s holds runs with other seeds or trials; not read\n", file.string().c_str());
        return out;
    }
    for (auto it = json["functions"].begin(); it != json["functions"].end(); ++it)
        out[it.key()] = {it.value()["best"].get<std::vector<std::vector<double>>>(),
                         it.value()["seconds"].get<std::vector<double>>()};
    return out;
}

void writeOptunaResults(const std::filesystem::path& file, const std::map<std::string, Runs>& runs, int seeds,
                        int trials)
{
    nlohmann::json json = {{"seeds", seeds}, {"trials", trials}, {"functions", nlohmann::json::object()}};
    for (const auto& [name, r] : runs)
        json["functions"][name] = {{"best", r.best}, {"seconds", r.seconds}};
    const auto temporary = file.string() + ".part";
    std::ofstream(temporary) << json.dump();
    std::filesystem::rename(temporary, file);
}

struct Variant {
    std::string label;
    SamplerSettings settings;
};

// LABEL=JSON: the default sampler settings patched with JSON.
Variant parseVariant(const std::string& text)
{
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0)
        throw std::runtime_error("--variant wants LABEL=JSON, got '" + text + "'");
    Json patched = SamplerSettings().toJson();
    patched.merge_patch(Json::parse(text.substr(equals + 1)));
    return {text.substr(0, equals), SamplerSettings::fromJson(patched)};
}

std::vector<double> bestAt(const Runs& runs, int trials)
{
    std::vector<double> out;
    for (const auto& curve : runs.best)
        out.push_back(curve.at(static_cast<std::size_t>(trials - 1)));
    return out;
}

// The 5 % and 95 % points of kept = (random - x) / (random - reference) of the mean bests after `trials`, with each
// tool's seeds resampled with replacement (2,000 draws): how far the kept share could move with other seeds.
std::pair<double, double> keptInterval(const Runs& random, const Runs& x, const Runs& reference, int trials)
{
    const std::vector<double> r = bestAt(random, trials), a = bestAt(x, trials), o = bestAt(reference, trials);
    std::mt19937_64 rng(12345);
    const auto resampledMean = [&rng](const std::vector<double>& v) {
        std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
        double sum = 0.0;
        for (std::size_t i = 0; i < v.size(); ++i)
            sum += v[pick(rng)];
        return sum / static_cast<double>(v.size());
    };
    std::vector<double> kept;
    for (int draw = 0; draw < 2000; ++draw) {
        const double rm = resampledMean(r), am = resampledMean(a), om = resampledMean(o);
        if (rm - om > 0)
            kept.push_back((rm - am) / (rm - om));
    }
    if (kept.size() < 100)
        return {std::nan(""), std::nan("")};
    std::sort(kept.begin(), kept.end());
    return {kept[kept.size() * 5 / 100], kept[kept.size() * 95 / 100]};
}

} // namespace

int main(int argc, char** argv)
{
    int seeds = 10, trials = 100, optunaSeeds = -1;
    bool optuna = true, optuna31 = true, pitwall31 = true, optunaInMemory = false;
    std::filesystem::path dumpFile;
    std::string functionList, optunaPython, set = "all";
    std::vector<Variant> variants;
    std::filesystem::path optunaResults;
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
        else if (arg == "--set")
            set = next();
        else if (arg == "--variant")
            variants.push_back(parseVariant(next()));
        else if (arg == "--optuna-results")
            optunaResults = next();
        else if (arg == "--no-optuna")
            optuna = false;
        else if (arg == "--no-optuna31")
            optuna31 = false;
        else if (arg == "--no-pitwall31")
            pitwall31 = false;
        else if (arg == "--optuna-in-memory")
            optunaInMemory = true;
        else if (arg == "--dump")
            dumpFile = next();
        else if (arg == "--folder")
            base = next();
        else if (arg == "--optuna-python")
            optunaPython = next();
        else {
            std::cerr << "usage: bench_tpe [--seeds N] [--trials N] [--optuna-seeds N] [--functions a,b] "
                         "[--set tuning|held-out|all] [--variant LABEL=JSON]... [--optuna-results FILE] [--no-optuna] "
                         "[--no-optuna31] [--no-pitwall31] [--optuna-in-memory] [--dump FILE] [--folder DIR] "
                         "[--optuna-python PATH]\n";
            return 2;
        }
    }
    if (set != "all" && set != "tuning" && set != "held-out") {
        std::cerr << "bench_tpe: --set wants tuning, held-out or all, got '" << set << "'\n";
        return 2;
    }
    if (optunaSeeds < 0)
        optunaSeeds = seeds;
    std::vector<tpebench::TestFunction> functions;
    std::vector<std::string> names;
    for (auto& f : tpebench::testFunctions())
        if ((functionList.empty() || ("," + functionList + ",").find("," + f.name + ",") != std::string::npos) &&
            (set == "all" || f.heldOut == (set == "held-out"))) {
            names.push_back(f.name);
            functions.push_back(std::move(f));
        }
    const auto folder = base / ("pitwall-bench-tpe-" + std::to_string(getpid()));
    std::filesystem::create_directories(folder);

    // Pitwall's three: new studies' TPE, TPE as Optuna 3.1, random.
    SamplerSettings newest, old, random;
    old.tpe.version = TpeVersion::Optuna31;
    random.kind = SamplerKind::Random;
    std::map<std::string, Runs> mine, mine31, randoms;
    std::vector<std::map<std::string, Runs>> mineVariants(variants.size());
    for (const auto& f : functions) {
        std::fprintf(stderr, "pitwall: %s ...\n", f.name.c_str());
        mine[f.name] = runPitwall(f, newest, seeds, trials, folder);
        if (pitwall31)
            mine31[f.name] = runPitwall(f, old, seeds, trials, folder);
        randoms[f.name] = runPitwall(f, random, seeds, trials, folder);
        for (std::size_t v = 0; v < variants.size(); ++v)
            mineVariants[v][f.name] = runPitwall(f, variants[v].settings, seeds, trials, folder);
    }
    std::filesystem::remove_all(folder);
    if (!dumpFile.empty()) { // per-seed final bests, for analysis
        nlohmann::json json;
        for (const auto& f : functions) {
            json[f.name]["random"] = bestAt(randoms[f.name], trials);
            json[f.name]["default"] = bestAt(mine[f.name], trials);
            for (std::size_t v = 0; v < variants.size(); ++v)
                json[f.name][variants[v].label] = bestAt(mineVariants[v][f.name], trials);
        }
        std::ofstream(dumpFile) << json.dump();
    }

    std::string problem;
    std::map<std::string, Runs> theirs, theirs31;
    if (optuna) {
        const std::string python = benchcommon::newestOptunaPython(optunaPython, problem);
        if (!optunaResults.empty())
            theirs = readOptunaResults(optunaResults, optunaSeeds, trials);
        std::vector<std::string> missing;
        for (const auto& name : names)
            if (!theirs.count(name))
                missing.push_back(name);
        if (!python.empty() && !missing.empty()) {
            std::fprintf(stderr, "optuna (newest, %s): %s ...\n", python.c_str(), join(missing, ",").c_str());
            auto ran = runOptuna(python, join(missing, ","), optunaSeeds, trials, base.string(), optunaInMemory,
                                  problem);
            for (auto& [name, runs] : ran)
                theirs[name] = std::move(runs);
            if (!optunaResults.empty() && problem.empty())
                writeOptunaResults(optunaResults, theirs, optunaSeeds, trials);
        }
        if (optuna31) {
            std::fprintf(stderr, "optuna (3.1, /usr/bin/python3): %s ...\n", join(names, ",").c_str());
            theirs31 = runOptuna("/usr/bin/python3", join(names, ","), optunaSeeds, trials, base.string(),
                                 optunaInMemory, problem);
        }
        if (!problem.empty())
            std::fprintf(stderr, "an Optuna side was skipped: %s\n", problem.c_str());
    }

    std::printf("Single-objective TPE, each tool's defaults, %d seeds (Optuna: %d): mean best value after N trials;\n"
                "kept = (random - X) / (random - Optuna) of the mean bests, Optuna newest (5) and 3.1;\n"
                "time per trial = ask + evaluate + tell with the study in SQLite in %s, over the %d-trial runs\n\n",
                seeds, optunaSeeds, base.string().c_str(), trials);
    std::printf("%-12s %4s %11s %11s %11s %11s %11s  %8s %8s %8s  %7s %7s %7s\n", "function", "N", "random", "pitwall",
                "pitwall3.1", "optuna5", "optuna3.1", "kept/5", "kept/3.1", "3.1on5", "ms/tr", "opt5 ms", "opt3 ms");
    const auto meanAt = [](std::map<std::string, Runs>& runs, const std::string& name, int n) {
        return runs.count(name) ? summarize(bestAt(runs[name], n)).mean : std::nan("");
    };
    const auto kept = [](double randomBest, double x, double reference) {
        const double gain = randomBest - reference;
        return std::isnan(x) || std::isnan(reference) || gain <= 0 ? std::string("-") : fixed((randomBest - x) / gain, 2);
    };
    const auto msPerTrial = [&](std::map<std::string, Runs>& runs, const std::string& name) {
        return runs.count(name) && !runs[name].seconds.empty()
                   ? fixed(summarize(runs[name].seconds).mean * 1000.0 / trials, 2)
                   : std::string("-");
    };
    const auto text = [](double v) { return std::isnan(v) ? std::string("-") : fixed(v, 4); };
    for (const auto& f : functions) {
        std::vector<int> rowsAt{std::min(50, trials)}; // one row when the run is 50 trials or shorter
        if (trials > 50)
            rowsAt.push_back(trials);
        for (int n : rowsAt) {
            const double r = meanAt(randoms, f.name, n), p = meanAt(mine, f.name, n), p31 = meanAt(mine31, f.name, n),
                         o5 = meanAt(theirs, f.name, n), o31 = meanAt(theirs31, f.name, n);
            std::printf("%-12s %4d %11s %11s %11s %11s %11s  %8s %8s %8s  %7s %7s %7s\n", f.name.c_str(), n,
                        text(r).c_str(), text(p).c_str(), text(p31).c_str(), text(o5).c_str(), text(o31).c_str(),
                        kept(r, p, o5).c_str(), kept(r, p, o31).c_str(), kept(r, p31, o5).c_str(),
                        msPerTrial(mine, f.name).c_str(), msPerTrial(theirs, f.name).c_str(),
                        msPerTrial(theirs31, f.name).c_str());
        }
    }
    std::printf("\nkept/5: Pitwall's default TPE against the newest Optuna's; kept/3.1: against Optuna 3.1's; 3.1on5: "
                "Pitwall's TPE as Optuna 3.1 (--tpe-version 3.1) against the newest Optuna's\n");
    std::printf("\nkept/5 after %d trials with a 90 %% bootstrap interval (seeds resampled, 2,000 draws):\n", trials);
    for (const auto& f : functions) {
        if (!theirs.count(f.name))
            continue;
        const auto [low, high] = keptInterval(randoms[f.name], mine[f.name], theirs[f.name], trials);
        std::printf("%-12s %s  [%s, %s]\n", f.name.c_str(),
                    kept(meanAt(randoms, f.name, trials), meanAt(mine, f.name, trials), meanAt(theirs, f.name, trials))
                        .c_str(),
                    fixed(low, 2).c_str(), fixed(high, 2).c_str());
    }
    if (!variants.empty()) {
        std::printf("\nkept/5 after %d trials of Pitwall's default and of each variant (settings patched from the "
                    "defaults):\n%-12s %8s", trials, "function", "default");
        for (const auto& v : variants)
            std::printf(" %12s", v.label.c_str());
        std::printf("\n");
        for (const auto& f : functions) {
            const double r = meanAt(randoms, f.name, trials), o5 = meanAt(theirs, f.name, trials);
            std::printf("%-12s %8s", f.name.c_str(), kept(r, meanAt(mine, f.name, trials), o5).c_str());
            for (std::size_t v = 0; v < variants.size(); ++v)
                std::printf(" %12s", kept(r, meanAt(mineVariants[v], f.name, trials), o5).c_str());
            std::printf("\n");
        }
        std::printf("(settings: ");
        for (const auto& v : variants)
            std::printf("%s = %s; ", v.label.c_str(), v.settings.toJson().dump().c_str());
        std::printf(")\n");
    }
    return problem.empty() ? 0 : 1;
}
