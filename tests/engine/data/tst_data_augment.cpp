// Augmentation: drawn from (seed, epoch, index, rank) alone, so the same key gives the same bytes and any other
// key different ones; the HSV jitter matches a textbook RGB -> HSV -> RGB; boxes follow the geometry.
#include "core/engine/data/augment.h"
#include "core/engine/data/internal/rows.h"
#include "core/engine/data/kernels.h"
#include "core/engine/data/sample.h"

#include "datatestutil.h"
#include "tests/support/components.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <random>

using namespace pitwall::engine::data;

namespace {

bool sameAugment(const SampleAugment& a, const SampleAugment& b)
{
    return a.window.x == b.window.x && a.window.y == b.window.y && a.window.width == b.window.width &&
           a.window.height == b.window.height && a.flip == b.flip && a.color.hueShiftTurns == b.color.hueShiftTurns &&
           a.color.saturationGain == b.color.saturationGain && a.color.valueGain == b.color.valueGain;
}

// Textbook HSV (h in [0, 1)) with the gains applied as AutoSpeed does: hue shifted, S and V scaled and clipped.
void textbookJitter(double r, double g, double b, double hueShift, double sGain, double vGain, double out[3])
{
    const double maxC = std::max({r, g, b}), minC = std::min({r, g, b}), c = maxC - minC;
    double h = 0;
    if (c > 0) {
        if (maxC == r)
            h = std::fmod((g - b) / c + 6.0, 6.0);
        else if (maxC == g)
            h = (b - r) / c + 2;
        else
            h = (r - g) / c + 4;
        h /= 6;
    }
    double s = maxC > 0 ? c / maxC : 0, v = maxC;
    h = std::fmod(h + hueShift + 1.0, 1.0);
    s = std::min(1.0, s * sGain);
    v = std::min(255.0, v * vGain);
    const double hh = h * 6;
    const int sector = static_cast<int>(std::floor(hh)) % 6;
    const double f = hh - std::floor(hh), p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    const double table[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    for (int k = 0; k < 3; ++k)
        out[k] = table[sector][k];
}

} // namespace

class TestDataAugment : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameKeySameDraw();
    void everyKeyPartMatters();
    void drawsStayInRange();
    void noAugmentIsCentredCover();
    void renderedBytesReproducible();
    void hsvMatchesTextbook();
    void identityColourLeavesPixels();
    void genericAndAvx2KernelsAgree();
    void boxesFollowFlipCropAndClip();
};

void TestDataAugment::sameKeySameDraw()
{
    const AugmentOptions o;
    const SampleKey key{7, 3, 41, 2};
    // Same key, drawn in any order and any number of times: same result (no shared generator state).
    const SampleAugment first = drawAugment(key, o, 1600, 900, 1024, 372);
    for (int i = 0; i < 5; ++i)
        drawAugment({7, 3, static_cast<std::int64_t>(i), 2}, o, 1600, 900, 1024, 372);
    QVERIFY(sameAugment(first, drawAugment(key, o, 1600, 900, 1024, 372)));
}

void TestDataAugment::everyKeyPartMatters()
{
    const AugmentOptions o;
    const SampleKey base{7, 3, 41, 2};
    const SampleAugment a = drawAugment(base, o, 1600, 900, 1024, 372);
    // If any of these matched, two samples (or two ranks, or two epochs) would get the same augmentation.
    QVERIFY(!sameAugment(a, drawAugment({8, 3, 41, 2}, o, 1600, 900, 1024, 372)));
    QVERIFY(!sameAugment(a, drawAugment({7, 4, 41, 2}, o, 1600, 900, 1024, 372)));
    QVERIFY(!sameAugment(a, drawAugment({7, 3, 42, 2}, o, 1600, 900, 1024, 372)));
    QVERIFY(!sameAugment(a, drawAugment({7, 3, 41, 3}, o, 1600, 900, 1024, 372)));
}

