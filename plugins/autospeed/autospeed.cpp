// AutoSpeed-lite as a Pitwall model plugin: options and the trainer's plan from autospeed.* keys, AutoSpeed's
// optimisation (SGD Nesterov, three parameter groups, linear warm-up then linear decay, EMA of the weights), and
// validation through the shared detection metrics (NMS, P / R / mAP50 / mAP50-95, AP by autospeed.ap_method) on
// the EMA model.
#include "autospeed.h"

#include "core/eval/detection.h"
#include "core/util/error.h"

#include <cmath>

namespace pitwall::autospeed {

namespace {
constexpr int kMaxBoxesPerImage = 64;
constexpr float kEvalConfidence = 0.001f; // AutoSpeed's val: conf 0.001, IoU 0.65, max_det 300
constexpr float kEvalIou = 0.65f;
constexpr int kEvalMaxDetections = 300;
constexpr int64_t kMaxNmsCandidates = 3000; // per image, highest scores first (bounds NMS time)
const std::vector<std::string> kClassNames = {"NA", "CIPO-1", "CIPO-2", "CIPO-3"};

std::string key(const std::string& leaf)
{
    return "autospeed." + leaf;
}

// AutoSpeed's width table per version (Models/model_components: n, s, m, l, x) and residual depth.
std::array<int, 6> versionWidths(const std::string& version, int& depth)
{
    depth = (version == "l" || version == "x") ? 2 : 1;
    if (version == "s")
        return {3, 32, 64, 128, 256, 512};
    if (version == "m" || version == "l")
        return {3, 64, 128, 256, 512, 512};
    if (version == "x")
        return {3, 96, 192, 384, 768, 768};
    return {3, 16, 32, 64, 128, 256};
}
} // namespace

AutoSpeedOptions readOptions(const ResolvedConfig& c)
{
    AutoSpeedOptions o;
    o.widths = versionWidths(c.getString(key("version")), o.depth);
    const double multiple = c.getDouble(key("width_multiple"));
    for (std::size_t i = 1; i < o.widths.size(); ++i)
        o.widths[i] = std::max(4, static_cast<int>(std::lround(o.widths[i] * multiple)));
    o.inputWidth = static_cast<int>(c.getInt(key("input_width")));
    o.inputHeight = static_cast<int>(c.getInt(key("input_height")));
    if (o.inputWidth % kStrides.back() != 0 || o.inputHeight % kStrides.back() != 0)
        throw InputError("autospeed.input_width x input_height = " + std::to_string(o.inputWidth) + " x " +
                         std::to_string(o.inputHeight) + ": both must be multiples of 32 (the coarsest stride)");
    o.batchNormMomentum = c.getDouble(key("bn_momentum"));
    o.clipGradNorm = c.getDouble(key("clip_grad_norm"));
    o.boxGain = c.getDouble(key("box"));
    o.clsGain = c.getDouble(key("cls"));
    o.dflGain = c.getDouble(key("dfl"));
    o.vectorizedLoss = !c.getBool(key("disable_vectorized_loss"));
    o.batchSize = static_cast<int>(c.getInt(key("batch_size")));
    o.validationBatchSize = static_cast<int>(c.getInt(key("val_batch_size")));
    o.epochs = static_cast<int>(c.getInt(key("epochs")));
    o.warmupEpochs = static_cast<int>(c.getInt(key("warmup_epochs")));
    o.minLr = c.getDouble(key("min_lr"));
    o.maxLr = c.getDouble(key("max_lr"));
    o.momentum = c.getDouble(key("momentum"));
    o.weightDecay = c.getDouble(key("weight_decay"));
    o.nominalBatchSize = static_cast<int>(c.getInt(key("nominal_batch_size")));
    o.apMethod = eval::parseApMethod(c.getString(key("ap_method")), key("ap_method"));
    return o;
}

void declarePlan(const ResolvedConfig& c, ModelPlan& plan)
{
    const AutoSpeedOptions o = readOptions(c);
    plan.batches = BatchKind::DetectionImages;
    plan.inputWidth = o.inputWidth;
    plan.inputHeight = o.inputHeight;
    plan.maxBoxes = kMaxBoxesPerImage;
    plan.batchSize = o.batchSize;
    plan.validationBatchSize = o.validationBatchSize;
    plan.epochs = o.epochs;
    // YOLO-style augmentation: zoom in [1 - scale, 1 + scale], centre shifted by up to `translate`, HSV gains.
    data::AugmentOptions& a = plan.augment;
    a.enabled = true;
    a.placement = data::CropPlacement::Translate;
    const double scale = c.getDouble(key("scale"));
    a.scaleMin = std::max(0.05, 1.0 - scale);
    a.scaleMax = 1.0 + scale;
    a.translate = c.getDouble(key("translate"));
    a.flipProbability = c.getDouble(key("flip_lr"));
    a.hsvH = c.getDouble(key("hsv_h"));
    a.hsvS = c.getDouble(key("hsv_s"));
    a.hsvV = c.getDouble(key("hsv_v"));
}

// AutoSpeed's optimiser: SGD with Nesterov momentum over three groups (weights with decay scaled to the nominal
// batch, 64, norm weights and biases without), the learning rate rising linearly from min_lr to max_lr over
// the warm-up epochs and falling linearly back to min_lr by the last batch, and an EMA update after every step.
class AutoSpeedOptimization final : public Optimization {
public:
    AutoSpeedOptimization(torch::nn::Module& network, const AutoSpeedOptions& o, const StagePlan& plan,
                          std::function<void()> afterStep)
        : m_options(o), m_afterStep(std::move(afterStep)), m_parameters(network.parameters())
    {
        const int64_t samplesPerStep = plan.batchSize * plan.worldSize;
        m_accumulate =
            std::max(1, static_cast<int>(std::lround(static_cast<double>(o.nominalBatchSize) / samplesPerStep)));
        const double decay = o.weightDecay * static_cast<double>(samplesPerStep * m_accumulate) / o.nominalBatchSize;
        std::vector<torch::Tensor> weights, norms, biases;
        for (const auto& item : network.named_parameters()) {
            const std::string& name = item.key();
            if (name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0)
                biases.push_back(item.value());
            else if (item.value().dim() == 1)
                norms.push_back(item.value()); // BatchNorm weights
            else
                weights.push_back(item.value());
        }
        auto group = [&](std::vector<torch::Tensor> params, double weightDecay) {
            auto options = std::make_unique<torch::optim::SGDOptions>(o.minLr);
            options->momentum(o.momentum).nesterov(o.momentum > 0).weight_decay(weightDecay);
            return torch::optim::OptimizerParamGroup(std::move(params), std::move(options));
        };
        std::vector<torch::optim::OptimizerParamGroup> groups;
        groups.push_back(group(weights, decay));
        groups.push_back(group(norms, 0.0));
        groups.push_back(group(biases, 0.0));
        m_optimizer = std::make_unique<torch::optim::SGD>(
            std::move(groups), torch::optim::SGDOptions(o.minLr).momentum(o.momentum).nesterov(o.momentum > 0));
        m_totalBatches = std::max<int64_t>(1, plan.stepsPerEpoch * plan.epochs);
        m_warmupBatches = std::min<int64_t>(m_totalBatches, plan.stepsPerEpoch * o.warmupEpochs);
    }

