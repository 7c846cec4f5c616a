// Multi-objective search against Optuna, side by side in one run: Pitwall's samplers (NSGA-II, TPE with Optuna 5's
// uniform weights and with --hypervolume-weights, random) in process through Study, the newest Optuna's TPESampler and NSGAIISampler
// (.venv-optuna, packaging/install-optuna.sh) and Debian's Optuna 3.1 (/usr/bin/python3) through
// bench_mo_optuna.py, every study stored in SQLite in the same folder.
//
//   bench_mo [--seeds 10] [--old-seeds N] [--trials 300] [--overhead-trials 1000] [--functions zdt1,zdt2,dtlz2]
//            [--folder DIR] [--optuna-python PATH] [--no-optuna] [--quick]
//
// It prints the hypervolume (mean ± sd over the seeds) after trials/3 and all trials, per function and sampler,
// computed here with core/hpo/hypervolume.h for both tools from the objective values each returned (the same
// reference point, the same code); Pitwall's best mean over Optuna's newest best; and the time per trial of
// ask + tell (the evaluation left out) over a study of --overhead-trials trials on zdt1, per sampler and tool.
// --quick: 2 seeds, 30 trials, 100 overhead trials (a smoke run). --old-seeds: the seeds of Optuna 3.1 (default:
// --seeds), whose TPE takes about 12 minutes for one 300-trial study of DTLZ2 (2 cores, shared).
// A sampler Pitwall refuses for several objectives is skipped with a note; so is an Optuna that cannot run.
#include "bench_common.h"
#include "mo_functions.h"

#include "core/hpo/hypervolume.h"
#include "core/hpo/study.h"
#include "core/store/store.h"
#include "core/util/error.h"
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
#include <map>

using namespace pitwall;
using benchcommon::fixed;
using benchcommon::summarize;
using benchcommon::Summary;

