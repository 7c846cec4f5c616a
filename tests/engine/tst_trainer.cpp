// The trainer end to end on real files: determinism per seed, metrics in the store, stage hand-off,
// resume after an interruption, the learning-rate schedule, and bad input stopped before the store.
#include "enginetestutil.h"

#include "core/engine/train/checkpoint.h"
#include "core/engine/train/lossscale.h"
#include "core/engine/train/precision.h"
#include "core/engine/train/schedule.h"
#include "core/engine/train/trainer.h"
#include "core/store/store.h"

#include <QFile>

#include <set>

using namespace pitwall;
using namespace pitwall::engine;

class TestTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void sameSeedSameLosses();
    void recordsTheDocumentedMetrics();
    void postTrainStartsFromPretrainWeights();
    void postTrainInANewProcessStartsFromThePretrainCheckpoint();
    void lossWeightsWeighTheStoredTerms();
    void resumesWithoutLosingFinishedEpochs();
    void cosineRestartsFallAtEpochs1_3_7();
    void badInputStopsBeforeTheStore();
    void lossScalerSkipsOverflowsAndGrows();
    void lossScalingKeepsFp16GradientsAlive();
    void autocastGuardSwitchesTheDevicesAutocast();
    void cudnnAutotunesOnlyForMaxAutotuneOnAGpu();

private:
    TrainResult run(const ResolvedConfig& cfg, std::int64_t seed, const QString& name, bool resume = false,
                    const CancelToken* cancel = nullptr, std::function<void(const TrainProgress&)> progress = {});
    std::vector<double> losses(const QString& name, std::int64_t runId);

    QTemporaryDir m_dir;
    std::string m_data;
};

void TestTrainer::initTestCase() { m_data = enginetest::makeDataset(m_dir, enginetest::config(), 24); }

TrainResult TestTrainer::run(const ResolvedConfig& cfg, std::int64_t seed, const QString& name, bool resume,
                             const CancelToken* cancel, std::function<void(const TrainProgress&)> progress)
{
    TrainRequest request;
    request.config = &cfg;
    request.storeLocation = m_dir.filePath(name + ".db").toStdString();
    request.seed = seed;
    request.device.threads = 2;
    request.dataDir = m_data;
    request.checkpointDir = m_dir.filePath(name + "-ckpt").toStdString();
    request.resume = resume;
    request.cancel = cancel;
    request.progress = std::move(progress);
    return train(request);
}

std::vector<double> TestTrainer::losses(const QString& name, std::int64_t runId)
{
    auto store = openStore(m_dir.filePath(name + ".db").toStdString(), OpenMode::ReadOnly);
    std::vector<double> out;
    for (const MetricRow& row : store->metricsSince(runId, 0))
        if (row.sample.key == "loss")
            out.push_back(row.sample.value);
    return out;
}

void TestTrainer::sameSeedSameLosses()
{
    const auto cfg = enginetest::config({"training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1",
                                         "training.experiment.log_scalars_every_n_steps=1"});
    const auto a = run(cfg, 3, "seed3a");
    const auto b = run(cfg, 3, "seed3b");
    const auto c = run(cfg, 4, "seed4");
    const auto la = losses("seed3a", a.runId), lb = losses("seed3b", b.runId), lc = losses("seed4", c.runId);
    QVERIFY(la.size() >= 8);
    QCOMPARE(la, lb);
    QVERIFY2(la != lc, "another seed must give other losses");
}

