// TransFuser-lite's options change the computation as LEAD documents them.
#include "enginetestutil.h"
#include "transfuser.h"

#include "core/engine/train/trainstep.h"

#include <ATen/record_function.h>

#include <cstring>

using namespace pitwall;
using namespace pitwall::engine;

namespace {
std::unique_ptr<Model> makeModel(const ResolvedConfig& cfg, const DataSpec& spec, std::uint64_t seed = 1)
{
    torch::manual_seed(seed);
    return std::unique_ptr<Model>(transfuser::createTransfuserModel(cfg, spec));
}

std::shared_ptr<torch::nn::Module> child(Model& model, const std::string& name)
{
    for (const auto& item : model.module().named_children())
        if (item.key() == name)
            return item.value();
    return nullptr;
}

// Multiply-adds of the convolutions and matrix products this thread runs, read from every op's input shapes through
// ATen's op observer. Only the outermost counted op counts (aten::linear calls aten::addmm, aten::conv2d calls
// aten::convolution: one product each).
struct MultiplyAddCounter {
    static thread_local std::int64_t total;
    static thread_local int open; // counted ops entered and not yet left

    static bool counted(const char* name)
    {
        for (const char* op : {"aten::convolution", "aten::linear", "aten::matmul", "aten::mm", "aten::bmm",
                               "aten::addmm", "aten::baddbmm"})
            if (std::strcmp(name, op) == 0)
                return true;
        return false;
    }
    static std::int64_t product(const at::IntArrayRef& a, const at::IntArrayRef& b)
    {
        if (a.size() < 2 || b.size() < 2)
            return 0;
        std::int64_t batch = 1;
        for (std::size_t i = 0; i + 2 < a.size(); ++i)
            batch *= a[i];
        return batch * a[a.size() - 2] * a.back() * b.back();
    }
    static std::int64_t multiplyAdds(const at::RecordFunction& fn)
    {
        const auto inputs = fn.inputs();
        const std::string name = fn.name();
        if (name == "aten::convolution") { // input, weight, bias, stride, padding, dilation, transposed, ...
            const at::Tensor& x = inputs[0].toTensor();
            const at::Tensor& w = inputs[1].toTensor();
            if (inputs[6].toBool()) // transposed: every input pixel spreads over a kernel
                return x.numel() / x.size(1) * w.numel();
            const auto stride = inputs[3].toIntVector(), padding = inputs[4].toIntVector(),
                       dilation = inputs[5].toIntVector();
            std::int64_t pixels = x.size(0);
            for (std::size_t d = 0; d + 2 < static_cast<std::size_t>(x.dim()); ++d)
                pixels *= (x.size(static_cast<int64_t>(d) + 2) + 2 * padding[d] -
                           dilation[d] * (w.size(static_cast<int64_t>(d) + 2) - 1) - 1) / stride[d] + 1;
            return pixels * w.numel();
        }
        if (name == "aten::linear") { // input [..., in], weight [out, in]
            const at::Tensor& x = inputs[0].toTensor();
            return x.numel() / x.size(-1) * inputs[1].toTensor().numel();
        }
        const std::size_t first = (name == "aten::addmm" || name == "aten::baddbmm") ? 1 : 0;
        return product(inputs[first].toTensor().sizes(), inputs[first + 1].toTensor().sizes());
    }
    static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction& fn)
    {
        if (counted(fn.name())) {
            if (open == 0)
                total += multiplyAdds(fn);
            ++open;
        }
        return nullptr;
    }
    static void leave(const at::RecordFunction& fn, at::ObserverContext*)
    {
        if (counted(fn.name()))
            --open;
    }
    // Multiply-adds of `run` on this thread.
    static std::int64_t of(const std::function<void()>& run)
    {
        total = 0;
        open = 0;
        const at::CallbackHandle handle =
            at::addThreadLocalCallback(at::RecordFunctionCallback(&enter, &leave).needsInputs(true));
        run();
        at::removeCallback(handle);
        return total;
    }
};
thread_local std::int64_t MultiplyAddCounter::total = 0;
thread_local int MultiplyAddCounter::open = 0;

std::int64_t parameterCount(const std::vector<torch::Tensor>& parameters)
{
    std::int64_t n = 0;
    for (const auto& p : parameters)
        n += p.numel();
    return n;
}
} // namespace

