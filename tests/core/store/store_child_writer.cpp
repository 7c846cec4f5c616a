// Helper process for tst_store_concurrency: one "worker" that writes into a shared results file at the same
// time as its siblings, the way `pitwall worker` processes do.
//
// store_child_writer <db> <study> <worker> <trials> <rows> <batchRows>
// Creates <trials> trials (param "worker", value worker*1000+i) and one run, and appends <rows> metric rows
// to that run in batches of <batchRows> (value = worker*1e6 + row index), interleaving trial writes with
// the metric batches. Prints "run <id>" on success; any exception prints its message and exits 3.
#include "core/store/store.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

using namespace pitwall;

int main(int argc, char** argv)
{
    if (argc != 7) {
        std::fprintf(stderr, "usage: %s <db> <study> <worker> <trials> <rows> <batchRows>\n", argv[0]);
        return 2;
    }
    try {
        const std::string db = argv[1], studyName = argv[2];
        const int worker = std::atoi(argv[3]);
        const int trialCount = std::atoi(argv[4]);
        const int rowCount = std::atoi(argv[5]);
        const int batchRows = std::atoi(argv[6]);

        auto store = openStore(db);
        const auto study = store->requireStudy(studyName);
        Distribution workerDistribution;
        workerDistribution.kind = Distribution::Kind::Int;
        workerDistribution.low = 0, workerDistribution.high = 1000, workerDistribution.step = 1.0;

        RunRecord run;
        run.kind = "train";
        run.host = "child";
        run.seed = worker;
        const auto runId = store->createRun(run);

        const int batches = (rowCount + batchRows - 1) / batchRows;
        const int batchesPerTrial = trialCount > 0 ? std::max(1, batches / trialCount) : batches + 1;
        int trialsMade = 0;
        int row = 0;
        for (int batch = 0; batch < batches || trialsMade < trialCount; ++batch) {
            if (trialsMade < trialCount && batch % batchesPerTrial == 0) {
                const auto trial = store->createTrial(study.id);
                store->setTrialParam(trial.id, "worker", worker, workerDistribution);
                store->reportIntermediate(trial.id, 0, worker);
                store->heartbeat(trial.id);
                store->finishTrial(trial.id, TrialState::Complete, {worker * 1000.0 + trialsMade});
                ++trialsMade;
            }
            std::vector<MetricSample> samples;
            for (int i = 0; i < batchRows && row < rowCount; ++i, ++row)
                samples.push_back({runId, "pretrain", row, "loss", worker * 1e6 + row, 1.0 * row});
            store->appendMetrics(samples);
        }
        std::printf("run %lld\n", static_cast<long long>(runId));
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "store_child_writer: %s\n", error.what());
        return 3;
    }
}
