// JPEG decode at DCT scale and the fused kernel: the scale chosen is the smallest that still covers the output,
// damaged files fail with a reason instead of crashing, and decode + window resize stays close to a reference
// resize of the original pixels.
#include "core/engine/data/kernels.h"
#include "core/engine/data/sample.h"
#include "core/image/jpeg.h"
#include "core/synth/internal/imageio.h"

#include "datatestutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <set>

using namespace pitwall::engine::data;
using namespace pitwall::image;
Q_DECLARE_METATYPE(ScaleChoice)

namespace {

// Mean absolute difference (0..255 units) allowed between a frame decoded at a reduced DCT scale and at full
// scale, through the same window: the DCT scale low-passes, full-scale bilinear aliases edges a little.
constexpr double kScaledMeanBound = 1.5; // measured 0.49 at 6/8

// Reference: each output pixel is the mean of the source pixels its footprint covers (area resize, in double).
std::vector<double> areaResize(const std::vector<std::uint8_t>& rgb, int width, int height, int outW, int outH)
{
    std::vector<double> out(static_cast<std::size_t>(outW) * outH * 3);
    for (int v = 0; v < outH; ++v)
        for (int u = 0; u < outW; ++u) {
            const int x0 = u * width / outW, x1 = std::max(x0 + 1, (u + 1) * width / outW);
            const int y0 = v * height / outH, y1 = std::max(y0 + 1, (v + 1) * height / outH);
            for (int c = 0; c < 3; ++c) {
                double sum = 0;
                for (int y = y0; y < y1; ++y)
                    for (int x = x0; x < x1; ++x)
                        sum += rgb[(static_cast<std::size_t>(y) * width + x) * 3 + c];
                out[(static_cast<std::size_t>(c) * outH + v) * outW + u] = sum / ((x1 - x0) * (y1 - y0));
            }
        }
    return out;
}

} // namespace

class TestDataJpeg : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dctScaleChoice_data();
    void dctScaleChoice();
    void decodesAtScale();
    void damagedBytesFail();
    void oversizedHeaderFailsBeforeAllocating_data();
    void oversizedHeaderFailsBeforeAllocating();
    void synthDecoderUsableAfterCorruptFile();
    void kernelIsExactBilinear();
    void decodedAndResizedCloseToReference();
    void scaledPathCloseToFullScale();
    void regionDecodeMatchesWholeDecode_data();
    void regionDecodeMatchesWholeDecode();
    void regionDecodeOfDamagedFileFails();
    void footprintHoldsEveryPixelRead();
    void regionPathRendersTheSameBytes();
    void fileWithoutHuffmanTablesAfterAProgressiveOne();
};

