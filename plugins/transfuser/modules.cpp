// The layers of TransFuser-lite: branches, fusion, decoders and heads.
#include "transfuser.h"

#include <cmath>

namespace pitwall::transfuser {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

namespace {
constexpr int kStages = 4;
constexpr int kStageStride[kStages] = {1, 2, 2, 2}; // after a stride-2 stem: 1/2, 1/4, 1/8, 1/16
constexpr int kStageScale[kStages] = {1, 2, 4, 8};
constexpr int kBackboneStride = 16;
constexpr double kGptDropout = 0.1;
constexpr int kYawBins = 12;

nn::Conv2d conv(int in, int out, int kernel, int stride = 1, bool bias = true)
{
    return nn::Conv2d(nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(bias));
}

nn::Sequential stem(int in, int out)
{
    return nn::Sequential(conv(in, out, 3, 2, false), nn::BatchNorm2d(out), nn::ReLU(true));
}

nn::Sequential convPair(int in, int mid, int out, bool reluAtEnd)
{
    nn::Sequential s(conv(in, mid, 3), nn::ReLU(true), conv(mid, out, 3));
    if (reluAtEnd)
        s->push_back(nn::ReLU(true));
    return s;
}
} // namespace

torch::Tensor upsample(const torch::Tensor& x, std::vector<int64_t> size, bool nearest)
{
    if (x.size(2) == size[0] && x.size(3) == size[1])
        return x;
    auto options = F::InterpolateFuncOptions().size(size);
    if (nearest)
        options.mode(torch::kNearest);
    else
        options.mode(torch::kBilinear).align_corners(false);
    // CPU bilinear interpolation in bf16 is about 5× slower than in fp32 (measured in the step benchmark).
    if (!nearest && x.scalar_type() == torch::kBFloat16)
        return F::interpolate(x.to(torch::kFloat), options).to(torch::kBFloat16);
    return F::interpolate(x, options);
}

BasicBlockImpl::BasicBlockImpl(int in, int out, int stride)
{
    conv1 = register_module("conv1", conv(in, out, 3, stride, false));
    bn1 = register_module("bn1", nn::BatchNorm2d(out));
    conv2 = register_module("conv2", conv(out, out, 3, 1, false));
    bn2 = register_module("bn2", nn::BatchNorm2d(out));
    if (in != out || stride != 1) {
        shortcut = register_module("shortcut", conv(in, out, 1, stride, false));
        shortcutBn = register_module("shortcut_bn", nn::BatchNorm2d(out));
    }
}

torch::Tensor BasicBlockImpl::forward(const torch::Tensor& x)
{
    auto y = torch::relu(bn1(conv1(x)));
    y = bn2(conv2(y));
    return torch::relu(y + (shortcut ? shortcutBn(shortcut(x)) : x));
}

GptImpl::GptImpl(int channels, int tokens, int layers, int heads)
{
    positionEmbedding = register_parameter("pos_emb", torch::zeros({1, tokens, channels}));
    for (int l = 0; l < layers; ++l) {
        norms1->push_back(nn::LayerNorm(nn::LayerNormOptions({channels})));
        attentions->push_back(nn::MultiheadAttention(nn::MultiheadAttentionOptions(channels, heads).dropout(kGptDropout)));
        norms2->push_back(nn::LayerNorm(nn::LayerNormOptions({channels})));
        mlps->push_back(nn::Sequential(nn::Linear(channels, 4 * channels), nn::ReLU(true),
                                       nn::Linear(4 * channels, channels), nn::Dropout(kGptDropout)));
    }
    register_module("norms1", norms1);
    register_module("attentions", attentions);
    register_module("norms2", norms2);
    register_module("mlps", mlps);
    finalNorm = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({channels})));
    dropout = register_module("drop", nn::Dropout(kGptDropout));
    // LEAD's initialisation: N(0, 0.02) for linear weights, zero biases, LayerNorm weight 1.
    for (auto& module : modules(false)) {
        if (auto* linear = module->as<nn::Linear>()) {
            nn::init::normal_(linear->weight, 0.0, 0.02);
            nn::init::zeros_(linear->bias);
        }
    }
}

torch::Tensor GptImpl::forward(torch::Tensor x)
{
    x = dropout(x + positionEmbedding);
    for (std::size_t l = 0; l < attentions->size(); ++l) {
        auto h = norms1[l]->as<nn::LayerNorm>()->forward(x).transpose(0, 1); // [T, B, C]
        auto attended = std::get<0>(attentions[l]->as<nn::MultiheadAttention>()->forward(h, h, h));
        x = x + attended.transpose(0, 1);
        x = x + mlps[l]->as<nn::Sequential>()->forward(norms2[l]->as<nn::LayerNorm>()->forward(x));
    }
    return finalNorm(x);
}

