// AutoSpeed-lite: the head's shapes at strides 8/16/32, the looped (one pass per image) and vectorised loss giving
// the same value, the task-aligned assigner on a hand-made case, AutoSpeed's optimiser groups and schedule, and a short
// training run through the trainer whose loss falls and whose evaluation gives P / R / mAP in 0..1.
#include "autospeed.h"

#include "core/engine/data/loaderoptions.h"
#include "core/engine/train/detectiondata.h"
#include "core/engine/train/trainer.h"
#include "core/engine/train/variantsbench.h"
#include "core/store/store.h"
#include "core/synth/dataset.h"
#include "core/util/error.h"

#include "tests/support/testpaths.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <numeric>
#include <set>

using namespace pitwall;
using namespace pitwall::engine;
using namespace pitwall::autospeed;

namespace {

// Relative difference allowed between the first training step's loss through the Pitwall and the reference loader.
constexpr double kLoaderLossTolerance = 0.05;

// A model small enough for CPU tests: widths x0.25 at a 128 x 64 input.
std::vector<std::string> smallOverrides()
{
    return {"experiment.model=autospeed", "autospeed.width_multiple=0.25",  "autospeed.input_width=128",
            "autospeed.input_height=64",  "data.synthetic.image_width=128", "data.synthetic.image_height=64",
            "autospeed.batch_size=8",     "autospeed.val_batch_size=8"};
}

ResolvedConfig config(std::vector<std::string> overrides = {})
{
    std::vector<std::string> all = smallOverrides();
    all.insert(all.end(), overrides.begin(), overrides.end());
    return resolveConfig(loadSchema(), {}, all);
}

// Packed boxes [B, N, 5] from per-image rows (class, x0, y0, x1, y1); padding rows class -1.
torch::Tensor packed(const std::vector<std::vector<std::array<float, 5>>>& images, int64_t rows)
{
    auto out = torch::zeros({static_cast<int64_t>(images.size()), rows, 5});
    out.select(2, 0).fill_(-1);
    for (std::size_t b = 0; b < images.size(); ++b)
        for (std::size_t j = 0; j < images[b].size(); ++j)
            for (int k = 0; k < 5; ++k)
                out[static_cast<int64_t>(b)][static_cast<int64_t>(j)][k] = images[b][j][k];
    return out;
}

} // namespace

class TestAutoSpeed : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void headHasThreeLevelsAtStrides8_16_32();
    void loopedAndVectorisedLossesAgree();
    void assignerPicksTheBestAlignedAnchorsInsideEachBox();
    void optimiserFollowsAutoSpeedsGroupsAndSchedule();
    void shortTrainingLowersTheLossAndEvaluates();
    void badInputSizeIsRejected();
    void referenceLoaderTrainsTheSameSamples();
    void clipGradNormBoundsTheStep();
    void apMethodFollowsTheConfig();
    void optimisationLadderLoadsAndComputesAsAutoSpeed();
};

void TestAutoSpeed::headHasThreeLevelsAtStrides8_16_32()
{
    torch::manual_seed(0);
    const AutoSpeedOptions options = readOptions(config());
    QCOMPARE(options.widths[1], 4);  // 16 x 0.25
    QCOMPARE(options.widths[5], 64); // 256 x 0.25
    Network net(options);
    const auto levels = net->forward(torch::randn({2, 3, 64, 128}));
    QCOMPARE(levels.size(), std::size_t(3));
    for (std::size_t i = 0; i < 3; ++i)
        QCOMPARE(levels[i].sizes().vec(),
                 (std::vector<int64_t>{2, 4 * kRegMax + kClasses, 64 / kStrides[i], 128 / kStrides[i]}));
    // Bias priors: box logits 1, class logits log(5 / classes / cells).
    auto boxOut = net->head->boxBranches[0]->as<torch::nn::Sequential>()->ptr(2)->as<torch::nn::Conv2d>();
    QCOMPARE(boxOut->bias[0].item<double>(), 1.0);
    auto classOut = net->head->classBranches[0]->as<torch::nn::Sequential>()->ptr(4)->as<torch::nn::Conv2d>();
    QVERIFY(std::abs(classOut->bias[0].item<double>() - std::log(5.0 / 4 / (8 * 16))) < 1e-6);
}

