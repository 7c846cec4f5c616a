// The synthetic dataset on disk: write -> read round trip, determinism across threads, and damaged files
// reported by name instead of crashing the trainer.
#include "core/synth/dataset.h"
#include "core/util/error.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;

using namespace pitwall::synth;
namespace fs = std::filesystem;

namespace {

SynthOptions tinyOptions()
{
    SynthOptions o;
    o.frames = 6;
    o.episodeFrames = 3;
    o.seed = 5;
    return o;
}

std::vector<char> fileBytes(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The InputError's text, or "" when none was thrown.
QString inputErrorOf(const std::function<void()>& action)
{
    try {
        action();
    } catch (const pitwall::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestSynthDataset : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void roundTrip();
    void datasetJsonDescribesLayout();
    void bytesDoNotDependOnThreads();
    void damagedFilesAreNamed_data();
    void damagedFilesAreNamed();
    void missingOrBadDatasetJson();
    void cliWritesDataset();

private:
    QTemporaryDir m_dir;
    std::string m_path;
};

void TestSynthDataset::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_path = (fs::path(m_dir.path().toStdString()) / "set").string();
    const GenerationStats stats = writeSynthDataset(m_path, tinyOptions());
    QVERIFY(stats.complete);
    QCOMPARE(stats.frames, 6);
    QCOMPARE(stats.episodes, 2);
}

void TestSynthDataset::roundTrip()
{
    const SynthDataset dataset = SynthDataset::open(m_path);
    QCOMPARE(dataset.frameCount(), 6);
    const SynthOptions o = tinyOptions();
    for (int episode = 0; episode < 2; ++episode) {
        EpisodeGenerator generator(o, episode);
        for (int k = 0; k < 3; ++k) {
            const Frame rendered = generator.next();
            const Frame read = dataset.readFrame(episode * 3 + k);
            // JPEG is lossy: close, not equal.
            QCOMPARE(read.rgb.pixels.size(), rendered.rgb.pixels.size());
            double error = 0;
            for (std::size_t i = 0; i < read.rgb.pixels.size(); ++i)
                error += std::abs(int(read.rgb.pixels[i]) - int(rendered.rgb.pixels[i]));
            error /= static_cast<double>(read.rgb.pixels.size());
            QVERIFY2(error < 3.0, qPrintable(QString("mean JPEG error %1").arg(error)));
            // PNGs are exact (depth up to its documented 1/256 m step).
            QVERIFY(read.semantic.pixels == rendered.semantic.pixels);
            QVERIFY(read.bevSemantic.pixels == rendered.bevSemantic.pixels);
            QVERIFY(read.lidarCounts.pixels == rendered.lidarCounts.pixels);
            QVERIFY(read.lidar.pixels == rendered.lidar.pixels);
            for (std::size_t i = 0; i < read.depth.pixels.size(); ++i) {
                const double quantised = std::round(rendered.depth.pixels[i] * kDepthPngScale) / kDepthPngScale;
                QCOMPARE(read.depth.pixels[i], static_cast<float>(quantised));
            }
            // Labels survive JSON exactly.
            QCOMPARE(frameMetaJson(read.labels, o.sensors.camera, 0, 0, 0).dump(),
                     frameMetaJson(rendered.labels, o.sensors.camera, 0, 0, 0).dump());
        }
    }
}

void TestSynthDataset::datasetJsonDescribesLayout()
{
    const SynthDataset dataset = SynthDataset::open(m_path);
    const DatasetInfo& info = dataset.info();
    QCOMPARE(info.frames, 6);
    QCOMPARE(info.episodeFrames, 3);
    QCOMPARE(info.seed, std::uint64_t(5));
    QCOMPARE(info.generatorVersion, kGeneratorVersion);
    QCOMPARE(info.sensors.camera.width, 256);
    QCOMPARE(info.sensors.bev.width, 96);
    std::ifstream in(fs::path(m_path) / "dataset.json");
    const nlohmann::json json = nlohmann::json::parse(in);
    QCOMPARE(json["classes"]["semantic"].size(), std::size_t(kSemanticClassCount));
    QCOMPARE(json["classes"]["bev_semantic"].size(), std::size_t(kBevClassCount));
    QCOMPARE(json["classes"]["boxes"].size(), std::size_t(kBoxClassCount));
    QCOMPARE(json["classes"]["bev_semantic"][12].get<std::string>(), std::string("TRAFFIC_RED_NOT_NORMAL"));
    QCOMPARE(json["depth"]["png_scale_per_m"].get<double>(), kDepthPngScale);
    QVERIFY(isCompleteDataset(m_path));
}

void TestSynthDataset::bytesDoNotDependOnThreads()
{
    SynthOptions o = tinyOptions();
    o.threads = 2;
    const std::string other = (fs::path(m_dir.path().toStdString()) / "threads").string();
    QVERIFY(writeSynthDataset(other, o).complete);
    int files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(m_path)) {
        if (!entry.is_regular_file())
            continue;
        const fs::path relative = fs::relative(entry.path(), m_path);
        if (relative == "dataset.json")
            continue; // compared below
        QVERIFY2(fileBytes(entry.path()) == fileBytes(fs::path(other) / relative),
                 qPrintable(QString::fromStdString(relative.string()) + " differs"));
        ++files;
    }
    QCOMPARE(files, 6 * 6);
    QVERIFY(fileBytes(fs::path(m_path) / "dataset.json") == fileBytes(fs::path(other) / "dataset.json"));
}

void TestSynthDataset::damagedFilesAreNamed_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("damage"); // truncate | garbage | delete
    QTest::newRow("truncated JPEG") << "rgb/000001.jpg"
                                    << "truncate";
    QTest::newRow("garbage JPEG") << "rgb/000002.jpg"
                                  << "garbage";
    QTest::newRow("missing semantic") << "semantic/000003.png"
                                      << "delete";
    QTest::newRow("truncated depth") << "depth/000004.png"
                                     << "truncate";
    QTest::newRow("garbage lidar") << "lidar/000005.png"
                                   << "garbage";
    QTest::newRow("bad meta JSON") << "meta/000000.json"
                                   << "truncate";
}

