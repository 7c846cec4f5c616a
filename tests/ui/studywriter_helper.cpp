// pitwall_ui_study_writer DB INDEX TRIALS STEPS ROWS: one of many processes writing into one database at once, as
// search workers do: TRIALS trials of the existing study "shared" (each with a parameter, STEPS intermediate values
// and a value; trial numbers come from the store, atomic across processes), then one run with ROWS metric rows in
// batches of 50. Prints "done" at the end. Any store error ("database is locked" included) goes to stderr and exits
// 1. Used by tst_manywriters.
#include "core/store/store.h"
#include "core/util/timefmt.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

using namespace pitwall;

int main(int argc, char** argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s DB INDEX TRIALS STEPS ROWS\n", argv[0]);
        return 2;
    }
    const std::string db = argv[1];
    const int index = std::atoi(argv[2]), trials = std::atoi(argv[3]), steps = std::atoi(argv[4]),
              rows = std::atoi(argv[5]);
    try {
        auto store = openStore(db);
        const StudyRecord study = store->requireStudy("shared");
        Distribution x;
        x.low = 0.0;
        x.high = 1000.0;
        for (int t = 0; t < trials; ++t) {
            const TrialRecord trial = store->createTrial(study.id);
            const double value = index + static_cast<double>(t) / trials;
            store->setTrialParam(trial.id, "x", value, x);
            for (int step = 0; step < steps; ++step)
                store->reportIntermediate(trial.id, step, value + 1.0 / (step + 1));
            store->finishTrial(trial.id, TrialState::Complete, {value});
        }
        RunRecord run;
        run.kind = "train";
        run.logicalDevice = "cpu:" + std::to_string(index);
        run.startTime = nowSeconds();
        const auto runId = store->createRun(run);
        for (int first = 0; first < rows; first += 50) {
            std::vector<MetricSample> samples;
            for (int step = first; step < first + 50 && step < rows; ++step)
                samples.push_back({runId, "pretrain", step, "loss", 1.0 / (step + 1), nowSeconds()});
            store->appendMetrics(samples);
        }
        store->finishRun(runId, RunStatus::Succeeded, 0, "");
    } catch (const std::exception& error) {
        std::fprintf(stderr, "writer %d: %s\n", index, error.what());
        return 1;
    }
    std::printf("done\n");
    return 0;
}
