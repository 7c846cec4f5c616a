#pragma once
// A small but complete results database for the workbench tests, written through the store API:
// - "transfuser-seeds" (kind train): 3 complete seed trials of one config and a failed one, each with a run
//   (two stages of metrics, events); the failed one has a fail_reason and an error event.
// - "autospeed-hpo" (kind hpo): 30 trials over lr (log), box, warmup_epochs (int), optimizer (categorical),
//   with intermediate values, pruned and failed trials, and runs spread over 4 logical devices.
// - benchmark records of the "variants" suite (LEAD's speed variants with driving scores, and AutoSpeed's
//   optimisation ladder), of the "partitions" suite (two modes by three batch sizes) and of a "loader" suite.

#include "core/store/store.h"
#include "core/util/timefmt.h"

#include <sqlite3.h>

#include <QString>

#include <cmath>
#include <string>
#include <vector>

namespace demo {

using namespace pitwall;

inline constexpr double kStart = 1.7e9;    // Unix seconds of the first run
inline constexpr int kPretrainSteps = 120; // metric rows per key and stage below
inline constexpr int kPosttrainSteps = 60;

inline std::string runConfig(int batch, double lr, const std::string& upsample)
{
    return "experiment:\n  name: transfuser-seeds\n  seeds: [0, 1, 2]\ntraining:\n  optimization:\n    batch_size: " +
           std::to_string(batch) + "\n    lr: " + std::to_string(lr) +
           "\n  stages:\n    pretrain:\n      epochs: 4\n    posttrain:\n      epochs: 2\npolicy:\n  transfuser:\n"
           "    upsample_mode: " +
           upsample + "\n";
}

// Two stages of training metrics for one run, as the trainer logs them (steps restart per stage).
inline void writeRunMetrics(Store& store, std::int64_t runId, int seed, int pretrainSteps = kPretrainSteps,
                            int posttrainSteps = kPosttrainSteps)
{
    std::vector<MetricSample> rows;
    double t = kStart;
    for (const auto& [stage, steps] :
         {std::pair<std::string, int>{"pretrain", pretrainSteps}, {"posttrain", posttrainSteps}}) {
        if (steps == 0)
            continue;
        const int perEpoch = steps / (stage == "pretrain" ? 4 : 2);
        for (int step = 1; step <= steps; ++step) {
            t += 0.1;
            const double loss = 2.0 * std::exp(-step / 40.0) + 0.3 + 0.05 * std::sin(step + seed);
            rows.push_back({runId, stage, step, "loss", loss, t});
            rows.push_back({runId, stage, step, "loss/depth", loss * 0.4, t});
            rows.push_back({runId, stage, step, "loss/semantic", loss * 0.35, t});
            rows.push_back(
                {runId, stage, step, "lr", 1e-3 * (0.5 + 0.5 * std::cos(M_PI * (step % perEpoch) / perEpoch)), t});
            rows.push_back({runId, stage, step, "data_wait_ms", 2.0 + (step % 7), t});
            rows.push_back({runId, stage, step, "compute_fps", 70.0 + (step % 5) + seed, t});
            if (step % perEpoch == 0) {
                rows.push_back({runId, stage, step, "epoch", static_cast<double>(step / perEpoch), t});
                rows.push_back({runId, stage, step, "full_fps", 60.0 + seed, t});
                rows.push_back({runId, stage, step, "cpu_percent", 85.0 - step % 9, t});
                rows.push_back({runId, stage, step, "peak_memory_bytes", 2.4e8 + step * 1e5, t});
                rows.push_back({runId, stage, step, "val/loss", loss * 1.1, t});
            }
        }
        rows.push_back({runId, stage, steps, "stage_seconds/" + stage, steps * 0.1, t});
    }
    store.appendMetrics(rows);
}

// The store stamps end times with the clock; a fixture written in milliseconds needs its own. Sets each run's
// end and its trial's start and completion to what a real search would have recorded (plain SQL on the
// fixture file, Optuna's and Pitwall's column names).
struct Timing {
    std::int64_t runId;
    std::int64_t trialId;
    double start, end;
};

inline void applyTimings(const QString& path, const std::vector<Timing>& timings)
{
    sqlite3* db = nullptr;
    if (sqlite3_open(path.toUtf8().constData(), &db) != SQLITE_OK)
        return;
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    for (const Timing& t : timings) {
        const std::string sql = "UPDATE pitwall_runs SET end_time = " + std::to_string(t.end) +
                                " WHERE run_id = " + std::to_string(t.runId) +
                                "; UPDATE trials SET datetime_start = '" + formatTimestamp(t.start) +
                                "', datetime_complete = '" + formatTimestamp(t.end) +
                                "' WHERE trial_id = " + std::to_string(t.trialId) + ";";
        sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    }
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db);
}