    torch::optim::Optimizer& optimizer() override { return *m_optimizer; }
    int accumulate() const override { return m_accumulate; }

    double setLearningRate(std::int64_t batch) override
    {
        const double minLr = m_options.minLr, maxLr = m_options.maxLr;
        double lr;
        if (batch < m_warmupBatches)
            lr = minLr + (maxLr - minLr) * static_cast<double>(batch) / static_cast<double>(m_warmupBatches);
        else
            lr = maxLr + (minLr - maxLr) * static_cast<double>(batch - m_warmupBatches) /
                             static_cast<double>(std::max<int64_t>(1, m_totalBatches - m_warmupBatches));
        for (auto& group : m_optimizer->param_groups())
            static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
        return lr;
    }

    void beforeOptimizerStep() override
    {
        if (m_options.clipGradNorm > 0)
            torch::nn::utils::clip_grad_norm_(m_parameters, m_options.clipGradNorm);
    }

    void afterOptimizerStep() override { m_afterStep(); }

private:
    AutoSpeedOptions m_options;
    std::function<void()> m_afterStep;
    std::unique_ptr<torch::optim::SGD> m_optimizer;
    std::vector<torch::Tensor> m_parameters; // what clip_grad_norm clips
    int m_accumulate = 1;
    int64_t m_totalBatches = 1, m_warmupBatches = 0;
};

class AutoSpeedModel final : public Model {
public:
    AutoSpeedModel(const ResolvedConfig& config, const DataSpec& spec)
        : m_options(readOptions(config)), m_root(std::make_shared<torch::nn::Module>("AutoSpeedLite"))
    {
        if (spec.imageWidth > 0 && spec.imageHeight > 0) {
            m_options.inputWidth = static_cast<int>(spec.imageWidth);
            m_options.inputHeight = static_cast<int>(spec.imageHeight);
        }
        m_loss.boxGain = m_options.boxGain;
        m_loss.clsGain = m_options.clsGain;
        m_loss.dflGain = m_options.dflGain;
        m_loss.vectorized = m_options.vectorizedLoss;
        m_network = m_root->register_module("network", Network(m_options));
        // The exponential moving average of the weights: what validation and the saved weights use.
        m_ema = m_root->register_module("ema", Network(m_options));
        m_root->register_buffer("ema_updates", torch::zeros({}, torch::kDouble)); // optimiser steps seen
        for (const auto& module : m_root->modules(/*include_self=*/false))
            if (auto* bn = module->as<torch::nn::BatchNorm2d>())
                bn->options.momentum(m_options.batchNormMomentum);
        torch::NoGradGuard noGrad;
        copyInto(*m_ema, *m_network, 0.0);
        for (auto& p : m_ema->parameters())
            p.set_requires_grad(false);
        m_unsupported = unsupportedAugmentations(config);
    }

