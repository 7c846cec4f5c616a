// Fuzz target: opening a damaged results file (core/store: SQLite, Pitwall's and Optuna's tables). The input is
// the database file (seeded with a small real one: a study with finished, pruned and failed trials, parameters,
// attributes, intermediate values, a run with metrics and events, a job). It is opened read-only and every record
// read as `db info`, `study list`, `jobs list` and the window read them; then a copy is opened read-write, as
// `study create` would. InputError (a damaged or foreign file, said plainly) and RuntimeError (SQLite's error) are
// normal answers; anything else escaping (a JSON parse error of a damaged attribute, std::out_of_range of a bad
// state number, bad_alloc) is a finding. Promises checked: what is read is consistent (trial states known, run
// and job ids positive).
#include "fuzztarget.h"

#include "core/store/jobstore.h"
#include "core/store/store.h"

#include <filesystem>
#include <string>

using namespace pitwall;
namespace fs = std::filesystem;

namespace {

void readEverything(Store& store)
{
    (void)store.info();
    for (const StudySummary& study : store.listStudies()) {
        for (const TrialRecord& trial : store.trials(study.study.id))
            PITWALL_FUZZ_CHECK(!trialStateName(trial.state).empty(), "trial " + std::to_string(trial.number));
    }
    for (const RunRecord& run : store.runs()) {
        PITWALL_FUZZ_CHECK(run.id > 0, std::to_string(run.id));
        (void)store.metricsSince(run.id, 0, 1000);
        (void)store.eventsSince(run.id, 0);
        (void)store.artifacts(run.id);
    }
    (void)store.benchmarks();
}

// The seed (corpus/store/small-study): written when $PITWALL_FUZZ_WRITE_SEED names a file that does not exist
// yet, then compacted to 512-byte pages without a WAL by the caller (tests/fuzz/README.md).
void writeSeed(const std::string& file)
{
    const auto store = openStore(file, OpenMode::ReadWrite);
    const std::int64_t study = store->createStudy("seed", {StudyDirection::Minimize});
    store->setStudyUserAttr(study, "objective", Json("val/loss"));
    for (const TrialState state : {TrialState::Complete, TrialState::Pruned, TrialState::Fail, TrialState::Running}) {
        const TrialRecord trial = store->createTrial(study);
        Distribution lr;
        lr.low = 1e-5;
        lr.high = 0.1;
        lr.log = true;
        store->setTrialParam(trial.id, "training.optimization.lr", 0.001 * (trial.number + 1), lr);
        store->setTrialUserAttr(trial.id, "run_dir", Json("runs/" + std::to_string(trial.number)));
        store->reportIntermediate(trial.id, 1, 0.5 + trial.number);
        if (state != TrialState::Running)
            store->finishTrial(trial.id, state, state == TrialState::Complete ? std::vector<double>{0.25}
                                                                              : std::vector<double>{});
    }
    RunRecord run;
    run.kind = "train";
    run.configYaml = "training:\n  optimization:\n    lr: 0.001\n";
    run.host = "seed";
    run.startTime = 1767225600;
    const std::int64_t runId = store->createRun(run);
    const std::vector<MetricSample> samples{{runId, "pretrain", 1, "train/loss", 0.9, 1767225601},
                                            {runId, "pretrain", 1, "val/loss", 0.8, 1767225602}};
    store->appendMetrics(samples);
    store->addEvent(runId, EventLevel::Info, "epoch 1 done");
    store->finishRun(runId, RunStatus::Succeeded, 0, "");
    store->addBenchmark({0, "loader", "seed", Json{{"batch", 8}}, Json{{"ms_per_batch", 12.5}}, "seed", 1767225603});
    JobStore jobs(file);
    const std::int64_t job = jobs.create("train", Json{{"config", "smoke.yaml"}}, JobState::Running, 1, "");
    jobs.finish(job, JobState::Finished, 0, "");
}

template <class Read>
void normalAnswers(Read&& read)
{
    try {
        read();
    } catch (const RuntimeError&) {
    }
}

} // namespace

PITWALL_FUZZ_TARGET
{
    static const fs::path dir = fuzz::scratchDir("store");
    if (const char* seed = std::getenv("PITWALL_FUZZ_WRITE_SEED"); seed && !fs::exists(seed))
        writeSeed(seed);
    return fuzz::runInput([&] {
        const fs::path file = dir / "results.db";
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            fs::remove(file.string() + suffix);
        fuzz::writeFile(file, data, size);
        normalAnswers([&] {
            const auto store = openStore(file.string(), OpenMode::ReadOnly);
            readEverything(*store);
        });
        normalAnswers([&] {
            JobStore jobs(file.string(), OpenMode::ReadOnly);
            for (const JobRecord& job : jobs.jobs(true)) {
                PITWALL_FUZZ_CHECK(job.id > 0, std::to_string(job.id));
                (void)jobToJson(job, 0);
            }
        });
        normalAnswers([&] {
            const auto store = openStore(file.string(), OpenMode::ReadWrite);
            readEverything(*store);
        });
    });
}
