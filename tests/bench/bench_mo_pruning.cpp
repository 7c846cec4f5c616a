// Pruning a search with several objectives: does it save work without losing the front? Side by side in one run,
// over the same seeds: the same sampler with no pruner and with the median pruner read for vectors (a trial whose
// vector at its step is dominated by more than half of the completed trials' there stops, core/hpo/pruner.h).
//
//   bench_mo_pruning [--seeds 5] [--trials 60] [--steps 12] [--sampler random|nsga2|tpe] [--folder DIR]
//
// Each trial is a learning curve towards a ZDT1 point: at step s its vector is ZDT1(x) + (1, 1) * 0.8^s plus a
// per-trial wobble, and its final values are ZDT1(x). Compute is counted in steps. Printed per setting: the mean
// steps run, the mean hypervolume of the final front (reference (1.1, 1.1), ZDT1's usual), and the pruned search's
// hypervolume once it has run as many steps as the unpruned one (it runs more trials for the same compute).
#include "core/hpo/hypervolume.h"
#include "core/hpo/study.h"
#include "core/store/pareto.h"
#include "core/store/store.h"
#include "core/util/strings.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace pitwall;

namespace {

struct Options {
    int seeds = 5, trials = 60, steps = 12;
    std::string sampler = "random";
    std::filesystem::path folder = std::filesystem::temp_directory_path();
};

std::vector<double> zdt1(double x0, double x1)
{
    const double g = 1.0 + 9.0 * x1;
    return {x0, g * (1.0 - std::sqrt(x0 / g))};
}

struct Outcome {
    long steps = 0;         // compute spent
    double hypervolume = 0; // of the complete trials' front
    int complete = 0, pruned = 0;
};

double frontHypervolume(Study& study, Store& store)
{
    std::vector<std::vector<double>> points;
    for (const TrialRecord& t : study.bestTrials())
        points.push_back(t.values);
    (void)store;
    const std::vector<double> reference{1.1, 1.1};
    return hypervolume(points, reference);
}

// Runs trials until `trials` have run or `budget` steps are spent (whichever first; budget 0: no limit).
Outcome runSearch(const Options& o, std::uint64_t seed, bool prune, long budget, int trials, const std::string& tag)
{
    const std::filesystem::path file = o.folder / ("bench_mo_pruning_" + std::to_string(::getpid()) + "_" + tag + "_" +
                                                   std::to_string(seed) + ".db");
    std::filesystem::remove(file);
    Outcome out;
    {
        const auto store = openStore(file.string());
        StudyOptions options;
        options.direction = StudyDirection::Minimize;
        options.directions = {StudyDirection::Minimize, StudyDirection::Minimize};
        options.sampler.kind = *parseSamplerKind(o.sampler);
        options.sampler.seed = seed;
        options.sampler.nsga2.populationSize = 20;
        options.pruner = PrunerSettings::defaults(prune ? PrunerKind::Median : PrunerKind::None);
        Study study = Study::create(*store, "s", options);
        Distribution unit;
        unit.low = 0.0;
        unit.high = 1.0;
        const std::vector<ParamRequest> requests{{"x0", unit}, {"x1", unit}};
        for (int n = 0; n < trials && (budget == 0 || out.steps < budget); ++n) {
            const AskedTrial asked = study.ask(requests);
            const double x0 = asked.params["x0"].get<double>(), x1 = asked.params["x1"].get<double>();
            const std::vector<double> target = zdt1(x0, x1);
            const double wobble = 0.05 * std::sin(37.0 * x0 + 11.0 * x1); // curves are not exactly parallel
            bool stopped = false;
            for (int s = 0; s < o.steps; ++s) {
                ++out.steps;
                const double gap = std::pow(0.8, s) * (1.0 + wobble);
                study.report(asked.trial.number, s, std::vector<double>{target[0] + gap, target[1] + gap});
                if (prune && study.shouldPrune(asked.trial.number)) {
                    study.tell(asked.trial.number, TrialState::Pruned);
                    stopped = true;
                    ++out.pruned;
                    break;
                }
            }
            if (!stopped) {
                study.tell(asked.trial.number, TrialState::Complete, target);
                ++out.complete;
            }
        }
        out.hypervolume = frontHypervolume(study, *store);
    }
    std::filesystem::remove(file);
    std::filesystem::remove(file.string() + "-wal");
    std::filesystem::remove(file.string() + "-shm");
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        const auto number = parseInteger(value);
        if (key == "--seeds" && number && *number > 0)
            o.seeds = static_cast<int>(*number);
        else if (key == "--trials" && number && *number > 0)
            o.trials = static_cast<int>(*number);
        else if (key == "--steps" && number && *number > 1)
            o.steps = static_cast<int>(*number);
        else if (key == "--sampler" && parseSamplerKind(value))
            o.sampler = value;
        else if (key == "--folder")
            o.folder = value;
        else {
            std::fprintf(stderr, "bench_mo_pruning: bad option %s %s (see the header comment for the options)\n",
                         key.c_str(), value.c_str());
            return 2;
        }
    }
    std::printf("ZDT1 learning curves, %d trials x %d steps, sampler %s, %d seeds\n", o.trials, o.steps,
                o.sampler.c_str(), o.seeds);
    double stepsNone = 0, hvNone = 0, stepsPruned = 0, hvPruned = 0, stepsSame = 0, hvSameCompute = 0, prunedShare = 0;
    for (int seed = 1; seed <= o.seeds; ++seed) {
        const Outcome none = runSearch(o, seed, false, 0, o.trials, "none");
        const Outcome pruned = runSearch(o, seed, true, 0, o.trials, "pruned");
        const Outcome same = runSearch(o, seed, true, none.steps, 100000, "same");
        std::printf("  seed %d: no pruner %ld steps HV %.4f | pruned %ld steps HV %.4f (%d of %d pruned) | pruned at "
                    "%ld steps: %d trials HV %.4f\n",
                    seed, none.steps, none.hypervolume, pruned.steps, pruned.hypervolume, pruned.pruned, o.trials,
                    same.steps, same.complete + same.pruned, same.hypervolume);
        stepsNone += none.steps;
        hvNone += none.hypervolume;
        stepsPruned += pruned.steps;
        hvPruned += pruned.hypervolume;
        stepsSame += same.steps;
        hvSameCompute += same.hypervolume;
        prunedShare += double(pruned.pruned) / o.trials;
    }
    const double n = o.seeds;
    std::printf("\n%-34s %12s %12s\n", "setting (mean over seeds)", "steps", "hypervolume");
    std::printf("%-34s %12.0f %12.4f\n", "no pruner", stepsNone / n, hvNone / n);
    std::printf("%-34s %12.0f %12.4f\n", "median pruner (vectors)", stepsPruned / n, hvPruned / n);
    std::printf("%-34s %12.0f %12.4f\n", "median pruner, same compute", stepsSame / n, hvSameCompute / n);
    std::printf("pruned: %.0f %% of the trials; compute saved: %.0f %%; hypervolume kept: %.3f; at the same compute: "
                "%.3f\n",
                100.0 * prunedShare / n, 100.0 * (1.0 - stepsPruned / stepsNone), hvPruned / hvNone,
                hvSameCompute / hvNone);
    return 0;
}