void TestDataJpeg::dctScaleChoice_data()
{
    QTest::addColumn<double>("needW");
    QTest::addColumn<double>("needH");
    QTest::addColumn<ScaleChoice>("choice");
    QTest::addColumn<int>("num");
    QTest::addColumn<int>("denom");
    // A 1600x900 source.
    QTest::newRow("bench output, any eighth") << 1024.0 << 372.0 << ScaleChoice::AnyEighth << 3 << 4;
    QTest::newRow("bench output, fast eighths") << 1024.0 << 372.0 << ScaleChoice::FastEighths << 1 << 1;
    QTest::newRow("exactly half") << 800.0 << 450.0 << ScaleChoice::AnyEighth << 1 << 2;
    QTest::newRow("just over half") << 801.0 << 450.0 << ScaleChoice::AnyEighth << 5 << 8;
    QTest::newRow("just over half, fast") << 801.0 << 450.0 << ScaleChoice::FastEighths << 1 << 1;
    QTest::newRow("height decides") << 100.0 << 450.0 << ScaleChoice::FastEighths << 1 << 2;
    QTest::newRow("thumbnail") << 200.0 << 100.0 << ScaleChoice::AnyEighth << 1 << 8;
    QTest::newRow("StreamPETR 704x256") << 704.0 << 256.0 << ScaleChoice::AnyEighth << 1 << 2;
    QTest::newRow("larger than the source") << 2000.0 << 1000.0 << ScaleChoice::AnyEighth << 1 << 1;
    QTest::newRow("full only") << 200.0 << 100.0 << ScaleChoice::FullOnly << 1 << 1;
    // 6/8 of 1600x900 is 1200x675: a window needing 1200 columns still fits, one more needs 7/8.
    QTest::newRow("6/8 exactly") << 1200.0 << 675.0 << ScaleChoice::AnyEighth << 3 << 4;
    QTest::newRow("one column past 6/8") << 1200.5 << 600.0 << ScaleChoice::AnyEighth << 7 << 8;
    QTest::newRow("one row past 6/8") << 1000.0 << 676.0 << ScaleChoice::AnyEighth << 7 << 8;
    QTest::newRow("6/8, up-scales allowed") << 1100.0 << 600.0 << ScaleChoice::AnyEighthUp << 3 << 4;
    QTest::newRow("6/8 in fast eighths is 1/1") << 1100.0 << 600.0 << ScaleChoice::FastEighths << 1 << 1;
    // Above the source: 10/8 gives 2000x1125, 9/8 only 1800 columns.
    QTest::newRow("up-scale 10/8") << 2000.0 << 1000.0 << ScaleChoice::AnyEighthUp << 5 << 4;
    QTest::newRow("up-scale 9/8") << 1800.0 << 1000.0 << ScaleChoice::AnyEighthUp << 9 << 8;
    QTest::newRow("up-scale 15/8") << 3000.0 << 1000.0 << ScaleChoice::AnyEighthUp << 15 << 8;
    QTest::newRow("nothing covers: 16/8") << 4000.0 << 1000.0 << ScaleChoice::AnyEighthUp << 2 << 1;
}

void TestDataJpeg::dctScaleChoice()
{
    QFETCH(double, needW);
    QFETCH(double, needH);
    QFETCH(ScaleChoice, choice);
    QFETCH(int, num);
    QFETCH(int, denom);
    const DctScale s = chooseDctScale(1600, 900, needW, needH, choice);
    QCOMPARE(s.num * denom, num * s.denom);
    // Whatever was chosen must cover the output (else the resize would up-sample a down-sampled image).
    QVERIFY((s == DctScale{1, 1} || s == DctScale{2, 1} ||
             (scaledSize(1600, s) >= needW && scaledSize(900, s) >= needH)));
}

void TestDataJpeg::decodesAtScale()
{
    const auto rgb = datatest::testImage(333, 201, 1);
    const auto jpeg = encodeJpeg(rgb.data(), 333, 201, 90);
    JpegDecoder decoder;
    std::vector<std::uint8_t> pixels;
    int w = 0, h = 0;
    std::string error;
    QVERIFY(decoder.decode(jpeg.data(), jpeg.size(), {1, 2}, pixels, w, h, error));
    QCOMPARE(w, 167); // ceil(333 / 2)
    QCOMPARE(h, 101);
    QVERIFY(decoder.decode(jpeg.data(), jpeg.size(), {3, 8}, pixels, w, h, error));
    QCOMPARE(w, 125); // ceil(333 * 3 / 8)
    QCOMPARE(h, 76);
}

void TestDataJpeg::damagedBytesFail()
{
    const auto rgb = datatest::testImage(64, 48, 2);
    const auto jpeg = encodeJpeg(rgb.data(), 64, 48, 90);
    JpegDecoder decoder;
    std::vector<std::uint8_t> pixels;
    int w = 0, h = 0;
    std::string error;
    const std::vector<std::uint8_t> truncated(jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(jpeg.size() / 2));
    QVERIFY(!decoder.decode(truncated.data(), truncated.size(), {1, 1}, pixels, w, h, error));
    QVERIFY(!error.empty());
    const std::vector<std::uint8_t> garbage(500, 0x5a);
    error.clear();
    QVERIFY(!decoder.decode(garbage.data(), garbage.size(), {1, 1}, pixels, w, h, error));
    QVERIFY(error.find("JPEG") != std::string::npos);
    QVERIFY(!decoder.decode(nullptr, 0, {1, 1}, pixels, w, h, error));
    // The decoder still works after failures.
    QVERIFY(decoder.decode(jpeg.data(), jpeg.size(), {1, 1}, pixels, w, h, error));
}

