// AutoSpeed-lite's loss: ground-truth packing (vectorised or looped), anchors, DFL decoding, CIoU, the
// task-aligned assigner and the weighted BCE + CIoU + DFL sum.
#include "autospeed.h"

#include <cmath>
#include <limits>

namespace pitwall::autospeed {

namespace F = torch::nn::functional;

namespace {
constexpr double kEps = 1e-9;
constexpr double kIouEps = 1e-7;
constexpr double kAnchorOffset = 0.5;
constexpr double kDflMargin = 0.01; // targets stay below the last bin

// Distances (l, t, r, b) of boxes [..., 4] from anchors [..., 2], in the boxes' units, clamped to the DFL range.
torch::Tensor boxToDistances(const torch::Tensor& anchors, const torch::Tensor& boxes)
{
    auto lt = anchors - boxes.narrow(-1, 0, 2);
    auto rb = boxes.narrow(-1, 2, 2) - anchors;
    return torch::cat({lt, rb}, -1).clamp(0, kRegMax - 1 - kDflMargin);
}

torch::Tensor distancesToBox(const torch::Tensor& anchors, const torch::Tensor& distances)
{
    return torch::cat({anchors - distances.narrow(-1, 0, 2), anchors + distances.narrow(-1, 2, 2)}, -1);
}

// Distribution focal loss of logits [n*4, kRegMax] against fractional targets [n, 4]: cross-entropy with the
// two neighbouring bins, weighted by closeness. Returns [n, 1].
torch::Tensor distributionFocalLoss(const torch::Tensor& logits, const torch::Tensor& target)
{
    auto left = target.floor().to(torch::kLong);
    auto right = left + 1;
    auto weightLeft = right.to(torch::kFloat) - target;
    auto weightRight = 1 - weightLeft;
    const auto none = F::CrossEntropyFuncOptions().reduction(torch::kNone);
    auto lossLeft = F::cross_entropy(logits, left.view({-1}), none).view(left.sizes()) * weightLeft;
    auto lossRight = F::cross_entropy(logits, right.view({-1}), none).view(left.sizes()) * weightRight;
    return (lossLeft + lossRight).mean(-1, true);
}
} // namespace

torch::Tensor flattenTargets(const torch::Tensor& boxes)
{
    auto cls = boxes.select(2, 0);
    auto valid = (cls >= 0) & (cls < kClasses);
    auto index = valid.nonzero(); // [M, 2] (image, row), row-major: images in order
    auto rows = boxes.index({index.select(1, 0), index.select(1, 1)}); // [M, 5]
    return torch::cat({index.select(1, 0).unsqueeze(1).to(boxes.dtype()), rows}, 1);
}

torch::Tensor packTargetsVectorized(const torch::Tensor& rows, int64_t batchSize)
{
    const auto options = rows.options();
    if (rows.size(0) == 0)
        return torch::zeros({batchSize, 0, 5}, options);
    auto image = rows.select(1, 0).to(torch::kLong);
    auto sorted = std::get<1>(torch::sort(image, c10::optional<bool>(true), /*dim=*/0, /*descending=*/false));
    auto ordered = rows.index_select(0, sorted);
    auto orderedImage = image.index_select(0, sorted);
    auto counts = torch::bincount(orderedImage, {}, batchSize);
    const int64_t maxPerImage = counts.max().item<int64_t>();
    auto offsets = counts.cumsum(0) - counts; // first row of each image
    auto slot = torch::arange(rows.size(0), image.options()) - offsets.index_select(0, orderedImage);
    auto packed = torch::zeros({batchSize, maxPerImage, 5}, options);
    packed.select(2, 0).fill_(-1);
    packed.index_put_({orderedImage, slot}, ordered.narrow(1, 1, 5));
    return packed;
}

torch::Tensor packTargetsLooped(const torch::Tensor& rows, int64_t batchSize)
{
    const auto options = rows.options();
    if (rows.size(0) == 0)
        return torch::zeros({batchSize, 0, 5}, options);
    auto image = rows.select(1, 0);
    std::vector<torch::Tensor> perImage;
    int64_t maxPerImage = 0;
    for (int64_t b = 0; b < batchSize; ++b) {
        perImage.push_back(rows.index({image == static_cast<double>(b)}));
        maxPerImage = std::max(maxPerImage, perImage.back().size(0));
    }
    auto packed = torch::zeros({batchSize, maxPerImage, 5}, options);
    packed.select(2, 0).fill_(-1);
    for (int64_t b = 0; b < batchSize; ++b)
        if (const int64_t n = perImage[static_cast<std::size_t>(b)].size(0); n > 0)
            packed[b].narrow(0, 0, n).copy_(perImage[static_cast<std::size_t>(b)].narrow(1, 1, 5));
    return packed;
}

std::pair<torch::Tensor, torch::Tensor> makeAnchors(const std::vector<torch::Tensor>& levels)
{
    std::vector<torch::Tensor> points, strides;
    const auto options = levels.front().options().dtype(torch::kFloat);
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const int64_t h = levels[i].size(2), w = levels[i].size(3);
        auto x = torch::arange(w, options) + kAnchorOffset;
        auto y = torch::arange(h, options) + kAnchorOffset;
        auto grid = torch::meshgrid({y, x}, "ij");
        points.push_back(torch::stack({grid[1], grid[0]}, -1).view({-1, 2}));
        strides.push_back(torch::full({h * w, 1}, static_cast<double>(kStrides[i]), options));
    }
    return {torch::cat(points), torch::cat(strides)};
}

