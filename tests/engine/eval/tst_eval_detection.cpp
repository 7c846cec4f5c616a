// Detection metrics (core/eval/detection.h) on cases computed by hand, and `pitwall eval detection` end to
// end on a tiny YOLO dataset of real JPEG files. Two AP methods:
// - COCO (ApMethod::Coco, `--ap coco`; the cases below that choose it): the mean over r = 0, 0.01, ..., 1 of the
//   precision envelope at r (the best precision at any recall >= r; 0 beyond the last recall), so a perfect class
//   scores exactly 1.
// - AutoSpeed (the default): the curve extended by (recall 0, precision 1) and (recall 1, precision 0), its
//   envelope sampled at x = 0, 0.01, ..., 1 by np.interp (at a repeated recall the last point's precision) and
//   integrated with the trapezoid rule. A perfect class scores 0.995: the samples are 1 up to x = 0.99 and 0 at
//   x = 1 (the end sentinel), so the last interval gives (1 + 0) / 2 * 0.01 instead of 0.01.
#include "core/eval/detection.h"
#include "core/image/jpeg.h"
#include "core/synth/dataset.h"
#include "core/util/error.h"

#include "../../cli/clitestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall::eval;
namespace fs = std::filesystem;

namespace {

constexpr double kTolerance = 1e-9;
constexpr double kPerfectAp = 1.0;
constexpr double kPerfectAutoSpeedAp = 0.995;

Detection det(int classId, float x0, float y0, float x1, float y1, float score = 1)
{
    return {{x0, y0, x1, y1}, classId, score};
}

void writeFile(const fs::path& path, const std::string& text)
{
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

void writeGrayJpeg(const fs::path& path, int width, int height)
{
    const std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * height * 3, 128);
    const std::vector<std::uint8_t> bytes = pitwall::image::encodeJpeg(rgb.data(), width, height, 90);
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
}

bool near(double a, double b) { return std::abs(a - b) <= kTolerance; }

} // namespace

class TestEvalDetection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void iouOfBoxes();
    void averagePrecisionByMethod_data();
    void averagePrecisionByMethod();
    void autoSpeedApIsTheDefault();
    void perfectPredictions();
    void oneClassHalfDetected();
    void falsePositiveRankedAboveTruePositive();
    void falsePositiveRankedFirst();
    void iouDecidesTheThresholdsThatMatch();
    void classMismatchIsNeverAMatch();
    void matchingIsOneToOne();
    void nmsSuppressesSameClassOnly();
    void nmsMaxDetectionsAndConfidence();
    void cliScoresYoloDataset();
    void cliNamesTheApMethod();
    void cliChecksWithoutScoring();
    void apMethodKeyIsChecked();
    void cliRejectsBadInput_data();
    void cliRejectsBadInput();
    void cliRejectsUnknownSplit();
    void cliNamesAHugeLabelClass();

private:
    // A YOLO dataset with split "val": a.jpg (64x48; class 0 [16,12,48,36], class 1 [8,6,24,18]) and
    // b.jpg (64x48; class 0 [16,12,48,36]).
    QString writeYoloDataset(const QTemporaryDir& dir) const;
    // Predictions for that dataset: class 0 FP (0.95, on b) ranked above its two exact TPs, class 1 exact.
    QString writeYoloPredictions(const QTemporaryDir& dir) const;
};

void TestEvalDetection::iouOfBoxes()
{
    QCOMPARE(iou({0, 0, 100, 100}, {0, 0, 100, 70}), 0.7);
    QCOMPARE(iou({0, 0, 10, 10}, {5, 0, 15, 10}), 50.0 / 150.0);
    QCOMPARE(iou({0, 0, 10, 10}, {10, 0, 20, 10}), 0.0); // touching edges: no overlap
    QCOMPARE(iou({0, 0, 0, 0}, {0, 0, 0, 0}), 0.0);      // empty boxes: 0, not NaN
}