void TestTrainer::recordsTheDocumentedMetrics()
{
    const auto cfg = enginetest::config({"training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1"});
    const auto result = run(cfg, 0, "metrics");
    QCOMPARE(result.stages.size(), std::size_t(2));
    auto store = openStore(m_dir.filePath("metrics.db").toStdString(), OpenMode::ReadOnly);
    std::set<std::string> keys, stages;
    int warmupRows = 0;
    for (const MetricRow& row : store->metricsSince(result.runId, 0)) {
        keys.insert(row.sample.key);
        stages.insert(row.sample.stage);
        warmupRows += row.sample.key == "warmup";
    }
    for (const char* key : {"loss", "loss/semantic", "loss/depth", "loss/bev_semantic", "loss/center_heatmap", "loss/waypoints",
                            "loss/target_speed", "lr", "compute_fps", "full_fps", "data_wait_ms", "cpu_percent",
                            "peak_memory_bytes", "stage_seconds/pretrain", "stage_seconds/posttrain", "val/semantic_miou",
                            "val/depth_mae", "val/detection_map", "val/waypoint_l1"})
        QVERIFY2(keys.count(key), key);
    QCOMPARE(stages, (std::set<std::string>{"pretrain", "posttrain"}));
    QCOMPARE(warmupRows, 4); // two warm-up steps per stage, marked and kept out of compute FPS
    const auto runRecord = store->run(result.runId);
    QVERIFY(runRecord);
    QCOMPARE(runRecord->status, RunStatus::Succeeded);
    QVERIFY(runRecord->configYaml.find("batch_size: 4") != std::string::npos);
    // The stage figures in the result are the ones recorded in the store (no timing assumptions here:
    // the two FPS figures are measured over different spans, so neither bounds the other on a busy machine).
    std::map<std::string, double> stored;
    for (const MetricRow& row : store->metricsSince(result.runId, 0))
        if (row.sample.key == "stage_compute_fps" || row.sample.key == "stage_full_fps")
            stored[row.sample.stage + "/" + row.sample.key] = row.sample.value;
    for (const StageResult& s : result.stages) {
        QVERIFY(s.computeFps > 0);
        QVERIFY(s.fullFps > 0);
        QCOMPARE(stored.at(s.stage + "/stage_compute_fps"), s.computeFps);
        QCOMPARE(stored.at(s.stage + "/stage_full_fps"), s.fullFps);
    }
}

void TestTrainer::postTrainStartsFromPretrainWeights()
{
    const auto cfg = enginetest::config({"training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1"});
    const auto result = run(cfg, 5, "handoff");
    auto store = openStore(m_dir.filePath("handoff.db").toStdString(), OpenMode::ReadOnly);
    bool loaded = false;
    for (const EventRecord& e : store->eventsSince(result.runId, 0))
        loaded |= e.message == "posttrain: loaded pretrain weights of epoch 1";
    QVERIFY(loaded);
    // The hand-off loads exactly the saved weights: a model with other initial weights becomes identical.
    const DataSpec spec = dataSpecFor(synth::SynthDataset::open(m_data).sensors());
    torch::manual_seed(99);
    auto fresh = createModel(cfg, spec);
    CheckpointStore checkpoints(m_dir.filePath("handoff-ckpt").toStdString());
    torch::serialize::InputArchive archive;
    archive.load_from(checkpoints.modelFile(Stage::Pretrain, 0).string());
    torch::manual_seed(5);
    auto other = createModel(cfg, spec);
    checkpoints.loadModel(Stage::Pretrain, 0, *fresh);
    checkpoints.loadModel(Stage::Pretrain, 0, *other);
    const auto a = fresh->module().parameters(), b = other->module().parameters();
    for (std::size_t i = 0; i < a.size(); ++i)
        QVERIFY(torch::equal(a[i], b[i]));
}

// The stage hand-off on the tensors: post-train run on its own in a new run, after a run that did only pretrain,
// starts from the pretrain checkpoint's parameters. With the backbone frozen in post-train, its parameters at the end
// of post-train are the ones post-train started from, so the post-train checkpoint's backbone must equal the pretrain
// checkpoint's, tensor by tensor. Without the hand-off they would be the new run's initial weights.
void TestTrainer::postTrainInANewProcessStartsFromThePretrainCheckpoint()
{
    const auto cfg = enginetest::config({"training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1",
                                         "policy.transfuser.freeze_backbone=true"});
    CancelToken cancel;
    const auto pretrainOnly = run(cfg, 6, "handoff2", false, &cancel, [&](const TrainProgress& p) {
        if (p.epochDone && p.stage == "pretrain")
            cancel.request(); // the run ends after pretrain: post-train starts in the next one
    });
    QVERIFY(pretrainOnly.cancelled);
    // Pretrain skipped (0 epochs): nothing but the hand-off can put the pretrain weights into the new model
    // (a resumed pretrain stage would restore them itself).
    const auto postOnly = enginetest::config({"training.stages.pretrain.epochs=0", "training.stages.posttrain.epochs=1",
                                              "policy.transfuser.freeze_backbone=true"});
    const auto posttrain = run(postOnly, 6, "handoff2", true);
    QVERIFY(!posttrain.cancelled);
    QCOMPARE(posttrain.stages.back().stage, std::string("posttrain"));

    const DataSpec spec = dataSpecFor(synth::SynthDataset::open(m_data).sensors());
    CheckpointStore checkpoints(m_dir.filePath("handoff2-ckpt").toStdString());
    auto pre = createModel(cfg, spec), post = createModel(cfg, spec);
    checkpoints.loadModel(Stage::Pretrain, 0, *pre);
    checkpoints.loadModel(Stage::Posttrain, 0, *post);
    const auto preParameters = pre->module().named_parameters(), postParameters = post->module().named_parameters();
    int backbone = 0, changed = 0;
    for (const auto& item : preParameters) {
        const torch::Tensor& after = postParameters[item.key()];
        if (item.key().rfind("backbone.", 0) == 0) {
            QVERIFY2(torch::equal(item.value(), after), item.key().c_str());
            ++backbone;
        } else {
            changed += !torch::equal(item.value(), after);
        }
    }
    QVERIFY(backbone > 4);
    QVERIFY(changed > 0); // post-train did train (its heads moved), so the equality above is the hand-off's
}

