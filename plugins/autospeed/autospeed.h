#pragma once
// AutoSpeed-lite: a YOLO-style closest-in-path-object (CIPO) detector after AutoSpeed (autoware POV). Stride-2
// convolutions with AutoSpeed's "context" blocks, SPPF, a PAN neck of C3K2 blocks and an anchor-free head with
// distribution-focal box regression at strides 8, 16 and 32; trained with a task-aligned assigner, BCE, CIoU and
// DFL. Widths follow AutoSpeed's version table; a width multiple shrinks them for CPU runs.

#include "core/engine/model/modelapi.h"
#include "core/eval/detection.h"

#include <array>
#include <functional>

namespace pitwall::autospeed {

using namespace pitwall::engine;

constexpr int kClasses = 4; // 0 NA, 1..3 CIPO-1..3 (OpenLane level 4 is mapped to 3)
constexpr int kRegMax = 16; // DFL bins per box side
constexpr std::array<int, 3> kStrides = {8, 16, 32};

// Sizes, gains and optimiser settings read from autospeed.* keys.
struct AutoSpeedOptions {
    std::array<int, 6> widths{3, 16, 32, 64, 128, 256}; // after version and width_multiple
    int depth = 1;                                      // residual blocks per C3K2
    int inputWidth = 1024, inputHeight = 512;
    double boxGain = 7.5, clsGain = 0.5, dflGain = 1.5;
    bool vectorizedLoss = true; // false: AutoSpeed's per-image loop (packing, assignment and loss per image)
    int batchSize = 32, validationBatchSize = 64, epochs = 150, warmupEpochs = 3;
    double minLr = 1e-4, maxLr = 1e-2, momentum = 0.937, weightDecay = 5e-4;
    int nominalBatchSize = 64; // gradients accumulate to about this many samples per optimiser step
    double emaDecay = 0.9999, emaTau = 2000;
    double batchNormMomentum = 0.03; // AutoSpeed's; short runs raise it so the running statistics keep up
    double clipGradNorm = 0;         // 0: off (AutoSpeed's trainer has its clipping commented out)
    eval::ApMethod apMethod = eval::ApMethod::AutoSpeed; // validation AP (autospeed.ap_method)
};
AutoSpeedOptions readOptions(const ResolvedConfig& config);
// The trainer's plan: detection images at the input size, AutoSpeed's augmentation, batch sizes and epochs.
void declarePlan(const ResolvedConfig& config, ModelPlan& plan);

// ---- Network (network.cpp) ----

// Conv2d (no bias) + BatchNorm (eps 1e-3, momentum 0.03, replaced by autospeed.bn_momentum) + SiLU.
struct ConvImpl : torch::nn::Module {
    ConvImpl(int in, int out, int kernel = 1, int stride = 1, int groups = 1);
    torch::Tensor forward(const torch::Tensor& x);
    torch::nn::Conv2d conv{nullptr};
    torch::nn::BatchNorm2d bn{nullptr};
};
TORCH_MODULE(Conv);

// AutoSpeed's context block: the channel means expanded by a Conv1d into an h x w map, two 3x3 convolutions
// back to C channels, multiplicative context c*x + x, then a 3x3 convolution to `out`. h and w are the feature
// size, so the input size is part of the weights.
struct ContextBlockImpl : torch::nn::Module {
    ContextBlockImpl(int in, int out, int reduction, int64_t height, int64_t width);
    torch::Tensor forward(const torch::Tensor& x);
    torch::nn::Conv1d expand{nullptr};
    torch::nn::Conv2d context0{nullptr}, context1{nullptr}, context2{nullptr};
    int64_t height, width;
};
TORCH_MODULE(ContextBlock);

// Spatial pyramid pooling, fast: 1x1 halving, three chained 5x5 max pools, concat, 1x1.
struct SppfImpl : torch::nn::Module {
    SppfImpl(int in, int out, int kernel = 5);
    torch::Tensor forward(const torch::Tensor& x);
    Conv conv1{nullptr}, conv2{nullptr};
    int kernel;
};
TORCH_MODULE(Sppf);

// C3K2 (r = 2): 1x1 conv, split in two, `depth` chained residual blocks (two 3x3 Conv) on the second half, concat
// of every intermediate, 1x1 conv.
struct C3k2Impl : torch::nn::Module {
    C3k2Impl(int in, int out, int depth);
    torch::Tensor forward(const torch::Tensor& x);
    Conv conv1{nullptr}, conv2{nullptr};
    torch::nn::ModuleList blocks;
    int hidden;
};
TORCH_MODULE(C3k2);

// Backbone: p1..p5 stride-2 convolutions with context blocks from p2 on and SPPF after p5; returns p3, p4, p5.
struct BackboneImpl : torch::nn::Module {
    BackboneImpl(const AutoSpeedOptions& options);
    std::vector<torch::Tensor> forward(const torch::Tensor& image);
    Conv p1{nullptr}, p2{nullptr}, p3{nullptr}, p4{nullptr}, p5{nullptr};
    ContextBlock context2{nullptr}, context3{nullptr}, context4{nullptr}, context5{nullptr};
    Sppf sppf{nullptr};
};
TORCH_MODULE(Backbone);

// PAN neck: top-down (p5 -> p4 -> p3) then bottom-up; outputs at strides 8, 16, 32.
struct NeckImpl : torch::nn::Module {
    NeckImpl(const AutoSpeedOptions& options);
    std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& features);
    C3k2 top4{nullptr}, top3{nullptr}, bottom4{nullptr}, bottom5{nullptr};
    Conv down3{nullptr}, down4{nullptr};
};
TORCH_MODULE(Neck);

