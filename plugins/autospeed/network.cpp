// AutoSpeed-lite's layers: Conv, context block, SPPF, C3K2, backbone, PAN neck and the anchor-free head.
#include "autospeed.h"

#include <cmath>

namespace pitwall::autospeed {

namespace F = torch::nn::functional;

namespace {
constexpr double kBatchNormEps = 1e-3;
constexpr double kBatchNormMomentum = 0.03;
constexpr int kContextReduction = 2;
constexpr int kSppfKernel = 5;
constexpr int kMinBoxChannels = 64;   // box branch width: max(64, f0 / 4)
constexpr int kMinClassChannels = 80; // class branch width: max(80, f0, classes)
constexpr double kBoxBiasInit = 1.0;
constexpr double kObjectsPerImage = 5.0; // prior of the class bias: 5 objects per image

torch::Tensor upsample2(const torch::Tensor& x)
{
    return F::interpolate(
        x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0}).mode(torch::kNearest));
}
} // namespace

ConvImpl::ConvImpl(int in, int out, int kernel, int stride, int groups)
{
    conv = register_module(
        "conv",
        torch::nn::Conv2d(
            torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).groups(groups).bias(false)));
    bn = register_module(
        "bn", torch::nn::BatchNorm2d(torch::nn::BatchNormOptions(out).eps(kBatchNormEps).momentum(kBatchNormMomentum)));
}

torch::Tensor ConvImpl::forward(const torch::Tensor& x)
{
    return F::silu(bn->forward(conv->forward(x)));
}

ContextBlockImpl::ContextBlockImpl(int in, int out, int reduction, int64_t h, int64_t w) : height(h), width(w)
{
    const int hidden = std::max(1, in / reduction);
    expand = register_module("expand", torch::nn::Conv1d(torch::nn::Conv1dOptions(in, h * w, 3).padding(1)));
    context0 = register_module("context0", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, hidden, 3).padding(1)));
    context1 = register_module("context1", torch::nn::Conv2d(torch::nn::Conv2dOptions(hidden, in, 3).padding(1)));
    context2 = register_module("context2", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1)));
}

torch::Tensor ContextBlockImpl::forward(const torch::Tensor& x)
{
    const int64_t batch = x.size(0);
    auto y = x.mean({2, 3}).unsqueeze(-1);                              // [B, C, 1]
    y = F::silu(expand->forward(y));                                    // [B, h*w, 1]
    y = F::silu(y.view({batch, 1, height, width}));                     // [B, 1, h, w]
    auto c = F::silu(context1->forward(F::silu(context0->forward(y)))); // [B, C, h, w]
    c = F::silu(c * x + x);
    return context2->forward(c);
}

SppfImpl::SppfImpl(int in, int out, int k) : kernel(k)
{
    const int hidden = std::max(1, in / 2);
    conv1 = register_module("conv1", Conv(in, hidden, 1));
    conv2 = register_module("conv2", Conv(hidden * 4, out, 1));
}

torch::Tensor SppfImpl::forward(const torch::Tensor& x)
{
    const auto pool = F::MaxPool2dFuncOptions(kernel).stride(1).padding(kernel / 2);
    auto y0 = conv1->forward(x);
    auto y1 = F::max_pool2d(y0, pool);
    auto y2 = F::max_pool2d(y1, pool);
    auto y3 = F::max_pool2d(y2, pool);
    return conv2->forward(torch::cat({y0, y1, y2, y3}, 1));
}

C3k2Impl::C3k2Impl(int in, int out, int depth) : hidden(std::max(1, out / 2))
{
    conv1 = register_module("conv1", Conv(in, 2 * hidden, 1));
    for (int i = 0; i < depth; ++i)
        blocks->push_back(torch::nn::Sequential(Conv(hidden, hidden, 3), Conv(hidden, hidden, 3)));
    register_module("blocks", blocks);
    conv2 = register_module("conv2", Conv((2 + depth) * hidden, out, 1));
}

torch::Tensor C3k2Impl::forward(const torch::Tensor& x)
{
    auto halves = conv1->forward(x).chunk(2, 1);
    std::vector<torch::Tensor> parts{halves[0], halves[1]};
    torch::Tensor y = halves[1];
    for (const auto& block : *blocks) {
        y = y + block->as<torch::nn::Sequential>()->forward(y); // residual
        parts.push_back(y);
    }
    return conv2->forward(torch::cat(parts, 1));
}