namespace {

// `jpeg` with the frame size of its baseline SOF0 marker replaced (as a crafted file would claim).
std::vector<std::uint8_t> withFrameSize(std::vector<std::uint8_t> jpeg, int width, int height)
{
    for (std::size_t i = 2; i + 9 < jpeg.size(); ++i)
        if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) { // SOF0: FF C0, length (2), precision (1), height, width
            jpeg[i + 5] = static_cast<std::uint8_t>(height >> 8);
            jpeg[i + 6] = static_cast<std::uint8_t>(height & 0xFF);
            jpeg[i + 7] = static_cast<std::uint8_t>(width >> 8);
            jpeg[i + 8] = static_cast<std::uint8_t>(width & 0xFF);
            return jpeg;
        }
    qFatal("no SOF0 marker");
    return jpeg;
}

} // namespace

void TestDataJpeg::oversizedHeaderFailsBeforeAllocating_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::newRow("one side over the cap") << kMaxJpegSide + 1 << 16;
    QTest::newRow("too many pixels") << 9000 << 8000; // 72 Mpixel, both sides under the cap
    QTest::newRow("near the largest libjpeg reads") << 60000 << 60000;
}

void TestDataJpeg::oversizedHeaderFailsBeforeAllocating()
{
    // A crafted header must be refused from its numbers alone: otherwise decode allocates width x height x 3 bytes
    // (10 GB for 60000 x 60000) before libjpeg notices that the scan data is far too short.
    QFETCH(int, width);
    QFETCH(int, height);
    const auto rgb = datatest::testImage(64, 48, 3);
    const auto crafted = withFrameSize(encodeJpeg(rgb.data(), 64, 48, 90), width, height);
    JpegDecoder decoder;
    JpegHeader header;
    std::string error;
    QVERIFY(!decoder.readHeader(crafted.data(), crafted.size(), header, error));
    QVERIFY2(error.find("too large") != std::string::npos, error.c_str());
    QVERIFY2(error.find(std::to_string(width) + "x" + std::to_string(height)) != std::string::npos, error.c_str());
    std::vector<std::uint8_t> pixels;
    int w = 0, h = 0;
    error.clear();
    QVERIFY(!decoder.decode(crafted.data(), crafted.size(), {1, 1}, pixels, w, h, error));
    QVERIFY2(error.find("too large") != std::string::npos, error.c_str());
    QCOMPARE(pixels.capacity(), std::size_t(0)); // nothing allocated for the claimed size
    // The synthetic world's reader shares the decoder and its cap.
    std::string synthError;
    QVERIFY(!pitwall::synth::internal::decodeJpeg(crafted, pixels, w, h, synthError));
    QVERIFY2(synthError.find("too large") != std::string::npos, synthError.c_str());
}