void TestDataAugment::drawsStayInRange()
{
    const AugmentOptions o;
    const double cover = std::max(1024.0 / 1600, 372.0 / 900);
    int flips = 0;
    for (int i = 0; i < 2000; ++i) {
        const SampleAugment a = drawAugment({1, 0, i, 0}, o, 1600, 900, 1024, 372);
        const double zoom = 1024 / cover / a.window.width;
        QVERIFY2(zoom >= o.scaleMin - 1e-9 && zoom <= o.scaleMax + 1e-9, qPrintable(QString::number(zoom)));
        QVERIFY(std::abs(a.window.width / a.window.height - 1024.0 / 372) < 1e-9); // aspect kept
        // Uniform placement: the window and the image overlap as far as they can.
        QVERIFY(a.window.x >= std::min(0.0, 1600 - a.window.width) - 1e-9);
        QVERIFY(a.window.x <= std::max(0.0, 1600 - a.window.width) + 1e-9);
        QVERIFY(std::abs(a.color.hueShiftTurns) <= o.hsvH + 1e-6);
        QVERIFY(std::abs(a.color.saturationGain - 1) <= o.hsvS + 1e-6);
        QVERIFY(std::abs(a.color.valueGain - 1) <= o.hsvV + 1e-6);
        flips += a.flip ? 1 : 0;
    }
    QVERIFY2(flips > 900 && flips < 1100, qPrintable(QString::number(flips))); // flip probability 0.5
}

void TestDataAugment::noAugmentIsCentredCover()
{
    AugmentOptions o;
    o.enabled = false;
    const SampleAugment a = drawAugment({1, 2, 3, 4}, o, 1600, 900, 1024, 372);
    QCOMPARE(a.window.width, 1600.0);
    QCOMPARE(a.window.x, 0.0);
    QVERIFY(std::abs(a.window.y - (900 - a.window.height) / 2) < 1e-9);
    QVERIFY(!a.flip);
    QVERIFY(a.color.identity());
}

void TestDataAugment::renderedBytesReproducible()
{
    QTemporaryDir dir;
    const auto paths = datatest::writeJpegFolder(dir.path().toStdString(), 2, 320, 180);
    SampleOptions o;
    o.outputWidth = 160;
    o.outputHeight = 64;
    const std::size_t floats = 3 * 160 * 64;
    std::vector<float> a(floats), b(floats), c(floats);
    SampleRenderer first(o), second(o);
    const SampleRecord record{paths[0], {}, BoxUnits::Pixels};
    QVERIFY(first.render(record, {5, 1, 0, 0}, a.data()).ok);
    // Another renderer (another thread's), after other work: the same bytes.
    QVERIFY(second.render({paths[1], {}, BoxUnits::Pixels}, {5, 1, 1, 0}, c.data()).ok);
    QVERIFY(second.render(record, {5, 1, 0, 0}, b.data()).ok);
    QVERIFY(std::memcmp(a.data(), b.data(), floats * sizeof(float)) == 0);
    // Another epoch: different bytes.
    QVERIFY(second.render(record, {5, 2, 0, 0}, b.data()).ok);
    QVERIFY(std::memcmp(a.data(), b.data(), floats * sizeof(float)) != 0);
}

void TestDataAugment::hsvMatchesTextbook()
{
    std::mt19937 random(3);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<double> unit(-1, 1);
    double worst = 0;
    for (int i = 0; i < 20000; ++i) {
        const float r = static_cast<float>(byte(random)), g = static_cast<float>(byte(random)),
                    b = static_cast<float>(byte(random));
        const ColorJitter jitter{static_cast<float>(unit(random) * (i % 2 ? 0.5 : 0.015)),
                                 static_cast<float>(1 + 0.7 * unit(random)), static_cast<float>(1 + 0.4 * unit(random))};
        float got[3];
        double want[3];
        jitterPixel(r, g, b, jitter, got);
        textbookJitter(r, g, b, jitter.hueShiftTurns, jitter.saturationGain, jitter.valueGain, want);
        for (int c = 0; c < 3; ++c)
            worst = std::max(worst, std::abs(got[c] - want[c]));
    }
    QVERIFY2(worst < 0.05, qPrintable(QString("largest difference %1 (0..255 units)").arg(worst)));
}

void TestDataAugment::identityColourLeavesPixels()
{
    for (int v = 0; v < 256; v += 5) {
        float out[3];
        jitterPixel(static_cast<float>(v), static_cast<float>(255 - v), 17, ColorJitter{0, 1, 1}, out);
        QVERIFY(std::abs(out[0] - v) < 1e-3 && std::abs(out[1] - (255 - v)) < 1e-3 && std::abs(out[2] - 17) < 1e-3);
        jitterPixel(static_cast<float>(v), static_cast<float>(255 - v), 17, ColorJitter{0, 1.0f, 1.5f}, out);
        QVERIFY(out[0] <= 255.0f && out[1] <= 255.0f); // value clipped at 255
    }
}