torch::Tensor decodeDistances(const torch::Tensor& distribution)
{
    auto sizes = distribution.sizes().vec();
    sizes.back() = 4;
    sizes.push_back(kRegMax);
    auto probabilities = distribution.view(sizes).softmax(-1);
    auto bins = torch::arange(kRegMax, distribution.options());
    return (probabilities * bins).sum(-1);
}

torch::Tensor boxIou(const torch::Tensor& a, const torch::Tensor& b, bool complete)
{
    auto ax0 = a.select(-1, 0), ay0 = a.select(-1, 1), ax1 = a.select(-1, 2), ay1 = a.select(-1, 3);
    auto bx0 = b.select(-1, 0), by0 = b.select(-1, 1), bx1 = b.select(-1, 2), by1 = b.select(-1, 3);
    auto aw = ax1 - ax0, ah = ay1 - ay0 + kIouEps;
    auto bw = bx1 - bx0, bh = by1 - by0 + kIouEps;
    auto inter = (torch::min(ax1, bx1) - torch::max(ax0, bx0)).clamp_min(0) *
                 (torch::min(ay1, by1) - torch::max(ay0, by0)).clamp_min(0);
    auto unionArea = aw * ah + bw * bh - inter + kIouEps;
    auto iou = inter / unionArea;
    if (!complete)
        return iou;
    auto cw = torch::max(ax1, bx1) - torch::min(ax0, bx0); // enclosing box
    auto ch = torch::max(ay1, by1) - torch::min(ay0, by0);
    auto diagonal2 = cw.pow(2) + ch.pow(2) + kIouEps;
    auto centre2 = ((bx0 + bx1 - ax0 - ax1).pow(2) + (by0 + by1 - ay0 - ay1).pow(2)) / 4;
    auto v = (4 / (M_PI * M_PI)) * (torch::atan(bw / bh) - torch::atan(aw / ah)).pow(2);
    torch::Tensor alpha;
    {
        torch::NoGradGuard noGrad;
        alpha = v / (v - iou + (1 + kIouEps));
    }
    return iou - (centre2 / diagonal2 + v * alpha);
}

