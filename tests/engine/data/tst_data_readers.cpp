// Dataset readers: every layout read, every bad file counted and named (never a crash), and a dataset with
// nothing usable refused as bad input.
#include "core/engine/data/dataset.h"
#include "core/engine/data/sample.h"
#include "core/synth/dataset.h"
#include "core/util/error.h"

#include "datatestutil.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace pitwall::engine::data;
namespace fs = std::filesystem;

namespace {

bool mentions(const std::vector<DataProblem>& problems, const std::string& fileSuffix, const std::string& words)
{
    for (const DataProblem& p : problems)
        if (p.file.size() >= fileSuffix.size() &&
            p.file.compare(p.file.size() - fileSuffix.size(), fileSuffix.size(), fileSuffix) == 0 &&
            p.reason.find(words) != std::string::npos)
            return true;
    return false;
}

QString inputErrorOf(const std::function<void()>& action)
{
    try {
        action();
    } catch (const pitwall::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

const SampleRecord* recordEndingWith(const DatasetIndex& index, const std::string& suffix)
{
    for (const SampleRecord& r : index.samples)
        if (r.imagePath.size() >= suffix.size() &&
            r.imagePath.compare(r.imagePath.size() - suffix.size(), suffix.size(), suffix) == 0)
            return &r;
    return nullptr;
}

} // namespace

class TestDataReaders : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void imageFolder();
    void emptyFolderIsInputError();
    void yolo();
    void yoloClassBeyondTheClassesIsNamed();
    void coordinatesBeyondFloatAreRefused();
    void unknownSplitNamesTheSplits();
    void cipoBothSpellings();
    void cipoBadFiles();
    void cipoNothingUsable();
    void corruptJpegIsReportedNotFatal();
    void boxesOutsideTheImageAreClipped();
    void synthDataset();
    void layoutDetection();
};

void TestDataReaders::imageFolder()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpeg(root / "b" / "2.JPG", 32, 24, 1);
    datatest::writeJpeg(root / "a.jpeg", 32, 24, 2);
    datatest::writeJpeg(root / "b" / "1.jpg", 32, 24, 3);
    datatest::writeText(root / "notes.txt", "not an image");
    const DatasetIndex index = indexImageFolder(root.string());
    QCOMPARE(index.samples.size(), std::size_t(3));
    QVERIFY(index.samples[0].imagePath < index.samples[1].imagePath); // sorted, stable order
    QVERIFY(index.samples[1].imagePath < index.samples[2].imagePath);
    QVERIFY(index.samples[0].boxes.empty());
}

void TestDataReaders::emptyFolderIsInputError()
{
    QTemporaryDir dir;
    datatest::writeText(fs::path(dir.path().toStdString()) / "x.txt", "");
    QVERIFY(inputErrorOf([&] { indexImageFolder(dir.path().toStdString()); }).contains("no usable sample"));
    QVERIFY(inputErrorOf([&] { indexImageFolder(dir.filePath("missing").toStdString()); }).contains("no such folder"));
}