void TestEvalDetection::averagePrecisionByMethod_data()
{
    // One class's points ranked by descending score (recall = TP / GT, precision = TP / (TP + FP)), and its AP by
    // each method, worked out by hand from the definitions (x_k = k / 100; AutoSpeed's curve with its sentinels).
    QTest::addColumn<QList<double>>("recall");
    QTest::addColumn<QList<double>>("precision");
    QTest::addColumn<double>("coco");
    QTest::addColumn<double>("autospeed");
    // One TP, one GT. COCO: 1 at all 101 levels. AutoSpeed: curve (0,1) (1,1) (1,0); samples 1 for x_k < 1 and
    // 0 at x = 1 (np.interp takes the last of the equal recalls 1): 99 * 0.01 + (1 + 0) / 2 * 0.01 = 0.995.
    QTest::newRow("perfect") << QList<double>{1.0} << QList<double>{1.0} << kPerfectAp << kPerfectAutoSpeedAp;
    // One TP at score 0.9, 2 GT: recall 0.5 at precision 1, the maximum recall below 1.
    // COCO: levels 0 .. 0.50 (51 of 101) get 1, levels above 0.5 are never reached (0): 51 / 101 = 0.50495.
    // AutoSpeed: curve (0,1) (0.5,1) (1,0), envelope unchanged. Samples: 1 for x_k <= 0.5 (k <= 50; x_50 = 0.5
    // exactly), then the sentinel's line 2 (1 - x_k) down to 0 at x = 1. 0.5 is a sample point, so the trapezoid
    // rule is exact on this piecewise linear envelope: 0.5 * 1 + (1 / 2) * 0.5 * 1 = 0.5 + 0.25 = 0.75. The end
    // sentinel is what adds the 0.25 beyond the last recall (COCO counts 0 there).
    QTest::newRow("max recall 1/2") << QList<double>{0.5} << QList<double>{1.0} << 51.0 / 101 << 0.75;
    // One TP, 3 GT: recall 1/3, which is not a sample point.
    // COCO: levels 0 .. 0.33 (34) reach 1/3: 34 / 101.
    // AutoSpeed: curve (0,1) (1/3,1) (1,0). Samples 1 for k <= 33 (0.33 < 1/3), then 1.5 (1 - x_k): 0.99 at 0.34.
    // Intervals 0..32: 33 * 0.01 = 0.33; [0.33, 0.34]: (1 + 0.99) / 2 * 0.01 = 0.00995; [0.34, 1] on the line,
    // exact: 1.5 * 0.66^2 / 2 = 0.3267. Sum 0.66665 (the exact area 2/3 less the corner the sampling cuts).
    QTest::newRow("max recall 1/3") << QList<double>{1.0 / 3} << QList<double>{1.0} << 34.0 / 101 << 0.66665;
    // 2 GT, ranked TP, FP, TP: recall 0.5, 0.5, 1; precision 1, 1/2, 2/3.
    // COCO: (51 + 50 * 2/3) / 101 = 253 / 303 (see falsePositiveRankedAboveTruePositive).
    // AutoSpeed: curve (0,1) (0.5,1) (0.5,1/2) (1,2/3) (1,0), envelope (0,1) (0.5,1) (0.5,2/3) (1,2/3) (1,0).
    // Samples: 1 for x_k < 0.5; 2/3 at x = 0.5 (the last of the equal recalls 0.5) and up to 0.99; 0 at 1.
    // Intervals 0..48: 49 * 0.01; [0.49, 0.5]: (1 + 2/3) / 2 * 0.01; 50..98: 49 * 2/3 * 0.01; [0.99, 1]:
    // (2/3 + 0) / 2 * 0.01. Sum 0.01 * (49 + 5/6 + 98/3 + 1/3) = 0.01 * (82 + 5/6) = 0.828333...
    QTest::newRow("FP between TPs") << QList<double>{0.5, 0.5, 1.0} << QList<double>{1.0, 0.5, 2.0 / 3} << 253.0 / 303
                                    << 0.01 * (82 + 5.0 / 6);
    // 2 GT, ranked FP, TP, TP: recall 0, 0.5, 1; precision 0, 1/2, 2/3. Envelope 2/3 from recall 0 to 1.
    // COCO: 2/3. AutoSpeed: the front sentinel (0,1) is followed by (0, 2/3), and np.interp at x = 0 takes the
    // latter, so the samples are 2/3 up to 0.99 and 0 at 1: 2/3 * 0.995.
    QTest::newRow("FP ranked first") << QList<double>{0.0, 0.5, 1.0} << QList<double>{0.0, 0.5, 2.0 / 3} << 2.0 / 3
                                     << kPerfectAutoSpeedAp * 2 / 3;
    // Only a false positive: recall 0, precision 0. Neither method gives area (AutoSpeed: the envelope is
    // (0,1) (0,0) (1,0) and x = 0 takes (0,0)).
    QTest::newRow("only a false positive") << QList<double>{0.0} << QList<double>{0.0} << 0.0 << 0.0;
    // No predictions: AP 0 (ap_per_class skips the class), not the sentinels' 0.5.
    QTest::newRow("no predictions") << QList<double>{} << QList<double>{} << 0.0 << 0.0;
}

void TestEvalDetection::averagePrecisionByMethod()
{
    QFETCH(QList<double>, recall);
    QFETCH(QList<double>, precision);
    QFETCH(double, coco);
    QFETCH(double, autospeed);
    const std::vector<double> r(recall.begin(), recall.end()), p(precision.begin(), precision.end());
    const double cocoAp = averagePrecision(r, p, ApMethod::Coco);
    const double autoSpeedAp = averagePrecision(r, p, ApMethod::AutoSpeed);
    QVERIFY2(near(cocoAp, coco), qPrintable(QString::number(cocoAp, 'g', 17)));
    QVERIFY2(near(autoSpeedAp, autospeed), qPrintable(QString::number(autoSpeedAp, 'g', 17)));
}

