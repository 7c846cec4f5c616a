// Detection metrics as AutoSpeed's validation computes them (matching, AP, P/R at the best mean F1), with COCO's
// 101-point AP as the alternative; each step names the numpy call it reproduces. IoU and thresholds are in double
// without ultralytics' 1e-7 epsilon, so a pair whose IoU equals a threshold exactly (e.g. 7000 / 10000 and
// 0.70) counts as a match.
#include "core/eval/detection.h"

#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pitwall::eval {

namespace {

constexpr double kEpsilon = 1e-16;      // ap_per_class's eps (recall and F1 denominators)
constexpr int kConfidencePoints = 1000; // P / R / F1 curves over confidence linspace(0, 1, 1000)
constexpr int kRecallPoints = 101;      // recall 0, 0.01, ..., 1 (both AP methods)
constexpr double kSmoothFraction = 0.1;

double iouThreshold(int t)
{
    return (50.0 + 5.0 * t) / 100.0; // 0.50, 0.55, ... 0.95, each the nearest double
}

// np.linspace(0, 1, n): i * (1 / (n - 1)), the last point exactly 1.
std::vector<double> unitLinspace(int n)
{
    std::vector<double> x(static_cast<std::size_t>(n));
    const double step = 1.0 / (n - 1);
    for (int i = 0; i < n; ++i)
        x[static_cast<std::size_t>(i)] = i * step;
    x.back() = 1.0;
    return x;
}

// np.interp(x, xp, fp, left, right) for one x; xp non-decreasing (repeats allowed: the last of equal xp wins).
double interp(double x, const std::vector<double>& xp, const std::vector<double>& fp, double left, double right)
{
    const std::size_t n = xp.size();
    if (x < xp.front())
        return left;
    if (x > xp.back())
        return right;
    // j = the last index with xp[j] <= x
    const std::size_t j = static_cast<std::size_t>(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin()) - 1;
    if (j == n - 1 || xp[j] == x)
        return fp[j];
    const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    return slope * (x - xp[j]) + fp[j];
}

// The precision envelope in place: each value the best precision at its index or later (running max from the right).
void makeEnvelope(std::vector<double>& precision)
{
    for (std::size_t i = precision.size(); i-- > 1;)
        precision[i - 1] = std::max(precision[i - 1], precision[i]);
}

// COCO: the mean over recall levels r = 0, 0.01, ..., 1 of the envelope at the first point reaching r (0 where the
// recall never reaches r).
double cocoAp(const std::vector<double>& recall, const std::vector<double>& precision)
{
    const std::size_t n = recall.size();
    std::vector<double> envelope(precision.begin(), precision.end());
    makeEnvelope(envelope);
    double sum = 0;
    std::size_t first = 0; // recall is non-decreasing: the first index reaching r only moves forward
    for (int k = 0; k < kRecallPoints; ++k) {
        const double r = static_cast<double>(k) / (kRecallPoints - 1);
        while (first < n && recall[first] < r - 1e-12)
            ++first;
        if (first == n)
            break;
        sum += envelope[first];
    }
    return sum / kRecallPoints;
}

// AutoSpeed's compute_ap, method "interp":
//   mrec = concatenate(([0.0], recall, [1.0])); mpre = concatenate(([1.0], precision, [0.0]))
//   mpre = flip(maximum.accumulate(flip(mpre)))
//   x = linspace(0, 1, 101); ap = trapz(interp(x, mrec, mpre), x)
// np.interp takes the last of equal recalls, so at a recall reached twice the lower (later) precision counts.
double autoSpeedAp(const std::vector<double>& recall, const std::vector<double>& precision)
{
    std::vector<double> mrec, mpre;
    mrec.reserve(recall.size() + 2);
    mpre.reserve(precision.size() + 2);
    mrec.push_back(0.0);
    mrec.insert(mrec.end(), recall.begin(), recall.end());
    mrec.push_back(1.0);
    mpre.push_back(1.0);
    mpre.insert(mpre.end(), precision.begin(), precision.end());
    mpre.push_back(0.0);
    makeEnvelope(mpre);
    const std::vector<double> x = unitLinspace(kRecallPoints);
    double area = 0; // np.trapz: sum of diff(x) * (y[1:] + y[:-1]) / 2
    double previous = interp(x.front(), mrec, mpre, mpre.front(), mpre.back());
    for (std::size_t k = 1; k < x.size(); ++k) {
        const double y = interp(x[k], mrec, mpre, mpre.front(), mpre.back());
        area += (x[k] - x[k - 1]) * (y + previous) / 2.0;
        previous = y;
    }
    return area;
}

// smooth(y, f): a box filter of nf = round(len * f * 2) // 2 + 1 points over y padded with its edge values.
std::vector<double> boxSmooth(const std::vector<double>& y, double fraction)
{
    const int nf = static_cast<int>(std::lround(static_cast<double>(y.size()) * fraction * 2.0)) / 2 + 1;
    const int half = nf / 2;
    const int n = static_cast<int>(y.size());
    auto at = [&](int i) { return y[static_cast<std::size_t>(std::clamp(i, 0, n - 1))]; };
    const double weight = 1.0 / nf;
    std::vector<double> out(y.size());
    for (int i = 0; i < n; ++i) {
        double sum = 0;
        for (int k = -half; k <= half; ++k)
            sum += at(i + k) * weight;
        out[static_cast<std::size_t>(i)] = sum;
    }
    return out;
}

// The class's precision and recall curves, sampled at confidences `grid` (np.interp(-x, -conf, curve): left
// of the highest confidence precision 1 and recall 0, below the lowest the final values).
void confidenceCurves(const std::vector<double>& negConf, const std::vector<double>& precision,
                      const std::vector<double>& recall, const std::vector<double>& grid, double* pCurve,
                      double* rCurve)
{
    for (std::size_t k = 0; k < grid.size(); ++k) {
        pCurve[k] = interp(-grid[k], negConf, precision, 1.0, precision.back());
        rCurve[k] = interp(-grid[k], negConf, recall, 0.0, recall.back());
    }
}

// One class's AP50 and AP50-95 from its predictions (by descending score: their negated confidences and
// true-positive masks) and its number of ground truths, and its P and R curves over the confidences `grid` (those
// of the matches at IoU 0.50).
void scoreClass(const std::vector<double>& negConf, const std::vector<std::uint16_t>& masks, std::int64_t truths,
                ApMethod method, const std::vector<double>& grid, ClassMetrics& cm, std::vector<double>& pCurve,
                std::vector<double>& rCurve)
{
    std::vector<double> recall(masks.size()), precision(masks.size());
    double apSum = 0;
    for (int t = 0; t < kIouThresholds; ++t) {
        double tp = 0, fp = 0;
        for (std::size_t i = 0; i < masks.size(); ++i) {
            if (masks[i] & (1u << t))
                tp += 1;
            else
                fp += 1;
            recall[i] = tp / (static_cast<double>(truths) + kEpsilon);
            precision[i] = tp / (tp + fp);
        }
        const double ap = averagePrecision(recall, precision, method);
        if (t == 0) {
            cm.ap50 = ap;
            confidenceCurves(negConf, precision, recall, grid, pCurve.data(), rCurve.data());
        }
        apSum += ap;
    }
    cm.ap50_95 = apSum / kIouThresholds;
}

// The confidence index that maximises the smoothed class-mean F1; each evaluated class's P and R are read there
// (`evaluated` indexes metrics.classes, one P and R curve each), and P, R, mAP50 and mAP50-95 are the class means.
void readAtBestF1(const std::vector<double>& grid, const std::vector<std::size_t>& evaluated,
                  const std::vector<std::vector<double>>& pCurves, const std::vector<std::vector<double>>& rCurves,
                  DetectionMetrics& metrics)
{
    std::vector<double> meanF1(grid.size(), 0.0);
    for (std::size_t k = 0; k < grid.size(); ++k) {
        double sum = 0;
        for (std::size_t e = 0; e < evaluated.size(); ++e) {
            const double p = pCurves[e][k], r = rCurves[e][k];
            sum += 2 * p * r / (p + r + kEpsilon);
        }
        meanF1[k] = sum / static_cast<double>(evaluated.size());
    }
    const std::vector<double> smoothed = boxSmooth(meanF1, kSmoothFraction);
    const auto best = static_cast<std::size_t>(std::max_element(smoothed.begin(), smoothed.end()) - smoothed.begin());
    metrics.bestConfidence = grid[best];
    for (std::size_t e = 0; e < evaluated.size(); ++e) {
        ClassMetrics& cm = metrics.classes[evaluated[e]];
        cm.precision = pCurves[e][best];
        cm.recall = rCurves[e][best];
        metrics.precision += cm.precision;
        metrics.recall += cm.recall;
        metrics.map50 += cm.ap50;
        metrics.map50_95 += cm.ap50_95;
    }
    const auto n = static_cast<double>(evaluated.size());
    metrics.precision /= n;
    metrics.recall /= n;
    metrics.map50 /= n;
    metrics.map50_95 /= n;
}

} // namespace

