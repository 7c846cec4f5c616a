// pitwall_ui_metrics_writer DB ROWS_PER_STAGE BATCH PAUSE_MS [--gate]: another process that trains nothing but writes
// like the trainer: a study, a trial and a run, then the run's metrics (loss, loss/depth, lr) in batches with
// pauses, for two stages whose steps restart, and one event per stage. Prints "run <id>" first (flushed), then
// "done <rows>" at the end. With --gate it stops after the first batch, prints "gate", and goes on when a line
// arrives on stdin (a handshake, so a test can look at the window mid-run without depending on timing). Used by tst_livemodel to check that the window picks up rows written elsewhere.
#include "core/store/store.h"
#include "core/util/timefmt.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

using namespace pitwall;

int main(int argc, char** argv)
{
    const bool gate = argc == 6 && std::string(argv[5]) == "--gate";
    if (argc != 5 && !gate) {
        std::fprintf(stderr, "usage: %s DB ROWS_PER_STAGE BATCH PAUSE_MS [--gate]\n", argv[0]);
        return 2;
    }
    const std::string db = argv[1];
    const int steps = std::atoi(argv[2]);
    const int batch = std::atoi(argv[3]);
    const int pauseMs = std::atoi(argv[4]);
    auto store = openStore(db);
    const auto study = store->createStudy("written-elsewhere", {StudyDirection::Minimize});
    store->setStudySystemAttr(study, "pitwall:kind", "train");
    const TrialRecord trial = store->createTrial(study);
    RunRecord run;
    run.trialId = trial.id;
    run.kind = "train";
    run.configYaml = "training:\n  stages:\n    pretrain:\n      epochs: 2\n    posttrain:\n      epochs: 1\n";
    run.logicalDevice = "cpu:0.0";
    run.startTime = nowSeconds();
    const auto runId = store->createRun(run);
    std::printf("run %lld\n", static_cast<long long>(runId));
    std::fflush(stdout);
    long long rows = 0;
    for (const char* stage : {"pretrain", "posttrain"}) {
        store->addEvent(runId, EventLevel::Info, std::string(stage) + " started");
        for (int first = 1; first <= steps; first += batch) {
            std::vector<MetricSample> samples;
            for (int step = first; step < first + batch && step <= steps; ++step) {
                const double t = nowSeconds();
                samples.push_back({runId, stage, step, "loss", 1.0 / step, t});
                samples.push_back({runId, stage, step, "loss/depth", 0.5 / step, t});
                samples.push_back({runId, stage, step, "lr", 1e-3, t});
            }
            store->appendMetrics(samples);
            rows += static_cast<long long>(samples.size());
            if (gate && rows == static_cast<long long>(samples.size())) {
                std::printf("gate\n");
                std::fflush(stdout);
                char line[16];
                if (!std::fgets(line, sizeof line, stdin))
                    return 1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs));
        }
        store->appendMetrics(std::vector<MetricSample>{{runId, stage, steps, "epoch", 1.0, nowSeconds()}});
        ++rows;
    }
    store->finishRun(runId, RunStatus::Succeeded, 0, "");
    store->finishTrial(trial.id, TrialState::Complete, {0.1});
    std::printf("done %lld\n", rows);
    return 0;
}