namespace {

using Points = std::vector<std::vector<double>>; // objective values per trial, in number order
using Clock = std::chrono::steady_clock;

struct Run {
    Points values;
    std::vector<double> seconds; // per trial: ask + tell
};

struct Settings {
    int seeds = 10, trials = 300, overheadTrials = 1000;
    int oldSeeds = -1; // Debian's Optuna 3.1; -1: `seeds`
    std::string functions;
    std::filesystem::path base = std::filesystem::temp_directory_path();
    std::string optunaPython; // the newest Optuna's interpreter; empty: <checkout>/.venv-optuna/bin/python
    bool optuna = true;       // --no-optuna: Pitwall's samplers alone
};

// Results by function, then by sampler label ("pitwall nsga2", "optuna 5.1.0 tpe").
using Quality = std::map<std::string, std::map<std::string, std::vector<Points>>>;
using Overhead = std::map<std::string, std::map<std::string, std::vector<double>>>;

// Pitwall's samplers by label: NSGA-II, TPE (Optuna 5's uniform weights for l(x)), TPE with --hypervolume-weights
// (Optuna 4's), random.
SamplerSettings samplerOf(SamplerKind kind, bool hypervolumeWeights = false)
{
    SamplerSettings settings;
    settings.kind = kind;
    settings.tpe.hypervolumeWeights = hypervolumeWeights;
    return settings;
}
const std::vector<std::pair<std::string, SamplerSettings>> kPitwallSamplers = {
    {"nsga2", samplerOf(SamplerKind::Nsga2)},
    {"tpe", samplerOf(SamplerKind::Tpe)},
    {"tpe-hv", samplerOf(SamplerKind::Tpe, true)},
    {"random", samplerOf(SamplerKind::Random)}};
const std::vector<std::string> kOptunaSamplers = {"tpe", "nsga2"};
const std::string kOverheadFunction = "zdt1";

Run runPitwall(const mobench::TestFunction& function, const SamplerSettings& sampler, std::uint64_t seed, int trials,
               const std::filesystem::path& file)
{
    const auto store = openStore(file.string());
    StudyOptions options;
    options.directions.assign(function.reference.size(), StudyDirection::Minimize);
    options.sampler = sampler;
    options.sampler.seed = seed;
    Study study = Study::create(*store, function.name, options); // InputError: the sampler refuses the objectives
    const std::vector<ParamRequest> space = mobench::space(function);
    Run run;
    for (int t = 0; t < trials; ++t) {
        const auto start = Clock::now();
        const AskedTrial asked = study.ask(space);
        const auto askedAt = Clock::now();
        std::vector<double> x;
        for (const ParamRequest& p : space)
            x.push_back(asked.params.at(p.name).get<double>());
        std::vector<double> values = function.values(x);
        const auto evaluated = Clock::now();
        study.tell(asked.trial.number, TrialState::Complete, values);
        run.seconds.push_back(std::chrono::duration<double>(askedAt - start + Clock::now() - evaluated).count());
        run.values.push_back(std::move(values));
    }
    return run;
}

// Runs bench_mo_optuna.py (copied beside this executable by the build) with `python`; returns its JSON document,
// or null with `problem` set.
nlohmann::json runOptuna(const std::string& python, int seeds, const Settings& settings, const std::string& functions,
                         std::string& problem)
{
    const std::string command =
        "'" + python + "' '" + benchcommon::besideExecutable("bench_mo_optuna.py").string() + "' --seeds " +
        std::to_string(seeds) + " --trials " + std::to_string(settings.trials) + " --overhead-trials " +
        std::to_string(settings.overheadTrials) + " --overhead-functions " + kOverheadFunction + " --functions " +
        functions + " --samplers " + join(kOptunaSamplers, ",") + " --folder '" + settings.base.string() + "'";
    std::string text;
    if (!benchcommon::commandOutput(command, text, problem))
        return nullptr;
    return nlohmann::json::parse(text);
}

// The hypervolume of the first `trials` trials of each seed's run.
std::vector<double> hypervolumes(const std::vector<Points>& runs, int trials, const std::vector<double>& reference)
{
    std::vector<double> out;
    for (const Points& run : runs)
        out.push_back(hypervolume(std::span(run.data(), std::min<std::size_t>(run.size(), trials)), reference));
    return out;
}

bool parseArguments(int argc, char** argv, Settings& settings)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (arg == "--seeds")
            settings.seeds = std::stoi(next());
        else if (arg == "--old-seeds")
            settings.oldSeeds = std::stoi(next());
        else if (arg == "--trials")
            settings.trials = std::stoi(next());
        else if (arg == "--overhead-trials")
            settings.overheadTrials = std::stoi(next());
        else if (arg == "--functions")
            settings.functions = next();
        else if (arg == "--folder")
            settings.base = next();
        else if (arg == "--optuna-python")
            settings.optunaPython = next();
        else if (arg == "--no-optuna")
            settings.optuna = false;
        else if (arg == "--quick") {
            settings.seeds = 2;
            settings.trials = 30;
            settings.overheadTrials = 100;
        } else {
            std::cerr << "usage: bench_mo [--seeds N] [--old-seeds N] [--trials N] [--overhead-trials N] [--functions "
                         "zdt1,zdt2,dtlz2] "
                         "[--folder DIR] [--optuna-python PATH] [--no-optuna] [--quick]\n";
            return false;
        }
    }
    if (settings.oldSeeds < 0)
        settings.oldSeeds = settings.seeds;
    if (settings.seeds <= 0 || settings.trials <= 0 || settings.overheadTrials < 0) {
        std::cerr << "bench_mo: --seeds and --trials take a positive number, --overhead-trials 0 or more (--old-seeds "
                     "0 leaves Optuna 3.1 out)\n";
        return false;
    }
    return true;
}