std::string_view apMethodName(ApMethod method)
{
    return method == ApMethod::Coco ? "coco" : "autospeed";
}

std::string_view apMethodLabel(ApMethod method)
{
    return method == ApMethod::Coco ? "COCO 101-point" : "AutoSpeed (101-point envelope, trapezoid)";
}

ApMethod parseApMethod(std::string_view name, const std::string& setting)
{
    for (ApMethod method : {ApMethod::AutoSpeed, ApMethod::Coco})
        if (name == apMethodName(method))
            return method;
    throw InputError(setting + " '" + std::string(name) + "' is not an AP method: give autospeed or coco");
}

double averagePrecision(const std::vector<double>& recall, const std::vector<double>& precision, ApMethod method)
{
    if (recall.size() != precision.size())
        throw std::invalid_argument("averagePrecision: " + std::to_string(recall.size()) + " recall and " +
                                    std::to_string(precision.size()) + " precision points");
    if (recall.empty()) // ap_per_class skips a class without predictions: AP 0
        return 0.0;
    return method == ApMethod::Coco ? cocoAp(recall, precision) : autoSpeedAp(recall, precision);
}

double iou(const Box& a, const Box& b)
{
    const double w = std::min<double>(a.x1, b.x1) - std::max<double>(a.x0, b.x0);
    const double h = std::min<double>(a.y1, b.y1) - std::max<double>(a.y0, b.y0);
    if (w <= 0 || h <= 0)
        return 0.0;
    const double intersection = w * h;
    const double areaA = (static_cast<double>(a.x1) - a.x0) * (static_cast<double>(a.y1) - a.y0);
    const double areaB = (static_cast<double>(b.x1) - b.x0) * (static_cast<double>(b.y1) - b.y0);
    const double unionArea = areaA + areaB - intersection;
    return unionArea > 0 ? intersection / unionArea : 0.0;
}