Assignment assignTargets(const torch::Tensor& logits, const torch::Tensor& predictedBoxes, const torch::Tensor& anchors,
                         const torch::Tensor& packedTargets, const LossOptions& options)
{
    torch::NoGradGuard noGrad;
    const auto scores = logits.to(torch::kFloat);
    const int64_t batch = scores.size(0), anchorCount = scores.size(1), classes = scores.size(2);
    const int64_t boxes = packedTargets.size(1);
    Assignment out;
    if (boxes == 0) {
        out.labels = torch::zeros({batch, anchorCount}, scores.options().dtype(torch::kLong));
        out.boxes = torch::zeros({batch, anchorCount, 4}, scores.options());
        out.scores = torch::zeros_like(scores);
        out.foreground = torch::zeros({batch, anchorCount}, scores.options().dtype(torch::kBool));
        out.gtIndex = out.labels.clone();
        return out;
    }
    auto gtLabels = packedTargets.select(2, 0);               // [B, M]
    auto gtBoxes = packedTargets.narrow(2, 1, 4);             // [B, M, 4]
    auto gtValid = (gtLabels >= 0).unsqueeze(-1);             // [B, M, 1]
    auto labelIndex = gtLabels.clamp_min(0).to(torch::kLong); // [B, M]

    // Anchors whose centre lies strictly inside a box.
    auto deltas = torch::cat({anchors.view({1, 1, anchorCount, 2}) - gtBoxes.unsqueeze(2).narrow(-1, 0, 2),
                              gtBoxes.unsqueeze(2).narrow(-1, 2, 2) - anchors.view({1, 1, anchorCount, 2})},
                             -1);                     // [B, M, A, 4]
    auto inside = std::get<0>(deltas.min(-1)) > kEps; // [B, M, A]
    auto candidate = inside & gtValid;

    // Alignment metric score^alpha * IoU^beta over the candidates, as its logarithm: the same ranking and ratios,
    // without the underflow to 0 that would leave a box with no anchor once its scores become tiny.
    auto overlaps = boxIou(gtBoxes.unsqueeze(2), predictedBoxes.unsqueeze(1), true).clamp_min(0);
    overlaps = torch::where(candidate, overlaps, torch::zeros_like(overlaps));
    auto logScores =
        F::logsigmoid(scores).transpose(1, 2).gather(1, labelIndex.unsqueeze(-1).expand({batch, boxes, anchorCount}));
    const double minusInfinity = -std::numeric_limits<double>::infinity();
    auto logMetric = options.alpha * logScores + options.beta * overlaps.log(); // [B, M, A]
    logMetric = torch::where(candidate, logMetric, torch::full_like(logMetric, minusInfinity));

    // Top-k anchors per box, kept where inside the box.
    const int64_t k = std::min<int64_t>(options.topK, anchorCount);
    auto topIndex = std::get<1>(logMetric.topk(k, -1, true, true));
    auto positive = torch::zeros_like(overlaps).scatter_(-1, topIndex, 1.0) * candidate.to(overlaps.dtype()); // [B,M,A]

    // An anchor claimed by several boxes goes to the one it overlaps most.
    auto claims = positive.sum(1); // [B, A]
    if ((claims > 1).any().item<bool>()) {
        auto best = overlaps.argmax(1); // [B, A]
        auto bestMask = F::one_hot(best, boxes).permute({0, 2, 1}).to(positive.dtype());
        positive = torch::where((claims > 1).unsqueeze(1), bestMask, positive);
        claims = positive.sum(1);
    }
    out.foreground = claims > 0;
    out.gtIndex = positive.argmax(1); // [B, A]
    out.labels = labelIndex.gather(1, out.gtIndex);
    out.boxes = gtBoxes.gather(1, out.gtIndex.unsqueeze(-1).expand({batch, anchorCount, 4}));
    out.scores = F::one_hot(out.labels, classes).to(scores.dtype()) * out.foreground.unsqueeze(-1).to(scores.dtype());

    // Soft targets: each box's metrics rescaled so its best anchor gets the box's best IoU
    // (metric / best metric = exp(log metric - best log metric)).
    auto usable = (positive > 0) & (logMetric > minusInfinity);
    logMetric = torch::where(usable, logMetric, torch::full_like(logMetric, minusInfinity));
    auto bestLogMetric = std::get<0>(logMetric.max(-1, true));           // [B, M, 1]
    auto bestOverlap = std::get<0>((overlaps * positive).max(-1, true)); // [B, M, 1]
    auto ratio = torch::where(usable, (logMetric - bestLogMetric).exp(), torch::zeros_like(logMetric));
    auto normalised = std::get<0>((ratio * bestOverlap).max(1)); // [B, A]
    out.scores = out.scores * normalised.unsqueeze(-1);
    return out;
}