inline std::int64_t startRun(Store& store, std::int64_t trialId, int seed, const std::string& device, double start,
                             const std::string& config)
{
    RunRecord run;
    run.trialId = trialId;
    run.kind = "train";
    run.configYaml = config;
    run.seed = seed;
    run.logicalDevice = device;
    run.host = "test";
    run.pid = 1;
    run.startTime = start;
    return store.createRun(run);
}

inline void writeTrainStudy(Store& store, std::vector<Timing>* timings = nullptr)
{
    const auto study = store.createStudy("transfuser-seeds", {StudyDirection::Minimize});
    store.setStudySystemAttr(study, "pitwall:kind", "train");
    Distribution seedDist;
    seedDist.kind = Distribution::Kind::Int;
    seedDist.low = 0;
    seedDist.high = 3;
    seedDist.step = 1;
    const double values[] = {0.81, 0.79, 0.83};
    for (int seed = 0; seed < 4; ++seed) {
        const TrialRecord trial = store.createTrial(study);
        store.setTrialParam(trial.id, "seed", seed, seedDist);
        store.setTrialUserAttr(trial.id, "seed", seed);
        store.setTrialUserAttr(trial.id, "config_changes",
                               Json{{"experiment.name", "transfuser-seeds"}, {"training.optimization.batch_size", 8}});
        const auto run =
            startRun(store, trial.id, seed, "cpu:0.0", kStart + seed * 30, runConfig(8, 0.001, "bilinear"));
        store.addEvent(run, EventLevel::Info, "pretrain: 4 epoch(s), 180 training frames, batch 8");
        if (seed == 3) {
            writeRunMetrics(store, run, seed, 40, 0);
            store.addEvent(run, EventLevel::Error, "pretrain epoch 2 step 3: the loss is nan (diverged)");
            store.finishRun(run, RunStatus::Failed, 1, "the loss is nan (diverged)");
            store.setTrialSystemAttr(trial.id, "fail_reason", "pretrain epoch 2 step 3: the loss is nan (diverged)");
            store.finishTrial(trial.id, TrialState::Fail, {});
            continue;
        }
        writeRunMetrics(store, run, seed);
        if (timings)
            timings->push_back({run, trial.id, kStart + seed * 30, kStart + seed * 30 + 28});
        store.addEvent(run, EventLevel::Info, "posttrain: loaded pretrain weights of epoch 4");
        store.finishRun(run, RunStatus::Succeeded, 0, "");
        store.setTrialUserAttr(trial.id, "metrics", Json{{"loss", values[seed]}, {"waypoint_l1", 1.0 + seed * 0.1}});
        store.setTrialUserAttr(trial.id, "run_id", run);
        store.finishTrial(trial.id, TrialState::Complete, {values[seed]});
    }
}

inline void writeHpoStudy(Store& store, int trials = 30, std::vector<Timing>* timings = nullptr)
{
    const auto study = store.createStudy("autospeed-hpo", {StudyDirection::Minimize});
    store.setStudySystemAttr(study, "pitwall:sampler", Json{{"name", "tpe"}});
    Distribution lr{Distribution::Kind::Float, 1e-5, 1e-2, true, std::nullopt, {}};
    Distribution box{Distribution::Kind::Float, 5, 10, false, std::nullopt, {}};
    Distribution warmup{Distribution::Kind::Int, 0, 4, false, 1.0, {}};
    Distribution optimizer{Distribution::Kind::Categorical, 0, 1, false, std::nullopt, {"sgd", "adamw"}};
    double deviceFree[4] = {kStart, kStart, kStart, kStart};
    for (int i = 0; i < trials; ++i) {
        const TrialRecord trial = store.createTrial(study);
        const double lrValue = std::pow(10.0, -5 + 3.0 * ((i * 7) % 30) / 29.0);
        const double boxValue = 5 + 5.0 * ((i * 11) % 30) / 29.0;
        const int warmupValue = i % 5;
        const int optimizerIndex = i % 2;
        store.setTrialParam(trial.id, "lr", lrValue, lr);
        store.setTrialParam(trial.id, "box", boxValue, box);
        store.setTrialParam(trial.id, "warmup_epochs", warmupValue, warmup);
        store.setTrialParam(trial.id, "optimizer", optimizerIndex, optimizer);
        // Objective: best near lr 1e-3, better with adamw, box matters little.
        const double objective =
            std::pow(std::log10(lrValue) + 3, 2) * 0.3 + 0.5 + 0.1 * optimizerIndex + boxValue * 0.002;
        const int device = i % 4;
        const double start = deviceFree[device];
        const double duration = 20 + (i % 3) * 5;
        deviceFree[device] = start + duration + 1;
        const auto run = startRun(store, trial.id, 0, "cpu:0." + std::to_string(device), start,
                                  runConfig(32, lrValue, optimizerIndex ? "nearest" : "bilinear"));
        const bool pruned = i % 6 == 5;
        if (timings)
            timings->push_back({run, trial.id, start, start + (pruned ? duration * 0.4 : duration)});
        for (int step = 0; step < (pruned ? 2 : 5); ++step)
            store.reportIntermediate(trial.id, step, objective + 1.0 / (step + 1));
        if (i == 13) {
            store.setTrialSystemAttr(trial.id, "fail_reason", "worker killed by signal 9 (out of memory)");
            store.finishRun(run, RunStatus::Failed, 137, "killed by signal 9");
            store.finishTrial(trial.id, TrialState::Fail, {});
        } else {
            store.finishRun(run, RunStatus::Succeeded, 0, "");
            store.finishTrial(trial.id, pruned ? TrialState::Pruned : TrialState::Complete, {objective});
        }
    }
}

