// The pre-processed cache: built once, reused while nothing changed, rebuilt when a source file (size or
// modification time), the file list or the output size changes; unreadable sources are named, not fatal.
#include "core/engine/data/cache.h"
#include "core/engine/data/sample.h"

#include "datatestutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <fstream>
#include <thread>

using namespace pitwall::engine::data;
namespace fs = std::filesystem;

class TestDataCache : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void buildThenReuse();
    void touchedSourceRebuilds();
    void changedSizeRebuilds();
    void changedListRebuilds();
    void damagedCacheRebuilds();
    void entryOutsideTheFileRebuilds_data();
    void entryOutsideTheFileRebuilds();
    void unreadableSourceIsNamed();
    void cachedPixelsMatchDirectRender();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::vector<std::string> m_sources;
    std::string m_cache;
};

void TestDataCache::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_sources = datatest::writeJpegFolder(fs::path(m_dir->path().toStdString()) / "img", 4, 320, 180);
    m_cache = m_dir->filePath("cache/pre.bin").toStdString();
}

void TestDataCache::buildThenReuse()
{
    std::vector<DataProblem> problems;
    {
        auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 2, problems);
        QVERIFY(cache->status().rebuilt);
        QCOMPARE(QString::fromStdString(cache->status().why), QString("no cache file"));
        QCOMPARE(cache->size(), std::int64_t(4));
        // Stored at the smallest cover of the output: 320x180 -> 160x90 (width decides).
        QCOMPARE(cache->image(0).width, 160);
        QCOMPARE(cache->image(0).height, 90);
        QCOMPARE(cache->sourceWidth(0), 320);
    }
    QVERIFY(PreprocessedCache::staleReason(m_cache, m_sources, 160, 64).empty());
    auto again = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 2, problems);
    QVERIFY(!again->status().rebuilt);
    QVERIFY(problems.empty());
}

void TestDataCache::touchedSourceRebuilds()
{
    std::vector<DataProblem> problems;
    PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 1, problems);
    // Same bytes, new modification time: the cache must not trust the old pixels.
    fs::last_write_time(m_sources[2], fs::last_write_time(m_sources[2]) + std::chrono::seconds(5));
    const std::string why = PreprocessedCache::staleReason(m_cache, m_sources, 160, 64);
    QVERIFY2(why.find(m_sources[2]) != std::string::npos, why.c_str());
    auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 1, problems);
    QVERIFY(cache->status().rebuilt);
    QVERIFY(PreprocessedCache::staleReason(m_cache, m_sources, 160, 64).empty());
    // New content with a different size.
    datatest::writeJpeg(m_sources[1], 320, 180, 77, 50);
    QVERIFY(PreprocessedCache::staleReason(m_cache, m_sources, 160, 64).find(m_sources[1]) != std::string::npos);
}

void TestDataCache::changedSizeRebuilds()
{
    std::vector<DataProblem> problems;
    PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 1, problems);
    QVERIFY(PreprocessedCache::staleReason(m_cache, m_sources, 200, 64).find("output size") != std::string::npos);
    auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 200, 64, 1, problems);
    QVERIFY(cache->status().rebuilt);
    QCOMPARE(cache->image(3).width, 200);
}

void TestDataCache::changedListRebuilds()
{
    std::vector<DataProblem> problems;
    PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 1, problems);
    std::vector<std::string> fewer(m_sources.begin(), m_sources.end() - 1);
    QVERIFY(!PreprocessedCache::staleReason(m_cache, fewer, 160, 64).empty());
    std::vector<std::string> swapped = m_sources;
    std::swap(swapped[0], swapped[1]);
    QVERIFY(PreprocessedCache::staleReason(m_cache, swapped, 160, 64).find("list") != std::string::npos);
}

void TestDataCache::damagedCacheRebuilds()
{
    std::vector<DataProblem> problems;
    PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 1, problems);
    fs::resize_file(m_cache, fs::file_size(m_cache) - 10);
    QVERIFY(PreprocessedCache::staleReason(m_cache, m_sources, 160, 64).find("damaged") != std::string::npos);
    auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 1, problems);
    QVERIFY(cache->status().rebuilt);
    QVERIFY(cache->available(0));
}

void TestDataCache::entryOutsideTheFileRebuilds_data()
{
    // Byte offsets in the file: a 64-byte header, then 48-byte entries (offset u64 at +0, cached width i32 at +24).
    QTest::addColumn<int>("field");
    QTest::addColumn<quint64>("value");
    QTest::addColumn<int>("size");
    QTest::newRow("offset past the end") << 0 << quint64(1) << 8; // 1 << 40 below
    QTest::newRow("offset into the header") << 0 << quint64(0) << 8;
    QTest::newRow("width reaching past the end") << 24 << quint64(15000) << 4;
    QTest::newRow("negative width") << 24 << quint64(0xFFFFFFF0u) << 4;
    // Found by fuzz_cache (corpus/cache/entry-size-smaller-than-cached): a size inside the data section, but not
    // the one this source is cached at for this output, was served as the image.
    QTest::newRow("width other than the cached size") << 24 << quint64(100) << 4;
}

