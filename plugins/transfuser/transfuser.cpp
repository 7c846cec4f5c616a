// TransFuser-lite as a Pitwall model plugin: options from the config, stage switching, parameter groups
// for freezing and disabled heads, losses with LEAD's weight normalisation, and validation metrics.
#include "losses.h"
#include "transfuser.h"

#include <cmath>

namespace pitwall::transfuser {

namespace F = torch::nn::functional;

namespace {
constexpr int kYawBins = 12;
constexpr double kBevGridStride = 4.0; // CenterNet and the BEV neck work at 1/4 of the BEV raster
constexpr int kDetectionTopK = 50;
constexpr double kDetectionMinScore = 0.05;
constexpr double kMatchDistanceMeters = 2.0;
constexpr int kCommands = 6;

const std::vector<std::string> kPerceptionTerms = {"semantic",       "depth",         "bev_semantic",
                                                   "center_heatmap", "center_wh",     "center_offset",
                                                   "center_yaw_class", "center_yaw_res", "center_velocity"};
const std::vector<std::string> kPlanningTerms = {"waypoints", "target_speed"};

std::string key(const std::string& leaf) { return "policy.transfuser." + leaf; }
} // namespace

TransfuserOptions readOptions(const ResolvedConfig& c)
{
    TransfuserOptions o;
    o.width = static_cast<int>(c.getInt(key("width")));
    o.gptLayers = static_cast<int>(c.getInt(key("gpt_layers")));
    o.gptHeads = static_cast<int>(c.getInt(key("gpt_heads")));
    o.tokenDim = static_cast<int>(c.getInt(key("token_dim")));
    o.planningLayers = static_cast<int>(c.getInt(key("planning_layers")));
    o.planningHeads = static_cast<int>(c.getInt(key("planning_heads")));
    o.upsampleLogits = c.getBool(key("upsample_perspective_logits"));
    o.nearest = c.getString(key("upsample_mode")) == "nearest";
    o.freezeBackbone = c.getBool(key("freeze_backbone"));
    o.useDepth = c.getBool(key("use_depth"));
    o.useSemantic = c.getBool(key("use_semantic"));
    o.useBevSemantic = c.getBool(key("use_bev_semantic"));
    o.useDetection = c.getBool(key("use_detection"));
    for (const std::string& term : kPerceptionTerms)
        o.lossWeights[term] = c.getDouble(key("loss_weights." + term));
    for (const std::string& term : kPlanningTerms)
        o.lossWeights[term] = c.getDouble(key("loss_weights." + term));
    return o;
}

class TransfuserModel final : public Model {
public:
    TransfuserModel(const ResolvedConfig& config, const DataSpec& spec)
        : m_options(readOptions(config)), m_spec(spec), m_root(std::make_shared<torch::nn::Module>("TransfuserLite"))
    {
        const auto& o = m_options;
        const int top = o.width * 8;
        const int bevChannels = std::max(16, o.width * 4);
        m_backbone = m_root->register_module("backbone", Backbone(o, spec));
        if (o.useSemantic)
            m_semantic = m_root->register_module("semantic_decoder",
                                                 PerspectiveDecoder(top, o.width, spec.semanticClasses, o.upsampleLogits,
                                                                    o.nearest, spec.imageHeight, spec.imageWidth));
        if (o.useDepth)
            m_depth = m_root->register_module("depth_decoder", PerspectiveDecoder(top, o.width, 1, o.upsampleLogits,
                                                                                  o.nearest, spec.imageHeight, spec.imageWidth));
        m_gridH = std::max<int64_t>(1, spec.bevHeight / static_cast<int64_t>(kBevGridStride));
        m_gridW = std::max<int64_t>(1, spec.bevWidth / static_cast<int64_t>(kBevGridStride));
        if (o.useBevSemantic || o.useDetection)
            m_topDown = m_root->register_module("top_down", TopDown(top, bevChannels, m_gridH, m_gridW, o.nearest));
        if (o.useBevSemantic)
            m_bevSemantic = m_root->register_module(
                "bev_semantic_decoder",
                torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(bevChannels, bevChannels, 3).padding(1)),
                                      torch::nn::ReLU(true),
                                      torch::nn::Conv2d(torch::nn::Conv2dOptions(bevChannels, spec.bevSemanticClasses, 1))));
        if (o.useDetection)
            m_centerNet = m_root->register_module("center_net", CenterNetHead(bevChannels, spec.boxClasses, kYawBins));
        m_planning = m_root->register_module(
            "planning_decoder",
            PlanningDecoder(top, o, static_cast<int>(spec.waypoints), static_cast<int>(targetSpeedClasses().size())));
        setStage(Stage::Pretrain);
    }

    torch::nn::Module& module() override { return *m_root; }

    void setStage(Stage stage) override
    {
        m_stage = stage;
        // LEAD freezes the backbone for post-train (pretrain must learn it).
        for (auto& p : m_backbone->parameters())
            p.set_requires_grad(!backboneFrozen());
        // LEAD's schedule_loss_weights: disabled heads and (in pretrain) planning get 0, the rest sum to 1.
        m_weights.clear();
        double total = 0;
        for (const auto& [term, weight] : m_options.lossWeights) {
            const double w = termEnabled(term) ? weight : 0.0;
            m_weights[term] = w;
            total += w;
        }
        for (auto& [term, weight] : m_weights)
            weight = total > 0 ? weight / total : 0.0;
    }

    std::vector<torch::Tensor> trainableParameters() override
    {
        std::vector<torch::Tensor> out;
        auto take = [&](const auto& holder) {
            if (!holder.is_empty())
                for (auto& p : holder->parameters())
                    if (p.requires_grad())
                        out.push_back(p);
        };
        if (!backboneFrozen())
            take(m_backbone);
        take(m_semantic);
        take(m_depth);
        take(m_topDown);
        take(m_bevSemantic);
        take(m_centerNet);
        if (m_stage == Stage::Posttrain)
            take(m_planning);
        return out;
    }

    std::vector<torch::Tensor> backboneParameters() override { return m_backbone->parameters(); }

    // Fixed shapes (boxes padded to kMaxBoxesPerSample, Gaussian targets by dense arithmetic) and no host
    // synchronisation in forward or loss: the step can be captured.
    bool supportsStepCapture() const override { return true; }

    LossOutput computeLoss(const Batch& batch) override
    {
        const Outputs out = forward(batch);
        LossOutput loss;
        if (out.semantic.defined())
            loss.heads["semantic"] = F::cross_entropy(out.semantic.to(torch::kFloat), batch.at("semantic"));
        if (out.depth.defined())
            loss.heads["depth"] = F::l1_loss(out.depth.to(torch::kFloat), batch.at("depth") / m_spec.maxDepthMeters);
        if (out.bevSemantic.defined())
            loss.heads["bev_semantic"] = F::cross_entropy(out.bevSemantic.to(torch::kFloat), batch.at("bev_semantic"),
                                                          F::CrossEntropyFuncOptions().ignore_index(-1));
        if (!out.centers.empty()) {
            const CenterTargets targets = makeCenterTargets(batch.at("boxes"), m_spec.boxClasses, m_gridH, m_gridW,
                                                            kBevGridStride, kYawBins);
            for (auto& [term, value] : centerNetLosses(out.centers, targets))
                loss.heads[term] = value;
        }
        if (out.waypoints.defined()) {
            loss.heads["waypoints"] = F::l1_loss(out.waypoints.to(torch::kFloat), batch.at("waypoints"));
            const auto target = twoHotSpeed(batch.at("target_speed"), targetSpeedClasses());
            loss.heads["target_speed"] =
                -(target * F::log_softmax(out.speedLogits.to(torch::kFloat), F::LogSoftmaxFuncOptions(1))).sum(1).mean();
        }
        loss.total = torch::zeros({}, batch.at("rgb").options().dtype(torch::kFloat));
        for (const auto& [term, value] : loss.heads)
            if (m_weights[term] > 0)
                loss.total = loss.total + m_weights[term] * value;
        return loss;
    }

    void evaluate(const Batch& batch, MetricAccumulator& metrics) override
    {
        torch::NoGradGuard noGrad;
        const Outputs out = forward(batch);
        if (out.semantic.defined()) {
            const int k = m_spec.semanticClasses;
            auto& confusion = metrics.state("semantic_confusion", [k] { return torch::zeros({k * k}, torch::kLong); });
            auto pred = out.semantic.argmax(1).reshape({-1}).to(torch::kCPU);
            auto truth = batch.at("semantic").reshape({-1}).to(torch::kCPU);
            confusion += torch::bincount(truth * k + pred, {}, k * k);
        }
        if (out.depth.defined()) {
            auto error = (out.depth.to(torch::kFloat) * m_spec.maxDepthMeters - batch.at("depth")).abs();
            metrics.add("depth_mae", error.sum().item<double>(), static_cast<double>(error.numel()));
        }
        if (!out.centers.empty())
            accumulateDetections(out.centers, batch, metrics);
        if (out.waypoints.defined()) {
            auto l1 = (out.waypoints.to(torch::kFloat) - batch.at("waypoints")).norm(2, 2); // per-point distance
            metrics.add("waypoint_l1", l1.sum().item<double>(), static_cast<double>(l1.numel()));
        }
    }

    std::optional<PlanOutput> plan(const Batch& batch) override
    {
        torch::NoGradGuard noGrad;
        const Stage previous = m_stage;
        m_stage = Stage::Posttrain; // planning runs in post-train mode
        auto [image, bev] = m_backbone->forward(batch.at("rgb"), batch.at("lidar"));
        auto command = batch.at("command").clamp(0, kCommands - 1);
        auto [waypoints, speedLogits] = m_planning->forward(bev, batch.at("speed"), batch.at("target_point"), command);
        m_stage = previous;
        // Expected speed under the predicted class distribution (LEAD decodes the target speed this way).
        auto classes = torch::tensor(targetSpeedClasses(), torch::kFloat).to(speedLogits.device());
        auto speed = (torch::softmax(speedLogits.to(torch::kFloat), 1) * classes).sum(1);
        return PlanOutput{waypoints.to(torch::kFloat).to(torch::kCPU), speed.to(torch::kCPU)};
    }

    std::map<std::string, double> finishMetrics(const MetricAccumulator& metrics) override
    {
        auto means = metrics.means();
        const auto& states = metrics.states();
        if (auto it = states.find("semantic_confusion"); it != states.end()) {
            const int k = m_spec.semanticClasses;
            auto cm = it->second.reshape({k, k}).to(torch::kDouble);
            auto tp = cm.diagonal();
            auto denominator = cm.sum(0) + cm.sum(1) - tp;
            auto present = denominator > 0;
            means["semantic_miou"] = (tp.masked_select(present) / denominator.masked_select(present)).mean().item<double>();
        }
        if (states.count("det_scores")) {
            const auto scores = states.at("det_scores");
            const auto hits = states.at("det_hits");
            const auto classes = states.at("det_classes");
            const auto targets = states.at("det_targets");
            double sum = 0;
            int counted = 0;
            for (int c = 0; c < m_spec.boxClasses; ++c) {
                const int64_t n = targets[c].item<int64_t>();
                if (n == 0)
                    continue;
                std::vector<std::pair<double, bool>> scored;
                for (int64_t i = 0; i < scores.size(0); ++i)
                    if (classes[i].item<int64_t>() == c)
                        scored.emplace_back(scores[i].item<double>(), hits[i].item<bool>());
                sum += averagePrecision(std::move(scored), n);
                ++counted;
            }
            means["detection_map"] = counted ? sum / counted : 0.0;
        }
        return means;
    }


