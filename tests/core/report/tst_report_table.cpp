// Report tables print what the store holds without letting a name break the output: CSV cells are quoted and
// formula-guarded. If this fails, a spreadsheet would run a trial's text or read shifted columns.
#include "core/report/metricsense.h"
#include "core/report/table.h"

#include <QtTest>

using namespace pitwall;

class TestReportTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void csvOfKnownRows();
    void namesWithControlCharactersStayOnTheirLine();
    void aSpreadOnlyWhereThereIsOne();
    void metricNamesSayWhichWayIsBetter();
};

void TestReportTable::aSpreadOnlyWhereThereIsOne()
{
    QCOMPARE(meanStd({}).toString(), std::string("–"));
    QCOMPARE(meanStd({1.0294}).toString(3), std::string("1.029")); // one seed: not "1.029 ± 0.000"
    QCOMPARE(meanStd({1.0, 3.0}).toString(1), std::string("2.0 ± 1.4"));
    QCOMPARE(meanStd({2.0, 2.0}).toString(1), std::string("2.0 ± 0.0")); // two equal values: a spread of 0
}

void TestReportTable::metricNamesSayWhichWayIsBetter()
{
    for (const char* lower : {"loss", "val/loss", "metrics/waypoint_l1", "depth_mae", "data_wait_ms", "peak_memory_mb",
                              "collisions", "Loss"})
        QVERIFY2(metricSense(lower) == MetricSense::LowerIsBetter, lower);
    for (const char* higher : {"driving_score", "semantic_miou", "detection_map", "full_fps", "route_completion",
                               "infraction_penalty", "metrics/accuracy"})
        QVERIFY2(metricSense(higher) == MetricSense::HigherIsBetter, higher);
    // A spread, or a name that says neither, is not coloured: "cell1x" holds "l1" but not as a word.
    for (const char* unknown : {"driving_score_std", "driving_score_stderr", "epochs", "cell1x", "seed_count"})
        QVERIFY2(metricSense(unknown) == MetricSense::Unknown, unknown);
}

void TestReportTable::csvOfKnownRows()
{
    Table table({"name", "value"});
    table.addRow({"=1+2", "-1.5"});
    table.addRow({"a,b", "-"});
    table.addRow({"@x", "+3"});
    QCOMPARE(QString::fromStdString(table.toCsv()),
             QString("name,value\r\n'=1+2,-1.5\r\n\"a,b\",'-\r\n'@x,+3\r\n"));
}

// A study named "a\nb" (or holding an escape sequence) printed a broken table before; now escaped, one line a row.
void TestReportTable::namesWithControlCharactersStayOnTheirLine()
{
    Table table({"Study", "Best"});
    table.addRow({"two\nlines", "1"});
    table.addRow({"bell\x07\x1b[31mred|bar", "2"});
    table.addRow({std::string("bad\xff utf8 \xc3\xa9"), "3"});
    const QStringList lines = QString::fromStdString(table.toText()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5); // header, rule, three rows: nothing broke a line
    QVERIFY(lines[2].startsWith("two\\nlines ") && lines[2].endsWith(" 1"));
    QVERIFY(lines[3].startsWith("bell\\x07\\x1b[31mred|bar ") && lines[3].endsWith(" 2"));
    QVERIFY(lines[4].startsWith(QString::fromUtf8("bad\\xff utf8 \xc3\xa9 ")) && lines[4].endsWith(" 3"));
    // The values line up: every row's value starts in the header's "Best" column.
    const int column = lines[0].indexOf("Best");
    for (int i = 2; i < 5; ++i)
        QCOMPARE(lines[i].size(), column + 1);
    const std::string markdown = table.toMarkdown();
    QVERIFY(markdown.find("| two\\nlines | 1 |\n") != std::string::npos);
    QVERIFY(markdown.find("red\\|bar") != std::string::npos);
    // CSV and JSON keep the data as it is (their formats quote it).
    QVERIFY(table.toJson()[0]["Study"] == "two\nlines");
}

QTEST_GUILESS_MAIN(TestReportTable)
#include "tst_report_table.moc"