void TestDataJpeg::synthDecoderUsableAfterCorruptFile()
{
    // libjpeg-turbo can keep state from a failed header (the next good file then reads as "Bogus marker length"
    // or "Bogus Huffman table definition"): every cut of a good file, then the good file, on one thread's decoder.
    const auto rgb = datatest::testImage(64, 48, 6);
    const auto good = encodeJpeg(rgb.data(), 64, 48, 90, true);
    std::vector<std::uint8_t> pixels;
    for (std::size_t cut = 1; cut < good.size(); cut += 7) {
        const std::vector<std::uint8_t> truncated(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
        int w = 0, h = 0;
        std::string error;
        pitwall::synth::internal::decodeJpeg(truncated, pixels, w, h, error);
        error.clear();
        QVERIFY2(pitwall::synth::internal::decodeJpeg(good, pixels, w, h, error),
                 qPrintable(QString("after a file cut at %1 bytes: %2").arg(cut).arg(error.c_str())));
        QCOMPARE(w, 64);
        QCOMPARE(pixels.size(), std::size_t(64 * 48 * 3));
    }
}

void TestDataJpeg::kernelIsExactBilinear()
{
    // The fused kernel with no colour change against bilinear interpolation written out in double.
    const int sw = 97, sh = 61, ow = 50, oh = 23;
    const auto rgb = datatest::testImage(sw, sh, 4);
    const Window window{10.3, 5.7, 70.2, 40.9};
    const Normalization unit{{0, 0, 0}, {1, 1, 1}};
    std::vector<float> out(3 * ow * oh);
    KernelScratch scratch;
    for (bool flip : {false, true}) {
        renderWindow({rgb.data(), sw, sh, sw * 3}, window, flip, ColorJitter{}, unit, out.data(), ow, oh, scratch);
        double worst = 0;
        for (int v = 0; v < oh; ++v)
            for (int d = 0; d < ow; ++d) {
                const int u = flip ? ow - 1 - d : d;
                const double x = window.x + (u + 0.5) * window.width / ow - 0.5;
                const double y = window.y + (v + 0.5) * window.height / oh - 0.5;
                const int x0 = static_cast<int>(std::floor(x)), y0 = static_cast<int>(std::floor(y));
                const double fx = x - x0, fy = y - y0;
                for (int c = 0; c < 3; ++c) {
                    const auto at = [&](int xx, int yy) { return rgb[(static_cast<std::size_t>(yy) * sw + xx) * 3 + c]; };
                    const double want = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x0 + 1, y0)) +
                                        fy * ((1 - fx) * at(x0, y0 + 1) + fx * at(x0 + 1, y0 + 1));
                    worst = std::max(worst, std::abs(want - out[(static_cast<std::size_t>(c) * oh + v) * ow + d]));
                }
            }
        QVERIFY2(worst < 1e-3, qPrintable(QString("largest difference %1").arg(worst)));
    }
    // A window reaching outside the image is black there.
    renderWindow({rgb.data(), sw, sh, sw * 3}, Window{-50, 0, 100, 61}, false, ColorJitter{}, unit, out.data(), ow, oh,
                 scratch);
    QCOMPARE(out[0], 0.0f);
    QVERIFY(out[ow - 1] > 0.0f);
}

void TestDataJpeg::decodedAndResizedCloseToReference()
{
    // A 1600x900 image shown whole at 400x225: the decoder runs at 1/4 scale, the kernel is then nearly 1:1.
    QTemporaryDir dir;
    const auto rgb = datatest::testImage(1600, 900, 5);
    const std::string path = dir.filePath("big.jpg").toStdString();
    datatest::writeBytes(path, encodeJpeg(rgb.data(), 1600, 900, 95));
    SampleOptions o;
    o.outputWidth = 400;
    o.outputHeight = 225;
    o.augment.enabled = false;
    o.normalization = Normalization{{0, 0, 0}, {1, 1, 1}};
    std::vector<float> out(3 * 400 * 225);
    SampleRenderer renderer(o);
    const SampleResult result = renderer.render({path, {}, BoxUnits::Pixels}, {0, 0, 0, 0}, out.data());
    QVERIFY(result.ok);
    QCOMPARE(result.scale.num * 4, result.scale.denom); // 1/4
    const std::vector<double> want = areaResize(rgb, 1600, 900, 400, 225);
    double sum = 0, worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double e = std::abs(want[i] - out[i]);
        sum += e;
        worst = std::max(worst, e);
    }
    const double mean = sum / static_cast<double>(want.size());
    QVERIFY2(mean < 1.5 && worst < 12, qPrintable(QString("mean %1, worst %2 (0..255)").arg(mean).arg(worst)));
}

