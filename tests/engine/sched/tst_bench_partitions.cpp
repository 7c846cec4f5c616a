// `pitwall bench partitions`: one trainer per logical device at once, summed FPS per node, -1 for a failed
// run, unavailable modes with why, a PNG plot and benchmark records, and the printed Markdown table: a batch-size
// column, then compute and full FPS per measured mode, with the stored records' values. If this fails, the
// partition table or plot misreports throughput, or a failed run poisons the table instead of showing as -1.
#include "../../cli/clitestutil.h"

#include "core/devices/devices.h"
#include "core/store/store.h"
#include "core/synth/internal/imageio.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace pitwall;

namespace {

// Of `requested`, the partition modes this machine's CPU backend can measure, in their order.
QStringList measurableModes(const QStringList& requested)
{
    const auto backend = makeCpuBackend();
    QStringList out;
    for (const QString& mode : requested)
        for (const ModeAvailability& a : backend->modes())
            if (partitionModeName(a.mode) == mode && a.available)
                out.push_back(mode);
    return out;
}

} // namespace

class TestBenchPartitions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void measuresModesAndBatchSizes();
    void printsMarkdownTable();
};

void TestBenchPartitions::measuresModesAndBatchSizes()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("b.db"), plot = dir.filePath("p.png");
    // 100 frames leave 90 for training: batch 8 and 16 train, batch 512 cannot (a failed run: -1).
    const CliResult r =
        runCli({"bench", "partitions", "--modes", "SPX,DPX,CPX", "--batch-sizes", "8,16,512", "--epochs", "1",
                "data.synthetic.frames=100", "--db", db, "--plot", plot, "--out", dir.filePath("out"), "--json"},
               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QStringList requested{"SPX", "DPX", "CPX"};
    const QStringList measured = measurableModes(requested);
    QSet<QString> unavailable(requested.begin(), requested.end());
    for (const QString& mode : measured)
        unavailable.remove(mode);
    for (const auto& value : out["unavailable"].toArray()) {
        const QJsonObject u = value.toObject();
        QVERIFY(unavailable.contains(u["mode"].toString()));
        QVERIFY(!u["why"].toString().isEmpty());
    }
    QCOMPARE(out["unavailable"].toArray().size(), unavailable.size());
    const QJsonArray rows = out["rows"].toArray();
    QCOMPARE(rows.size(), measured.size() * 3);
    for (const auto& value : rows) {
        const QJsonObject row = value.toObject();
        const QString mode = row["mode"].toString();
        const int devices = partitionsPerDevice(*parsePartitionMode(mode.toStdString()));
        QCOMPARE(row["devices"].toArray().size(), devices); // one trainer per logical device
        if (row["batch_size"].toInt() == 512) {
            QCOMPARE(row["full_fps"].toDouble(), -1.0);
            QCOMPARE(row["compute_fps"].toDouble(), -1.0);
            QVERIFY(row["devices"].toArray()[0].toObject()["error"].toString().contains("exit status 2"));
            continue;
        }
        double sum = 0;
        for (const auto& d : row["devices"].toArray()) {
            QVERIFY(d.toObject()["full_fps"].toDouble() > 0);
            sum += d.toObject()["full_fps"].toDouble();
        }
        QCOMPARE(row["full_fps"].toDouble(), sum); // the node's FPS is the sum over its logical devices
        QVERIFY(row["compute_fps"].toDouble() > 0);
    }
    std::vector<std::uint8_t> bytes;
    QVERIFY(synth::internal::readFile(plot.toStdString(), bytes));
    synth::internal::DecodedPng png;
    std::string error;
    QVERIFY2(synth::internal::decodePng(bytes, png, error), error.c_str());
    QCOMPARE(png.channels, 3);
    QVERIFY(png.width > png.height);
    std::size_t coloured = 0; // pixels that are neither grey nor white: the series lines and legend
    for (std::size_t i = 0; i + 2 < png.bytes8.size(); i += 3)
        coloured += png.bytes8[i] != png.bytes8[i + 1] || png.bytes8[i + 1] != png.bytes8[i + 2];
    QVERIFY(coloured > 500);
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    QCOMPARE(store->benchmarks("partitions").size(), static_cast<std::size_t>(rows.size()));
}

void TestBenchPartitions::printsMarkdownTable()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("b.db");
    // 100 frames: batch 8 trains, batch 512 cannot (its cells print -1).
    const CliResult r = runCli({"bench", "partitions", "--modes", "SPX,DPX", "--batch-sizes", "8,512", "--epochs", "1",
                                "data.synthetic.frames=100", "--db", db, "--out", dir.filePath("out")},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList measured = measurableModes({"SPX", "DPX"});
    QVERIFY(measured.contains("SPX"));
    QStringList header{"batch size"};
    for (const QString& mode : measured)
        header << mode + " compute FPS" << mode + " full FPS";

    const QStringList lines = r.out.split('\n');
    const qsizetype at = lines.indexOf(QRegularExpression("^\\| batch size \\|.*"));
    QVERIFY2(at >= 0 && at + 3 < lines.size(), qPrintable(r.out));
    QCOMPARE(markdownCells(lines[at]), header);
    QStringList separator{"---"}; // the batch size left-aligned, the numbers right-aligned
    while (separator.size() < header.size())
        separator << "---:";
    QCOMPARE(markdownCells(lines[at + 1]), separator);
    QVERIFY2(lines[at + 4].isEmpty(), qPrintable(r.out)); // one row per batch size, no more

    // Every cell is the stored record's value for its mode and batch size: one decimal, or -1 for a failed run.
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    QMap<QString, BenchmarkRecord> records;
    for (const BenchmarkRecord& b : store->benchmarks("partitions"))
        records.insert(QString::fromStdString(b.name), b);
    QCOMPARE(records.size(), measured.size() * 2);
    const QStringList batchSizes{"8", "512"};
    for (int row = 0; row < batchSizes.size(); ++row) {
        const QStringList cells = markdownCells(lines[at + 2 + row]);
        QCOMPARE(cells.size(), header.size());
        QCOMPARE(cells[0], batchSizes[row]);
        for (int m = 0; m < measured.size(); ++m) {
            const QString name = measured[m] + "/bs" + batchSizes[row];
            QVERIFY2(records.contains(name), qPrintable(name));
            for (int kind = 0; kind < 2; ++kind) {
                const double fps = records[name].results[kind == 0 ? "compute_fps" : "full_fps"].get<double>();
                QCOMPARE(cells[1 + 2 * m + kind], fps < 0 ? QString("-1") : QString::number(fps, 'f', 1));
                QCOMPARE(fps < 0, batchSizes[row] == "512");
            }
        }
    }
}

QTEST_GUILESS_MAIN(TestBenchPartitions)
#include "tst_bench_partitions.moc"