void TestAutoSpeed::loopedAndVectorisedLossesAgree()
{
    torch::manual_seed(1);
    Network net(readOptions(config()));
    const auto levels = net->forward(torch::randn({4, 3, 64, 128}));
    // Uneven box counts, an image without boxes, and rows out of order in the padded tensor.
    const auto boxes = packed({{{1, 10, 8, 40, 30}, {3, 60, 20, 90, 50}},
                               {},
                               {{2, 5, 5, 20, 60}, {0, 100, 10, 127, 40}, {1, 30, 30, 50, 45}, {3, 70, 2, 80, 12}},
                               {{1, 64, 16, 96, 48}}},
                              6);
    const auto rows = flattenTargets(boxes);
    QCOMPARE(rows.size(0), int64_t(7));
    const auto vectorised = packTargetsVectorized(rows, 4);
    const auto looped = packTargetsLooped(rows, 4);
    QCOMPARE(vectorised.sizes().vec(), (std::vector<int64_t>{4, 4, 5})); // packed to the busiest image
    QVERIFY(torch::equal(vectorised, looped));
    QCOMPARE(vectorised[1].select(1, 0).max().item<double>(), -1.0); // the empty image is all padding

    LossOptions a, b;
    b.vectorized = false;
    // The vectorised loss is one pass over the batch; AutoSpeed's original one pass per image.
    std::vector<std::pair<int64_t, int64_t>> passesA, passesB;
    a.onPass = [&](int64_t first, int64_t count) { passesA.emplace_back(first, count); };
    b.onPass = [&](int64_t first, int64_t count) { passesB.emplace_back(first, count); };
    const LossOutput la = detectionLoss(levels, boxes, a), lb = detectionLoss(levels, boxes, b);
    QCOMPARE(passesA, (std::vector<std::pair<int64_t, int64_t>>{{0, 4}}));
    QCOMPARE(passesB, (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 1}, {2, 1}, {3, 1}}));
    // The same loss up to float32 rounding: the looped loss sums each image's terms, then the images (relative
    // differences of about 2e-7 here); a wrong assignment, packing or normalisation moves it by far more.
    const auto close = [](const torch::Tensor& x, const torch::Tensor& y) {
        return std::abs(x.item<double>() - y.item<double>()) <= 1e-6 * std::abs(x.item<double>());
    };
    QVERIFY2(close(la.total, lb.total), "looping over the images must not change the loss");
    for (const char* head : {"box", "cls", "dfl"})
        QVERIFY2(close(la.heads.at(head), lb.heads.at(head)), head);
    QVERIFY(la.heads.at("box").item<double>() > 0);
    QVERIFY(la.heads.at("dfl").item<double>() > 0);
    // Gains and batch scaling as AutoSpeed: (7.5 box + 0.5 cls + 1.5 dfl) x batch.
    const double expected = (7.5 * la.heads.at("box").item<double>() + 0.5 * la.heads.at("cls").item<double>() +
                             1.5 * la.heads.at("dfl").item<double>()) *
                            4;
    QVERIFY(std::abs(la.total.item<double>() - expected) < 1e-4 * expected);

    // No box in the whole batch: only the class term, pushing every score down.
    const LossOutput none = detectionLoss(levels, packed({{}, {}, {}, {}}, 3), a);
    QCOMPARE(none.heads.at("box").item<double>(), 0.0);
    QVERIFY(none.heads.at("cls").item<double>() > 0);
}