void TestSynthDataset::damagedFilesAreNamed()
{
    QFETCH(QString, file);
    QFETCH(QString, damage);
    // Damage a private copy so the other tests keep a good dataset.
    static int copies = 0;
    const fs::path copy = fs::path(m_dir.path().toStdString()) / ("damaged_" + std::to_string(++copies));
    fs::remove_all(copy);
    fs::copy(m_path, copy, fs::copy_options::recursive);
    const fs::path target = copy / file.toStdString();
    if (damage == "delete") {
        fs::remove(target);
    } else if (damage == "truncate") {
        fs::resize_file(target, fs::file_size(target) / 2);
    } else {
        std::ofstream(target, std::ios::binary | std::ios::trunc) << "this is not an image";
    }
    const int index = std::stoi(fs::path(file.toStdString()).stem().string());
    const SynthDataset dataset = SynthDataset::open(copy.string());
    const QString message = inputErrorOf([&] { dataset.readFrame(index); });
    QVERIFY2(!message.isEmpty(), "no InputError for a damaged file");
    QVERIFY2(message.contains(file), qPrintable("the error does not name the file: " + message));
    // Other frames still read.
    dataset.readFrame(index == 0 ? 1 : 0);
}

void TestSynthDataset::missingOrBadDatasetJson()
{
    const fs::path copy = fs::path(m_dir.path().toStdString()) / "badjson";
    fs::remove_all(copy);
    fs::copy(m_path, copy, fs::copy_options::recursive);
    std::ofstream(copy / "dataset.json", std::ios::trunc) << "{\"format\": \"pitwall-synth\", \"frames\": ";
    QString message = inputErrorOf([&] { SynthDataset::open(copy.string()); });
    QVERIFY2(message.contains("dataset.json"), qPrintable(message));
    std::ofstream(copy / "dataset.json", std::ios::trunc)
        << "{\"format\": \"pitwall-synth\", \"generator_version\": 1}";
    message = inputErrorOf([&] { SynthDataset::open(copy.string()); });
    QVERIFY2(message.contains("dataset.json") && message.contains("frames"), qPrintable(message));
    fs::remove(copy / "dataset.json");
    message = inputErrorOf([&] { SynthDataset::open(copy.string()); });
    QVERIFY2(message.contains("dataset.json"), qPrintable(message));
    QVERIFY(!isCompleteDataset(copy.string()));
    message = inputErrorOf([&] { SynthDataset::open((copy / "nowhere").string()); });
    QVERIFY2(message.contains("nowhere"), qPrintable(message));
}

void TestSynthDataset::cliWritesDataset()
{
    QProcess help;
    help.start(cliPath(), {"data", "synth", "--help"});
    // Every pitwall has `data synth`: the synthetic world is plain C++ (core/synth), outside the engine's module.
    QVERIFY2(help.waitForFinished(30000) && help.exitStatus() == QProcess::NormalExit && help.exitCode() == 0,
             "this pitwall build has no 'data synth' command");
    const QString out = m_dir.path() + "/cli";
    QProcess run;
    run.start(cliPath(), {"data", "synth", "--frames", "4", "--episode-frames", "2", "--seed", "9", "--out", out});
    QVERIFY(run.waitForFinished(60000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    const SynthDataset dataset = SynthDataset::open(out.toStdString());
    QCOMPARE(dataset.frameCount(), 4);
    QCOMPARE(dataset.info().seed, std::uint64_t(9));
    // Bad input: exit status 2 and a message naming the key; a non-empty folder is refused without --force.
    QProcess bad;
    bad.start(cliPath(), {"data", "synth", "--frames", "0", "--out", m_dir.path() + "/cli2"});
    QVERIFY(bad.waitForFinished(30000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("data.synthetic.frames"));
    QProcess again;
    again.start(cliPath(), {"data", "synth", "--frames", "2", "--out", out});
    QVERIFY(again.waitForFinished(30000));
    QCOMPARE(again.exitCode(), 2);
}

QTEST_GUILESS_MAIN(TestSynthDataset)
#include "tst_synth_dataset.moc"