void TestEvalDetection::autoSpeedApIsTheDefault()
{
    // One class, 2 GT, one exact TP at score 0.9 (recall at most 0.5): the evaluator's AP is AutoSpeed's 0.75
    // unless COCO is asked for (51 / 101); see averagePrecisionByMethod "max recall 1/2". If the default were
    // COCO, AutoSpeed-lite's validation and HPO objective would not be AutoSpeed's numbers.
    const std::vector<Detection> truth{det(0, 0, 0, 10, 10), det(0, 20, 0, 30, 10)};
    DetectionEvaluator autoSpeed;
    autoSpeed.addImage({det(0, 0, 0, 10, 10, 0.9f)}, truth);
    const DetectionMetrics m = autoSpeed.finish();
    QVERIFY(m.apMethod == ApMethod::AutoSpeed);
    QVERIFY2(near(m.map50, 0.75), qPrintable(QString::number(m.map50, 'g', 17)));
    QVERIFY(near(m.map50_95, 0.75)); // an exact box: the same at every IoU threshold
    QVERIFY(near(m.classes[0].ap50, 0.75));
    DetectionEvaluator coco({}, ApMethod::Coco);
    coco.addImage({det(0, 0, 0, 10, 10, 0.9f)}, truth);
    const DetectionMetrics c = coco.finish();
    QVERIFY(c.apMethod == ApMethod::Coco);
    QVERIFY2(near(c.map50, 51.0 / 101), qPrintable(QString::number(c.map50, 'g', 17)));
    // P and R do not depend on the AP method.
    QCOMPARE(m.precision, c.precision);
    QCOMPARE(m.recall, c.recall);

    // A perfect class: 0.995 by default.
    DetectionEvaluator perfect({"car"});
    perfect.addImage({det(0, 0, 0, 10, 10, 0.9f)}, {det(0, 0, 0, 10, 10)});
    QVERIFY(near(perfect.finish().map50_95, kPerfectAutoSpeedAp));

    QVERIFY(apMethodName(ApMethod::AutoSpeed) == "autospeed" && apMethodName(ApMethod::Coco) == "coco");
    QVERIFY(parseApMethod("coco", "--ap") == ApMethod::Coco);
    QVERIFY(parseApMethod("autospeed", "--ap") == ApMethod::AutoSpeed);
    QVERIFY_THROWS_EXCEPTION(pitwall::InputError, parseApMethod("COCO", "--ap"));
}

void TestEvalDetection::perfectPredictions()
{
    // Every box found exactly, nothing else: P = R = 1 and every AP 1.
    DetectionEvaluator evaluator({"car", "person"}, ApMethod::Coco);
    evaluator.addImage({det(0, 0, 0, 10, 10, 0.9f), det(1, 20, 20, 30, 40, 0.6f)},
                       {det(0, 0, 0, 10, 10), det(1, 20, 20, 30, 40)});
    evaluator.addImage({det(0, 50, 50, 80, 70, 0.3f)}, {det(0, 50, 50, 80, 70)});
    evaluator.addImage({}, {}); // an image with nothing in it changes nothing
    const DetectionMetrics m = evaluator.finish();
    QCOMPARE(m.images, std::int64_t(3));
    QCOMPARE(m.groundTruths, std::int64_t(3));
    QCOMPARE(m.predictions, std::int64_t(3));
    QCOMPARE(m.precision, 1.0);
    QCOMPARE(m.recall, 1.0);
    QVERIFY2(near(m.map50, kPerfectAp), qPrintable(QString::number(m.map50, 'g', 17)));
    QVERIFY(near(m.map50_95, kPerfectAp));
    QCOMPARE(m.classes.size(), std::size_t(2));
    QCOMPARE(m.classes[1].name, std::string("person"));
    QCOMPARE(m.classes[0].groundTruths, std::int64_t(2));
    QVERIFY(m.classes[0].evaluated && m.classes[1].evaluated);
}

void TestEvalDetection::oneClassHalfDetected()
{
    // Class 0 perfect (2 of 2). Class 1: 2 of 4 found (scores 0.7, 0.6), so recall 0.25, 0.5 at precision 1:
    // the envelope is 1 at recall levels 0 .. 0.50 (51 of the 101) and 0 beyond: AP = 51 / 101 at every
    // threshold. The mean F1 is highest (5/6) at confidences <= 0.6, where class 1 has P 1, R 0.5.
    DetectionEvaluator evaluator({}, ApMethod::Coco);
    evaluator.addImage({det(0, 0, 0, 10, 10, 0.9f), det(1, 20, 0, 30, 10, 0.7f)},
                       {det(0, 0, 0, 10, 10), det(1, 20, 0, 30, 10), det(1, 40, 0, 50, 10)});
    evaluator.addImage({det(0, 0, 0, 10, 10, 0.8f), det(1, 20, 0, 30, 10, 0.6f)},
                       {det(0, 0, 0, 10, 10), det(1, 20, 0, 30, 10), det(1, 60, 0, 70, 10)});
    const DetectionMetrics m = evaluator.finish();
    QCOMPARE(m.classes.size(), std::size_t(2));
    const ClassMetrics& half = m.classes[1];
    QCOMPARE(half.name, std::string("1")); // no names given: the number
    QCOMPARE(half.groundTruths, std::int64_t(4));
    QVERIFY2(near(half.ap50, 51.0 / 101), qPrintable(QString::number(half.ap50, 'g', 17)));
    QVERIFY(near(half.ap50_95, 51.0 / 101));
    QCOMPARE(half.precision, 1.0);
    QCOMPARE(half.recall, 0.5);
    QCOMPARE(m.classes[0].recall, 1.0);
    QVERIFY(near(m.recall, 0.75));
    QCOMPARE(m.precision, 1.0);
    QVERIFY(near(m.map50, (kPerfectAp + 51.0 / 101) / 2));
    QVERIFY(near(m.map50_95, (kPerfectAp + 51.0 / 101) / 2));
}