void TestAutoSpeed::assignerPicksTheBestAlignedAnchorsInsideEachBox()
{
    // One image, an 8 x 8 grid at stride 8 (anchor centres at 4, 12, ..., 60 px), two classes.
    std::vector<float> xy;
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x)
            xy.insert(xy.end(), {x * 8.0f + 4, y * 8.0f + 4});
    const auto anchors = torch::tensor(xy).view({64, 2});
    const auto anchor = [](int x, int y) { return y * 8 + x; };
    // Box A (class 1) covers anchor columns and rows 1..3; box B (class 0) columns and rows 3..5: anchor (3,3)
    // lies inside both.
    const auto targets = packed({{{1, 6, 6, 30, 30}, {0, 22, 22, 46, 46}}}, 2);
    auto scores = torch::zeros({1, 64, 2}); // logits: probability 0.5 everywhere
    // Predictions: far-off boxes everywhere except five anchors per box: three exact for A, two exact for B, one
    // good (IoU 0.69) for each, and the shared anchor (3,3) predicting a box between them that overlaps B more.
    auto predicted = torch::tensor({100.f, 100.f, 101.f, 101.f}).repeat({1, 64, 1});
    for (int a : {anchor(1, 1), anchor(2, 1), anchor(1, 2)})
        predicted[0][a] = torch::tensor({6.f, 6.f, 30.f, 30.f});
    predicted[0][anchor(2, 2)] = torch::tensor({8.f, 8.f, 28.f, 28.f});
    for (int a : {anchor(4, 4), anchor(5, 5)})
        predicted[0][a] = torch::tensor({22.f, 22.f, 46.f, 46.f});
    for (int a : {anchor(4, 3), anchor(5, 4)})
        predicted[0][a] = torch::tensor({24.f, 24.f, 44.f, 44.f});
    predicted[0][anchor(3, 3)] = torch::tensor({15.f, 15.f, 39.f, 39.f});

    LossOptions options;
    options.topK = 5;
    const Assignment result = assignTargets(scores, predicted, anchors, targets, options);
    std::set<int> foreground;
    for (int a = 0; a < 64; ++a)
        if (result.foreground[0][a].item<bool>())
            foreground.insert(a);
    // Each box's top 5 are its five aligned anchors; (3,3) is in both lists and goes to B, which it overlaps more.
    const std::set<int> expected{anchor(1, 1), anchor(2, 1), anchor(1, 2), anchor(2, 2), anchor(3, 3),
                                 anchor(4, 4), anchor(5, 5), anchor(4, 3), anchor(5, 4)};
    QCOMPARE(foreground.size(), expected.size());
    QVERIFY(foreground == expected);
    QCOMPARE(result.gtIndex[0][anchor(3, 3)].item<int64_t>(), int64_t(1));
    QCOMPARE(result.labels[0][anchor(1, 1)].item<int64_t>(), int64_t(1));
    QCOMPARE(result.labels[0][anchor(3, 3)].item<int64_t>(), int64_t(0));
    QCOMPARE(result.boxes[0][anchor(2, 2)][2].item<double>(), 30.0);
    // Soft targets: the best-aligned anchor of a box gets that box's best IoU (1 here), others less; only the
    // assigned class is non-zero.
    QVERIFY(std::abs(result.scores[0][anchor(1, 1)][1].item<double>() - 1.0) < 1e-4);
    QCOMPARE(result.scores[0][anchor(1, 1)][0].item<double>(), 0.0);
    QVERIFY(result.scores[0][anchor(2, 2)][1].item<double>() < 0.9);
    QVERIFY(result.scores[0][anchor(2, 2)][1].item<double>() > 0.0);
    QVERIFY(
        std::abs(result.scores.sum().item<double>() - result.scores.index({result.foreground}).sum().item<double>()) <
        1e-5); // background anchors get no target
}