void TestDataJpeg::scaledPathCloseToFullScale()
{
    // A 1600x900 frame of the synthetic world (edges, texture, sky) through the bench's augmentation to 1024x372:
    // decoded at the smallest covering eighth the geometry is the same (window, flip, boxes) and the pixels stay
    // close to the full-scale decode. A scale mapped wrongly into the view moves the crop and fails by far.
    QTemporaryDir dir;
    const std::string root = dir.filePath("synth").toStdString();
    datatest::writeSynth(root, 1, 5, 1600, 900);
    const SampleRecord record{root + "/rgb/000000.jpg", {{1, 700, 400, 900, 520}}, BoxUnits::Pixels};
    SampleOptions o; // 1024x372, DALI's zoom 0.86..1.25, uniform crop, flip, HSV
    o.normalization = Normalization{{0, 0, 0}, {1, 1, 1}};
    SampleOptions full = o, scaled = o;
    full.scaleChoice = ScaleChoice::FullOnly;
    scaled.scaleChoice = ScaleChoice::AnyEighth;
    SampleRenderer fullRenderer(full), scaledRenderer(scaled);
    const std::size_t floats = 3 * 1024 * 372;
    std::vector<float> a(floats), b(floats);
    std::set<int> eighths;
    for (std::int64_t i = 0; i < 12; ++i) {
        const SampleKey key{7, 0, i, 0};
        const SampleResult x = fullRenderer.render(record, key, a.data());
        const SampleResult y = scaledRenderer.render(record, key, b.data());
        QVERIFY(x.ok && y.ok);
        QCOMPARE(scaleEighths(x.scale), 8);
        eighths.insert(scaleEighths(y.scale));
        QCOMPARE(y.augment.window.x, x.augment.window.x);
        QCOMPARE(y.augment.window.width, x.augment.window.width);
        QCOMPARE(y.augment.flip, x.augment.flip);
        QCOMPARE(y.boxes.size(), x.boxes.size());
        for (std::size_t j = 0; j < x.boxes.size(); ++j)
            QCOMPARE(y.boxes[j].x0, x.boxes[j].x0);
        double sum = 0;
        for (std::size_t k = 0; k < floats; ++k)
            sum += std::abs(static_cast<double>(a[k]) - b[k]);
        const double mean = sum / static_cast<double>(floats);
        QVERIFY2(mean < kScaledMeanBound, qPrintable(QString("sample %1 at %2/8: mean difference %3 (0..255)")
                                                         .arg(i).arg(scaleEighths(y.scale)).arg(mean)));
    }
    // The zoom range 0.86..1.25 needs 881..1280 columns: 5/8, 6/8 and 7/8 (not powers of two) all occur.
    QVERIFY2(eighths.count(6) == 1 && *eighths.rbegin() < 8,
             qPrintable(QString("scales used: %1 .. %2").arg(*eighths.begin()).arg(*eighths.rbegin())));
}

void TestDataJpeg::regionDecodeMatchesWholeDecode_data()
{
    QTest::addColumn<bool>("subsample420");
    QTest::addColumn<int>("num");
    QTest::addColumn<int>("denom");
    for (const bool sub : {false, true})
        for (const auto& [num, denom] : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {3, 4}, {1, 8}}) {
            const QString name = QString("%1 %2/%3").arg(sub ? "4:2:0" : "4:4:4").arg(num).arg(denom);
            QTest::newRow(qPrintable(name)) << sub << num << denom;
        }
}