// Loss weights other than 0 and 1 (semantic 0.5, depth 2.0, waypoints 0.25) give the stored total of every step
// as the weighted mean of the stored per-term losses: total = sum(w_i * loss_i) / sum(w_i) over the stage's terms
// (LEAD normalises the weights to sum to one). If this fails, a weight is ignored, applied to the wrong term or
// the logged terms are not the ones that were summed.
void TestTrainer::lossWeightsWeighTheStoredTerms()
{
    const auto cfg = enginetest::config(
        {"training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1",
         "training.experiment.log_scalars_every_n_steps=1", "policy.transfuser.loss_weights.semantic=0.5",
         "policy.transfuser.loss_weights.depth=2.0", "policy.transfuser.loss_weights.waypoints=0.25"});
    const auto result = run(cfg, 2, "weights");
    auto store = openStore(m_dir.filePath("weights.db").toStdString(), OpenMode::ReadOnly);
    std::map<std::pair<std::string, std::int64_t>, std::map<std::string, double>> steps; // (stage, step) -> key
    for (const MetricRow& row : store->metricsSince(result.runId, 0))
        if (row.sample.key.rfind("loss", 0) == 0)
            steps[{row.sample.stage, row.sample.step}][row.sample.key] = row.sample.value;
    int checked = 0;
    std::set<std::string> stagesChecked;
    for (const auto& [at, losses] : steps) {
        if (!losses.count("loss"))
            continue;
        double weighted = 0, weights = 0, unweighted = 0;
        int terms = 0;
        for (const auto& [key, value] : losses) {
            if (key.rfind("loss/", 0) != 0)
                continue;
            const double w = cfg.getDouble("policy.transfuser.loss_weights." + key.substr(5));
            weighted += w * value;
            weights += w;
            unweighted += value;
            ++terms;
        }
        QVERIFY(terms >= 9);
        const double total = losses.at("loss"), expected = weighted / weights;
        QVERIFY2(std::abs(total - expected) <= 1e-5 * std::abs(expected),
                 qPrintable(QStringLiteral("%1 step %2: stored total %3, weighted terms give %4")
                                .arg(QString::fromStdString(at.first))
                                .arg(at.second)
                                .arg(total, 0, 'g', 10)
                                .arg(expected, 0, 'g', 10)));
        QVERIFY(std::abs(total - unweighted / terms) > 1e-3 * std::abs(total)); // the weights did change it
        ++checked;
        stagesChecked.insert(at.first);
        QVERIFY(at.first == "pretrain" || losses.count("loss/waypoints")); // the 0.25 weighs post-train's total
    }
    QVERIFY(checked >= 8);
    QCOMPARE(stagesChecked, (std::set<std::string>{"pretrain", "posttrain"}));
}