void TestEvalDetection::falsePositiveRankedAboveTruePositive()
{
    // 2 truths; ranked TP (0.9), FP (0.8), TP (0.7): recall 0.5, 0.5, 1; precision 1, 1/2, 2/3.
    // Envelope [1, 2/3, 2/3]. Recall levels 0 .. 0.50 (51) first reach recall at the first TP -> 1; levels
    // 0.51 .. 1 (50) at the second TP -> 2/3. AP = (51 + 50 * 2/3) / 101 = 253 / 303 = 0.834983...
    // Ranked the other way (FP last) it would be 1: the rank of the false positive is what this checks.
    DetectionEvaluator evaluator({}, ApMethod::Coco);
    evaluator.addImage({det(0, 0, 0, 10, 10, 0.9f), det(0, 100, 100, 110, 110, 0.8f), det(0, 20, 0, 30, 10, 0.7f)},
                       {det(0, 0, 0, 10, 10), det(0, 20, 0, 30, 10)});
    const DetectionMetrics m = evaluator.finish();
    QVERIFY2(near(m.map50, 253.0 / 303), qPrintable(QString::number(m.map50, 'g', 17)));
    QVERIFY(near(m.map50_95, 253.0 / 303));
    // F1 peaks (0.8) below confidence 0.7: every prediction kept, P 2/3, R 1.
    QVERIFY(near(m.precision, 2.0 / 3));
    QCOMPARE(m.recall, 1.0);
    QVERIFY(m.bestConfidence < 0.7);
}

void TestEvalDetection::falsePositiveRankedFirst()
{
    // FP (0.95) then TP, TP: precision 0, 1/2, 2/3 at recall 0, 0.5, 1; the envelope is 2/3 from recall 0 to 1,
    // so AP = 2/3 at all 101 levels. The FP is in another image: images share one ranking.
    DetectionEvaluator evaluator({}, ApMethod::Coco);
    evaluator.addImage({det(0, 0, 0, 10, 10, 0.9f), det(0, 20, 0, 30, 10, 0.7f)},
                       {det(0, 0, 0, 10, 10), det(0, 20, 0, 30, 10)});
    evaluator.addImage({det(0, 0, 0, 10, 10, 0.95f)}, {});
    const DetectionMetrics m = evaluator.finish();
    QVERIFY2(near(m.map50, kPerfectAp * 2 / 3), qPrintable(QString::number(m.map50, 'g', 17)));
    QCOMPARE(m.predictions, std::int64_t(3));
}

void TestEvalDetection::iouDecidesTheThresholdsThatMatch()
{
    // IoU exactly 0.7 matches at 0.50, 0.55, 0.60, 0.65, 0.70 and is a false positive at 0.75..0.95 (AP 0 there:
    // precision 0 at recall 0), so mAP50-95 = 1 * 5/10.
    const std::vector<Detection> truth{det(0, 0, 0, 100, 100)};
    QCOMPARE(matchDetections({det(0, 0, 0, 100, 70, 0.9f)}, truth).front(), std::uint16_t(0b11111));
    QCOMPARE(matchDetections({det(0, 0, 0, 100, 69, 0.9f)}, truth).front(), std::uint16_t(0b1111)); // IoU 0.69
    QCOMPARE(matchDetections({det(0, 0, 0, 100, 95, 0.9f)}, truth).front(), std::uint16_t(0b1111111111));
    QCOMPARE(matchDetections({det(0, 0, 0, 100, 49, 0.9f)}, truth).front(), std::uint16_t(0)); // IoU 0.49

    DetectionEvaluator evaluator({}, ApMethod::Coco);
    evaluator.addImage({det(0, 0, 0, 100, 70, 0.9f)}, truth);
    const DetectionMetrics m = evaluator.finish();
    QVERIFY(near(m.map50, kPerfectAp));
    QVERIFY2(near(m.map50_95, kPerfectAp * 5 / 10), qPrintable(QString::number(m.map50_95, 'g', 17)));
    QVERIFY(near(m.map50_95, 0.5));
}

void TestEvalDetection::classMismatchIsNeverAMatch()
{
    // The same box with the wrong class: class 0 has a truth and no prediction (AP, P, R 0); class 1 has a
    // prediction and no truth, so it is listed but not part of the means.
    QCOMPARE(matchDetections({det(1, 0, 0, 10, 10, 0.9f)}, {det(0, 0, 0, 10, 10)}).front(), std::uint16_t(0));
    DetectionEvaluator evaluator({"car", "person"}, ApMethod::Coco);
    evaluator.addImage({det(1, 0, 0, 10, 10, 0.9f)}, {det(0, 0, 0, 10, 10)});
    const DetectionMetrics m = evaluator.finish();
    QCOMPARE(m.map50, 0.0);
    QCOMPARE(m.map50_95, 0.0);
    QCOMPARE(m.precision, 0.0);
    QCOMPARE(m.recall, 0.0);
    QCOMPARE(m.classes.size(), std::size_t(2));
    QVERIFY(m.classes[0].evaluated);
    QVERIFY(!m.classes[1].evaluated);
    QCOMPARE(m.classes[1].predictions, std::int64_t(1));
    QCOMPARE(m.classes[1].groundTruths, std::int64_t(0));
}