class TestTransfuser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void logitsUpsamplingRunsLastBlockAtLowResolution();
    void upsampleModeChangesTheComputation();
    void frozenBackboneStaysBitIdentical();
    void disabledHeadsAddNoParameters();
    void noDepthComputesFewerMultiplyAdds();
    void lossWeightsAreNormalised();
    void lossesFallOnASmallSet();
    void badValuesAreRejectedBySchema();
    void lossScalingScalesEveryGradient();
    void stepCaptureIsPlannedOnlyWhereItCanRun();
    void trainStepCapturesOnlyOnCudaDevices();

private:
    QTemporaryDir m_dir;
    std::string m_data;
    DataSpec m_spec;
    Batch m_batch;
};

void TestTransfuser::initTestCase()
{
    at::set_num_threads(2);
    m_data = enginetest::makeDataset(m_dir, enginetest::config(), 12);
    const auto data = synth::SynthDataset::open(m_data);
    m_spec = dataSpecFor(data.sensors());
    m_batch = enginetest::loadBatch(data, m_spec, 0, 4);
    QCOMPARE(m_batch.at("rgb").sizes().vec(), (std::vector<int64_t>{4, 3, 48, 128}));
    QCOMPARE(m_batch.at("lidar").sizes().vec(), (std::vector<int64_t>{4, 1, 40, 48}));
}

void TestTransfuser::logitsUpsamplingRunsLastBlockAtLowResolution()
{
    for (const bool logits : {false, true}) {
        auto model = makeModel(enginetest::config({std::string("policy.transfuser.upsample_perspective_logits=") +
                                                   (logits ? "true" : "false")}),
                               m_spec);
        model->computeLoss(m_batch);
        auto* decoder = child(*model, "semantic_decoder")->as<transfuser::PerspectiveDecoderImpl>();
        QVERIFY(decoder);
        const auto seen = decoder->lastDeconv3Input;
        // With logits up-sampling deconv3 sees the 1/4-resolution tensor, otherwise the full-resolution one.
        QCOMPARE(seen[2], logits ? 48 / 4 : 48);
        QCOMPARE(seen[3], logits ? 128 / 4 : 128);
        torch::NoGradGuard noGrad;
        auto [image, bev] = child(*model, "backbone")->as<transfuser::BackboneImpl>()->forward(m_batch.at("rgb"), m_batch.at("lidar"));
        const auto out = decoder->forward(image);
        QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{4, 10, 48, 128})); // same output resolution
    }
}

void TestTransfuser::upsampleModeChangesTheComputation()
{
    auto bilinear = makeModel(enginetest::config({"policy.transfuser.upsample_mode=bilinear"}), m_spec, 7);
    auto nearest = makeModel(enginetest::config({"policy.transfuser.upsample_mode=nearest"}), m_spec, 7);
    torch::NoGradGuard noGrad;
    bilinear->module().eval();
    nearest->module().eval();
    const auto a = bilinear->computeLoss(m_batch).heads.at("semantic").item<double>();
    const auto b = nearest->computeLoss(m_batch).heads.at("semantic").item<double>();
    QVERIFY2(a != b, "same weights, different interpolation must give different outputs");
    // Nearest up-sampling repeats values: a 2× nearest resize of x has equal neighbours.
    auto x = torch::arange(4.0).view({1, 1, 2, 2});
    auto up = transfuser::upsample(x, {4, 4}, true);
    QCOMPARE(up[0][0][0][0].item<double>(), up[0][0][0][1].item<double>());
    QVERIFY(transfuser::upsample(x, {4, 4}, false)[0][0][0][1].item<double>() != up[0][0][0][1].item<double>());
}