void TestDataJpeg::regionDecodeMatchesWholeDecode()
{
    // Inside the region the bytes are the whole decode's, at every scale and chroma layout; outside it the buffer
    // keeps what it held (a poison value here), and the rows come in order, ending at the region's last row.
    QFETCH(bool, subsample420);
    QFETCH(int, num);
    QFETCH(int, denom);
    const int width = 611, height = 357; // not multiples of an MCU
    const auto rgb = datatest::testImage(width, height, 3);
    const auto jpeg = encodeJpeg(rgb.data(), width, height, 90, subsample420);
    const DctScale scale{num, denom};
    JpegDecoder decoder;
    std::vector<std::uint8_t> whole;
    int w = 0, h = 0;
    std::string error;
    QVERIFY2(decoder.decode(jpeg.data(), jpeg.size(), scale, whole, w, h, error), error.c_str());
    QCOMPARE(w, scaledSize(width, scale));
    const std::vector<PixelRect> regions{{0, 0, w, h},         {w / 3, h / 4, w / 3 + w / 4, h / 2},
                                         {0, h / 2, w, h},     {w - 3, 0, w, 5},
                                         {w / 2, h - 1, w / 2 + 1, h}, {5, 7, w - 9, h - 11}};
    for (const PixelRect& r : regions) {
        std::vector<std::uint8_t> part(static_cast<std::size_t>(w) * h * 3, 0xA5);
        std::vector<int> reports;
        QVERIFY2(decoder.decodeRegion(jpeg.data(), jpeg.size(), scale, r, part.data(), w, h, w * 3,
                                      [&](int rows) { reports.push_back(rows); }, error),
                 error.c_str());
        QVERIFY(!reports.empty());
        QCOMPARE(reports.back(), r.y1);
        QVERIFY(std::is_sorted(reports.begin(), reports.end()));
        int differences = 0;
        for (int y = r.y0; y < r.y1; ++y)
            for (int x = r.x0; x < r.x1; ++x)
                for (int c = 0; c < 3; ++c) {
                    const std::size_t i = (static_cast<std::size_t>(y) * w + x) * 3 + c;
                    differences += part[i] != whole[i];
                }
        QVERIFY2(differences == 0, qPrintable(QString("region %1,%2..%3,%4: %5 bytes differ")
                                                  .arg(r.x0).arg(r.y0).arg(r.x1).arg(r.y1).arg(differences)));
        if (r.y1 + 16 < h) // rows well below the region are not decoded
            QCOMPARE(part[(static_cast<std::size_t>(h - 1) * w + r.x0) * 3], std::uint8_t(0xA5));
    }
}

void TestDataJpeg::regionDecodeOfDamagedFileFails()
{
    const int width = 256, height = 256;
    const auto rgb = datatest::testImage(width, height, 4);
    const auto jpeg = encodeJpeg(rgb.data(), width, height, 90);
    const std::vector<std::uint8_t> truncated(jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(jpeg.size() * 3 / 4));
    JpegDecoder decoder;
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 3);
    std::string error;
    // The rows asked for lie before the cut: the missing end-of-image marker gives the truncation away.
    QVERIFY(!decoder.decodeRegion(truncated.data(), truncated.size(), {1, 1}, {0, 0, width, 32}, pixels.data(), width,
                                  height, width * 3, {}, error));
    QVERIFY2(error.find("damaged JPEG") != std::string::npos && error.find("truncated") != std::string::npos,
             error.c_str());
    // The rows asked for reach past the cut: libjpeg's own warning.
    error.clear();
    QVERIFY(!decoder.decodeRegion(truncated.data(), truncated.size(), {1, 1}, {0, 0, width, height}, pixels.data(),
                                  width, height, width * 3, {}, error));
    QVERIFY2(error.find("damaged JPEG") != std::string::npos, error.c_str());
    const std::vector<std::uint8_t> garbage(500, 0x5a);
    error.clear();
    QVERIFY(!decoder.decodeRegion(garbage.data(), garbage.size(), {1, 1}, {0, 0, 8, 8}, pixels.data(), width, height,
                                  width * 3, {}, error));
    QVERIFY2(error.find("JPEG") != std::string::npos, error.c_str());
    // A header that says another size than the caller's buffer is refused, not written past.
    error.clear();
    QVERIFY(!decoder.decodeRegion(jpeg.data(), jpeg.size(), {1, 1}, {0, 0, 8, 8}, pixels.data(), width / 2, height,
                                  width * 3 / 2, {}, error));
    QVERIFY2(error.find("size") != std::string::npos, error.c_str());
    QVERIFY(decoder.decodeRegion(jpeg.data(), jpeg.size(), {1, 1}, {0, 0, 8, 8}, pixels.data(), width, height,
                                 width * 3, {}, error));
}

