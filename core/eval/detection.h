#pragma once
// Detection metrics the way AutoSpeed reports them: class-aware NMS (conf 0.001, IoU 0.65, max 300), greedy
// one-to-one matching at IoU 0.50:0.95 (class must match), AP per class (AutoSpeed's or COCO's, see ApMethod), and
// P / R at the confidence that maximises the class-mean F1 (box-filter smoothed, f = 0.1). Plain C++ (no torch): the
// built-in evaluation of model plugins and `pitwall eval detection` (predictions made elsewhere) share this code.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pitwall::eval {

// Corners in pixels of the evaluated image.
struct Box {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct Detection {
    Box box;
    int classId = 0;
    float score = 0;
};

struct NmsOptions {
    float confThreshold = 0.001f;
    float iouThreshold = 0.65f;
    int maxDetections = 300;
};

// Intersection over union, 0 for disjoint or empty boxes (computed in double, no epsilon).
double iou(const Box& a, const Box& b);

// How a class's AP is computed from its ranked precision / recall points. Both start from the precision envelope
// (the running maximum of precision from the right) and sample it at recall 0, 0.01, ..., 1.
enum class ApMethod {
    // AutoSpeed's compute_ap (ultralytics): the curve extended by sentinels (recall 0, precision 1) in front and
    // (recall 1, precision 0) at the end, the envelope sampled at linspace(0, 1, 101) by linear interpolation
    // (np.interp) and integrated with the trapezoid rule (np.trapz). The end sentinel adds area between the last
    // recall and 1, so where recall stays below 1 it usually scores above COCO on the same predictions; where
    // recall reaches 1 it is slightly below (a perfect class scores 0.995).
    AutoSpeed,
    // COCO's 101-point interpolated AP: the mean over the 101 recall levels r of the best precision at any
    // recall >= r, 0 where the recall never reaches r. A perfect class scores exactly 1.
    Coco,
};

// "autospeed" / "coco": the value of `--ap`, of autospeed.ap_method and of the JSON's "ap_method".
std::string_view apMethodName(ApMethod method);
// For reports: "AutoSpeed (101-point envelope, trapezoid)" / "COCO 101-point".
std::string_view apMethodLabel(ApMethod method);
// The method named `name` (apMethodName's spelling); anything else is an InputError naming `setting` (e.g. "--ap"):
// "SETTING 'NAME' is not an AP method: give autospeed or coco".
ApMethod parseApMethod(std::string_view name, const std::string& setting);

// One class's AP from its points ranked by descending score: recall non-decreasing, both in 0..1, equal sizes
// (empty: AP 0).
double averagePrecision(const std::vector<double>& recall, const std::vector<double>& precision, ApMethod method);

// IoU thresholds 0.50, 0.55, ... 0.95 (threshold t = 0.50 + 0.05 t); a pair matches at t when IoU >= it.
constexpr int kIouThresholds = 10;

// Non-maximum suppression of one image's detections: drops score < conf, suppresses same-class boxes whose IoU
// with a kept higher-scoring box exceeds the threshold, keeps at most maxDetections (highest scores first).
// Result sorted by descending score; ties keep input order.
std::vector<Detection> nonMaxSuppression(std::vector<Detection> detections, const NmsOptions& options = {});

// One image's matching (ultralytics `match_predictions`), `predictions` in the order they are ranked (descending
// score). Per threshold: same-class (prediction, truth) pairs with IoU >= threshold, by IoU descending; each
// prediction keeps its highest-IoU truth, then each truth goes to the first prediction (in the given order) that
// kept it; a prediction whose best truth went to another is a false positive at that threshold. Returns one mask
// per prediction, bit t set when it is a true positive at threshold t.
std::vector<std::uint16_t> matchDetections(const std::vector<Detection>& predictions,
                                           const std::vector<Detection>& groundTruths);

struct ClassMetrics {
    int classId = 0;
    std::string name;
    std::int64_t groundTruths = 0;
    std::int64_t predictions = 0;
    double precision = 0, recall = 0, ap50 = 0, ap50_95 = 0;
    bool evaluated = false; // has ground truth, so counts in the means; otherwise the four values are 0
};

struct DetectionMetrics {
    double precision = 0, recall = 0, map50 = 0, map50_95 = 0; // fractions 0..1, means over evaluated classes
    std::vector<ClassMetrics> classes; // classes with ground truth or predictions, by id
    std::int64_t images = 0, groundTruths = 0, predictions = 0;
    double bestConfidence = 0; // where P and R are read: the grid confidence maximising the smoothed mean F1
    ApMethod apMethod = ApMethod::AutoSpeed; // how ap50 / ap50_95 (and so map50 / map50_95) were computed
};

// Accumulates images one at a time (predictions after NMS), then computes the metrics. Class ids must be >= 0
// (std::invalid_argument otherwise); classNames[id] names a class, else its number does; APs by `apMethod`
// (AutoSpeed's unless told). Not thread-safe.
class DetectionEvaluator {
public:
    explicit DetectionEvaluator(std::vector<std::string> classNames = {}, ApMethod apMethod = ApMethod::AutoSpeed);
    void addImage(const std::vector<Detection>& predictions, const std::vector<Detection>& groundTruths);
    DetectionMetrics finish() const;

private:
    struct Matched {
        float score;
        int classId;
        std::uint16_t truePositiveMask; // bit t = TP at IoU threshold 0.50 + 0.05 t
    };
    std::vector<std::string> m_names;
    ApMethod m_apMethod;
    std::vector<Matched> m_matched;
    std::vector<std::int64_t> m_gtPerClass;
    std::int64_t m_images = 0;
};

} // namespace pitwall::eval