void TestAutoSpeed::optimiserFollowsAutoSpeedsGroupsAndSchedule()
{
    const auto cfg = config({"autospeed.batch_size=16", "autospeed.min_lr=0.001", "autospeed.max_lr=0.01",
                             "autospeed.warmup_epochs=2", "autospeed.weight_decay=0.0005"});
    std::unique_ptr<Model> model(createAutoSpeedModel(cfg, DataSpec{}));
    const StagePlan plan{Stage::Pretrain, 5, 10, 16, 1};
    auto optimization = model->makeOptimization(plan);
    QVERIFY(optimization);
    QCOMPARE(optimization->accumulate(), 4); // round(64 / 16)
    auto& groups = optimization->optimizer().param_groups();
    QCOMPARE(groups.size(), std::size_t(3));
    auto decayOf = [&](std::size_t g) {
        return static_cast<torch::optim::SGDOptions&>(groups[g].options()).weight_decay();
    };
    QVERIFY(std::abs(decayOf(0) - 0.0005 * 16 * 4 / 64) < 1e-12); // weights
    QCOMPARE(decayOf(1), 0.0);                                    // norm weights
    QCOMPARE(decayOf(2), 0.0);                                    // biases
    QVERIFY(static_cast<torch::optim::SGDOptions&>(groups[0].options()).nesterov());
    std::size_t count = 0;
    for (const auto& g : groups)
        count += g.params().size();
    QCOMPARE(count, model->trainableParameters().size()); // every trained tensor in exactly one group
    // Linear warm-up min -> max over 2 epochs (20 batches), then linear decay back to min by batch 50.
    QCOMPARE(optimization->setLearningRate(0), 0.001);
    QVERIFY(std::abs(optimization->setLearningRate(10) - 0.0055) < 1e-12);
    QVERIFY(std::abs(optimization->setLearningRate(20) - 0.01) < 1e-12);
    QVERIFY(std::abs(optimization->setLearningRate(35) - 0.0055) < 1e-12);
    QVERIFY(std::abs(static_cast<torch::optim::SGDOptions&>(groups[1].options()).lr() - 0.0055) < 1e-12);
    // The EMA follows the trained weights after a step (decay ramps from 0).
    auto& net = *model->module().named_children()["network"];
    auto& ema = *model->module().named_children()["ema"];
    {
        torch::NoGradGuard noGrad;
        net.parameters()[0].add_(1.0);
    }
    QVERIFY(!torch::equal(net.parameters()[0], ema.parameters()[0]));
    optimization->afterOptimizerStep();
    const double gap = (net.parameters()[0] - ema.parameters()[0]).abs().max().item<double>();
    QVERIFY2(gap < 1e-3, "after one update the EMA decay is ~5e-4: the EMA moves almost all the way");
}

void TestAutoSpeed::shortTrainingLowersTheLossAndEvaluates()
{
    QTemporaryDir dir;
    const auto cfg =
        config({"autospeed.epochs=6", "autospeed.warmup_epochs=1", "autospeed.min_lr=0.001", "autospeed.max_lr=0.02",
                "autospeed.mosaic=0", "training.experiment.log_scalars_every_n_steps=1"});
    synth::SynthOptions synthOptions = synth::synthOptionsFromConfig(cfg);
    synthOptions.frames = 44;
    synthOptions.episodeFrames = 11;
    const std::string data = dir.filePath("data").toStdString();
    synth::writeSynthDataset(data, synthOptions);

    TrainRequest request;
    request.config = &cfg;
    request.storeLocation = dir.filePath("runs.db").toStdString();
    request.seed = 0;
    request.device.threads = 2;
    request.dataDir = data;
    request.checkpointDir = dir.filePath("ckpt").toStdString();
    const TrainResult result = train(request);

    QCOMPARE(result.stages.size(), std::size_t(1)); // AutoSpeed trains one stage of autospeed.epochs
    QCOMPARE(result.stages[0].epochs, 6);
    auto store = openStore(request.storeLocation, OpenMode::ReadOnly);
    std::vector<double> epochLosses;
    for (const MetricRow& row : store->metricsSince(result.runId, 0))
        if (row.sample.key == "epoch_loss")
            epochLosses.push_back(row.sample.value);
    QCOMPARE(epochLosses.size(), std::size_t(6));
    QVERIFY2(epochLosses.back() < 0.8 * epochLosses.front(),
             qPrintable(QString("epoch losses %1 -> %2").arg(epochLosses.front()).arg(epochLosses.back())));
    for (const char* key : {"precision", "recall", "map50", "map50_95"}) {
        QVERIFY2(result.finalMetrics.count(key), key);
        const double value = result.finalMetrics.at(key);
        QVERIFY2(value >= 0.0 && value <= 1.0, key);
    }
    QVERIFY(result.finalMetrics.at("map50") >= result.finalMetrics.at("map50_95"));
    QVERIFY(std::isfinite(result.finalMetrics.at("loss")));
}