BackboneImpl::BackboneImpl(const TransfuserOptions& o, const DataSpec& spec)
{
    imageStem = register_module("image_stem", stem(3, o.width));
    lidarStem = register_module("lidar_stem", stem(1, o.width));
    imageAnchors = {std::max<int64_t>(1, spec.imageHeight / kBackboneStride), std::max<int64_t>(1, spec.imageWidth / kBackboneStride)};
    lidarAnchors = {std::max<int64_t>(1, spec.bevHeight / kBackboneStride), std::max<int64_t>(1, spec.bevWidth / kBackboneStride)};
    const int tokens = static_cast<int>(imageAnchors[0] * imageAnchors[1] + lidarAnchors[0] * lidarAnchors[1]);
    int in = o.width;
    for (int s = 0; s < kStages; ++s) {
        const int out = o.width * kStageScale[s];
        imageStages->push_back(BasicBlock(in, out, kStageStride[s]));
        lidarStages->push_back(BasicBlock(in, out, kStageStride[s]));
        // The LiDAR branch's channels are mapped to the image's for the shared token space and back.
        lidarToImage->push_back(conv(out, out, 1));
        imageToLidar->push_back(conv(out, out, 1));
        fusions->push_back(Gpt(out, tokens, o.gptLayers, std::min(o.gptHeads, out)));
        in = out;
    }
    register_module("image_stages", imageStages);
    register_module("lidar_stages", lidarStages);
    register_module("lidar_to_image", lidarToImage);
    register_module("image_to_lidar", imageToLidar);
    register_module("fusions", fusions);
}

std::pair<torch::Tensor, torch::Tensor> BackboneImpl::forward(const torch::Tensor& rgb, const torch::Tensor& lidar)
{
    auto image = imageStem->forward(rgb);
    auto bev = lidarStem->forward(lidar);
    for (int s = 0; s < kStages; ++s) {
        image = imageStages[s]->as<BasicBlock>()->forward(image);
        bev = lidarStages[s]->as<BasicBlock>()->forward(bev);
        // Tokens from pooled features of both branches, one transformer over all of them.
        const auto imagePooled = F::adaptive_avg_pool2d(image, F::AdaptiveAvgPool2dFuncOptions(imageAnchors));
        const auto bevPooled = lidarToImage[s]->as<nn::Conv2d>()->forward(
            F::adaptive_avg_pool2d(bev, F::AdaptiveAvgPool2dFuncOptions(lidarAnchors)));
        const int64_t b = image.size(0), c = image.size(1);
        const int64_t imageTokens = imageAnchors[0] * imageAnchors[1];
        auto tokens = torch::cat({imagePooled.flatten(2), bevPooled.flatten(2)}, 2).transpose(1, 2); // [B, T, C]
        tokens = fusions[s]->as<Gpt>()->forward(tokens).transpose(1, 2);
        auto imageOut = tokens.narrow(2, 0, imageTokens).reshape({b, c, imageAnchors[0], imageAnchors[1]});
        auto bevOut = tokens.narrow(2, imageTokens, tokens.size(2) - imageTokens)
                          .reshape({b, c, lidarAnchors[0], lidarAnchors[1]});
        bevOut = imageToLidar[s]->as<nn::Conv2d>()->forward(bevOut);
        // Residual add back into both branches at each stage's resolution (always bilinear, as LEAD).
        image = image + upsample(imageOut, {image.size(2), image.size(3)}, false);
        bev = bev + upsample(bevOut, {bev.size(2), bev.size(3)}, false);
    }
    return {image, bev};
}

PerspectiveDecoderImpl::PerspectiveDecoderImpl(int in, int w, int out, bool logits, bool nearestMode, int64_t h,
                                               int64_t wd)
    : upsampleLogits(logits), nearest(nearestMode), height(h), width(wd)
{
    const int c0 = std::max(8, 2 * w), c1 = std::max(8, w), c2 = std::max(4, w / 2);
    deconv1 = register_module("deconv1", convPair(in, c0, c1, true));
    deconv2 = register_module("deconv2", convPair(c1, c2, c2, true));
    deconv3 = register_module("deconv3", convPair(c2, c2, out, false));
}

torch::Tensor PerspectiveDecoderImpl::forward(const torch::Tensor& features)
{
    // Two up-sampling steps from 1/16: ×4 then to the full resolution.
    auto x = deconv1->forward(features);
    x = upsample(x, {features.size(2) * 4, features.size(3) * 4}, nearest);
    x = deconv2->forward(x);
    if (upsampleLogits) {
        lastDeconv3Input = x.sizes().vec();
        x = deconv3->forward(x); // few channels out: the final up-sampling moves only logits
        return upsample(x, {height, width}, nearest);
    }
    x = upsample(x, {height, width}, nearest);
    lastDeconv3Input = x.sizes().vec();
    return deconv3->forward(x);
}

TopDownImpl::TopDownImpl(int in, int out, int64_t h, int64_t w, bool nearestMode)
    : gridH(h), gridW(w), nearest(nearestMode)
{
    c5 = register_module("c5_conv", conv(in, out, 1));
    upConv5 = register_module("up_conv5", conv(out, out, 3));
    upConv4 = register_module("up_conv4", conv(out, out, 3));
}