void TestTransfuser::frozenBackboneStaysBitIdentical()
{
    auto model = makeModel(enginetest::config({"policy.transfuser.freeze_backbone=true"}), m_spec);
    const std::int64_t pretrainCount = parameterCount(model->trainableParameters());
    model->setStage(Stage::Posttrain); // LEAD freezes the backbone in post-train; pretrain trains it
    std::vector<torch::Tensor> before;
    for (const auto& p : model->backboneParameters())
        before.push_back(p.detach().clone());
    auto decoderBefore = child(*model, "semantic_decoder")->parameters()[0].detach().clone();
    torch::optim::AdamW optimizer(model->trainableParameters(), torch::optim::AdamWOptions(1e-2).weight_decay(0.01));
    optimizer.zero_grad();
    model->computeLoss(m_batch).total.backward();
    optimizer.step();
    const auto after = model->backboneParameters();
    QCOMPARE(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        QVERIFY2(torch::equal(before[i], after[i]), "a backbone weight changed");
        QVERIFY(!after[i].grad().defined());
    }
    QVERIFY2(!torch::equal(decoderBefore, child(*model, "semantic_decoder")->parameters()[0]), "heads must still train");
    // The unfrozen model trains the backbone in the same stage, and pretrain trains it in any case.
    auto free = makeModel(enginetest::config(), m_spec);
    free->setStage(Stage::Posttrain);
    QCOMPARE(parameterCount(free->trainableParameters()) - parameterCount(model->trainableParameters()),
             parameterCount(model->backboneParameters()));
    auto freePretrain = makeModel(enginetest::config(), m_spec);
    QCOMPARE(pretrainCount, parameterCount(freePretrain->trainableParameters()));
}

void TestTransfuser::disabledHeadsAddNoParameters()
{
    auto all = makeModel(enginetest::config(), m_spec);
    const std::int64_t depthParameters = parameterCount(child(*all, "depth_decoder")->parameters());
    QVERIFY(depthParameters > 0);
    auto noDepth = makeModel(enginetest::config({"policy.transfuser.use_depth=false"}), m_spec);
    QVERIFY(!child(*noDepth, "depth_decoder"));
    QCOMPARE(parameterCount(all->trainableParameters()) - parameterCount(noDepth->trainableParameters()), depthParameters);
    const auto loss = noDepth->computeLoss(m_batch);
    QVERIFY(!loss.heads.count("depth"));
    QVERIFY(loss.heads.count("semantic"));

    auto perceptionOff = makeModel(enginetest::config({"policy.transfuser.use_detection=false", "policy.transfuser.use_bev_semantic=false"}), m_spec);
    QVERIFY(!child(*perceptionOff, "center_net"));
    QVERIFY(!child(*perceptionOff, "top_down"));
    QVERIFY(!perceptionOff->computeLoss(m_batch).heads.count("center_heatmap"));
    // Planning parameters join the optimiser only in post-train.
    const std::int64_t pre = parameterCount(all->trainableParameters());
    all->setStage(Stage::Posttrain);
    QCOMPARE(parameterCount(all->trainableParameters()) - pre, parameterCount(child(*all, "planning_decoder")->parameters()));
}

// LEAD's "no depth" variant saves training time because the depth decoder no longer runs: the model's forward and
// loss, counted op by op, do fewer multiply-adds. The counter itself is checked on a convolution and a linear layer.
void TestTransfuser::noDepthComputesFewerMultiplyAdds()
{
    torch::NoGradGuard noGrad;
    auto all = makeModel(enginetest::config(), m_spec);
    auto noDepth = makeModel(enginetest::config({"policy.transfuser.use_depth=false"}), m_spec);
    const std::int64_t withDepth = MultiplyAddCounter::of([&] { all->computeLoss(m_batch); });
    const std::int64_t without = MultiplyAddCounter::of([&] { noDepth->computeLoss(m_batch); });
    const std::int64_t again = MultiplyAddCounter::of([&] { all->computeLoss(m_batch); });
    QCOMPARE(again, withDepth); // the count is a property of the computation, not of the run
    QVERIFY2(withDepth > 1000000, qPrintable(QString::number(withDepth)));
    QVERIFY2(without < withDepth, qPrintable(QString("multiply-adds: %1 with depth, %2 without").arg(withDepth).arg(without)));
    // The count reads the product shapes: a 1x1 convolution over a [1, 8, 4, 4] input with 16 outputs is 2,048.
    auto conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 16, 1));
    QCOMPARE(MultiplyAddCounter::of([&] { conv->forward(torch::zeros({1, 8, 4, 4})); }), std::int64_t(16 * 8 * 16));
    auto linear = torch::nn::Linear(10, 3);
    QCOMPARE(MultiplyAddCounter::of([&] { linear->forward(torch::zeros({5, 10})); }), std::int64_t(5 * 10 * 3));
    qInfo("multiply-adds of one forward and loss: %lld with the depth decoder, %lld without (%.3f)",
          static_cast<long long>(withDepth), static_cast<long long>(without),
          static_cast<double>(without) / static_cast<double>(withDepth));
}