private:
    struct Outputs {
        torch::Tensor semantic, depth, bevSemantic, waypoints, speedLogits;
        std::map<std::string, torch::Tensor> centers;
    };

    bool backboneFrozen() const { return m_options.freezeBackbone && m_stage == Stage::Posttrain; }

    bool termEnabled(const std::string& term) const
    {
        const auto& o = m_options;
        if (term == "semantic")
            return o.useSemantic;
        if (term == "depth")
            return o.useDepth;
        if (term == "bev_semantic")
            return o.useBevSemantic;
        if (term.rfind("center_", 0) == 0)
            return o.useDetection;
        return m_stage == Stage::Posttrain; // planning terms
    }

    Outputs forward(const Batch& batch)
    {
        Outputs out;
        auto [image, bev] = m_backbone->forward(batch.at("rgb"), batch.at("lidar"));
        if (m_semantic)
            out.semantic = m_semantic->forward(image);
        if (m_depth)
            out.depth = m_depth->forward(image).squeeze(1);
        if (m_topDown) {
            auto grid = m_topDown->forward(bev);
            if (m_bevSemantic)
                out.bevSemantic = upsample(m_bevSemantic->forward(grid), {m_spec.bevHeight, m_spec.bevWidth}, false);
            if (m_centerNet)
                out.centers = m_centerNet->forward(grid);
        }
        if (m_stage == Stage::Posttrain) {
            auto command = batch.at("command").clamp(0, kCommands - 1);
            std::tie(out.waypoints, out.speedLogits) =
                m_planning->forward(bev, batch.at("speed"), batch.at("target_point"), command);
        }
        return out;
    }

    void accumulateDetections(const std::map<std::string, torch::Tensor>& centers, const Batch& batch,
                              MetricAccumulator& metrics)
    {
        const int k = m_spec.boxClasses;
        auto& scores = metrics.state("det_scores", [] { return torch::zeros({0}, torch::kDouble); });
        auto& hits = metrics.state("det_hits", [] { return torch::zeros({0}, torch::kBool); });
        auto& classes = metrics.state("det_classes", [] { return torch::zeros({0}, torch::kLong); });
        auto& targets = metrics.state("det_targets", [k] { return torch::zeros({k}, torch::kLong); });
        const auto boxes = batch.at("boxes").to(torch::kCPU);
        const double matchPx = kMatchDistanceMeters * m_spec.bevPixelsPerMeter;
        std::map<std::string, torch::Tensor> cpu;
        for (const auto& [name, t] : centers)
            cpu[name] = t.detach().to(torch::kCPU);
        std::vector<double> newScores;
        std::vector<bool> newHits;
        std::vector<int64_t> newClasses;
        for (int64_t b = 0; b < boxes.size(0); ++b) {
            const auto det = decodeCenters(cpu, b, kBevGridStride, kDetectionTopK, kDetectionMinScore);
            const auto gt = boxes[b];
            std::vector<bool> used(gt.size(0), false);
            for (int64_t g = 0; g < gt.size(0); ++g)
                if (gt[g][kClass].item<double>() >= 0)
                    targets[static_cast<int64_t>(gt[g][kClass].item<double>())] += 1;
            for (int64_t d = 0; d < det.size(0); ++d) { // scores are sorted high to low by topk
                const double row = det[d][0].item<double>(), col = det[d][1].item<double>();
                const int64_t cls = static_cast<int64_t>(det[d][2].item<double>());
                int64_t best = -1;
                double bestDistance = matchPx;
                for (int64_t g = 0; g < gt.size(0); ++g) {
                    if (used[g] || static_cast<int64_t>(gt[g][kClass].item<double>()) != cls)
                        continue;
                    const double distance = std::hypot(gt[g][kRow].item<double>() - row, gt[g][kCol].item<double>() - col);
                    if (distance <= bestDistance) {
                        bestDistance = distance;
                        best = g;
                    }
                }
                if (best >= 0)
                    used[best] = true;
                newScores.push_back(det[d][3].item<double>());
                newHits.push_back(best >= 0);
                newClasses.push_back(cls);
            }
        }
        if (!newScores.empty()) {
            std::vector<uint8_t> hitBytes(newHits.begin(), newHits.end());
            scores = torch::cat({scores, torch::tensor(newScores, torch::kDouble)});
            hits = torch::cat({hits, torch::tensor(std::vector<int64_t>(hitBytes.begin(), hitBytes.end())).to(torch::kBool)});
            classes = torch::cat({classes, torch::tensor(newClasses, torch::kLong)});
        }
    }

    TransfuserOptions m_options;
    DataSpec m_spec;
    std::shared_ptr<torch::nn::Module> m_root;
    Backbone m_backbone{nullptr};
    PerspectiveDecoder m_semantic{nullptr}, m_depth{nullptr};
    TopDown m_topDown{nullptr};
    torch::nn::Sequential m_bevSemantic{nullptr};
    CenterNetHead m_centerNet{nullptr};
    PlanningDecoder m_planning{nullptr};
    int64_t m_gridH = 1, m_gridW = 1;
    Stage m_stage = Stage::Pretrain;
    std::map<std::string, double> m_weights;
};

Model* createTransfuserModel(const ResolvedConfig& config, const DataSpec& spec)
{
    return new TransfuserModel(config, spec);
}

} // namespace pitwall::transfuser
