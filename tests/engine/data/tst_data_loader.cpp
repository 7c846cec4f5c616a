// The batch loaders end to end: batch layout, bytes independent of the thread count, epochs, buffer reuse that
// never touches a batch still held, bad files counted, replication vs sharding, the reference (DataLoader-style)
// mode giving the same boxes, and the bench command's JSON.
#include "core/engine/data/loader.h"
#include "core/util/error.h"

#include "datatestutil.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <set>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;

using namespace pitwall::engine::data;
using namespace pitwall::image;
namespace fs = std::filesystem;

namespace {

LoaderOptions smallOptions(int threads)
{
    LoaderOptions o;
    o.batchSize = 4;
    o.sample.outputWidth = 96;
    o.sample.outputHeight = 40;
    o.threads = threads;
    o.prefetchBatches = 3;
    o.shard.seed = 11;
    return o;
}

} // namespace

class TestDataLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void batchLayout();
    void bytesIndependentOfThreads();
    void epochsEndTheStream();
    void scaledDecodeDeterministic();
    void heldBatchesAreNotOverwritten();
    void badFilesAreCountedNotFatal();
    void replicateVsShard();
    void preprocessedCache();
    void referenceModeMatches();
    void benchCommandJson();
    void benchFailsWhenNothingDecodes();
    void benchCountsFailedImages();

private:
    QTemporaryDir m_dir;
    std::shared_ptr<DatasetIndex> m_index;
};

void TestDataLoader::initTestCase()
{
    const fs::path root = fs::path(m_dir.path().toStdString()) / "set";
    for (int i = 0; i < 10; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "images/s/seg/%02d.jpg", i);
        datatest::writeJpeg(root / name, 200, 120, i);
        std::snprintf(name, sizeof name, "cipo/s/seg/%02d.jpg.json", i);
        datatest::writeText(root / name, R"({"results": [{"x": 50, "y": 40, "width": 60, "height": 30, "id": "1"}]})");
    }
    m_index = std::make_shared<DatasetIndex>(indexDataset(root.string()));
    QCOMPARE(m_index->kind, DatasetKind::OpenLaneCipo);
}

void TestDataLoader::batchLayout()
{
    auto loader = makeBatchLoader(m_index, smallOptions(2));
    QCOMPARE(loader->batchesPerEpoch(), std::int64_t(2)); // 10 samples, batch 4, last partial batch dropped
    LoadedBatch batch;
    QVERIFY(loader->next(batch));
    QCOMPARE(batch.images.sizes().vec(), (std::vector<std::int64_t>{4, 3, 40, 96}));
    QCOMPARE(batch.images.scalar_type(), torch::kFloat);
    QVERIFY(batch.images.is_contiguous());
    QCOMPARE(batch.indices.size(), std::size_t(4));
    QVERIFY(std::all_of(batch.valid.begin(), batch.valid.end(), [](std::uint8_t v) { return v == 1; }));
    QVERIFY(torch::isfinite(batch.images).all().item<bool>());
    // Normalised: roughly zero-mean, unit-scale values.
    QVERIFY(std::abs(batch.images.mean().item<double>()) < 1.5);
    const torch::Tensor boxes = packBoxes(batch, 8);
    QCOMPARE(boxes.sizes().vec(), (std::vector<std::int64_t>{4, 8, 5}));
    QCOMPARE(boxes[0][7][0].item<float>(), -1.0f);
}

void TestDataLoader::bytesIndependentOfThreads()
{
    auto one = makeBatchLoader(m_index, smallOptions(1));
    auto three = makeBatchLoader(m_index, smallOptions(3));
    for (int b = 0; b < 6; ++b) { // three epochs
        LoadedBatch x, y;
        QVERIFY(one->next(x));
        QVERIFY(three->next(y));
        QCOMPARE(x.indices, y.indices);
        QCOMPARE(x.epoch, y.epoch);
        QVERIFY2(torch::equal(x.images, y.images), qPrintable(QString("batch %1 differs").arg(b)));
        for (std::size_t k = 0; k < x.boxes.size(); ++k) {
            QCOMPARE(x.boxes[k].size(), y.boxes[k].size());
            for (std::size_t j = 0; j < x.boxes[k].size(); ++j)
                QCOMPARE(x.boxes[k][j].x0, y.boxes[k][j].x0);
        }
    }
}