torch::Tensor TopDownImpl::forward(const torch::Tensor& bev)
{
    auto x = torch::relu(c5(bev));
    x = upsample(x, {bev.size(2) * 2, bev.size(3) * 2}, nearest);
    x = torch::relu(upConv5(x));
    x = upsample(x, {gridH, gridW}, nearest);
    return torch::relu(upConv4(x));
}

CenterNetHeadImpl::CenterNetHeadImpl(int in, int classes, int yawBins)
{
    const std::vector<std::pair<std::string, int>> outputs = {{"heatmap", classes}, {"wh", 2},      {"offset", 2},
                                                              {"yaw_class", yawBins}, {"yaw_res", 1}, {"velocity", 1}};
    heads = register_module("heads", nn::ModuleDict());
    for (const auto& [name, channels] : outputs) {
        auto last = conv(in, channels, 1);
        if (name == "heatmap")
            nn::init::constant_(last->bias, -2.19); // prior probability 0.1, as CenterNet
        heads->update({{name, nn::Sequential(conv(in, in, 3), nn::ReLU(true), last).ptr()}});
    }
}

std::map<std::string, torch::Tensor> CenterNetHeadImpl::forward(const torch::Tensor& grid)
{
    std::map<std::string, torch::Tensor> out;
    for (const auto& item : heads->items())
        out[item.first] = item.second->as<nn::Sequential>()->forward(grid);
    return out;
}

const std::vector<double>& targetSpeedClasses()
{
    static const std::vector<double> classes = {0.0, 4.0, 8.0, 10.0, 13.89, 16.0, 17.78, 20.0};
    return classes;
}

PlanningDecoderImpl::PlanningDecoderImpl(int bevChannels, const TransfuserOptions& o, int n, int speedClasses)
    : waypoints(n), tokenDim(o.tokenDim)
{
    const int d = o.tokenDim;
    context = register_module("context", conv(bevChannels, d, 1));
    speedToken = register_module("speed_token", nn::Linear(1, d));
    targetToken = register_module("target_token", nn::Linear(2, d));
    commandToken = register_module("command_token", nn::Embedding(6, d));
    statusPosition = register_parameter("status_pos", torch::randn({3, 1, d}) * 0.02);
    queries = register_parameter("queries", torch::randn({n + 1, 1, d}) * 0.02);
    auto layer = nn::TransformerDecoderLayer(
        nn::TransformerDecoderLayerOptions(d, o.planningHeads).dim_feedforward(4 * d).dropout(0.0).activation(torch::kGELU));
    decoder = register_module("decoder", nn::TransformerDecoder(nn::TransformerDecoderOptions(layer, o.planningLayers)
                                                                   .norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({d}))))));
    waypointOut = register_module("waypoint_out", nn::Linear(d, 2));
    speedOut = register_module("speed_out", nn::Sequential(nn::Linear(d, d), nn::ReLU(true), nn::Linear(d, speedClasses)));
}

namespace {
// Fixed 2-D sine position encoding of a token grid, [h*w, d].
torch::Tensor sinePositions(int64_t h, int64_t w, int d, const torch::TensorOptions& options)
{
    const int quarter = std::max(1, d / 4);
    auto ys = torch::arange(h, options).unsqueeze(1).expand({h, w}).reshape({-1, 1});
    auto xs = torch::arange(w, options).unsqueeze(0).expand({h, w}).reshape({-1, 1});
    auto freq = torch::exp(torch::arange(quarter, options) * (-std::log(10000.0) / quarter)).unsqueeze(0);
    auto pe = torch::cat({torch::sin(ys * freq), torch::cos(ys * freq), torch::sin(xs * freq), torch::cos(xs * freq)}, 1);
    if (pe.size(1) < d)
        pe = torch::cat({pe, torch::zeros({pe.size(0), d - pe.size(1)}, options)}, 1);
    return pe.narrow(1, 0, d);
}
} // namespace

std::pair<torch::Tensor, torch::Tensor> PlanningDecoderImpl::forward(const torch::Tensor& bev, const torch::Tensor& speed,
                                                                     const torch::Tensor& targetPoint,
                                                                     const torch::Tensor& command)
{
    const int64_t b = bev.size(0);
    auto ctx = context(bev);                                             // [B, D, h, w]
    auto pos = sinePositions(ctx.size(2), ctx.size(3), tokenDim, ctx.options());
    auto memory = (ctx.flatten(2).transpose(1, 2) + pos.unsqueeze(0)).transpose(0, 1); // [T, B, D]
    auto status = torch::stack({speedToken(speed.unsqueeze(1)), targetToken(targetPoint), commandToken(command)}, 0) +
                  statusPosition;                                         // [3, B, D]
    memory = torch::cat({memory, status}, 0);
    auto out = decoder(queries.expand({queries.size(0), b, tokenDim}).contiguous(), memory); // [N+1, B, D]
    auto wp = waypointOut(out.narrow(0, 0, waypoints)).transpose(0, 1).cumsum(1);          // [B, N, 2]
    auto speedLogits = speedOut->forward(out[waypoints]);                                     // [B, classes]
    return {wp, speedLogits};
}

} // namespace pitwall::transfuser