void TestTrainer::resumesWithoutLosingFinishedEpochs()
{
    const auto cfg = enginetest::config({"training.stages.pretrain.epochs=2", "training.stages.posttrain.epochs=1"});
    CancelToken cancel;
    const auto first = run(cfg, 1, "resume", false, &cancel, [&](const TrainProgress& p) {
        if (p.epochDone && p.stage == "pretrain" && p.epoch == 0)
            cancel.request(); // interrupted after the first epoch
    });
    QVERIFY(first.cancelled);
    QCOMPARE(first.stages.size(), std::size_t(1));
    const auto second = run(cfg, 1, "resume", true);
    QVERIFY(!second.cancelled);
    QCOMPARE(second.stages.size(), std::size_t(2));
    QCOMPARE(second.stages[0].resumedFromEpoch, 1); // epoch 1 was not trained again
    auto store = openStore(m_dir.filePath("resume.db").toStdString(), OpenMode::ReadOnly);
    std::vector<double> epochs;
    for (const MetricRow& row : store->metricsSince(second.runId, 0))
        if (row.sample.key == "epoch" && row.sample.stage == "pretrain")
            epochs.push_back(row.sample.value);
    QCOMPARE(epochs, (std::vector<double>{2.0}));
    QCOMPARE(store->run(first.runId)->status, RunStatus::Cancelled);
}

void TestTrainer::cosineRestartsFallAtEpochs1_3_7()
{
    const std::int64_t perEpoch = 10;
    QCOMPARE(cosineWarmRestartsLr(0, perEpoch, 1.0), 1.0);
    QVERIFY(cosineWarmRestartsLr(9, perEpoch, 1.0) < 0.03);
    for (std::int64_t epoch : {1, 3, 7, 15})
        QCOMPARE(cosineWarmRestartsLr(epoch * perEpoch, perEpoch, 1.0), 1.0); // restart
    QVERIFY(std::abs(cosineWarmRestartsLr(perEpoch + perEpoch, perEpoch, 1.0) - 0.5) < 1e-9); // half of a 2-epoch cycle
}

void TestTrainer::badInputStopsBeforeTheStore()
{
    const QString db = m_dir.filePath("untouched.db");
    for (const auto& overrides : std::vector<std::vector<std::string>>{{"training.optimization.batch_size=64"},
                                                                       {"training.optimization.precision=fp16"},
                                                                       {"experiment.model=nosuchmodel"}}) {
        const auto cfg = enginetest::config(overrides);
        QVERIFY_THROWS_EXCEPTION(InputError, run(cfg, 0, "untouched"));
        QVERIFY2(!QFile::exists(db), overrides[0].c_str());
    }
}

QTEST_GUILESS_MAIN(TestTrainer)
void TestTrainer::lossScalerSkipsOverflowsAndGrows()
{
    LossScaleOptions options;
    options.growthInterval = 3;
    LossScaler scaler(torch::kCPU, options);
    auto w = torch::tensor({1.0f, -2.0f, 3.0f}, torch::requires_grad());
    scaler.scale((w * w).sum()).backward(); // d/dw = 2w, scaled
    QCOMPARE(w.grad()[2].item<double>(), 6.0 * 65536.0);
    QVERIFY(scaler.unscale({w}));
    QCOMPARE(w.grad()[2].item<double>(), 6.0);
    scaler.update(true);
    scaler.update(true);
    QCOMPARE(scaler.value(), 65536.0);
    scaler.update(true); // the third finite step in a row doubles it
    QCOMPARE(scaler.value(), 131072.0);
    QCOMPARE(scaler.scale(torch::ones({})).item<double>(), 131072.0); // the device copy follows

    w.mutable_grad() = torch::tensor({1.0f, std::numeric_limits<float>::infinity(), 0.0f});
    QVERIFY(!scaler.unscale({w}));
    scaler.update(false);
    QCOMPARE(scaler.value(), 65536.0);
    QCOMPARE(scaler.skippedSteps(), std::int64_t(1));
    w.mutable_grad() = torch::tensor({std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f});
    QVERIFY(!scaler.unscale({w}));
    scaler.update(false);
    QCOMPARE(scaler.value(), 32768.0);
    scaler.update(true);
    scaler.update(true); // the growth count restarted at the overflow: 2 of 3
    QCOMPARE(scaler.value(), 32768.0);
    scaler.restore(1024.0);
    QCOMPARE(scaler.value(), 1024.0);
    QCOMPARE(scaler.scale(torch::ones({})).item<double>(), 1024.0);
    for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
        scaler.restore(bad); // a checkpoint without a usable scale keeps the current one
        QCOMPARE(scaler.value(), 1024.0);
    }
    QVERIFY(scaler.unscale({torch::ones({2}, torch::requires_grad())})); // no gradient yet: nothing overflowed
    QVERIFY_THROWS_EXCEPTION(RuntimeError, LossScaler(torch::kCPU, LossScaleOptions{0.0, 2.0, 0.5, 10}));
}