void TestDataReaders::yolo()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    for (const char* name : {"a", "b", "c"})
        datatest::writeJpeg(root / "images" / "train" / (std::string(name) + ".jpg"), 40, 20, 1);
    datatest::writeText(root / "labels" / "train" / "a.txt", "0 0.5 0.5 0.2 0.4\n\n2 0.25 0.5 0.5 1.0\n");
    datatest::writeText(root / "labels" / "train" / "b.txt",
                        "1 0.5 0.5 0.1\n"          // 4 numbers
                        "1 0.5 abc 0.1 0.1\n"      // not a number
                        "-1 0.5 0.5 0.1 0.1\n"     // negative class
                        "1.5 0.5 0.5 0.1 0.1\n"    // class not whole
                        "1 0.5 0.5 0 0.1\n"        // no area
                        "3 0.5 0.5 0.2 0.2 \r\n"); // good (trailing blanks)
    // c has no label file: an image with no boxes, not a problem.
    const DatasetIndex index = indexYolo(root.string(), "train");
    QCOMPARE(index.samples.size(), std::size_t(3));
    QCOMPARE(index.problems.size(), std::size_t(5));
    QVERIFY(mentions(index.problems, "b.txt:1", "5 numbers"));
    QVERIFY(mentions(index.problems, "b.txt:2", "not 'cls xc yc w h'"));
    QVERIFY(mentions(index.problems, "b.txt:5", "no area"));
    const SampleRecord* a = recordEndingWith(index, "a.jpg");
    QVERIFY(a && a->units == BoxUnits::Normalized && a->boxes.size() == 2);
    QCOMPARE(a->boxes[1].classId, 2);
    QCOMPARE(a->boxes[1].x0, 0.0f);
    const auto pixels = boxesInPixels(*a, 40, 20); // normalised -> pixels once the size is known
    QCOMPARE(pixels[0].x0, 16.0f);
    QCOMPARE(pixels[0].y1, 14.0f);
    QCOMPARE(recordEndingWith(index, "b.jpg")->boxes.size(), std::size_t(1));
    QVERIFY(recordEndingWith(index, "c.jpg")->boxes.empty());
}

void TestDataReaders::cipoBothSpellings()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const fs::path seg = fs::path("training") / "segment-1";
    datatest::writeJpeg(root / "images" / seg / "100.jpg", 64, 48, 1);
    datatest::writeJpeg(root / "images" / seg / "200.jpg", 64, 48, 2);
    datatest::writeJpeg(root / "images" / seg / "300.jpg", 64, 48, 3);
    datatest::writeText(root / "cipo" / seg / "100.jpg.json",
                        R"({"results": [{"x": 10, "y": 5, "width": 20, "height": 10, "id": "1", "trackid": "a", "type": 1},
                                        {"x": 30, "y": 5, "width": 4, "height": 4, "id": "4", "trackid": "b", "type": 2}],
                            "raw_file_path": "training/segment-1/images/100.jpg"})");
    datatest::writeText(root / "cipo" / seg / "200.jpg.json",
                        R"({"result": [{"x": 1.5, "y": 2, "width": "8", "height": 6, "attribute": 2, "type": 1}]})");
    datatest::writeText(root / "cipo" / seg / "300.jpg.json", R"({"results": []})"); // an empty frame
    const DatasetIndex index = indexOpenLaneCipo(root.string(), "training");
    QCOMPARE(index.samples.size(), std::size_t(3));
    QVERIFY(index.problems.empty());
    const SampleRecord* first = recordEndingWith(index, "100.jpg");
    QVERIFY(first && first->boxes.size() == 2);
    QCOMPARE(first->boxes[0].classId, 1);
    QCOMPARE(first->boxes[0].x1, 30.0f);
    QCOMPARE(first->boxes[1].classId, 3); // level 4 -> 3, as AutoSpeed
    const SampleRecord* second = recordEndingWith(index, "200.jpg");
    QVERIFY(second && second->boxes.size() == 1); // "result" spelling, id from "attribute", width as a string
    QCOMPARE(second->boxes[0].classId, 2);
    QCOMPARE(second->boxes[0].x1, 9.5f);
    QVERIFY(recordEndingWith(index, "300.jpg")->boxes.empty());
    QCOMPARE(index.classNames.size(), std::size_t(4));
}