void printQuality(const std::vector<mobench::TestFunction>& functions, const Quality& quality,
                  const std::string& newest, const Settings& settings)
{
    const std::vector<int> checkpoints =
        settings.trials >= 3 ? std::vector{settings.trials / 3, settings.trials} : std::vector{settings.trials};
    std::printf("Hypervolume after N trials (mean ± sd over the seeds; larger is better), every objective minimised,\n"
                "computed with core/hpo/hypervolume.h for both tools against the reference point shown; front = the\n"
                "true Pareto front's hypervolume, the most reachable\n\n");
    std::printf("%-8s %-22s %5s", "function", "sampler", "seeds");
    for (int n : checkpoints)
        std::printf(" %20s", ("HV @" + std::to_string(n)).c_str());
    std::printf("\n");
    for (const auto& f : functions) {
        std::vector<std::string> reference;
        for (double r : f.reference)
            reference.push_back(fixed(r, 1));
        std::printf("%-8s front %.4f, reference (%s)\n", f.name.c_str(), f.frontHypervolume,
                    join(reference, ", ").c_str());
        std::map<std::string, std::vector<double>> means; // label -> mean per checkpoint
        for (const auto& [label, runs] : quality.at(f.name)) {
            std::printf("%-8s %-22s %5zu", "", label.c_str(), runs.size());
            for (int n : checkpoints) {
                const Summary s = summarize(hypervolumes(runs, n, f.reference));
                means[label].push_back(s.mean);
                std::printf(" %20s", (fixed(s.mean, 4) + " ± " + fixed(s.sd, 4)).c_str());
            }
            std::printf("\n");
        }
        if (newest.empty())
            continue;
        std::printf("%-8s %-28s", "", ("pitwall / optuna " + newest).c_str());
        for (std::size_t c = 0; c < checkpoints.size(); ++c) {
            std::pair<double, std::string> mine{-1.0, ""}, theirs{-1.0, ""};
            for (const auto& [label, values] : means) {
                const bool pitwall = label.starts_with("pitwall ");
                if (!pitwall && !label.starts_with("optuna " + newest + " "))
                    continue;
                auto& best = pitwall ? mine : theirs;
                if (values[c] > best.first)
                    best = {values[c], label.substr(label.rfind(' ') + 1)};
            }
            const std::string cell = theirs.first > 0 && mine.first >= 0 ? fixed(mine.first / theirs.first, 3) + " (" +
                                                                               mine.second + "/" + theirs.second + ")"
                                                                         : "-";
            std::printf(" %20s", cell.c_str());
        }
        std::printf("\n");
    }
    std::printf("\npitwall / optuna %s: the best mean among Pitwall's samplers over the better of that Optuna's TPE "
                "and NSGA-II (which ones in brackets); > 1: Pitwall's best covers more\n",
                newest.c_str());
}

void printOverhead(const Overhead& overhead, const std::vector<std::string>& optunaVersions, const Settings& settings)
{
    if (!overhead.count(kOverheadFunction))
        return;
    const auto& bySampler = overhead.at(kOverheadFunction);
    std::printf("\nTime per trial over a %d-trial study on %s: ask + tell (the evaluation left out) with the study in "
                "SQLite in %s;\nms per trial, mean over all trials / over the last 100; ratio = Optuna's / Pitwall's "
                "(all trials)\n\n",
                settings.overheadTrials, kOverheadFunction.c_str(), settings.base.string().c_str());
    std::printf("%-8s %18s", "sampler", "pitwall");
    for (const std::string& v : optunaVersions)
        std::printf(" %18s %7s", ("optuna " + v).c_str(), "ratio");
    std::printf("\n");
    auto cell = [](const std::vector<double>& seconds) {
        const std::vector<double> last(seconds.end() - std::min<std::ptrdiff_t>(100, std::ssize(seconds)),
                                       seconds.end());
        return fixed(summarize(seconds).mean * 1000, 2) + " / " + fixed(summarize(last).mean * 1000, 2);
    };
    for (const auto& [sampler, kind] : kPitwallSamplers) {
        const auto mine = bySampler.find("pitwall " + sampler);
        std::printf("%-8s %18s", sampler.c_str(), mine == bySampler.end() ? "-" : cell(mine->second).c_str());
        for (const std::string& v : optunaVersions) {
            const auto theirs = bySampler.find("optuna " + v + " " + sampler);
            if (theirs == bySampler.end()) {
                std::printf(" %18s %7s", "-", "-");
                continue;
            }
            const std::string ratio =
                mine == bySampler.end() ? "-"
                                        : fixed(summarize(theirs->second).mean / summarize(mine->second).mean, 1) + "x";
            std::printf(" %18s %7s", cell(theirs->second).c_str(), ratio.c_str());
        }
        std::printf("\n");
    }
}

} // namespace