void TestDataAugment::genericAndAvx2KernelsAgree()
{
    namespace in = pitwall::engine::data::internal;
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        PITWALL_SKIP_OPTIONAL("this CPU has no AVX2 + FMA");
#endif
    // Both builds of the row stages must compute the same thing (up to FMA rounding): a CPU without AVX2 would
    // otherwise train on other pixels.
    std::mt19937 random(5);
    const int n = 203; // not a multiple of the vector width: the tail path runs too
    std::vector<std::uint8_t> a(n * 3), b(n * 3);
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<std::uint8_t>(random());
        b[i] = static_cast<std::uint8_t>(random());
    }
    std::vector<float> rowG(n * 3 + 6), rowA(n * 3 + 6);
    in::rowKernelsGeneric().blend(a.data(), b.data(), 0.3f, n * 3, rowG.data());
    in::rowKernelsAvx2().blend(a.data(), b.data(), 0.3f, n * 3, rowA.data());
    for (int i = 0; i < n * 3; ++i)
        QVERIFY(std::abs(rowG[i] - rowA[i]) < 1e-3f);
    std::vector<int> index(150);
    std::vector<float> weight(150);
    for (int d = 0; d < 150; ++d) {
        index[d] = 3 * (d * (n - 1) / 150);
        weight[d] = static_cast<float>(d % 7) / 7.0f;
    }
    const in::ColumnTable table{index.data(), weight.data(), 3, 147};
    std::vector<float> pg(3 * 150), pa(3 * 150);
    in::rowKernelsGeneric().gather(rowG.data(), table, 150, pg.data(), pg.data() + 150, pg.data() + 300);
    in::rowKernelsAvx2().gather(rowG.data(), table, 150, pa.data(), pa.data() + 150, pa.data() + 300);
    for (std::size_t i = 0; i < pg.size(); ++i)
        QVERIFY(std::abs(pg[i] - pa[i]) < 1e-3f);
    for (auto kind : {in::ColorConstants::Kind::Identity, in::ColorConstants::Kind::NoHue, in::ColorConstants::Kind::Full}) {
        in::ColorConstants k;
        k.kind = kind;
        k.hueShiftSextants = 5.9f;
        k.saturationGain = 1.4f;
        k.valueGain = 0.8f;
        k.mean[1] = 100;
        k.invStd[2] = 0.5f;
        std::vector<float> og(3 * 150), oa(3 * 150);
        in::rowKernelsGeneric().color(pg.data(), pg.data() + 150, pg.data() + 300, 150, k, og.data(), og.data() + 150,
                                      og.data() + 300);
        in::rowKernelsAvx2().color(pg.data(), pg.data() + 150, pg.data() + 300, 150, k, oa.data(), oa.data() + 150,
                                   oa.data() + 300);
        for (std::size_t i = 0; i < og.size(); ++i)
            QVERIFY2(std::abs(og[i] - oa[i]) < 2e-3f, qPrintable(QString("%1 vs %2").arg(og[i]).arg(oa[i])));
    }
}

void TestDataAugment::boxesFollowFlipCropAndClip()
{
    SampleAugment a;
    a.window = {100, 50, 200, 100}; // output 400x200: scale 2
    const std::vector<BoxLabel> boxes{
        {1, 150, 60, 200, 110},   // inside: (100, 20)-(200, 120)
        {2, 50, 60, 120, 80},     // partly left of the window: clipped at x = 0
        {3, 400, 400, 500, 500},  // outside: dropped
        {1, 299.8f, 60, 400, 80}, // 0.4 px left inside: narrower than 1 px, dropped
    };
    auto out = transformBoxes(boxes, a, 400, 200);
    QCOMPARE(out.size(), std::size_t(2));
    QCOMPARE(out[0].x0, 100.0f);
    QCOMPARE(out[0].y1, 120.0f);
    QCOMPARE(out[1].x0, 0.0f);
    QCOMPARE(out[1].x1, 40.0f);
    a.flip = true;
    out = transformBoxes(boxes, a, 400, 200);
    QCOMPARE(out[0].x0, 200.0f); // mirrored: 400 - 200
    QCOMPARE(out[0].x1, 300.0f);
    QCOMPARE(out[1].x1, 400.0f);
    QCOMPARE(out[1].classId, 2);
}

PITWALL_TEST_MAIN(TestDataAugment)
#include "tst_data_augment.moc"