void TestDataReaders::cipoBadFiles()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const fs::path seg = fs::path("validation") / "segment-9";
    for (const char* ts : {"1", "2", "3", "5"})
        datatest::writeJpeg(root / "images" / seg / (std::string(ts) + ".jpg"), 32, 32, 1);
    datatest::writeText(root / "cipo" / seg / "1.jpg.json", "{not json");
    datatest::writeText(root / "cipo" / seg / "2.jpg.json", R"({"objects": []})");
    datatest::writeText(root / "cipo" / seg / "3.jpg.json",
                        R"({"results": [{"y": 1, "width": 2, "height": 2, "id": "1"},
                                        {"x": 1, "y": 1, "width": 2, "height": 2, "id": "7"},
                                        {"x": 1, "y": 1, "width": 2, "height": 2, "id": "2"}]})");
    datatest::writeText(root / "cipo" / seg / "4.jpg.json", R"({"results": []})"); // its image is missing
    datatest::writeText(root / "cipo" / seg / "5.jpg.json", R"({"results": null})");
    const DatasetIndex index = indexOpenLaneCipo(root.string());
    QCOMPARE(index.samples.size(), std::size_t(2)); // 3 (one good object of three) and 5
    QVERIFY(mentions(index.problems, "1.jpg.json", "not valid JSON"));
    QVERIFY(mentions(index.problems, "2.jpg.json", "no \"results\""));
    QVERIFY(mentions(index.problems, "3.jpg.json", "object 1: x, y, width and height"));
    QVERIFY(mentions(index.problems, "3.jpg.json", "object 2: id"));
    QVERIFY(mentions(index.problems, "4.jpg.json", "is missing"));
    QCOMPARE(recordEndingWith(index, "3.jpg")->boxes.size(), std::size_t(1));
}

void TestDataReaders::cipoNothingUsable()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeText(root / "cipo" / "training" / "segment-1" / "1.jpg.json", "[]");
    const QString error = inputErrorOf([&] { indexOpenLaneCipo(root.string()); });
    QVERIFY2(error.contains("no usable sample") && error.contains("1.jpg.json"), qPrintable(error));
}

void TestDataReaders::corruptJpegIsReportedNotFatal()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpeg(root / "good.jpg", 64, 32, 1);
    datatest::writeBytes(root / "bad.jpg", std::vector<std::uint8_t>(300, 0x11));
    auto truncated = pitwall::image::encodeJpeg(datatest::testImage(64, 32, 2).data(), 64, 32, 90);
    truncated.resize(truncated.size() / 3);
    datatest::writeBytes(root / "short.jpg", truncated);
    const DatasetIndex index = indexImageFolder(root.string()); // indexing does not read images
    QCOMPARE(index.samples.size(), std::size_t(3));
    SampleOptions o;
    o.outputWidth = 32;
    o.outputHeight = 16;
    SampleRenderer renderer(o);
    std::vector<float> slot(3 * 32 * 16, 7.0f);
    for (const char* name : {"bad.jpg", "short.jpg"}) {
        const SampleResult r = renderer.render(*recordEndingWith(index, name), {0, 0, 0, 0}, slot.data());
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("JPEG") != std::string::npos, r.error.c_str());
        QVERIFY(std::all_of(slot.begin(), slot.end(), [](float v) { return v == 0.0f; })); // the mean colour
    }
    const SampleResult missing = renderer.render({(root / "gone.jpg").string(), {}, BoxUnits::Pixels}, {}, slot.data());
    QVERIFY(!missing.ok && missing.error.find("cannot open") != std::string::npos);
    const SampleResult good = renderer.render(*recordEndingWith(index, "good.jpg"), {0, 0, 0, 0}, slot.data());
    QVERIFY2(good.ok, good.error.c_str());
}