void TestAutoSpeed::referenceLoaderTrainsTheSameSamples()
{
    // data.loader=reference trains through the DataLoader-style loader (worker processes): the run finishes, the
    // store records the loader in the run's config, and with the same seed it sees the same samples, boxes and
    // initial weights as the Pitwall loader, so the first step's loss agrees closely (the two resize kernels differ
    // in rounding only; a different sample order or box mapping changes the loss by far more).
    QTemporaryDir dir;
    const std::string data = dir.filePath("data").toStdString();
    {
        synth::SynthOptions synthOptions = synth::synthOptionsFromConfig(config());
        synthOptions.frames = 24;
        synthOptions.episodeFrames = 12;
        synth::writeSynthDataset(data, synthOptions);
    }
    std::map<std::string, std::vector<double>> losses;
    for (const std::string loader : {"pitwall", "reference"}) {
        const auto cfg = config({"autospeed.epochs=1", "autospeed.warmup_epochs=0", "autospeed.mosaic=0",
                                 "training.experiment.log_scalars_every_n_steps=1", "data.loader=" + loader});
        TrainRequest request;
        request.config = &cfg;
        request.storeLocation = dir.filePath(QString::fromStdString(loader + ".db")).toStdString();
        request.seed = 0;
        request.device.threads = 2;
        request.dataDir = data;
        request.checkpointDir = dir.filePath(QString::fromStdString(loader + "-ckpt")).toStdString();
        const TrainResult result = train(request);
        auto store = openStore(request.storeLocation, OpenMode::ReadOnly);
        const auto run = store->run(result.runId);
        QVERIFY(run);
        QVERIFY2(run->configYaml.find("loader: " + loader) != std::string::npos, qPrintable(QString::fromStdString(loader)));
        for (const MetricRow& row : store->metricsSince(result.runId, 0))
            if (row.sample.key == "loss")
                losses[loader].push_back(row.sample.value);
        QVERIFY2(!losses[loader].empty() && std::isfinite(losses[loader].front()), qPrintable(QString::fromStdString(loader)));
    }
    const double a = losses["pitwall"].front(), b = losses["reference"].front();
    QVERIFY2(std::abs(a - b) < kLoaderLossTolerance * std::abs(a),
             qPrintable(QString("first-step loss: pitwall %1, reference %2").arg(a).arg(b)));
}

void TestAutoSpeed::badInputSizeIsRejected()
{
    QVERIFY_THROWS_EXCEPTION(InputError, readOptions(config({"autospeed.input_width=100"})));
}

