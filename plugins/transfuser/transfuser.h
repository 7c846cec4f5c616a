#pragma once
// TransFuser-lite: a faithful, smaller TransFuser (LEAD TFv6 layout). Image and LiDAR convolutional
// branches with transformer fusion after each stage, a top-down BEV neck, perspective semantic and depth
// decoders, a BEV semantic decoder, a CenterNet box head and a planning decoder. Width and depth are config
// keys so the same code runs tiny in tests and larger in benchmarks.

#include "core/engine/model/modelapi.h"

namespace pitwall::transfuser {

using namespace pitwall::engine;

// Sizes and switches read from the config (policy.transfuser.*).
struct TransfuserOptions {
    int width = 16;            // channels of the first stage; stages have width × {1, 2, 4, 8}
    int gptLayers = 1;
    int gptHeads = 4;
    int tokenDim = 64;         // planning decoder width
    int planningLayers = 2;
    int planningHeads = 4;
    bool upsampleLogits = false;
    bool nearest = false;      // upsample_mode nearest (else bilinear)
    bool freezeBackbone = false;
    bool useDepth = true, useSemantic = true, useBevSemantic = true, useDetection = true;
    std::map<std::string, double> lossWeights; // per loss term, before normalisation
};
TransfuserOptions readOptions(const ResolvedConfig& config);

// Up-sampling used by every decoder: bilinear (align_corners = false) or nearest.
torch::Tensor upsample(const torch::Tensor& x, std::vector<int64_t> size, bool nearest);

// conv3×3 → BN → ReLU, twice, with a projected shortcut when the shape changes (ResNet basic block).
struct BasicBlockImpl : torch::nn::Module {
    BasicBlockImpl(int in, int out, int stride);
    torch::Tensor forward(const torch::Tensor& x);
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, shortcut{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, shortcutBn{nullptr};
};
TORCH_MODULE(BasicBlock);

// GPT fusion block over image and LiDAR tokens: learned position embedding, pre-norm attention + MLP.
struct GptImpl : torch::nn::Module {
    GptImpl(int channels, int tokens, int layers, int heads);
    torch::Tensor forward(torch::Tensor tokens); // [B, T, C] -> [B, T, C]
    torch::Tensor positionEmbedding;
    torch::nn::ModuleList norms1, attentions, norms2, mlps;
    torch::nn::LayerNorm finalNorm{nullptr};
    torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(Gpt);

// The two branches with fusion after each of the 4 stages. Outputs at 1/16 of each input.
struct BackboneImpl : torch::nn::Module {
    BackboneImpl(const TransfuserOptions& options, const DataSpec& spec);
    std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& rgb, const torch::Tensor& lidar);
    torch::nn::Sequential imageStem{nullptr}, lidarStem{nullptr};
    torch::nn::ModuleList imageStages, lidarStages, fusions, lidarToImage, imageToLidar;
    std::vector<int64_t> imageAnchors, lidarAnchors; // (h, w) token grids
};
TORCH_MODULE(Backbone);

// Perspective decoder: the logits option runs the last block before the final up-sampling.
struct PerspectiveDecoderImpl : torch::nn::Module {
    PerspectiveDecoderImpl(int in, int width, int out, bool upsampleLogits, bool nearest, int64_t h, int64_t w);
    torch::Tensor forward(const torch::Tensor& features);
    torch::nn::Sequential deconv1{nullptr}, deconv2{nullptr}, deconv3{nullptr};
    bool upsampleLogits;
    bool nearest;
    int64_t height, width;
    // Input shape of deconv3 seen by the last forward (for tests of the logits option).
    std::vector<int64_t> lastDeconv3Input;
};
TORCH_MODULE(PerspectiveDecoder);

// Top-down BEV neck from the LiDAR features to a grid at 1/4 of the BEV raster.
struct TopDownImpl : torch::nn::Module {
    TopDownImpl(int in, int out, int64_t gridH, int64_t gridW, bool nearest);
    torch::Tensor forward(const torch::Tensor& bev);
    torch::nn::Conv2d c5{nullptr}, upConv5{nullptr}, upConv4{nullptr};
    int64_t gridH, gridW;
    bool nearest;
};
TORCH_MODULE(TopDown);

// CenterNet heads on the BEV grid.
struct CenterNetHeadImpl : torch::nn::Module {
    CenterNetHeadImpl(int in, int classes, int yawBins);
    std::map<std::string, torch::Tensor> forward(const torch::Tensor& grid);
    torch::nn::ModuleDict heads{nullptr};
};
TORCH_MODULE(CenterNetHead);

// Planning decoder: learned queries (waypoints + target speed) over BEV tokens and status tokens.
struct PlanningDecoderImpl : torch::nn::Module {
    PlanningDecoderImpl(int bevChannels, const TransfuserOptions& options, int waypoints, int speedClasses);
    // returns waypoints [B, N, 2] (cumulative) and speed logits [B, classes]
    std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& bev, const torch::Tensor& speed,
                                                    const torch::Tensor& targetPoint, const torch::Tensor& command);
    torch::nn::Conv2d context{nullptr};
    torch::nn::Linear speedToken{nullptr}, targetToken{nullptr}, waypointOut{nullptr};
    torch::nn::Embedding commandToken{nullptr};
    torch::Tensor statusPosition, queries;
    torch::nn::TransformerDecoder decoder{nullptr};
    torch::nn::Sequential speedOut{nullptr};
    int waypoints;
    int tokenDim;
};
TORCH_MODULE(PlanningDecoder);

// The model; its sub-modules are registered as backbone, semantic_decoder, depth_decoder, top_down,
// bev_semantic_decoder, center_net and planning_decoder (disabled heads are absent).
Model* createTransfuserModel(const ResolvedConfig& config, const DataSpec& spec);

// LEAD's target-speed classes in m/s (two-hot targets between neighbours; braking is class 0).
const std::vector<double>& targetSpeedClasses();

} // namespace pitwall::transfuser