void TestDataReaders::boxesOutsideTheImageAreClipped()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpeg(root / "images" / "s" / "seg" / "1.jpg", 200, 100, 1);
    datatest::writeText(root / "cipo" / "s" / "seg" / "1.jpg.json",
                        R"({"results": [{"x": -20, "y": 10, "width": 60, "height": 30, "id": "1"},
                                        {"x": 150, "y": 80, "width": 100, "height": 50, "id": "2"},
                                        {"x": 300, "y": 10, "width": 10, "height": 10, "id": "3"}]})");
    const DatasetIndex index = indexOpenLaneCipo(root.string(), "s");
    SampleOptions o;
    o.outputWidth = 200;
    o.outputHeight = 100;
    o.augment.enabled = false; // whole image, 1:1
    SampleRenderer renderer(o);
    std::vector<float> slot(3 * 200 * 100);
    const SampleResult r = renderer.render(index.samples[0], {0, 0, 0, 0}, slot.data());
    QVERIFY(r.ok);
    QCOMPARE(r.boxes.size(), std::size_t(2)); // the third lies wholly outside
    QCOMPARE(r.boxes[0].x0, 0.0f);
    QCOMPARE(r.boxes[0].x1, 40.0f);
    QCOMPARE(r.boxes[1].x1, 200.0f);
    QCOMPARE(r.boxes[1].y1, 100.0f);
}

void TestDataReaders::yoloClassBeyondTheClassesIsNamed()
{
    // A class id of 100000000 must be a file:line problem: kept, every per-class table downstream (the evaluator's,
    // a model's) would be sized by it (`eval detection` allocated 4 GB and died of std::bad_alloc).
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpeg(root / "images" / "a.jpg", 40, 20, 1);
    datatest::writeText(root / "labels" / "a.txt", "0 0.5 0.5 0.2 0.4\n100000000 0.5 0.5 0.2 0.2\n" +
                                                       std::to_string(kMaxYoloClasses) + " 0.5 0.5 0.2 0.2\n" +
                                                       std::to_string(kMaxYoloClasses - 1) + " 0.5 0.5 0.2 0.2\n");
    const DatasetIndex index = indexYolo(root.string());
    QCOMPARE(index.problems.size(), std::size_t(2));
    QVERIFY(mentions(index.problems, "a.txt:2", "class id 100000000 is beyond"));
    QVERIFY(mentions(index.problems, "a.txt:3", "class id " + std::to_string(kMaxYoloClasses)));
    const SampleRecord* a = recordEndingWith(index, "a.jpg");
    QVERIFY(a && a->boxes.size() == 2);
    QCOMPARE(a->boxes[1].classId, kMaxYoloClasses - 1);
}

void TestDataReaders::coordinatesBeyondFloatAreRefused()
{
    // Found by fuzz_labels (corpus/labels/yolo-huge-values, cipo-bad-objects): 1e300 is a finite double but inf as
    // the float a box keeps (and NaN in the IoU computed from it); 1e-300 is a positive width whose corners are the
    // same float. Both were kept as boxes; now each is a problem at its line or object and the frame stays.
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpeg(root / "yolo" / "images" / "a.jpg", 40, 20, 1);
    datatest::writeText(root / "yolo" / "labels" / "a.txt", "0 1e300 0.5 1e300 0.1\n0 0.5 0.5 1e-300 1e-300\n"
                                                              "1 0.5 0.5 0.2 0.4\n0 100.5 0.5 0.2 0.2\n");
    const DatasetIndex yolo = indexYolo((root / "yolo").string());
    QCOMPARE(yolo.problems.size(), std::size_t(3));
    QVERIFY(mentions(yolo.problems, "a.txt:1", "beyond +-100 image sizes"));
    QVERIFY(mentions(yolo.problems, "a.txt:2", "box with no area"));
    QVERIFY(mentions(yolo.problems, "a.txt:4", "beyond +-100 image sizes"));
    QCOMPARE(yolo.samples.size(), std::size_t(1));
    QCOMPARE(yolo.samples[0].boxes.size(), std::size_t(1));
    QCOMPARE(yolo.samples[0].boxes[0].classId, 1);

    const fs::path seg = fs::path("training") / "segment-1";
    datatest::writeJpeg(root / "cipo" / "images" / seg / "1.jpg", 32, 32, 1);
    datatest::writeText(root / "cipo" / "cipo" / seg / "1.jpg.json",
                        R"({"results": [{"x": 1, "y": 1, "width": 1e300, "height": 2, "id": "1"},
                                        {"x": 3e38, "y": 1, "width": 3e38, "height": 2, "id": "2"},
                                        {"x": 1e9, "y": 1, "width": 1e-300, "height": 2, "id": "3"},
                                        {"x": 1, "y": 1, "width": 2, "height": 2, "id": "4"}]})");
    const DatasetIndex cipo = indexOpenLaneCipo((root / "cipo").string());
    QVERIFY(mentions(cipo.problems, "1.jpg.json", "object 1: x, y, width and height must be numbers"));
    QVERIFY(mentions(cipo.problems, "1.jpg.json", "object 2: x, y, width and height must be numbers"));
    QVERIFY(mentions(cipo.problems, "1.jpg.json", "object 3: box with no area"));
    QCOMPARE(cipo.samples.size(), std::size_t(1));
    QCOMPARE(cipo.samples[0].boxes.size(), std::size_t(1));
    QCOMPARE(cipo.samples[0].boxes[0].classId, 3);
    QCOMPARE(cipo.samples[0].boxes[0].x1, 3.0f);
}