void TestDataJpeg::footprintHoldsEveryPixelRead()
{
    // Pixels outside the footprint may hold anything: the output does not change when they are overwritten.
    const int width = 400, height = 300, outW = 160, outH = 60;
    auto rgb = datatest::testImage(width, height, 5);
    const ImageView view{rgb.data(), width, height, width * 3};
    const Normalization norm;
    const ColorJitter color{0.1f, 1.2f, 0.9f};
    KernelScratch scratch;
    const std::vector<std::pair<Window, bool>> cases{{{50.5, 70.25, 250, 93.75}, false},
                                                     {{-40, 100, 480, 180}, true},   // wider than the image
                                                     {{300, 250, 200, 100}, false}, // past the bottom right
                                                     {{500, 0, 50, 20}, false}};    // misses the image
    for (const auto& [window, flip] : cases) {
        std::vector<float> expected(3 * outW * outH), got(3 * outW * outH);
        renderWindow(view, window, flip, color, norm, expected.data(), outW, outH, scratch);
        PixelRect fp;
        {
            WindowRenderer probe(view, window, flip, color, norm, got.data(), outW, outH, scratch);
            fp = probe.footprint();
        }
        if (window.x >= width)
            QVERIFY(fp.empty());
        else
            QVERIFY(fp.x0 >= 0 && fp.y0 >= 0 && fp.x1 <= width && fp.y1 <= height && !fp.empty());
        auto poisoned = rgb;
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                if (x < fp.x0 || x >= fp.x1 || y < fp.y0 || y >= fp.y1)
                    for (int c = 0; c < 3; ++c)
                        poisoned[(static_cast<std::size_t>(y) * width + x) * 3 + c] = 255;
        // In bands, as a decoder hands rows over: rows below the band are poison until their band "arrives".
        auto arriving = poisoned;
        std::fill(arriving.begin() + static_cast<std::ptrdiff_t>(fp.y0) * width * 3, arriving.end(), 255);
        const ImageView arrivingView{arriving.data(), width, height, width * 3};
        WindowRenderer renderer(arrivingView, window, flip, color, norm, got.data(), outW, outH, scratch);
        for (int band = fp.y0; band < fp.y1; band += 7) {
            const int end = std::min(fp.y1, band + 7);
            std::copy(poisoned.begin() + static_cast<std::ptrdiff_t>(band) * width * 3,
                      poisoned.begin() + static_cast<std::ptrdiff_t>(end) * width * 3,
                      arriving.begin() + static_cast<std::ptrdiff_t>(band) * width * 3);
            renderer.renderReady(end);
        }
        renderer.finish();
        QVERIFY(expected == got);
        if (window.x == 50.5) { // tight: the window's pixels and their right/lower neighbours, no more
            QCOMPARE(fp.x0, 50);
            QCOMPARE(fp.x1, 301); // 50 + 249.2 = 299.2, and its neighbour 300
            QCOMPARE(fp.y0, 70);
            QCOMPARE(fp.y1, 164); // 69.75 + 59.5 * 1.5625 = 162.7, and its neighbour 163
        }
    }
}

void TestDataJpeg::regionPathRendersTheSameBytes()
{
    // The sample path with the region decode gives the same floats, boxes and geometry as decoding the whole image
    // first, over many augmentations (zoom in and out, flip, crops at every edge), both chroma layouts and scales.
    QTemporaryDir dir;
    const std::vector<std::pair<std::string, bool>> files{{dir.filePath("a.jpg").toStdString(), false},
                                                          {dir.filePath("b.jpg").toStdString(), true}};
    for (const auto& [path, sub] : files) {
        const auto rgb = datatest::testImage(800, 450, sub ? 7 : 8);
        datatest::writeBytes(path, encodeJpeg(rgb.data(), 800, 450, 88, sub));
    }
    for (const ScaleChoice choice : {ScaleChoice::FastEighths, ScaleChoice::AnyEighth}) {
        SampleOptions o;
        o.outputWidth = 320;
        o.outputHeight = 120;
        o.scaleChoice = choice;
        o.augment.scaleMin = 0.6;
        o.augment.scaleMax = 2.5;
        SampleOptions whole = o;
        whole.regionDecode = false;
        SampleRenderer regionRenderer(o), wholeRenderer(whole);
        const std::size_t floats = 3 * 320 * 120;
        std::vector<float> a(floats), b(floats);
        std::set<int> eighths;
        for (std::int64_t i = 0; i < 24; ++i) {
            const auto& [path, sub] = files[static_cast<std::size_t>(i % 2)];
            const SampleRecord record{path, {{0, 100, 100, 300, 200}}, BoxUnits::Pixels};
            const SampleKey key{11, 0, i, 0};
            const SampleResult x = wholeRenderer.render(record, key, a.data());
            const SampleResult y = regionRenderer.render(record, key, b.data());
            QVERIFY2(x.ok && y.ok, (x.error + y.error).c_str());
            QCOMPARE(y.scale, x.scale);
            eighths.insert(scaleEighths(y.scale));
            QCOMPARE(y.boxes.size(), x.boxes.size());
            QVERIFY2(a == b, qPrintable(QString("sample %1 (%2) differs").arg(i).arg(sub ? "4:2:0" : "4:4:4")));
        }
        QVERIFY(eighths.size() >= 2); // more than one scale exercised
    }
}