// Why fp16 needs the scaler: a gradient of 1e-8 flushes to zero in half precision (smallest subnormal 6e-8);
// with the loss scaled by 2^16 it survives and unscaling in fp32 recovers it.
void TestTrainer::lossScalingKeepsFp16GradientsAlive()
{
    const auto x = torch::full({4}, 1e-4, torch::kHalf), y = torch::full({4}, 1e-4, torch::kHalf);
    bool finite = true;
    auto gradient = [&](LossScaler* scaler) {
        auto w = torch::ones({4}, torch::requires_grad()); // fp32 master weights, fp16 compute
        auto loss = (w.to(torch::kHalf) * x * y).sum().to(torch::kFloat);
        (scaler ? scaler->scale(loss) : loss).backward();
        if (scaler)
            finite = scaler->unscale({w});
        return w.grad();
    };
    QCOMPARE(gradient(nullptr).abs().max().item<double>(), 0.0);
    // The initial 2^16 itself overflows fp16 (largest finite 65504) on its way back through the half ops: the
    // step is reported as an overflow and the scale backs off, as PyTorch's GradScaler does in its first steps.
    LossScaler scaler(torch::kCPU);
    gradient(&scaler);
    QVERIFY(!finite);
    scaler.update(finite);
    QCOMPARE(scaler.value(), 32768.0);
    const auto rescued = gradient(&scaler);
    QVERIFY(finite);
    const double expected = double(x[0].item<at::Half>()) * double(y[0].item<at::Half>());
    QVERIFY2(std::abs(rescued[0].item<double>() - expected) < 0.01 * expected,
             qPrintable(QString("gradient %1, expected %2").arg(rescued[0].item<double>()).arg(expected)));
}

// The guard turns on the autocast of the device's type only, to the precision's type, and off again; the GPU's
// autocast is a thread-local flag, so its branch runs on a machine without a GPU too.
void TestTrainer::autocastGuardSwitchesTheDevicesAutocast()
{
    const torch::Device gpu(torch::kCUDA, 0); // a device value only: nothing runs on it
    QVERIFY(!AutocastGuard::enabled(torch::kCPU));
    QVERIFY(!AutocastGuard::enabled(gpu));
    {
        AutocastGuard guard(Precision::Fp16, gpu);
        QVERIFY(AutocastGuard::enabled(gpu));
        QVERIFY(AutocastGuard::type(gpu) == torch::kHalf);
        QVERIFY(!AutocastGuard::enabled(torch::kCPU));
    }
    QVERIFY(!AutocastGuard::enabled(gpu));
    {
        AutocastGuard guard(Precision::Bf16, gpu);
        QVERIFY(AutocastGuard::type(gpu) == torch::kBFloat16);
    }
    {
        AutocastGuard guard(Precision::Bf16, torch::kCPU);
        QVERIFY(AutocastGuard::enabled(torch::kCPU));
        QVERIFY(AutocastGuard::type(torch::kCPU) == torch::kBFloat16);
        QVERIFY(!AutocastGuard::enabled(gpu));
    }
    QVERIFY(!AutocastGuard::enabled(torch::kCPU));
    {
        AutocastGuard guard(Precision::Fp32, gpu);
        QVERIFY(!AutocastGuard::enabled(gpu));
    }
}

void TestTrainer::cudnnAutotunesOnlyForMaxAutotuneOnAGpu()
{
    const torch::Device gpu(torch::kCUDA, 0);
    const std::string compile = "training.optimization.use_torch_compile=";
    const std::string mode = "training.optimization.torch_compile_mode=";
    QVERIFY(cudnnAutotune(enginetest::config({compile + "true", mode + "max-autotune"}), gpu));
    QVERIFY(!cudnnAutotune(enginetest::config({compile + "true", mode + "max-autotune"}), torch::kCPU));
    QVERIFY(!cudnnAutotune(enginetest::config({compile + "false", mode + "max-autotune"}), gpu));
    QVERIFY(!cudnnAutotune(enginetest::config({compile + "true"}), gpu));
}

#include "tst_trainer.moc"