    torch::nn::Module& module() override { return *m_root; }
    void setStage(Stage) override {}
    std::vector<torch::Tensor> trainableParameters() override { return m_network->parameters(); }
    std::vector<torch::Tensor> backboneParameters() override { return m_network->backbone->parameters(); }

    // Training mode: the trained network; eval mode (validation loss): the EMA.
    LossOutput computeLoss(const Batch& batch) override
    {
        Network& net = m_root->is_training() ? m_network : m_ema;
        return detectionLoss(net->forward(batch.at("image")), batch.at("boxes"), m_loss);
    }

    // Detections of the EMA model after NMS, and the ground truth, kept per image for finishMetrics:
    // "det_predictions" rows (image, class, score, x0, y0, x1, y1), "det_truth" rows (image, class, x0, y0, x1, y1).
    void evaluate(const Batch& batch, MetricAccumulator& metrics) override
    {
        torch::NoGradGuard noGrad;
        auto [boxes, scores] = decodePredictions(m_ema->forward(batch.at("image")));
        boxes = boxes.to(torch::kCPU);
        scores = scores.to(torch::kCPU);
        auto& images = metrics.state("det_images", [] { return torch::zeros({}, torch::kLong); });
        auto& predictions = metrics.state("det_predictions", [] { return torch::zeros({0, 7}); });
        auto& truth = metrics.state("det_truth", [] { return torch::zeros({0, 6}); });
        const int64_t first = images.item<int64_t>();
        const eval::NmsOptions nms{kEvalConfidence, kEvalIou, kEvalMaxDetections};
        std::vector<float> rows;
        for (int64_t b = 0; b < boxes.size(0); ++b) {
            auto candidates = (scores[b] > kEvalConfidence).nonzero(); // (anchor, class)
            auto values = scores[b].index({candidates.select(1, 0), candidates.select(1, 1)});
            if (values.size(0) > kMaxNmsCandidates) {
                auto top = std::get<1>(values.topk(kMaxNmsCandidates));
                candidates = candidates.index_select(0, top);
                values = values.index_select(0, top);
            }
            auto picked = boxes[b].index_select(0, candidates.select(1, 0)).contiguous();
            auto anchorBox = picked.accessor<float, 2>();
            auto cls = candidates.select(1, 1).contiguous();
            auto clsAt = cls.accessor<int64_t, 1>();
            auto valueAt = values.accessor<float, 1>();
            std::vector<eval::Detection> detections;
            detections.reserve(static_cast<std::size_t>(values.size(0)));
            for (int64_t i = 0; i < values.size(0); ++i)
                detections.push_back({{anchorBox[i][0], anchorBox[i][1], anchorBox[i][2], anchorBox[i][3]},
                                      static_cast<int>(clsAt[i]),
                                      valueAt[i]});
            for (const eval::Detection& d : eval::nonMaxSuppression(std::move(detections), nms))
                rows.insert(rows.end(), {static_cast<float>(first + b), static_cast<float>(d.classId), d.score,
                                         d.box.x0, d.box.y0, d.box.x1, d.box.y1});
        }
        if (!rows.empty())
            predictions = torch::cat({predictions, torch::tensor(rows).view({-1, 7})});
        auto gt = flattenTargets(batch.at("boxes").to(torch::kCPU).to(torch::kFloat));
        gt.select(1, 0).add_(static_cast<double>(first));
        truth = torch::cat({truth, gt});
        images += boxes.size(0);
    }