namespace {

// The loss terms' numerators (sums over anchors, before dividing by the target score sum) of one pass over images
// [B', A, ...]: distribution [B', A, 4*kRegMax], logits [B', A, C], predicted boxes [B', A, 4] in grid cells and
// the pass's ground truth packed [B', M, 5] in pixels.
struct LossSums {
    torch::Tensor cls, box, dfl, scores;
};

LossSums lossSums(const torch::Tensor& distribution, const torch::Tensor& logits, const torch::Tensor& predicted,
                  const torch::Tensor& anchors, const torch::Tensor& strides, const torch::Tensor& packed,
                  const LossOptions& options)
{
    const int64_t images = logits.size(0);
    const Assignment target =
        assignTargets(logits.detach(), predicted.detach() * strides, anchors * strides, packed, options);
    LossSums out;
    out.scores = target.scores.sum();
    out.cls = F::binary_cross_entropy_with_logits(
        logits, target.scores, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kSum));
    out.box = torch::zeros({}, logits.options());
    out.dfl = out.box;
    if (target.foreground.any().item<bool>()) {
        const auto& fg = target.foreground;
        auto weight = target.scores.sum(-1).index({fg}).unsqueeze(-1); // [n, 1]
        auto targetBoxes = target.boxes / strides;                     // grid cells
        auto iou = boxIou(predicted.index({fg}), targetBoxes.index({fg}), true).unsqueeze(-1);
        out.box = ((1.0 - iou) * weight).sum();
        auto anchorGrid = anchors.unsqueeze(0).expand({images, anchors.size(0), 2});
        auto targetDistances = boxToDistances(anchorGrid.index({fg}), targetBoxes.index({fg})); // [n, 4]
        auto dfl = distributionFocalLoss(distribution.index({fg}).reshape({-1, kRegMax}), targetDistances);
        out.dfl = (dfl * weight).sum();
    }
    return out;
}

} // namespace

LossOutput detectionLoss(const std::vector<torch::Tensor>& levels, const torch::Tensor& boxes,
                         const LossOptions& options)
{
    const int64_t batch = levels.front().size(0);
    std::vector<torch::Tensor> flat;
    for (const auto& level : levels)
        flat.push_back(level.to(torch::kFloat).flatten(2)); // [B, no, h*w]
    auto all = torch::cat(flat, 2).transpose(1, 2);         // [B, A, no]
    auto distribution = all.narrow(2, 0, 4 * kRegMax);
    auto logits = all.narrow(2, 4 * kRegMax, kClasses);
    auto [anchors, strides] = makeAnchors(levels); // grid cells, [A, 1]
    auto predicted = distancesToBox(anchors, decodeDistances(distribution)); // [B, A, 4] grid cells

    const auto rows = flattenTargets(boxes.to(torch::kFloat));
    LossSums sums;
    if (options.vectorized) {
        if (options.onPass)
            options.onPass(0, batch);
        sums = lossSums(distribution, logits, predicted, anchors, strides, packTargetsVectorized(rows, batch),
                        options);
    } else {
        // AutoSpeed's original: every image on its own, from its own rows of the looped packing.
        const auto packed = packTargetsLooped(rows, batch);
        const auto validRows = (packed.select(2, 0) >= 0).sum(1); // [B]
        for (int64_t b = 0; b < batch; ++b) {
            if (options.onPass)
                options.onPass(b, 1);
            const int64_t n = validRows[b].item<int64_t>();
            const LossSums one = lossSums(distribution.narrow(0, b, 1), logits.narrow(0, b, 1),
                                          predicted.narrow(0, b, 1), anchors, strides,
                                          packed.narrow(0, b, 1).narrow(1, 0, n), options);
            if (b == 0) {
                sums = one;
            } else {
                sums.cls = sums.cls + one.cls;
                sums.box = sums.box + one.box;
                sums.dfl = sums.dfl + one.dfl;
                sums.scores = sums.scores + one.scores;
            }
        }
    }
    const auto scoreSum = sums.scores.clamp_min(1);
    LossOutput out;
    out.heads["cls"] = sums.cls / scoreSum;
    out.heads["box"] = sums.box / scoreSum;
    out.heads["dfl"] = sums.dfl / scoreSum;
    out.total =
        (out.heads["box"] * options.boxGain + out.heads["cls"] * options.clsGain + out.heads["dfl"] * options.dflGain) *
        static_cast<double>(batch);
    return out;
}

std::pair<torch::Tensor, torch::Tensor> decodePredictions(const std::vector<torch::Tensor>& levels)
{
    std::vector<torch::Tensor> flat;
    for (const auto& level : levels)
        flat.push_back(level.to(torch::kFloat).flatten(2));
    auto all = torch::cat(flat, 2).transpose(1, 2); // [B, A, no]
    auto [anchors, strides] = makeAnchors(levels);
    auto boxes = distancesToBox(anchors, decodeDistances(all.narrow(2, 0, 4 * kRegMax))) * strides;
    return {boxes, all.narrow(2, 4 * kRegMax, kClasses).sigmoid()};
}

} // namespace pitwall::autospeed