void TestTransfuser::lossWeightsAreNormalised()
{
    auto model = makeModel(enginetest::config(), m_spec);
    torch::NoGradGuard noGrad;
    auto loss = model->computeLoss(m_batch);
    QCOMPARE(loss.heads.size(), std::size_t(9)); // perception terms only in pretrain
    double sum = 0;
    for (const auto& [name, value] : loss.heads)
        sum += value.item<double>();
    QVERIFY(std::abs(loss.total.item<double>() - sum / 9.0) < 1e-4 * std::max(1.0, sum));
    model->setStage(Stage::Posttrain);
    loss = model->computeLoss(m_batch);
    QCOMPARE(loss.heads.size(), std::size_t(11));
    sum = 0;
    for (const auto& [name, value] : loss.heads)
        sum += value.item<double>();
    QVERIFY(std::abs(loss.total.item<double>() - sum / 11.0) < 1e-4 * std::max(1.0, sum));
    // A zero weight removes a term; the others are rescaled to sum to one.
    auto noSemantic = makeModel(enginetest::config({"policy.transfuser.loss_weights.semantic=0"}), m_spec);
    loss = noSemantic->computeLoss(m_batch);
    sum = 0;
    for (const auto& [name, value] : loss.heads)
        if (name != "semantic")
            sum += value.item<double>();
    QVERIFY(std::abs(loss.total.item<double>() - sum / 8.0) < 1e-4 * std::max(1.0, sum));
}

void TestTransfuser::lossesFallOnASmallSet()
{
    auto model = makeModel(enginetest::config({"training.optimization.lr=0.002"}), m_spec);
    model->setStage(Stage::Posttrain);
    torch::optim::AdamW optimizer(model->trainableParameters(), torch::optim::AdamWOptions(2e-3));
    double first = 0, last = 0;
    for (int step = 0; step < 40; ++step) {
        optimizer.zero_grad();
        auto loss = model->computeLoss(m_batch);
        loss.total.backward();
        optimizer.step();
        if (step == 0)
            first = loss.total.item<double>();
        last = loss.total.item<double>();
    }
    QVERIFY2(last < 0.7 * first, qPrintable(QString("first %1 last %2").arg(first).arg(last)));
}

void TestTransfuser::badValuesAreRejectedBySchema()
{
    QVERIFY_THROWS_EXCEPTION(InputError, enginetest::config({"policy.transfuser.width=2"}));
    QVERIFY_THROWS_EXCEPTION(InputError, enginetest::config({"policy.transfuser.upsample_mode=cubic"}));
    QVERIFY_THROWS_EXCEPTION(InputError, enginetest::config({"policy.transfuser.loss_weights.depth=-1"}));
    QVERIFY_THROWS_EXCEPTION(InputError, enginetest::config({"training.optimization.precision=fp8"}));
}

// fp16's loss scaling through the trainer's step: backward of loss × 2^16 gives every gradient × 2^16, and
// unscaling gives back the plain step's gradients.
void TestTransfuser::lossScalingScalesEveryGradient()
{
    auto plain = makeModel(enginetest::config(), m_spec, 5);
    auto scaled = makeModel(enginetest::config(), m_spec, 5);
    plain->setStage(Stage::Posttrain);
    scaled->setStage(Stage::Posttrain);
    LossScaler scaler(torch::kCPU);
    QCOMPARE(scaler.value(), 65536.0);
    TrainStep plainStep(*plain, torch::kCPU, Precision::Fp32, /*capture=*/true, nullptr); // no capture on CPU
    TrainStep scaledStep(*scaled, torch::kCPU, Precision::Fp32, false, &scaler);
    QVERIFY(!plainStep.capturing());
    QVERIFY(!plainStep.captured());
    torch::manual_seed(11); // the same dropout masks for both
    const LossOutput a = plainStep.run(m_batch);
    QVERIFY(!plainStep.captured()); // a CUDA build would have asked a CUDA stream of a CPU step and thrown
    torch::manual_seed(11);
    const LossOutput b = scaledStep.run(m_batch);
    QCOMPARE(a.total.item<double>(), b.total.item<double>()); // the reported loss is not scaled
    const auto pa = plain->trainableParameters(), pb = scaled->trainableParameters();
    QCOMPARE(pa.size(), pb.size());
    int compared = 0;
    for (std::size_t i = 0; i < pa.size(); ++i) {
        if (!pa[i].grad().defined())
            continue;
        QVERIFY(pb[i].grad().defined());
        const auto ratio = (pb[i].grad() - pa[i].grad() * 65536.0).abs().max().item<double>();
        QVERIFY2(ratio <= 1e-3 * std::max(1.0, (pa[i].grad() * 65536.0).abs().max().item<double>()),
                 qPrintable(QString("parameter %1 differs by %2").arg(i).arg(ratio)));
        ++compared;
    }
    QVERIFY(compared > 20);
    QVERIFY(scaler.unscale(pb));
    for (std::size_t i = 0; i < pa.size(); ++i)
        if (pa[i].grad().defined())
            QVERIFY(torch::allclose(pb[i].grad(), pa[i].grad(), 1e-5, 1e-9));

    // Clearing goes through the optimiser while the step is eager.
    torch::optim::SGD sgd(pa, torch::optim::SGDOptions(0.1));
    plainStep.clearGradients(sgd);
    for (const auto& p : pa)
        QVERIFY(!p.grad().defined() || p.grad().abs().sum().item<double>() == 0.0);
}