BackboneImpl::BackboneImpl(const AutoSpeedOptions& o)
{
    const auto& w = o.widths;
    const int64_t h = o.inputHeight, wd = o.inputWidth;
    p1 = register_module("p1", Conv(w[0], w[1], 3, 2));
    p2 = register_module("p2", Conv(w[1], w[2], 3, 2));
    context2 = register_module("context2", ContextBlock(w[2], w[3], kContextReduction, h / 4, wd / 4));
    p3 = register_module("p3", Conv(w[3], w[3], 3, 2));
    context3 = register_module("context3", ContextBlock(w[3], w[4], kContextReduction, h / 8, wd / 8));
    p4 = register_module("p4", Conv(w[4], w[4], 3, 2));
    context4 = register_module("context4", ContextBlock(w[4], w[4], kContextReduction, h / 16, wd / 16));
    p5 = register_module("p5", Conv(w[4], w[5], 3, 2));
    context5 = register_module("context5", ContextBlock(w[5], w[5], kContextReduction, h / 32, wd / 32));
    sppf = register_module("sppf", Sppf(w[5], w[5], kSppfKernel));
}

std::vector<torch::Tensor> BackboneImpl::forward(const torch::Tensor& image)
{
    auto x = context2->forward(p2->forward(p1->forward(image)));
    auto s8 = context3->forward(p3->forward(x));
    auto s16 = context4->forward(p4->forward(s8));
    auto s32 = sppf->forward(context5->forward(p5->forward(s16)));
    return {s8, s16, s32};
}

NeckImpl::NeckImpl(const AutoSpeedOptions& o)
{
    const auto& w = o.widths;
    top4 = register_module("top4", C3k2(w[5] + w[4], w[4], o.depth));
    top3 = register_module("top3", C3k2(w[4] + w[4], w[3], o.depth));
    down3 = register_module("down3", Conv(w[3], w[3], 3, 2));
    bottom4 = register_module("bottom4", C3k2(w[3] + w[4], w[4], o.depth));
    down4 = register_module("down4", Conv(w[4], w[4], 3, 2));
    bottom5 = register_module("bottom5", C3k2(w[4] + w[5], w[5], o.depth));
}

std::vector<torch::Tensor> NeckImpl::forward(const std::vector<torch::Tensor>& f)
{
    auto h1 = top4->forward(torch::cat({upsample2(f[2]), f[1]}, 1));
    auto h2 = top3->forward(torch::cat({upsample2(h1), f[0]}, 1));
    auto h4 = bottom4->forward(torch::cat({down3->forward(h2), h1}, 1));
    auto h6 = bottom5->forward(torch::cat({down4->forward(h4), f[2]}, 1));
    return {h2, h4, h6};
}

HeadImpl::HeadImpl(const std::array<int, 3>& channels, int64_t inputHeight, int64_t inputWidth)
{
    const int boxChannels = std::max(kMinBoxChannels, channels[0] / 4);
    const int classChannels = std::max({kMinClassChannels, channels[0], kClasses});
    for (std::size_t level = 0; level < channels.size(); ++level) {
        const int c = channels[level];
        auto boxOut = torch::nn::Conv2d(torch::nn::Conv2dOptions(boxChannels, 4 * kRegMax, 1));
        auto classOut = torch::nn::Conv2d(torch::nn::Conv2dOptions(classChannels, kClasses, 1));
        // Bias priors: box logits start at 1; class logits at the log of 5 objects per image spread over the
        // classes and the level's cells (AutoSpeed writes (640 / s)^2 cells for its 640 x 640 input).
        const double cells =
            static_cast<double>(inputHeight / kStrides[level]) * static_cast<double>(inputWidth / kStrides[level]);
        {
            torch::NoGradGuard noGrad;
            boxOut->bias.fill_(kBoxBiasInit);
            classOut->bias.fill_(std::log(kObjectsPerImage / kClasses / std::max(1.0, cells)));
        }
        boxBranches->push_back(
            torch::nn::Sequential(Conv(c, boxChannels, 3), Conv(boxChannels, boxChannels, 3), boxOut));
        classBranches->push_back(torch::nn::Sequential(Conv(c, c, 3, 1, c), Conv(c, classChannels, 1),
                                                       Conv(classChannels, classChannels, 3, 1, classChannels),
                                                       Conv(classChannels, classChannels, 1), classOut));
    }
    register_module("box", boxBranches);
    register_module("cls", classBranches);
}

std::vector<torch::Tensor> HeadImpl::forward(const std::vector<torch::Tensor>& features)
{
    std::vector<torch::Tensor> out;
    for (std::size_t level = 0; level < features.size(); ++level)
        out.push_back(torch::cat({boxBranches[level]->as<torch::nn::Sequential>()->forward(features[level]),
                                  classBranches[level]->as<torch::nn::Sequential>()->forward(features[level])},
                                 1));
    return out;
}

NetworkImpl::NetworkImpl(const AutoSpeedOptions& o)
{
    backbone = register_module("backbone", Backbone(o));
    neck = register_module("neck", Neck(o));
    head = register_module(
        "head", Head(std::array<int, 3>{o.widths[3], o.widths[4], o.widths[5]}, o.inputHeight, o.inputWidth));
}

std::vector<torch::Tensor> NetworkImpl::forward(const torch::Tensor& image)
{
    return head->forward(neck->forward(backbone->forward(image)));
}

} // namespace pitwall::autospeed