std::vector<Detection> nonMaxSuppression(std::vector<Detection> detections, const NmsOptions& options)
{
    detections.erase(std::remove_if(detections.begin(), detections.end(),
                                    [&](const Detection& d) { return !(d.score >= options.confThreshold); }),
                     detections.end());
    std::stable_sort(detections.begin(), detections.end(),
                     [](const Detection& a, const Detection& b) { return a.score > b.score; });
    std::vector<Detection> kept;
    const std::size_t limit = static_cast<std::size_t>(std::max(0, options.maxDetections));
    for (const Detection& candidate : detections) {
        if (kept.size() >= limit)
            break;
        const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](const Detection& k) {
            // In float, as torchvision's NMS compares: an IoU of exactly 0.65 is not above 0.65f.
            return k.classId == candidate.classId &&
                   static_cast<float>(iou(k.box, candidate.box)) > options.iouThreshold;
        });
        if (!suppressed)
            kept.push_back(candidate);
    }
    return kept;
}

std::vector<std::uint16_t> matchDetections(const std::vector<Detection>& predictions,
                                           const std::vector<Detection>& groundTruths)
{
    std::vector<std::uint16_t> masks(predictions.size(), 0);
    struct Pair {
        std::size_t truth, prediction;
        double iou;
    };
    // Same-class pairs that reach the lowest threshold, by IoU descending (ties: truth, then prediction order).
    std::vector<Pair> pairs;
    for (std::size_t g = 0; g < groundTruths.size(); ++g)
        for (std::size_t p = 0; p < predictions.size(); ++p) {
            if (groundTruths[g].classId != predictions[p].classId)
                continue;
            const double value = iou(groundTruths[g].box, predictions[p].box);
            if (value >= iouThreshold(0))
                pairs.push_back({g, p, value});
        }
    std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.iou > b.iou; });

    std::vector<std::ptrdiff_t> bestTruth(predictions.size());
    std::vector<bool> truthTaken(groundTruths.size());
    for (int t = 0; t < kIouThresholds; ++t) {
        const double threshold = iouThreshold(t);
        // np.unique over predictions: each prediction keeps its highest-IoU truth ...
        std::fill(bestTruth.begin(), bestTruth.end(), -1);
        for (const Pair& pair : pairs)
            if (pair.iou >= threshold && bestTruth[pair.prediction] < 0)
                bestTruth[pair.prediction] = static_cast<std::ptrdiff_t>(pair.truth);
        // ... then, in prediction order, each truth goes to the first prediction that kept it.
        std::fill(truthTaken.begin(), truthTaken.end(), false);
        for (std::size_t p = 0; p < predictions.size(); ++p) {
            const std::ptrdiff_t g = bestTruth[p];
            if (g < 0 || truthTaken[static_cast<std::size_t>(g)])
                continue;
            truthTaken[static_cast<std::size_t>(g)] = true;
            masks[p] |= static_cast<std::uint16_t>(1u << t);
        }
    }
    return masks;
}