void TestDataLoader::scaledDecodeDeterministic()
{
    // 200x120 sources to 96x40: the zoom range needs 83..120 source columns, i.e. the 4/8 and 5/8 decodes.
    // Same seed -> the same scales and bytes; another seed -> other batches; full-only decodes report 8/8.
    LoaderOptions o = smallOptions(2);
    o.sample.scaleChoice = ScaleChoice::AnyEighth;
    auto first = makeBatchLoader(m_index, o);
    auto again = makeBatchLoader(m_index, o);
    o.shard.seed = 12;
    auto other = makeBatchLoader(m_index, o);
    o.shard.seed = 11;
    o.sample.scaleChoice = ScaleChoice::FullOnly;
    auto full = makeBatchLoader(m_index, o);
    std::set<int> eighths;
    bool differs = false;
    for (int b = 0; b < 4; ++b) {
        LoadedBatch x, y, z, f;
        QVERIFY(first->next(x) && again->next(y) && other->next(z) && full->next(f));
        QCOMPARE(x.indices, y.indices);
        QCOMPARE(x.decodedEighths, y.decodedEighths);
        QVERIFY2(torch::equal(x.images, y.images), qPrintable(QString("batch %1 differs").arg(b)));
        differs = differs || !torch::equal(x.images, z.images);
        QCOMPARE(f.decodedEighths, std::vector<std::uint8_t>(4, 8));
        eighths.insert(x.decodedEighths.begin(), x.decodedEighths.end());
    }
    QVERIFY(differs);
    QCOMPARE(eighths, (std::set<int>{4, 5}));
}

void TestDataLoader::epochsEndTheStream()
{
    LoaderOptions o = smallOptions(2);
    o.epochs = 2;
    auto loader = makeBatchLoader(m_index, o);
    LoadedBatch batch;
    std::vector<std::int64_t> epochs;
    while (loader->next(batch))
        epochs.push_back(batch.epoch);
    QCOMPARE(epochs, (std::vector<std::int64_t>{0, 0, 1, 1}));
    QVERIFY(!loader->next(batch));
}

void TestDataLoader::heldBatchesAreNotOverwritten()
{
    auto loader = makeBatchLoader(m_index, smallOptions(2));
    LoadedBatch first;
    QVERIFY(loader->next(first));
    const torch::Tensor copy = first.images.clone();
    const torch::Tensor view = first.images[1]; // a view keeps the buffer too
    first.images = torch::Tensor();
    for (int i = 0; i < 12; ++i) { // far more than the buffer pool
        LoadedBatch other;
        QVERIFY(loader->next(other));
    }
    QVERIFY(torch::equal(view, copy[1]));
}

void TestDataLoader::badFilesAreCountedNotFatal()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpegFolder(root, 5, 64, 48);
    datatest::writeBytes(root / "002.jpg", std::vector<std::uint8_t>(64, 0x33)); // corrupt one
    auto index = std::make_shared<DatasetIndex>(indexImageFolder(root.string()));
    for (LoaderMode mode : {LoaderMode::Pitwall, LoaderMode::Reference}) {
        LoaderOptions o = smallOptions(2);
        o.mode = mode;
        o.batchSize = 5;
        o.prefetchBatches = 2;
        auto loader = makeBatchLoader(index, o);
        LoadedBatch batch;
        for (int i = 0; i < 3; ++i)
            QVERIFY(loader->next(batch));
        const auto bad = std::find(batch.indices.begin(), batch.indices.end(), 2) - batch.indices.begin();
        QCOMPARE(batch.valid[static_cast<std::size_t>(bad)], std::uint8_t(0));
        QCOMPARE(batch.images[bad].abs().sum().item<float>(), 0.0f);
        const auto problems = loader->problems();
        QCOMPARE(problems.size(), std::size_t(1)); // once per file, not once per epoch
        QVERIFY(problems[0].file.find("002.jpg") != std::string::npos);
    }
}

void TestDataLoader::replicateVsShard()
{
    LoaderOptions o = smallOptions(1);
    o.batchSize = 5;
    o.shard.worldSize = 4; // 10 samples over 4 devices: 3 each, fewer than a batch
    QVERIFY_THROWS_EXCEPTION(pitwall::InputError, makeBatchLoader(m_index, o));
    o.shard.replicate = true; // every device samples all 10
    std::set<std::int64_t> seen;
    for (int rank = 0; rank < 2; ++rank) {
        o.shard.rank = rank;
        auto loader = makeBatchLoader(m_index, o);
        QCOMPARE(loader->batchesPerEpoch(), std::int64_t(2));
        std::set<std::int64_t> mine;
        LoadedBatch batch;
        for (int b = 0; b < 2; ++b) {
            QVERIFY(loader->next(batch));
            mine.insert(batch.indices.begin(), batch.indices.end());
        }
        QCOMPARE(mine.size(), std::size_t(10));
    }
}

void TestDataLoader::preprocessedCache()
{
    LoaderOptions o = smallOptions(2);
    o.usePreprocessed = true;
    o.cachePath = m_dir.filePath("pre.bin").toStdString();
    auto loader = makeBatchLoader(m_index, o);
    QVERIFY(loader->cacheStatus().rebuilt);
    auto plain = makeBatchLoader(m_index, smallOptions(2));
    LoadedBatch a, b;
    QVERIFY(loader->next(a));
    QVERIFY(plain->next(b));
    QCOMPARE(a.indices, b.indices);
    QVERIFY((a.images - b.images).abs().mean().item<double>() < 0.1); // same augmentation, other resampling
    loader.reset();
    QVERIFY(!makeBatchLoader(m_index, o)->cacheStatus().rebuilt);
}