namespace {

// `jpeg` without its DHT segments: a baseline file that relies on the standard Huffman tables, as Motion-JPEG
// frames do (TurboJPEG's encoder writes the standard tables, so the file stays valid).
std::vector<std::uint8_t> withoutHuffmanTables(const std::vector<std::uint8_t>& jpeg)
{
    std::vector<std::uint8_t> out(jpeg.begin(), jpeg.begin() + 2);
    std::size_t i = 2;
    while (i + 4 <= jpeg.size() && jpeg[i] == 0xFF) {
        const int marker = jpeg[i + 1];
        const std::size_t length = (static_cast<std::size_t>(jpeg[i + 2]) << 8) | jpeg[i + 3];
        if (marker == 0xDA) { // start of scan: the rest is entropy-coded data
            out.insert(out.end(), jpeg.begin() + static_cast<std::ptrdiff_t>(i), jpeg.end());
            return out;
        }
        if (marker != 0xC4)
            out.insert(out.end(), jpeg.begin() + static_cast<std::ptrdiff_t>(i),
                       jpeg.begin() + static_cast<std::ptrdiff_t>(i + 2 + length));
        i += 2 + length;
    }
    qFatal("no start of scan");
    return out;
}

} // namespace

void TestDataJpeg::fileWithoutHuffmanTablesAfterAProgressiveOne()
{
    // A decoder reused across files decodes each as a fresh one would: a file without DHT markers (standard
    // tables) right after a progressive file (tables of its own) used to come out as "damaged JPEG: Corrupt JPEG
    // data: ... extraneous bytes", the previous file's tables still in the decoder.
    const auto a = datatest::testImage(64, 48, 1), b = datatest::testImage(64, 48, 2);
    const auto progressive = encodeJpeg(a.data(), 64, 48, 90, false, true);
    const auto tableless = withoutHuffmanTables(encodeJpeg(b.data(), 64, 48, 90));
    std::vector<std::uint8_t> fresh, reused;
    int w = 0, h = 0;
    std::string error;
    {
        JpegDecoder first;
        QVERIFY2(first.decode(tableless.data(), tableless.size(), {1, 1}, fresh, w, h, error), error.c_str());
    }
    JpegDecoder decoder;
    QVERIFY2(decoder.decode(progressive.data(), progressive.size(), {1, 1}, reused, w, h, error), error.c_str());
    QVERIFY2(decoder.decode(tableless.data(), tableless.size(), {1, 1}, reused, w, h, error), error.c_str());
    QVERIFY(reused == fresh);
    // Close to the pixels encoded (the file is the image, not noise).
    double sum = 0;
    for (std::size_t i = 0; i < b.size(); ++i)
        sum += std::abs(static_cast<int>(reused[i]) - static_cast<int>(b[i]));
    QVERIFY(sum / static_cast<double>(b.size()) < 3.0);
    std::vector<std::uint8_t> part(fresh.size(), 0);
    QVERIFY2(decoder.decodeRegion(progressive.data(), progressive.size(), {1, 1}, {8, 8, 40, 30}, part.data(), 64, 48,
                                  64 * 3, {}, error),
             error.c_str()); // a multi-scan file in part
}

QTEST_GUILESS_MAIN(TestDataJpeg)
#include "tst_data_jpeg.moc"