void TestEvalDetection::matchingIsOneToOne()
{
    // Two predictions on one truth: the higher-scoring one matches, the duplicate is a false positive.
    const std::vector<Detection> truth{det(0, 0, 0, 10, 10)};
    const auto masks = matchDetections({det(0, 0, 0, 10, 10, 0.9f), det(0, 0, 0, 10, 10, 0.8f)}, truth);
    QCOMPARE(masks[0], std::uint16_t(0b1111111111));
    QCOMPARE(masks[1], std::uint16_t(0));
    // Each prediction takes its highest-IoU truth: the second (IoU 1 with truth B) is not left without one
    // because the first also overlaps B.
    const std::vector<Detection> truths{det(0, 0, 0, 10, 10), det(0, 2, 0, 12, 10)};
    const auto both = matchDetections({det(0, 0, 0, 10, 10, 0.9f), det(0, 2, 0, 12, 10, 0.8f)}, truths);
    QCOMPARE(both[0], std::uint16_t(0b1111111111));
    QCOMPARE(both[1], std::uint16_t(0b1111111111));
}

void TestEvalDetection::nmsSuppressesSameClassOnly()
{
    const std::vector<Detection> kept = nonMaxSuppression({
        det(0, 0, 0, 100, 100, 0.9f),     // A: kept
        det(0, 0, 0, 100, 70, 0.8f),      // B: IoU 0.7 with A, same class: suppressed
        det(1, 0, 0, 100, 100, 0.85f),    // C: the same box as A in another class: kept
        det(0, 0, 0, 100, 50, 0.7f),      // D: IoU 0.5 with A; 0.71 with B, but B was suppressed: kept
        det(0, 200, 0, 300, 100, 0.5f),   // E: kept
        det(0, 200, 0, 300, 65, 0.4f),    // F: IoU exactly 0.65 with E: not above the threshold, kept
        det(0, 200, 0, 300, 66, 0.3f),    // G: IoU 0.66 with E: suppressed
        det(0, 500, 0, 600, 100, 0.0005f) // below the confidence threshold 0.001: dropped
    });
    QCOMPARE(kept.size(), std::size_t(5));
    const float scores[] = {0.9f, 0.85f, 0.7f, 0.5f, 0.4f};
    for (std::size_t i = 0; i < kept.size(); ++i)
        QCOMPARE(kept[i].score, scores[i]);
    QCOMPARE(kept[1].classId, 1);
}

void TestEvalDetection::nmsMaxDetectionsAndConfidence()
{
    std::vector<Detection> many;
    for (int i = 0; i < 10; ++i) // disjoint boxes, scores 0.1 .. 1.0 in input order
        many.push_back(det(0, 20.0f * i, 0, 20.0f * i + 10, 10, static_cast<float>(i + 1) / 10.0f));
    many.push_back(det(0, 500, 0, 510, 10, 0.3f)); // ties with many[2]: input order kept
    NmsOptions options;
    options.maxDetections = 3;
    const auto top = nonMaxSuppression(many, options);
    QCOMPARE(top.size(), std::size_t(3));
    QCOMPARE(top[0].box.x0, 180.0f);
    QCOMPARE(top[2].box.x0, 140.0f);
    QCOMPARE(nonMaxSuppression(many).size(), std::size_t(11)); // default: at most 300
    options.maxDetections = 300;
    options.confThreshold = 0.3f;
    const auto confident = nonMaxSuppression(many, options); // a score equal to the threshold is kept
    QCOMPARE(confident.size(), std::size_t(9));
    QCOMPARE(confident[7].box.x0, 40.0f);  // the two 0.3 scores, in input order
    QCOMPARE(confident[8].box.x0, 500.0f);
}

QString TestEvalDetection::writeYoloPredictions(const QTemporaryDir& dir) const
{
    const QString predictions = dir.filePath("predictions.json");
    writeFile(predictions.toStdString(), R"([
      {"image": "a.jpg", "class": 0, "x": 16, "y": 12, "width": 32, "height": 24, "score": 0.9},
      {"image": "images/val/a.jpg", "class": 1, "x": 8, "y": 6, "width": 16, "height": 12, "score": 0.8},
      {"image": "b", "class": 0, "x": 16, "y": 12, "width": 32, "height": 24, "score": 0.7},
      {"image": "b.jpg", "class": 0, "x": 0, "y": 0, "width": 10, "height": 10, "score": 0.95}
    ])");
    return predictions;
}

QString TestEvalDetection::writeYoloDataset(const QTemporaryDir& dir) const
{
    const fs::path root = dir.filePath("yolo").toStdString();
    writeGrayJpeg(root / "images" / "val" / "a.jpg", 64, 48);
    writeGrayJpeg(root / "images" / "val" / "b.jpg", 64, 48);
    writeFile(root / "labels" / "val" / "a.txt", "0 0.5 0.5 0.5 0.5\n1 0.25 0.25 0.25 0.25\n");
    writeFile(root / "labels" / "val" / "b.txt", "0 0.5 0.5 0.5 0.5\n");
    return QString::fromStdString(root.string());
}