DetectionEvaluator::DetectionEvaluator(std::vector<std::string> classNames, ApMethod apMethod)
    : m_names(std::move(classNames)), m_apMethod(apMethod)
{
}

void DetectionEvaluator::addImage(const std::vector<Detection>& predictions,
                                  const std::vector<Detection>& groundTruths)
{
    for (const Detection& d : predictions)
        if (d.classId < 0)
            throw std::invalid_argument("DetectionEvaluator: negative prediction class " + std::to_string(d.classId));
    for (const Detection& d : groundTruths)
        if (d.classId < 0)
            throw std::invalid_argument("DetectionEvaluator: negative ground-truth class " +
                                        std::to_string(d.classId));
    // Matching walks predictions by descending score, as after NMS.
    std::vector<Detection> sorted = predictions;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Detection& a, const Detection& b) { return a.score > b.score; });
    const std::vector<std::uint16_t> masks = matchDetections(sorted, groundTruths);
    for (std::size_t p = 0; p < sorted.size(); ++p)
        m_matched.push_back({sorted[p].score, sorted[p].classId, masks[p]});
    for (const Detection& d : groundTruths) {
        const auto c = static_cast<std::size_t>(d.classId);
        if (c >= m_gtPerClass.size())
            m_gtPerClass.resize(c + 1, 0);
        ++m_gtPerClass[c];
    }
    ++m_images;
}

DetectionMetrics DetectionEvaluator::finish() const
{
    DetectionMetrics metrics;
    metrics.apMethod = m_apMethod;
    metrics.images = m_images;
    metrics.predictions = static_cast<std::int64_t>(m_matched.size());

    // All predictions by descending score (ties: the order they were added), then split by class.
    std::vector<std::size_t> order(m_matched.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return m_matched[a].score > m_matched[b].score; });
    int classCount = static_cast<int>(m_gtPerClass.size());
    for (const Matched& m : m_matched)
        classCount = std::max(classCount, m.classId + 1);
    std::vector<std::vector<std::size_t>> byClass(static_cast<std::size_t>(classCount));
    for (std::size_t i : order)
        byClass[static_cast<std::size_t>(m_matched[i].classId)].push_back(i);

    const std::vector<double> grid = unitLinspace(kConfidencePoints);
    std::vector<std::vector<double>> pCurves, rCurves; // one per evaluated class
    std::vector<std::size_t> evaluated;                  // indices into metrics.classes
    for (int c = 0; c < classCount; ++c) {
        const auto cu = static_cast<std::size_t>(c);
        const std::int64_t truths = cu < m_gtPerClass.size() ? m_gtPerClass[cu] : 0;
        const std::vector<std::size_t>& preds = byClass[cu];
        if (truths == 0 && preds.empty())
            continue;
        ClassMetrics cm;
        cm.classId = c;
        cm.name = cu < m_names.size() ? m_names[cu] : std::to_string(c);
        cm.groundTruths = truths;
        cm.predictions = static_cast<std::int64_t>(preds.size());
        cm.evaluated = truths > 0;
        metrics.groundTruths += truths;
        if (cm.evaluated) {
            std::vector<double> p(grid.size(), 0.0), r(grid.size(), 0.0);
            if (!preds.empty()) {
                std::vector<double> negConf(preds.size());
                std::vector<std::uint16_t> masks(preds.size());
                for (std::size_t i = 0; i < preds.size(); ++i) {
                    negConf[i] = -static_cast<double>(m_matched[preds[i]].score);
                    masks[i] = m_matched[preds[i]].truePositiveMask;
                }
                scoreClass(negConf, masks, truths, m_apMethod, grid, cm, p, r);
            }
            pCurves.push_back(std::move(p));
            rCurves.push_back(std::move(r));
            evaluated.push_back(metrics.classes.size());
        }
        metrics.classes.push_back(std::move(cm));
    }
    if (evaluated.empty())
        return metrics;

    readAtBestF1(grid, evaluated, pCurves, rCurves, metrics);
    return metrics;
}

} // namespace pitwall::eval