void TestDataCache::entryOutsideTheFileRebuilds()
{
    // A cache whose index points outside its data must be rebuilt, never read: otherwise image() hands out
    // pixels beyond the mapping (a crash, or another file's bytes as an image).
    QFETCH(int, field);
    QFETCH(quint64, value);
    QFETCH(int, size);
    if (value == 1)
        value = quint64(1) << 40;
    std::vector<DataProblem> problems;
    std::vector<std::vector<std::uint8_t>> want;
    {
        auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 1, problems);
        for (std::int64_t i = 0; i < cache->size(); ++i) {
            const ImageView v = cache->image(i);
            want.emplace_back(v.pixels, v.pixels + static_cast<std::ptrdiff_t>(v.width) * v.height * 3);
        }
    }
    {
        std::fstream file(m_cache, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(64 + 48 * 1 + field);
        file.write(reinterpret_cast<const char*>(&value), size);
    }
    const std::string why = PreprocessedCache::staleReason(m_cache, m_sources, 160, 64);
    QVERIFY2(why.find("damaged") != std::string::npos && why.find("entry 1") != std::string::npos, why.c_str());
    auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 1, problems);
    QVERIFY(cache->status().rebuilt);
    QCOMPARE(cache->status().why, why);
    QVERIFY(problems.empty());
    QCOMPARE(cache->size(), std::int64_t(want.size()));
    for (std::int64_t i = 0; i < cache->size(); ++i) {
        const ImageView v = cache->image(i);
        QCOMPARE(v.width, 160);
        QVERIFY(std::equal(want[i].begin(), want[i].end(), v.pixels));
    }
}

void TestDataCache::unreadableSourceIsNamed()
{
    datatest::writeBytes(m_sources[1], std::vector<std::uint8_t>(100, 0x42));
    std::vector<DataProblem> problems;
    {
        auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 2, problems);
        QVERIFY(!cache->available(1));
        QVERIFY(cache->available(0) && cache->available(2));
        QVERIFY(cache->image(1).pixels == nullptr);
    }
    QCOMPARE(problems.size(), std::size_t(1));
    QCOMPARE(problems[0].file, m_sources[1]);
    // Reopened unchanged: the same problem is reported again, and nothing is rebuilt.
    problems.clear();
    auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 2, problems);
    QVERIFY(!cache->status().rebuilt);
    QCOMPARE(problems.size(), std::size_t(1));
    SampleOptions o;
    o.outputWidth = 160;
    o.outputHeight = 64;
    SampleRenderer renderer(o, cache.get());
    std::vector<float> slot(3 * 160 * 64);
    QVERIFY(!renderer.render({m_sources[1], {}, BoxUnits::Pixels}, {0, 0, 1, 0}, slot.data()).ok);
}

void TestDataCache::cachedPixelsMatchDirectRender()
{
    std::vector<DataProblem> problems;
    auto cache = PreprocessedCache::openOrBuild(m_cache, m_sources, 160, 64, 2, problems);
    SampleOptions o;
    o.outputWidth = 160;
    o.outputHeight = 64;
    o.normalization = Normalization{{0, 0, 0}, {1, 1, 1}};
    SampleRenderer direct(o), cached(o, cache.get());
    std::vector<float> a(3 * 160 * 64), b(a.size());
    for (std::int64_t i = 0; i < 4; ++i) {
        const SampleRecord record{m_sources[static_cast<std::size_t>(i)], {{1, 10, 10, 100, 80}}, BoxUnits::Pixels};
        const SampleKey key{9, 0, i, 0};
        const SampleResult r1 = direct.render(record, key, a.data());
        const SampleResult r2 = cached.render(record, key, b.data());
        QVERIFY(r1.ok && r2.ok);
        // Same augmentation and boxes; pixels resampled along another path, so close rather than equal.
        QCOMPARE(r1.boxes.size(), r2.boxes.size());
        if (!r1.boxes.empty())
            QCOMPARE(r1.boxes[0].x0, r2.boxes[0].x0);
        double sum = 0;
        for (std::size_t k = 0; k < a.size(); ++k)
            sum += std::abs(a[k] - b[k]);
        QVERIFY2(sum / static_cast<double>(a.size()) < 3.0, qPrintable(QString::number(sum / a.size())));
    }
}

QTEST_GUILESS_MAIN(TestDataCache)
#include "tst_data_cache.moc"