int main(int argc, char** argv)
{
    Settings settings;
    if (!parseArguments(argc, argv, settings))
        return 2;
    std::vector<mobench::TestFunction> functions;
    std::vector<std::string> names;
    for (auto& f : mobench::testFunctions())
        if (settings.functions.empty() ||
            ("," + settings.functions + ",").find("," + f.name + ",") != std::string::npos) {
            names.push_back(f.name);
            functions.push_back(std::move(f));
        }
    const auto folder = settings.base / ("pitwall-bench-mo-" + std::to_string(getpid()));
    std::filesystem::create_directories(folder);
    std::vector<std::string> notes;
    Quality quality;
    Overhead overhead;

    // Pitwall, in process: every function and sampler, then the time per trial on a long study.
    for (const auto& f : functions) {
        quality[f.name]; // a function keeps its place in the table even with every sampler refused
        for (const auto& [sampler, samplerSettings] : kPitwallSamplers) {
            std::fprintf(stderr, "pitwall %s %s ...\n", f.name.c_str(), sampler.c_str());
            try {
                for (int seed = 0; seed < settings.seeds; ++seed) {
                    const auto file = folder / (f.name + "-" + sampler + "-" + std::to_string(seed) + ".db");
                    quality[f.name]["pitwall " + sampler].push_back(
                        runPitwall(f, samplerSettings, static_cast<std::uint64_t>(seed), settings.trials, file).values);
                }
                if (f.name == kOverheadFunction && settings.overheadTrials > 0)
                    overhead[f.name]["pitwall " + sampler] =
                        runPitwall(f, samplerSettings, 0, settings.overheadTrials, folder / (f.name + "-" + sampler + "-long.db"))
                            .seconds;
            } catch (const InputError& e) {
                quality[f.name].erase("pitwall " + sampler);
                notes.push_back("pitwall " + sampler + " skipped on " + f.name + ": " + e.what());
            }
        }
    }
    std::filesystem::remove_all(folder);

    // Optuna: the newest first, then Debian's 3.1; each prints one JSON document.
    std::string problem;
    std::vector<std::pair<std::string, std::string>> pythons; // (what, interpreter)
    if (settings.optuna) {
        const std::string newestPython = benchcommon::newestOptunaPython(settings.optunaPython, problem);
        if (!newestPython.empty())
            pythons.emplace_back("newest", newestPython);
        else
            notes.push_back(problem);
        if (settings.oldSeeds > 0)
            pythons.emplace_back("debian", "/usr/bin/python3");
    }
    std::vector<std::string> versions;
    std::string newest;
    for (const auto& [what, python] : pythons) {
        std::fprintf(stderr, "optuna (%s, %s) %s ...\n", what.c_str(), python.c_str(), join(names, ",").c_str());
        problem.clear();
        const nlohmann::json json = runOptuna(python, what == "newest" ? settings.seeds : settings.oldSeeds, settings,
                                              join(names, ","), problem);
        if (json.is_null()) {
            notes.push_back("optuna (" + what + ") skipped: " + problem);
            continue;
        }
        const std::string version = json["version"].get<std::string>();
        if (what == "newest")
            newest = version;
        versions.push_back(version);
        for (auto f = json["runs"].begin(); f != json["runs"].end(); ++f)
            for (auto s = f.value().begin(); s != f.value().end(); ++s)
                quality[f.key()]["optuna " + version + " " + s.key()] = s.value().get<std::vector<Points>>();
        for (auto f = json["overhead"].begin(); f != json["overhead"].end(); ++f)
            for (auto s = f.value().begin(); s != f.value().end(); ++s)
                overhead[f.key()]["optuna " + version + " " + s.key()] = s.value().get<std::vector<double>>();
    }

    printQuality(functions, quality, newest, settings);
    if (settings.overheadTrials > 0)
        printOverhead(overhead, versions, settings);
    for (const std::string& note : notes)
        std::printf("\nnote: %s", note.c_str());
    std::printf("\n");
    return 0;
}
