#include "losses.h"

#include <algorithm>
#include <cmath>

namespace pitwall::transfuser {

namespace F = torch::nn::functional;

CenterTargets makeCenterTargets(const torch::Tensor& boxes, int classes, int64_t gridH, int64_t gridW, double stride,
                                int yawBins)
{
    const auto options = boxes.options();
    const int64_t b = boxes.size(0), n = boxes.size(1);
    CenterTargets t;
    auto cls = boxes.select(2, kClass);
    auto valid = cls >= 0;
    auto row = boxes.select(2, kRow) / stride;
    auto col = boxes.select(2, kCol) / stride;
    auto inside = valid & (row >= 0) & (row < gridH) & (col >= 0) & (col < gridW);
    t.mask = inside.to(options.dtype());
    auto rowCell = row.floor().clamp(0, gridH - 1);
    auto colCell = col.floor().clamp(0, gridW - 1);
    t.index = (rowCell * gridW + colCell).to(torch::kLong) * inside.to(torch::kLong);
    t.wh = torch::stack({boxes.select(2, kLength), boxes.select(2, kWidth)}, 2) / stride;
    t.offset = torch::stack({row - rowCell, col - colCell}, 2);
    const double bin = 2.0 * M_PI / yawBins;
    auto yaw = torch::remainder(boxes.select(2, kYaw), 2.0 * M_PI);
    t.yawClass = (yaw / bin).floor().clamp(0, yawBins - 1).to(torch::kLong);
    t.yawResidual = yaw / bin - t.yawClass.to(options.dtype());
    t.velocity = boxes.select(2, kSpeed);
    t.count = t.mask.sum().clamp_min(1.0);

    // Gaussians at integer centre cells, radius from the box size (peaks exactly 1).
    auto sigma = ((torch::min(t.wh.select(2, 0), t.wh.select(2, 1)) / 2.0).floor().clamp_min(1.0) * 2 + 1) / 6.0;
    auto ys = torch::arange(gridH, options).view({1, 1, gridH, 1});
    auto xs = torch::arange(gridW, options).view({1, 1, 1, gridW});
    auto dy = ys - rowCell.view({b, n, 1, 1});
    auto dx = xs - colCell.view({b, n, 1, 1});
    auto gauss = torch::exp(-(dy * dy + dx * dx) / (2 * sigma.view({b, n, 1, 1}).pow(2))) * t.mask.view({b, n, 1, 1});
    auto oneHot = F::one_hot(cls.clamp_min(0).to(torch::kLong), classes).to(options.dtype()) * t.mask.unsqueeze(2);
    // [B, C, N, h, w] -> max over boxes
    t.heatmap = std::get<0>((gauss.unsqueeze(1) * oneHot.permute({0, 2, 1}).unsqueeze(3).unsqueeze(4)).max(2));
    return t;
}

torch::Tensor gaussianFocalLoss(const torch::Tensor& logits, const torch::Tensor& target, const torch::Tensor& avgFactor)
{
    constexpr double kAlpha = 2.0, kGamma = 4.0, kEps = 1e-4;
    auto p = torch::sigmoid(logits.to(torch::kFloat)).clamp(kEps, 1 - kEps);
    auto pos = target.eq(1).to(p.dtype());
    auto neg = 1 - pos;
    auto posLoss = -torch::log(p) * (1 - p).pow(kAlpha) * pos;
    auto negLoss = -torch::log(1 - p) * p.pow(kAlpha) * (1 - target).pow(kGamma) * neg;
    return (posLoss.sum() + negLoss.sum()) / avgFactor;
}

torch::Tensor gatherAt(const torch::Tensor& map, const torch::Tensor& index)
{
    const int64_t b = map.size(0), c = map.size(1);
    auto flat = map.reshape({b, c, -1});
    return flat.gather(2, index.unsqueeze(1).expand({b, c, index.size(1)})).transpose(1, 2);
}

std::map<std::string, torch::Tensor> centerNetLosses(const std::map<std::string, torch::Tensor>& out,
                                                     const CenterTargets& t)
{
    std::map<std::string, torch::Tensor> losses;
    losses["center_heatmap"] = gaussianFocalLoss(out.at("heatmap"), t.heatmap, t.count);
    auto mask = t.mask.unsqueeze(2);
    losses["center_wh"] = (F::l1_loss(gatherAt(out.at("wh"), t.index).to(torch::kFloat), t.wh,
                                      F::L1LossFuncOptions().reduction(torch::kNone)) * mask).sum() / (t.count * 2);
    losses["center_offset"] = (F::l1_loss(gatherAt(out.at("offset"), t.index).to(torch::kFloat), t.offset,
                                          F::L1LossFuncOptions().reduction(torch::kNone)) * mask).sum() / (t.count * 2);
    auto yawLogits = gatherAt(out.at("yaw_class"), t.index).to(torch::kFloat); // [B, N, bins]
    auto yawCe = F::cross_entropy(yawLogits.reshape({-1, yawLogits.size(2)}), t.yawClass.reshape({-1}),
                                  F::CrossEntropyFuncOptions().reduction(torch::kNone));
    losses["center_yaw_class"] = (yawCe * t.mask.reshape({-1})).sum() / t.count;
    auto yawRes = gatherAt(out.at("yaw_res"), t.index).squeeze(2).to(torch::kFloat);
    losses["center_yaw_res"] = (F::smooth_l1_loss(yawRes, t.yawResidual, F::SmoothL1LossFuncOptions().reduction(torch::kNone)) *
                                t.mask).sum() / t.count;
    auto velocity = gatherAt(out.at("velocity"), t.index).squeeze(2).to(torch::kFloat);
    losses["center_velocity"] = (F::l1_loss(velocity, t.velocity, F::L1LossFuncOptions().reduction(torch::kNone)) *
                                 t.mask).sum() / t.count;
    return losses;
}

torch::Tensor twoHotSpeed(const torch::Tensor& speed, const std::vector<double>& classes)
{
    const int64_t k = static_cast<int64_t>(classes.size());
    auto centres = torch::tensor(classes, speed.options().dtype(torch::kFloat));
    auto s = speed.to(torch::kFloat).clamp(classes.front(), classes.back()).unsqueeze(1); // [B, 1]
    auto upper = torch::searchsorted(centres, s.contiguous(), false, true).clamp(1, k - 1); // right neighbour
    auto lower = upper - 1;
    auto lo = centres.index_select(0, lower.squeeze(1)).unsqueeze(1);
    auto hi = centres.index_select(0, upper.squeeze(1)).unsqueeze(1);
    auto wHi = ((s - lo) / (hi - lo)).clamp(0, 1);
    auto target = torch::zeros({speed.size(0), k}, s.options());
    target.scatter_(1, lower, 1 - wHi);
    target.scatter_add_(1, upper, wHi);
    return target;
}

torch::Tensor decodeCenters(const std::map<std::string, torch::Tensor>& out, int64_t b, double stride, int topK,
                            double minScore)
{
    auto heat = torch::sigmoid(out.at("heatmap")[b].to(torch::kFloat)); // [C, h, w]
    auto peaks = F::max_pool2d(heat.unsqueeze(0), F::MaxPool2dFuncOptions(3).stride(1).padding(1)).squeeze(0);
    heat = heat * heat.eq(peaks).to(heat.dtype());
    const int64_t c = heat.size(0), h = heat.size(1), w = heat.size(2);
    auto [scores, flat] = heat.reshape({-1}).topk(std::min<int64_t>(topK, c * h * w));
    auto keep = scores > minScore;
    scores = scores.masked_select(keep);
    flat = flat.masked_select(keep);
    auto cls = flat.div(h * w, "floor");
    auto cell = flat.remainder(h * w);
    auto row = cell.div(w, "floor");
    auto col = cell.remainder(w);
    auto offset = out.at("offset")[b].to(torch::kFloat).reshape({2, -1});
    auto rowPx = (row.to(torch::kFloat) + offset[0].index_select(0, cell)) * stride;
    auto colPx = (col.to(torch::kFloat) + offset[1].index_select(0, cell)) * stride;
    return torch::stack({rowPx, colPx, cls.to(torch::kFloat), scores}, 1);
}

double averagePrecision(std::vector<std::pair<double, bool>> scored, int64_t targets)
{
    if (targets <= 0)
        return std::nan("");
    std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<double> precision, recall;
    double tp = 0, fp = 0;
    for (const auto& [score, hit] : scored) {
        (hit ? tp : fp) += 1;
        precision.push_back(tp / (tp + fp));
        recall.push_back(tp / static_cast<double>(targets));
    }
    // Precision envelope, then 101 recall points (COCO style).
    for (int i = static_cast<int>(precision.size()) - 2; i >= 0; --i)
        precision[i] = std::max(precision[i], precision[i + 1]);
    double sum = 0;
    for (int k = 0; k <= 100; ++k) {
        const double r = k / 100.0;
        auto it = std::lower_bound(recall.begin(), recall.end(), r);
        if (it != recall.end())
            sum += precision[it - recall.begin()];
    }
    return sum / 101.0;
}

} // namespace pitwall::transfuser