// autospeed.clip_grad_norm: beforeOptimizerStep scales the gradients to that total norm when they exceed it, and
// leaves them alone with the key at 0 (AutoSpeed's default).
void TestAutoSpeed::clipGradNormBoundsTheStep()
{
    const StagePlan plan{Stage::Pretrain, 1, 10, 4, 1};
    const auto gradNorm = [](Model& model) {
        double sum = 0;
        for (const torch::Tensor& p : model.trainableParameters())
            if (p.grad().defined())
                sum += p.grad().pow(2).sum().item<double>();
        return std::sqrt(sum);
    };
    double unclipped = 0;
    for (const char* clip : {"0", "0.5"}) {
        torch::manual_seed(3);
        std::unique_ptr<Model> model(createAutoSpeedModel(config({std::string("autospeed.clip_grad_norm=") + clip}),
                                                          DataSpec{}));
        auto optimization = model->makeOptimization(plan);
        Batch batch;
        batch.size = 2;
        batch.tensors["image"] = torch::randn({2, 3, 64, 128});
        batch.tensors["boxes"] = packed({{{1, 10, 8, 40, 30}}, {{2, 64, 16, 96, 48}}}, 2);
        model->module().train();
        model->computeLoss(batch).total.backward();
        const double before = gradNorm(*model);
        optimization->beforeOptimizerStep();
        const double after = gradNorm(*model);
        if (std::string(clip) == "0") {
            unclipped = before;
            QCOMPARE(after, before);
        } else {
            QCOMPARE(before, unclipped); // same seed, same gradients
            QVERIFY2(before > 0.5, "the test needs gradients above the clip");
            QVERIFY2(std::abs(after - 0.5) < 1e-3, qPrintable(QString::number(after)));
        }
    }
}

// autospeed.ap_method: validation (so map50, map50_95 and AutoSpeed's HPO objective) uses AutoSpeed's AP unless
// the config says coco, the run's notices name the method, and another value is a config error. Wrong here, the
// HPO protocol would optimise and report a different number from the one AutoSpeed reports.
void TestAutoSpeed::apMethodFollowsTheConfig()
{
    QVERIFY(readOptions(config()).apMethod == eval::ApMethod::AutoSpeed);
    QVERIFY(readOptions(config({"autospeed.ap_method=coco"})).apMethod == eval::ApMethod::Coco);
    QVERIFY_THROWS_EXCEPTION(InputError, config({"autospeed.ap_method=voc"}));
    const auto notices = [](const std::vector<std::string>& overrides) {
        std::unique_ptr<Model> model(createAutoSpeedModel(config(overrides), DataSpec{}));
        const std::vector<std::string> notes = model->notices();
        return QString::fromStdString(
            std::accumulate(notes.begin(), notes.end(), std::string(),
                            [](std::string all, const std::string& n) { return all + n + "\n"; }));
    };
    const QString byDefault = notices({});
    QVERIFY2(
        byDefault.contains("validation AP: AutoSpeed (101-point envelope, trapezoid) (autospeed.ap_method=autospeed)"),
        qPrintable(byDefault));
    const QString coco = notices({"autospeed.ap_method=coco"});
    QVERIFY2(coco.contains("validation AP: COCO 101-point (autospeed.ap_method=coco)"), qPrintable(coco));
}