// The step captures only on a CUDA device of a build with CUDA graphs; constructing it touches no device.
void TestTransfuser::trainStepCapturesOnlyOnCudaDevices()
{
    auto model = makeModel(enginetest::config(), m_spec, 5);
    const torch::Device gpu(torch::kCUDA, 0);
    QCOMPARE(TrainStep(*model, gpu, Precision::Fp32, true, nullptr).capturing(), stepCaptureBuiltIn());
    QVERIFY(!TrainStep(*model, gpu, Precision::Fp32, false, nullptr).capturing());
    QVERIFY(!TrainStep(*model, torch::kCPU, Precision::Fp32, true, nullptr).capturing());
}

void TestTransfuser::stepCaptureIsPlannedOnlyWhereItCanRun()
{
    const auto on = enginetest::config({"training.optimization.use_torch_compile=true"});
    const auto off = enginetest::config({"training.optimization.use_torch_compile=false"});
    const torch::Device gpu(torch::kCUDA, 0); // a device value only: nothing runs on it here
    QVERIFY(makeModel(on, m_spec)->supportsStepCapture());
    // A build configured with the CUDA code (PITWALL_WITH_CUDA) has CUDA graphs, and one without has none.
    QCOMPARE(stepCaptureBuiltIn(), bool(PITWALL_TEST_EXPECT_CUDA));

    // CPU: nothing captured and nothing said here (the run's notices say it once).
    CapturePlan plan = planStepCapture(on, torch::kCPU, true, 1, "transfuser");
    QVERIFY(!plan.capture);
    QVERIFY(plan.notice.empty());
    plan = planStepCapture(off, gpu, true, 1, "transfuser");
    QVERIFY(!plan.capture);
    QVERIFY(plan.notice.empty());
    if (!stepCaptureBuiltIn()) {
        plan = planStepCapture(on, gpu, true, 1, "transfuser");
        QVERIFY(!plan.capture);
        QVERIFY2(plan.notice.find("no CUDA graphs") != std::string::npos, plan.notice.c_str());
        return;
    }
    plan = planStepCapture(on, gpu, true, 1, "transfuser");
    QVERIFY(plan.capture);
    QVERIFY2(plan.notice.find("captured once and replayed") != std::string::npos, plan.notice.c_str());
    QVERIFY(plan.notice.find("cuDNN") == std::string::npos); // the default mode does not autotune
    const auto autotune = enginetest::config(
        {"training.optimization.use_torch_compile=true", "training.optimization.torch_compile_mode=max-autotune"});
    plan = planStepCapture(autotune, gpu, true, 1, "transfuser");
    QVERIFY(plan.capture);
    QVERIFY2(plan.notice.find("max-autotune: cuDNN autotunes") != std::string::npos, plan.notice.c_str());
    plan = planStepCapture(on, gpu, false, 1, "autospeed");
    QVERIFY(!plan.capture);
    QVERIFY(plan.notice.find("autospeed") != std::string::npos);
    plan = planStepCapture(on, gpu, true, 4, "transfuser");
    QVERIFY(!plan.capture);
    QVERIFY(plan.notice.find("accumulation over 4") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestTransfuser)
#include "tst_transfuser.moc"