void TestDataLoader::referenceModeMatches()
{
    LoaderOptions o = smallOptions(2);
    auto pitwallLoader = makeBatchLoader(m_index, o);
    o.mode = LoaderMode::Reference;
    o.prefetchBatches = 2;
    auto reference = makeBatchLoader(m_index, o);
    QCOMPARE(reference->workers(), 2);
    for (int b = 0; b < 4; ++b) {
        LoadedBatch x, y;
        QVERIFY(pitwallLoader->next(x));
        QVERIFY(reference->next(y));
        QCOMPARE(x.indices, y.indices);
        QCOMPARE(y.images.sizes(), x.images.sizes());
        // Same augmentation draws: identical boxes; pixels differ only by the crop's rounding to whole pixels.
        for (std::size_t k = 0; k < x.boxes.size(); ++k)
            QCOMPARE(x.boxes[k].size(), y.boxes[k].size());
        const double diff = (x.images - y.images).abs().mean().item<double>();
        QVERIFY2(diff < 0.25, qPrintable(QString("batch %1: mean difference %2").arg(b).arg(diff)));
    }
    // The workers' CPU time is counted in clock ticks (10 ms): a few small batches may not reach one tick yet, so
    // keep fetching until it shows. Broken accounting stays at 0 and fails after the bound.
    for (int b = 0; b < 5000 && reference->helperCpuSeconds() <= 0; ++b) {
        LoadedBatch y;
        QVERIFY(reference->next(y));
    }
    QVERIFY(reference->helperCpuSeconds() > 0);
}

void TestDataLoader::benchCommandJson()
{
    QProcess run;
    run.start(cliPath(),
              {"bench", "loader", "--images", QString::fromStdString(m_index->root + "/images"), "--batch", "2",
               "--width", "64", "--height", "32", "--batches", "4", "--warmup", "1", "--threads", "2", "--json"});
    QVERIFY(run.waitForFinished(120000));
    QCOMPARE(run.exitCode(), 0);
    const auto json = nlohmann::json::parse(run.readAllStandardOutput().toStdString());
    QVERIFY(json["ms_per_batch"].get<double>() > 0);
    QVERIFY(json["cpu_percent"].get<double>() >= 0);
    QVERIFY(json["floor_ms_per_batch"].get<double>() > 0);
    QCOMPARE(json["images"].get<int>(), 10);

    QProcess bad;
    bad.start(cliPath(), {"bench", "loader", "--images", m_dir.filePath("nothing-here")});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
}

namespace {

// A zero-byte file, a PNG named .jpg and a truncated JPEG in `dir`.
void writeUndecodable(const fs::path& dir)
{
    datatest::writeBytes(dir / "empty.jpg", {});
    datatest::writeBytes(dir / "png.jpg",
                         {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'});
    const auto rgb = datatest::testImage(64, 48, 1);
    const auto jpeg = encodeJpeg(rgb.data(), 64, 48, 90);
    datatest::writeBytes(
        dir / "truncated.jpg",
        std::vector<std::uint8_t>(jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(jpeg.size() / 2)));
}

} // namespace

void TestDataLoader::benchFailsWhenNothingDecodes()
{
    // A folder where nothing decodes used to "measure" 0.05 ms/batch of empty slots and exit 0.
    QTemporaryDir dir;
    writeUndecodable(dir.path().toStdString());
    for (const QString& format : {QString("--json"), QString()}) {
        QStringList args{"bench",    "loader", "--images",  dir.path(), "--batch",  "2", "--width",   "64",
                         "--height", "32",     "--batches", "3",        "--warmup", "1", "--threads", "2"};
        if (!format.isEmpty())
            args << format;
        QProcess run;
        run.start(cliPath(), args);
        QVERIFY(run.waitForFinished(60000));
        const QString err = QString::fromUtf8(run.readAllStandardError());
        QCOMPARE(run.exitCode(), 2);
        QVERIFY2(err.contains("no sample decoded") && err.contains("3 of 3 images failed"), qPrintable(err));
        for (const char* name : {"empty.jpg", "png.jpg", "truncated.jpg"})
            QVERIFY2(err.contains(name), qPrintable(err));
        QVERIFY(!QString::fromUtf8(run.readAllStandardOutput()).contains("ms/batch"));
    }
}

void TestDataLoader::benchCountsFailedImages()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    datatest::writeJpegFolder(root, 3, 64, 48);
    writeUndecodable(root);
    QProcess run;
    run.start(cliPath(), {"bench", "loader", "--images", dir.path(), "--batch", "2", "--width", "64", "--height", "32",
                          "--batches", "3", "--warmup", "1", "--threads", "2"});
    QVERIFY(run.waitForFinished(60000));
    QCOMPARE(run.exitCode(), 0);
    const QString out = QString::fromUtf8(run.readAllStandardOutput());
    QVERIFY2(out.contains("3 of 6 images could not be read or decoded"), qPrintable(out));
    QVERIFY2(out.contains("of 8 sample slot(s) left empty"), qPrintable(out));
}

QTEST_GUILESS_MAIN(TestDataLoader)
#include "tst_data_loader.moc"