inline std::string fixed(double value)
{
    return QString::number(value, 'f', 1).toStdString();
}

inline constexpr double kDrivingScores[] = {42.0, 44.5, 47.0}; // Baseline, Logits, Logits+Nearest
inline constexpr const char* kLadderRungs[] = {"Original", "Vectorised loss", "Pre-processed data", "Torch compile",
                                               "All"};
inline constexpr double kLadderSeconds[] = {30.0, 21.5, 18.0, 16.5, 12.0};
inline constexpr double kLadderComputeFps[] = {10.0, 14.0, 17.0, 19.0, 25.0};

// The node's compute FPS of a partition mode at a batch size (more logical devices: more throughput).
inline double partitionComputeFps(const std::string& mode, int batch)
{
    return (mode == "CPX" ? 300.0 : 100.0) + 2.0 * batch;
}

inline void writeBenchmarks(Store& store)
{
    const char* variants[] = {"Baseline", "Logits", "Logits+Nearest"};
    for (int i = 0; i < 3; ++i) {
        BenchmarkRecord b;
        b.suite = "variants";
        b.name = std::string("lead-speed/") + variants[i];
        b.parameters = Json{{"seeds", {0, 1, 2}}};
        b.results = Json{{"Variant", variants[i]},
                         {"Pretrain (s)", fixed(9.1 - i)},
                         {"Post-train (s)", "7.5"},
                         {"Total (s)", fixed(16.6 - i)},
                         {"Compute FPS", fixed(8.9 + i)},
                         {"Full FPS", fixed(8.7 + i)},
                         {"Waypoint L1 (m) \xE2\x86\x93", "4.318 \xC2\xB1 0.010"},
                         {"Driving Score \xE2\x86\x91", fixed(kDrivingScores[i]) + " \xC2\xB1 1.5"},
                         {"study", b.name}};
        b.host = "test";
        b.time = kStart + i;
        store.addBenchmark(b);
    }
    for (std::size_t i = 0; i < std::size(kLadderRungs); ++i) {
        BenchmarkRecord b;
        b.suite = "variants";
        b.name = std::string("autospeed-optimizations/") + kLadderRungs[i];
        b.results = Json{{"Variant", kLadderRungs[i]},
                         {"Pretrain (s)", fixed(kLadderSeconds[i])},
                         {"Post-train (s)", "0.0"},
                         {"Total (s)", fixed(kLadderSeconds[i])},
                         {"Compute FPS", fixed(kLadderComputeFps[i])},
                         {"Full FPS", fixed(kLadderComputeFps[i] * 0.8)},
                         {"mAP50-95 \xE2\x86\x91", "0.412 \xC2\xB1 0.000"},
                         {"study", b.name}};
        b.host = "test";
        b.time = kStart + 10 + static_cast<double>(i);
        store.addBenchmark(b);
    }
    for (const char* mode : {"SPX", "CPX"})
        for (int batch : {8, 16, 32}) {
            BenchmarkRecord b;
            b.suite = "partitions";
            b.name = std::string(mode) + "/bs" + std::to_string(batch);
            b.parameters = Json{{"mode", mode}, {"batch_size", batch}, {"epochs", 1}, {"backend", "cpu"}};
            b.results = Json{{"compute_fps", partitionComputeFps(mode, batch)},
                             {"full_fps", partitionComputeFps(mode, batch) * 0.75},
                             {"devices", Json::array()}};
            b.host = "test";
            b.time = kStart + 20;
            store.addBenchmark(b);
        }
    BenchmarkRecord loader;
    loader.suite = "loader";
    loader.name = "dali-like/batch8";
    loader.results = Json{{"ms_per_batch", 12.5}, {"cpu_percent", 240.0}};
    loader.host = "test";
    loader.time = kStart;
    store.addBenchmark(loader);
}

inline void writeDemoDatabase(const QString& path)
{
    std::vector<Timing> timings;
    {
        auto store = openStore(path.toStdString());
        writeTrainStudy(*store, &timings);
        writeHpoStudy(*store, 30, &timings);
        writeBenchmarks(*store);
    }
    applyTimings(path, timings);
}

} // namespace demo