// The rungs of configs/autospeed/optimizations.yaml, one epoch of each through the trainer's data path on small
// JPEG frames: AutoSpeed's rungs load as DataLoader does, decoding every sample's JPEG whole at full scale (8/8) once
// per epoch, or with the pre-processed cache none; Pitwall's loader decodes whole (data.decode=full) or at a reduced
// DCT scale; only Original computes the loss image by image.
void TestAutoSpeed::optimisationLadderLoadsAndComputesAsAutoSpeed()
{
    const VariantsFile file = readVariantsFile(test::sourceFile("/configs/autospeed/optimizations.yaml"));
    const std::vector<ResolvedConfig> rungs =
        resolveVariants(loadSchema(), file,
                        {"data.synthetic.image_width=512", "data.synthetic.image_height=256",
                         "autospeed.input_width=128", "autospeed.input_height=64", "autospeed.width_multiple=0.25"});
    QCOMPARE(rungs.size(), std::size_t(7));
    QTemporaryDir dir;
    const std::string data = dir.filePath("data").toStdString();
    synth::SynthOptions synthOptions = synth::synthOptionsFromConfig(rungs.front());
    synthOptions.frames = 12;
    synthOptions.episodeFrames = 6;
    synth::writeSynthDataset(data, synthOptions);

    std::map<std::string, std::map<std::int64_t, std::vector<float>>> boxes; // per rung and sample
    std::map<std::string, std::map<std::int64_t, torch::Tensor>> images;
    const std::map<std::string, std::set<int>> expectedEighths = {
        {"Original", {8}}, {"Vectorised loss", {8}}, {"Pre-processed data", {0}}, {"Torch compile", {8}}, {"All", {0}},
        {"Pitwall loader (whole decode)", {8}}};
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        const std::string& name = file.variants[i].name;
        const ResolvedConfig& rung = rungs[i];
        QCOMPARE(readOptions(rung).vectorizedLoss, name != "Original");
        QCOMPARE(rung.getString("data.loader"), std::string(name.starts_with("Pitwall") ? "pitwall" : "reference"));
        ModelPlan plan;
        declarePlan(rung, plan);
        const DetectionData detection(data, plan, dataSplitFromConfig(rung));
        data::LoaderOptions options = data::loaderOptionsFromConfig(rung, 0);
        options.batchSize = 1; // every sample of the epoch, none dropped with a partial batch
        options.threads = 2;
        options.cachePath = dir.filePath(QString::fromStdString("cache-" + std::to_string(i) + ".bin")).toStdString();
        auto loader = detection.trainLoader(options, 0, 1);
        data::LoadedBatch batch;
        std::multiset<std::int64_t> samples;
        std::set<int> eighths;
        while (loader->next(batch))
            for (std::size_t k = 0; k < batch.indices.size(); ++k) {
                samples.insert(batch.indices[k]);
                eighths.insert(batch.decodedEighths[k]);
                std::vector<float> flat;
                for (const data::BoxLabel& box : batch.boxes[k])
                    flat.insert(flat.end(), {box.x0, box.y0, box.x1, box.y1});
                boxes[name][batch.indices[k]] = flat;
                images[name][batch.indices[k]] = batch.images[static_cast<int64_t>(k)].clone();
            }
        QCOMPARE(static_cast<std::int64_t>(samples.size()), detection.trainSize()); // every sample once
        QCOMPARE(std::set<std::int64_t>(samples.begin(), samples.end()).size(), samples.size());
        if (const auto it = expectedEighths.find(name); it != expectedEighths.end()) {
            QVERIFY2(eighths == it->second, name.c_str());
        } else { // Pitwall loader: 2/8 or 4/8 of 512 x 256 covers a 128 x 64 input zoomed by up to 1.2
            QVERIFY2(!eighths.empty() && *eighths.begin() > 0 && *eighths.rbegin() < 8, name.c_str());
        }
    }
    // The pre-processed cache changes where the pixels come from, not the samples: the same boxes, and images that
    // differ only by the cache's resampling and the crop rounded to its coarser pixels (a correlation far above that
    // of two different samples).
    QCOMPARE(boxes["Pre-processed data"], boxes["Vectorised loss"]);
    const auto correlation = [](const torch::Tensor& a, const torch::Tensor& b) {
        const torch::Tensor x = a.flatten() - a.mean(), y = b.flatten() - b.mean();
        return ((x * y).sum() / (x.norm() * y.norm())).item<double>();
    };
    const auto& plain = images["Vectorised loss"];
    for (const auto& [index, image] : plain) {
        const double same = correlation(images["Pre-processed data"][index], image);
        const double other = correlation(plain.at(index == 0 ? 1 : 0), image);
        QVERIFY2(same > 0.9 && same > other + 0.1,
                 qPrintable(QString("sample %1: correlation %2 with the cache, %3 with another sample")
                                .arg(index).arg(same).arg(other)));
    }
}

QTEST_GUILESS_MAIN(TestAutoSpeed)
#include "tst_autospeed.moc"