// Anchor-free head: per level a box branch (4 x kRegMax DFL logits) and a class branch (kClasses logits).
// Output per level: [B, 4*kRegMax + kClasses, H/s, W/s].
struct HeadImpl : torch::nn::Module {
    HeadImpl(const std::array<int, 3>& channels, int64_t inputHeight, int64_t inputWidth);
    std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& features);
    torch::nn::ModuleList boxBranches, classBranches;
};
TORCH_MODULE(Head);

struct NetworkImpl : torch::nn::Module {
    explicit NetworkImpl(const AutoSpeedOptions& options);
    std::vector<torch::Tensor> forward(const torch::Tensor& image); // the head's three levels
    Backbone backbone{nullptr};
    Neck neck{nullptr};
    Head head{nullptr};
};
TORCH_MODULE(Network);

// ---- Loss (loss.cpp) ----

struct LossOptions {
    double boxGain = 7.5, clsGain = 0.5, dflGain = 1.5;
    int topK = 10;
    double alpha = 0.5, beta = 6.0;
    // true: the whole batch in one pass (vectorised ground-truth packing, one assignment, one set of loss
    // reductions). false: AutoSpeed's original, image by image: the ground truth packed in a loop, then the
    // assignment and the loss terms computed for each image on its own and summed (same loss, many small ops).
    bool vectorized = true;
    // Called once per assignment pass with the images it covers (first, count): once with (0, B) when vectorised,
    // B times with (b, 1) when not. For tests and profiling; empty by default.
    std::function<void(int64_t, int64_t)> onPass;
};

// Valid boxes of a batch's "boxes" [B, N, 5] (class, x0, y0, x1, y1; class -1 = padding) as rows
// (image, class, x0, y0, x1, y1) [M, 6], in batch order. Classes outside 0..kClasses-1 are left out.
torch::Tensor flattenTargets(const torch::Tensor& boxes);
// Rows [M, 6] packed per image into [B, maxPerImage, 5] (class, x0, y0, x1, y1), padding rows class -1 and zero
// box. Vectorised: stable sort by image, bincount, offsets, one scatter. Looped: one image at a time (AutoSpeed's
// original). Both give identical tensors.
torch::Tensor packTargetsVectorized(const torch::Tensor& rows, int64_t batchSize);
torch::Tensor packTargetsLooped(const torch::Tensor& rows, int64_t batchSize);

// Anchor centres [A, 2] (x, y in grid cells + 0.5) and strides [A, 1] of the head's levels, level by level.
std::pair<torch::Tensor, torch::Tensor> makeAnchors(const std::vector<torch::Tensor>& levels);
// DFL logits [..., 4*kRegMax] -> expected (left, top, right, bottom) distances [..., 4] in grid cells.
torch::Tensor decodeDistances(const torch::Tensor& distribution);
// IoU (or CIoU) of boxes (x0, y0, x1, y1) along the last dimension, broadcast.
torch::Tensor boxIou(const torch::Tensor& a, const torch::Tensor& b, bool complete);

// Task-aligned assignment (TOOD): per ground truth the topK anchors inside it by score^alpha * IoU^beta; an
// anchor claimed twice goes to the box it overlaps most; target scores are normalised alignment metrics.
struct Assignment {
    torch::Tensor labels;     // [B, A] long
    torch::Tensor boxes;      // [B, A, 4] pixels
    torch::Tensor scores;     // [B, A, C] float
    torch::Tensor foreground; // [B, A] bool
    torch::Tensor gtIndex;    // [B, A] long (meaningful where foreground)
};
// Class logits [B, A, C], predicted boxes [B, A, 4] and anchors [A, 2] in pixels, ground truth packed [B, M, 5] in
// pixels. The metric is ranked and normalised in log space (same result, no underflow for tiny scores).
Assignment assignTargets(const torch::Tensor& logits, const torch::Tensor& predictedBoxes, const torch::Tensor& anchors,
                         const torch::Tensor& packedTargets, const LossOptions& options);

// The AutoSpeed loss of the head's levels against a batch's "boxes". total = (box*gain + cls*gain + dfl*gain) x B;
// heads "box", "cls" and "dfl" are the terms before gains and batch scaling. One pass over the batch, or one per image
// (options.vectorized); the terms are normalised by the whole batch's target score sum either way.
LossOutput detectionLoss(const std::vector<torch::Tensor>& levels, const torch::Tensor& boxes,
                         const LossOptions& options);

// Inference decoding: per image boxes [A, 4] in pixels (x0, y0, x1, y1) and class probabilities [A, kClasses].
std::pair<torch::Tensor, torch::Tensor> decodePredictions(const std::vector<torch::Tensor>& levels);

// ---- Model (autospeed.cpp) ----
Model* createAutoSpeedModel(const ResolvedConfig& config, const DataSpec& spec);

} // namespace pitwall::autospeed