    std::map<std::string, double> finishMetrics(const MetricAccumulator& metrics) override
    {
        auto out = metrics.means();
        const auto& states = metrics.states();
        if (!states.count("det_images"))
            return out;
        const int64_t images = states.at("det_images").item<int64_t>();
        std::vector<std::vector<eval::Detection>> predicted(static_cast<std::size_t>(images)), truth(predicted.size());
        const auto p = states.at("det_predictions").contiguous();
        const auto pa = p.accessor<float, 2>();
        for (int64_t i = 0; i < p.size(0); ++i)
            predicted[static_cast<std::size_t>(pa[i][0])].push_back(
                {{pa[i][3], pa[i][4], pa[i][5], pa[i][6]}, static_cast<int>(pa[i][1]), pa[i][2]});
        const auto t = states.at("det_truth").contiguous();
        const auto ta = t.accessor<float, 2>();
        for (int64_t i = 0; i < t.size(0); ++i)
            truth[static_cast<std::size_t>(ta[i][0])].push_back(
                {{ta[i][2], ta[i][3], ta[i][4], ta[i][5]}, static_cast<int>(ta[i][1]), 1.0f});
        eval::DetectionEvaluator evaluator(kClassNames, m_options.apMethod);
        for (std::size_t i = 0; i < predicted.size(); ++i)
            evaluator.addImage(predicted[i], truth[i]);
        const eval::DetectionMetrics m = evaluator.finish();
        out["precision"] = m.precision;
        out["recall"] = m.recall;
        out["map50"] = m.map50;
        out["map50_95"] = m.map50_95;
        return out;
    }

    // The augmentations left out, and the AP method of the validation metrics (so every run's report names it).
    std::vector<std::string> notices() const override
    {
        std::vector<std::string> notes = m_unsupported;
        notes.push_back("validation AP: " + std::string(eval::apMethodLabel(m_options.apMethod)) + " (" +
                        key("ap_method") + "=" + std::string(eval::apMethodName(m_options.apMethod)) + ")");
        return notes;
    }

    std::unique_ptr<Optimization> makeOptimization(const StagePlan& plan) override
    {
        return std::make_unique<AutoSpeedOptimization>(*m_network, m_options, plan, [this] { updateEma(); });
    }

private:
    // target = decay * target + (1 - decay) * source, parameters and floating-point buffers; other buffers copied.
    static void copyInto(torch::nn::Module& target, torch::nn::Module& source, double decay)
    {
        auto tp = target.parameters(), sp = source.parameters();
        for (std::size_t i = 0; i < tp.size(); ++i)
            tp[i].mul_(decay).add_(sp[i].detach(), 1.0 - decay);
        auto tb = target.buffers(), sb = source.buffers();
        for (std::size_t i = 0; i < tb.size(); ++i) {
            if (tb[i].is_floating_point())
                tb[i].mul_(decay).add_(sb[i], 1.0 - decay);
            else
                tb[i].copy_(sb[i]);
        }
    }

    // AutoSpeed's ModelEMA: decay ramps up as decay * (1 - exp(-updates / tau)).
    void updateEma()
    {
        torch::NoGradGuard noGrad;
        torch::Tensor& counter = m_root->named_buffers(/*recurse=*/false)["ema_updates"];
        counter += 1;
        const double updates = counter.item<double>();
        copyInto(*m_ema, *m_network, m_options.emaDecay * (1.0 - std::exp(-updates / m_options.emaTau)));
    }

    static std::vector<std::string> unsupportedAugmentations(const ResolvedConfig& c)
    {
        std::vector<std::string> notes;
        for (const char* leaf : {"mosaic", "mix_up", "degrees", "shear", "flip_ud"})
            if (c.getDouble(key(leaf)) != 0.0)
                notes.push_back(
                    key(leaf) + "=" + c.entry(key(leaf)).value.toText() +
                    " is not applied: Pitwall's data pipeline crops, zooms, flips left-right and jitters HSV");
        return notes;
    }

    AutoSpeedOptions m_options;
    LossOptions m_loss;
    std::shared_ptr<torch::nn::Module> m_root;
    Network m_network{nullptr}, m_ema{nullptr};
    std::vector<std::string> m_unsupported;
};

Model* createAutoSpeedModel(const ResolvedConfig& config, const DataSpec& spec)
{
    return new AutoSpeedModel(config, spec);
}

} // namespace pitwall::autospeed
