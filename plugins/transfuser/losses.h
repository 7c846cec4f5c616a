#pragma once
// Losses and metric helpers of TransFuser-lite (CenterNet targets, Gaussian focal loss, two-hot speed
// targets, detection AP by centre distance).

#include <torch/torch.h>

#include <map>
#include <string>

namespace pitwall::transfuser {

// Box tensor layout from the data pipeline: [B, N, 7] = (row, col, length, width) in BEV pixels, yaw (rad),
// class (−1 = padding), speed (m/s).
enum BoxField { kRow = 0, kCol, kLength, kWidth, kYaw, kClass, kSpeed, kBoxFields };

// CenterNet targets on a grid `stride` times coarser than the BEV raster.
struct CenterTargets {
    torch::Tensor heatmap;   // [B, C, h, w] Gaussian peaks (1 at each centre cell)
    torch::Tensor index;     // [B, N] flat centre cell index (0 for padding)
    torch::Tensor mask;      // [B, N] 1 for real boxes
    torch::Tensor wh;        // [B, N, 2] size in grid cells
    torch::Tensor offset;    // [B, N, 2] sub-cell centre offset
    torch::Tensor yawClass;  // [B, N] long
    torch::Tensor yawResidual; // [B, N] in [0, 1) of a bin
    torch::Tensor velocity;  // [B, N]
    torch::Tensor count;     // scalar: number of boxes (at least 1)
};
CenterTargets makeCenterTargets(const torch::Tensor& boxes, int classes, int64_t gridH, int64_t gridW, double stride,
                                int yawBins);

// Gaussian focal loss (alpha 2, gamma 4), summed and divided by avgFactor.
torch::Tensor gaussianFocalLoss(const torch::Tensor& logits, const torch::Tensor& target, const torch::Tensor& avgFactor);

// Gathers [B, C, h, w] at flat indices [B, N] -> [B, N, C].
torch::Tensor gatherAt(const torch::Tensor& map, const torch::Tensor& index);

// All CenterNet loss terms (center_heatmap, center_wh, ...).
std::map<std::string, torch::Tensor> centerNetLosses(const std::map<std::string, torch::Tensor>& out,
                                                     const CenterTargets& t);

// Two-hot targets over the speed classes: the probability mass split between the two neighbouring classes.
torch::Tensor twoHotSpeed(const torch::Tensor& speed, const std::vector<double>& classes);

// Decoded detections of one image: [K, 4] = (row, col, class, score) in BEV pixels.
torch::Tensor decodeCenters(const std::map<std::string, torch::Tensor>& out, int64_t b, double stride, int topK,
                            double minScore);

// Average precision (101-point interpolated) from scores, true-positive flags and the number of targets.
double averagePrecision(std::vector<std::pair<double, bool>> scored, int64_t targets);

} // namespace pitwall::transfuser
