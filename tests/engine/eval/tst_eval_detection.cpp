// Detection metrics (core/engine/eval/detection.h) on cases computed by hand, and `pitwall eval detection` end to
// end on a tiny YOLO dataset of real JPEG files. AP is COCO's 101-point interpolation: the mean over r = 0, 0.01,
// ..., 1 of the precision envelope at r (the best precision at any recall >= r; 0 beyond the last recall), so a
// perfect class scores exactly 1.
#include "core/engine/data/jpeg.h"
#include "core/engine/eval/detection.h"
#include "core/engine/synth/dataset.h"

#include "../../cli/clitestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace pitwall::engine::eval;
namespace fs = std::filesystem;

namespace {

constexpr double kTolerance = 1e-9;
constexpr double kPerfectAp = 1.0;

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
    const std::vector<std::uint8_t> bytes = pitwall::engine::data::encodeJpeg(rgb.data(), width, height, 90);
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
    void cliRejectsBadInput_data();
    void cliRejectsBadInput();
    void cliRejectsUnknownSplit();
    void cliNamesAHugeLabelClass();

private:
    // A YOLO dataset with split "val": a.jpg (64x48; class 0 [16,12,48,36], class 1 [8,6,24,18]) and
    // b.jpg (64x48; class 0 [16,12,48,36]).
    QString writeYoloDataset(const QTemporaryDir& dir) const;
};

void TestEvalDetection::iouOfBoxes()
{
    QCOMPARE(iou({0, 0, 100, 100}, {0, 0, 100, 70}), 0.7);
    QCOMPARE(iou({0, 0, 10, 10}, {5, 0, 15, 10}), 50.0 / 150.0);
    QCOMPARE(iou({0, 0, 10, 10}, {10, 0, 20, 10}), 0.0); // touching edges: no overlap
    QCOMPARE(iou({0, 0, 0, 0}, {0, 0, 0, 0}), 0.0);      // empty boxes: 0, not NaN
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
    const QString predictions = dir.filePath("predictions.json");
    writeFile(predictions.toStdString(), R"([
      {"image": "a.jpg", "class": 0, "x": 16, "y": 12, "width": 32, "height": 24, "score": 0.9},
      {"image": "images/val/a.jpg", "class": 1, "x": 8, "y": 6, "width": 16, "height": 12, "score": 0.8},
      {"image": "b", "class": 0, "x": 16, "y": 12, "width": 32, "height": 24, "score": 0.7},
      {"image": "b.jpg", "class": 0, "x": 0, "y": 0, "width": 10, "height": 10, "score": 0.95}
    ])");
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

    const CliResult text = runCli({"eval", "detection", "--dataset", dataset, "--split", "val", "--predictions",
                                   predictions, "--ap", "coco"});
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains("mAP50-95") && text.out.contains("all") && text.out.contains("0.833"),
             qPrintable(text.out));
    const CliResult help = runCli({"eval", "detection", "--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("NMS"));
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