void TestEvalDetection::cliScoresYoloDataset()
{
    QTemporaryDir dir;
    const QString dataset = writeYoloDataset(dir);
    // Normalised labels in pixels: a class 0 [16,12,48,36], class 1 [8,6,24,18]; b class 0 [16,12,48,36].
    // Class 0: FP (0.95, on b) ranked above its two exact TPs -> AP 2/3 at every threshold; class 1
    // exact -> 1. "image" by relative path, path from the dataset folder, and stem.
    const QString predictions = writeYoloPredictions(dir);
    const CliResult r = runCli({"eval", "detection", "--dataset", dataset, "--split", "val", "--predictions",
                                predictions, "--ap", "coco", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["images"].toInt(), 2);
    QCOMPARE(o["predictions"].toInt(), 4);
    QVERIFY2(near(o["map50"].toDouble(), (kPerfectAp * 2 / 3 + kPerfectAp) / 2), qPrintable(r.out));
    QVERIFY(near(o["map50_95"].toDouble(), (kPerfectAp * 2 / 3 + kPerfectAp) / 2));
    // Mean F1 is highest (0.9) below confidence 0.7: class 0 P 2/3 R 1, class 1 P 1 R 1.
    QVERIFY(near(o["precision"].toDouble(), 5.0 / 6));
    QVERIFY(near(o["recall"].toDouble(), 1.0));
    const QJsonArray classes = o["classes"].toArray();
    QCOMPARE(classes.size(), 2);
    QCOMPARE(classes[0].toObject()["gt"].toInt(), 2);
    QCOMPARE(classes[1].toObject()["id"].toInt(), 1);
    QCOMPARE(classes[1].toObject()["name"].toString(), QString("1"));
    QVERIFY(near(classes[1].toObject()["map50"].toDouble(), kPerfectAp));
    QVERIFY(near(classes[0].toObject()["recall"].toDouble(), 1.0));

    const CliResult text = runCli(
        {"eval", "detection", "--dataset", dataset, "--split", "val", "--predictions", predictions, "--ap", "coco"});
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains("mAP50-95") && text.out.contains("all") && text.out.contains("0.833"),
             qPrintable(text.out));
    const CliResult help = runCli({"eval", "detection", "--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("NMS"));
}

void TestEvalDetection::cliNamesTheApMethod()
{
    // The predictions of cliScoresYoloDataset without --ap: AutoSpeed's AP, class 0 2/3 * 0.995 (FP first, see
    // averagePrecisionByMethod "FP ranked first"), class 1 0.995, so mAP50 = mAP50-95 = 0.995 * 5/6 = 0.829167.
    // COCO gives 0.833 here: both classes reach recall 1, where the end sentinel costs 0.5 % instead of adding
    // area (AutoSpeed's AP is the higher one only when recall stays below 1). Each report names its method, so
    // two numbers for the same predictions are not mistaken for each other.
    QTemporaryDir dir;
    const QString dataset = writeYoloDataset(dir);
    const QString predictions = writeYoloPredictions(dir);
    const QStringList scoring{"eval",    "detection", "--dataset",     dataset,
                              "--split", "val",       "--predictions", predictions};
    const CliResult json = runCli(scoring + QStringList{"--json"});
    QVERIFY2(json.exitCode == 0, qPrintable(json.err));
    const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QCOMPARE(o["ap_method"].toString(), QString("autospeed"));
    QVERIFY2(near(o["map50"].toDouble(), kPerfectAutoSpeedAp * 5 / 6), qPrintable(json.out));
    QVERIFY(near(o["map50_95"].toDouble(), kPerfectAutoSpeedAp * 5 / 6));
    QVERIFY(near(o["classes"].toArray()[1].toObject()["map50"].toDouble(), kPerfectAutoSpeedAp));
    QVERIFY(near(o["precision"].toDouble(), 5.0 / 6)); // as with COCO's AP

    const CliResult text = runCli(scoring);
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY2(text.out.startsWith("AP: AutoSpeed (101-point envelope, trapezoid)\n") && text.out.contains("0.829"),
             qPrintable(text.out));
    const CliResult coco = runCli(scoring + QStringList{"--ap", "coco"});
    QVERIFY2(coco.out.startsWith("AP: COCO 101-point\n"), qPrintable(coco.out));
    const CliResult cocoJson = runCli(scoring + QStringList{"--ap", "coco", "--json"});
    QCOMPARE(QJsonDocument::fromJson(cocoJson.out.toUtf8()).object()["ap_method"].toString(), QString("coco"));

    const CliResult bad = runCli(scoring + QStringList{"--ap", "voc"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--ap 'voc' is not an AP method: give autospeed or coco"), qPrintable(bad.err));
    QVERIFY(bad.out.isEmpty());
    QVERIFY(runCli({"eval", "detection", "--help"}).out.contains("--ap"));
}

// `--check` reads the dataset, its ground truth and every prediction as scoring would, reports what it would score
// and stops; its problems land at the spec's field (core/jobs/evaljob.h), never found by their words.
void TestEvalDetection::cliChecksWithoutScoring()
{
    QTemporaryDir dir;
    const QString dataset = writeYoloDataset(dir);
    const QString predictions = writeYoloPredictions(dir);
    const QString db = dir.filePath("check.db");
    const QStringList scoring{"eval", "detection",     "--dataset", dataset, "--split",
                              "val",  "--predictions", predictions, "--db",  db};
    const CliResult json = runCli(scoring + QStringList{"--check", "--json"});
    QVERIFY2(json.exitCode == 0, qPrintable(json.err));
    const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QCOMPARE(o["ok"].toBool(), true);
    QCOMPARE(o["images"].toInt(), 2);
    QCOMPARE(o["classes"].toInt(), 2);
    QCOMPARE(o["ground_truths"].toInt(), 3);
    QCOMPARE(o["predictions_read"].toInt(), 4);
    QCOMPARE(o["ap_method"].toString(), QString("autospeed"));
    QVERIFY2(!o.contains("map50"), qPrintable(json.out)); // nothing scored
    const CliResult text = runCli(scoring + QStringList{"--check", "--ap", "coco"});
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY2(text.out.startsWith("would score 4 predictions on 2 images (3 ground-truth boxes, 2 classes)\n") &&
                 text.out.contains("AP: COCO 101-point"),
             qPrintable(text.out));
    QVERIFY(!QFileInfo::exists(db)); // a check writes nothing, not even the job record

    const QString bad = dir.filePath("bad.json");
    writeFile(bad.toStdString(),
              R"([{"image": "a.jpg", "x": 1, "y": 1, "width": 5, "height": 5, "class": 7, "score": 0.5}])");
    const auto problemOf = [](const CliResult& r) {
        return QJsonDocument::fromJson(r.out.toUtf8()).object()["problems"].toArray().at(0).toObject();
    };
    const CliResult badEntry = runCli({"eval", "detection", "--dataset", dataset, "--split", "val", "--predictions",
                                       bad, "--db", db, "--check", "--json"});
    QCOMPARE(badEntry.exitCode, 2);
    QCOMPARE(problemOf(badEntry)["field"].toString(), QString("predictions"));
    QVERIFY2(problemOf(badEntry)["message"].toString().contains("class 7 is outside the dataset's classes"),
             qPrintable(badEntry.out));
    const CliResult noDataset =
        runCli({"eval", "detection", "--predictions", predictions, "--db", db, "--check", "--json"});
    QCOMPARE(noDataset.exitCode, 2);
    QCOMPARE(problemOf(noDataset)["field"].toString(), QString("dataset"));
    QCOMPARE(problemOf(noDataset)["option"].toString(), QString("--dataset"));
    const CliResult badAp = runCli(scoring + QStringList{"--ap", "voc", "--check", "--json"});
    QCOMPARE(badAp.exitCode, 2);
    QCOMPARE(problemOf(badAp)["field"].toString(), QString("ap"));
    QVERIFY(!QFileInfo::exists(db));
}

void TestEvalDetection::apMethodKeyIsChecked()
{
    // autospeed.ap_method is a schema choice: another value is bad input (exit 2) naming the choices.
    const QString smoke = sourcePath("/configs/autospeed/smoke.yaml");
    const CliResult bad = runCli({"config", "validate", smoke, "autospeed.ap_method=voc"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("'autospeed.ap_method'") && bad.err.contains("'voc' is not one of: autospeed, coco"),
             qPrintable(bad.err));
    QCOMPARE(runCli({"config", "validate", smoke, "autospeed.ap_method=coco"}).exitCode, 0);
}

void TestEvalDetection::cliRejectsBadInput_data()
{
    QTest::addColumn<QString>("json"); // predictions file content; empty: no file at all
    QTest::addColumn<QStringList>("expected");
    const QString good = R"("image": "a.jpg", "x": 1, "y": 1, "width": 5, "height": 5)";
    QTest::newRow("missing file") << QString() << QStringList{"predictions.json", "no such file"};
    QTest::newRow("bad JSON") << QString("[\n  {\"image\": \"a.jpg\",,\n]")
                              << QStringList{"predictions.json:2:", "not valid JSON", "byte"};
    QTest::newRow("not a list") << QString("{}") << QStringList{"expected a list", "found an object"};
    QTest::newRow("missing key") << QString("[{%1, \"class\": 0, \"score\": 0.5}, {%1, \"class\": 0}]").arg(good)
                                 << QStringList{"predictions[1]: key 'score' is missing"};
    QTest::newRow("wrong type") << QString("[{%1, \"class\": \"car\", \"score\": 0.5}]").arg(good)
                                << QStringList{"predictions[0]: key 'class' must be a whole number", "\"car\""};
    QTest::newRow("string number") << QString("[{%1, \"class\": 0, \"score\": \"0.5\"}]").arg(good)
                                   << QStringList{"predictions[0]: key 'score' must be a finite number"};
    QTest::newRow("negative width")
        << QString("[{\"image\": \"a.jpg\", \"x\": 1, \"y\": 1, \"width\": -5, \"height\": 5, \"class\": 0, "
                   "\"score\": 0.5}]")
        << QStringList{"predictions[0]: negative width -5"};
    QTest::newRow("score above 1") << QString("[{%1, \"class\": 0, \"score\": 1.5}]").arg(good)
                                   << QStringList{"predictions[0]: score 1.5 is outside 0..1"};
    QTest::newRow("unknown image")
        << QString("[{\"image\": \"zzz.jpg\", \"x\": 1, \"y\": 1, \"width\": 5, \"height\": 5, \"class\": 0, "
                   "\"score\": 0.5}]")
        << QStringList{"predictions[0]: image 'zzz.jpg' is not in the dataset"};
    QTest::newRow("class out of range") << QString("[{%1, \"class\": 7, \"score\": 0.5}]").arg(good)
                                        << QStringList{"predictions[0]: class 7 is outside the dataset's classes"};
    // Seen while writing fuzz_predictions: 1e300 is finite as a double, inf as the float a box keeps.
    QTest::newRow("beyond float range")
        << QString("[{\"image\": \"a.jpg\", \"x\": 1e300, \"y\": 1, \"width\": 5, \"height\": 5, \"class\": 0, "
                   "\"score\": 0.5}]")
        << QStringList{"predictions[0]: key 'x' must be a finite number (within float range)", "1e+300"};
    QTest::newRow("far corner beyond float range")
        << QString("[{\"image\": \"a.jpg\", \"x\": 3e38, \"y\": 1, \"width\": 3e38, \"height\": 5, \"class\": 0, "
                   "\"score\": 0.5}]")
        << QStringList{"predictions[0]: the box's far corner (x + width, y + height) is beyond float range"};
    QTest::newRow("number beyond a double") // found by fuzz_predictions: nlohmann's out_of_range escaped
        << QString("[{\"image\": \"a.jpg\", \"x\": 1, \"y\": 1, \"width\": 5, \"height\": 5, \"class\": 0, "
                   "\"score\": 444444444E4444}]")
        << QStringList{"predictions.json: a number beyond the range of a double", "444444444E4444"};
    QTest::newRow("several problems")
        << QString("[{%1, \"class\": 0, \"score\": 0.5}, 3, {%1, \"class\": -1, \"score\": 0.5}]").arg(good)
        << QStringList{"predictions[1]: expected an object", "predictions[2]: class -1"};
}

void TestEvalDetection::cliRejectsBadInput()
{
    QFETCH(QString, json);
    QFETCH(QStringList, expected);
    QTemporaryDir dir;
    const QString dataset = writeYoloDataset(dir);
    const QString predictions = dir.filePath("predictions.json");
    if (!json.isEmpty())
        writeFile(predictions.toStdString(), json.toStdString());
    const CliResult r = runCli({"eval", "detection", "--dataset", dataset, "--split", "val", "--predictions",
                                predictions, "--json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    for (const QString& words : expected)
        QVERIFY2(r.err.contains(words), qPrintable("expected '" + words + "' in: " + r.err));
}

void TestEvalDetection::cliRejectsUnknownSplit()
{
    // --split nope used to be ignored for a synthetic dataset (every image scored, exit 0); on YOLO it named only
    // a missing folder. Bad input now, naming the splits there are.
    QTemporaryDir dir;
    const QString dataset = writeYoloDataset(dir);
    const QString predictions = dir.filePath("predictions.json");
    writeFile(predictions.toStdString(), "[]");
    const CliResult yolo =
        runCli({"eval", "detection", "--dataset", dataset, "--split", "nope", "--predictions", predictions});
    QCOMPARE(yolo.exitCode, 2);
    QVERIFY2(yolo.err.contains("no split 'nope'") && yolo.err.contains("its splits: val"), qPrintable(yolo.err));

    pitwall::synth::SynthOptions options;
    options.frames = 2;
    options.episodeFrames = 2;
    const QString synth = dir.filePath("synth");
    pitwall::synth::writeSynthDataset(synth.toStdString(), options);
    const CliResult r =
        runCli({"eval", "detection", "--dataset", synth, "--split", "nope", "--predictions", predictions});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no split 'nope'") && r.err.contains("no splits"), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
}

void TestEvalDetection::cliNamesAHugeLabelClass()
{
    // A label of class 100000000 sized the evaluator's class table by it (4 GB, std::bad_alloc): now the label
    // line is named (file:line) and left out, and the scoring runs over the classes that exist.
    QTemporaryDir dir;
    const QString dataset = writeYoloDataset(dir);
    writeFile(dir.filePath("yolo/labels/val/b.txt").toStdString(), "0 0.5 0.5 0.5 0.5\n100000000 0.5 0.5 0.1 0.1\n");
    const QString predictions = dir.filePath("predictions.json");
    writeFile(predictions.toStdString(), "[]");
    const CliResult r =
        runCli({"eval", "detection", "--dataset", dataset, "--split", "val", "--predictions", predictions, "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("b.txt:2") && r.err.contains("class id 100000000"), qPrintable(r.err));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["classes"].toArray().size(), 2);
}

QTEST_GUILESS_MAIN(TestEvalDetection)
#include "tst_eval_detection.moc"