void TestDataReaders::unknownSplitNamesTheSplits()
{
    // A split the dataset does not have is bad input naming the splits it has, for every layout (a synthetic
    // dataset used to ignore it and read everything).
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpeg(root / "yolo" / "images" / "train" / "a.jpg", 16, 16, 1);
    datatest::writeJpeg(root / "yolo" / "images" / "val" / "b.jpg", 16, 16, 2);
    fs::create_directories(root / "yolo" / "labels");
    QCOMPARE(datasetSplits((root / "yolo").string()), (std::vector<std::string>{"train", "val"}));
    QCOMPARE(indexDataset((root / "yolo").string(), "val").samples.size(), std::size_t(1));
    const QString yolo = inputErrorOf([&] { indexDataset((root / "yolo").string(), "nope"); });
    QVERIFY2(yolo.contains("no split 'nope'") && yolo.contains("its splits: train, val"), qPrintable(yolo));

    pitwall::synth::SynthOptions options;
    options.frames = 2;
    options.episodeFrames = 2;
    options.seed = 3;
    pitwall::synth::writeSynthDataset((root / "synth").string(), options);
    const QString synth = inputErrorOf([&] { indexDataset((root / "synth").string(), "nope"); });
    QVERIFY2(synth.contains("no split 'nope'") && synth.contains("it has no splits"), qPrintable(synth));
    QCOMPARE(indexDataset((root / "synth").string()).samples.size(), std::size_t(2));
}

void TestDataReaders::synthDataset()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("synth").toStdString();
    datatest::writeSynth(path, 4, 3);
    // Damage one label file: that frame is left out and named.
    datatest::writeText(fs::path(path) / "meta" / "000002.json", "{");
    const DatasetIndex index = indexSynth(path);
    QCOMPARE(index.samples.size(), std::size_t(3));
    QVERIFY(mentions(index.problems, "000002.json", "not valid JSON"));
    std::size_t boxes = 0;
    for (const SampleRecord& s : index.samples)
        for (const BoxLabel& b : s.boxes) {
            ++boxes;
            QVERIFY(b.classId >= 1 && b.classId <= 3);
            QVERIFY(b.x1 > b.x0 && b.y1 > b.y0);
        }
    QVERIFY(boxes > 0);
}

void TestDataReaders::layoutDetection()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpeg(root / "yolo" / "images" / "x.jpg", 16, 16, 1);
    std::filesystem::create_directories(root / "yolo" / "labels");
    QCOMPARE(indexDataset((root / "yolo").string()).kind, DatasetKind::Yolo);
    datatest::writeJpeg(root / "plain" / "x.jpg", 16, 16, 1);
    QCOMPARE(indexDataset((root / "plain").string()).kind, DatasetKind::ImageFolder);
}

QTEST_GUILESS_MAIN(TestDataReaders)
#include "tst_data_readers.moc"
