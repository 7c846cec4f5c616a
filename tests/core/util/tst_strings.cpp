// Number text in core is locale-independent and strict: what the config, the store and the search space read
// must not change with the desktop's locale (QApplication sets LC_NUMERIC from the environment), and text that
// is not a plain decimal number is refused rather than read as something else.
#include "core/util/printf.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <QtTest>

#include <clocale>
#include <cmath>

using namespace pitwall;

class TestStrings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cleanup() { std::setlocale(LC_ALL, "C"); }
    void parsesPlainNumbers_data();
    void parsesPlainNumbers();
    void refusesOtherText_data();
    void refusesOtherText();
    void integersRefuseTwoSigns_data();
    void integersRefuseTwoSigns();
    void sameUnderDecimalCommaLocale();
    void formatRoundTrips();
    void durationsForPeople();
    void timestampsParse();
    void stringPrintfIsPrintf();
};

void TestStrings::parsesPlainNumbers_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("expected");
    QTest::newRow("decimal") << "0.0003" << 0.0003;
    QTest::newRow("leading plus") << "+2.5" << 2.5;
    QTest::newRow("negative exponent") << "3e-05" << 3e-05;
    QTest::newRow("capital exponent") << "1E3" << 1000.0;
    QTest::newRow("exponent with plus") << "1e+2" << 100.0;
    QTest::newRow("leading point") << ".5" << 0.5;
    QTest::newRow("trailing point") << "4." << 4.0;
    QTest::newRow("spaces trimmed") << "  -7.25 " << -7.25;
    QTest::newRow("overflow is inf") << "1e999" << HUGE_VAL;
    QTest::newRow("yaml inf") << ".inf" << HUGE_VAL;
    QTest::newRow("yaml -inf") << "-.inf" << -HUGE_VAL;
}

void TestStrings::parsesPlainNumbers()
{
    QFETCH(QString, text);
    QFETCH(double, expected);
    const auto v = parseDouble(text.toStdString());
    QVERIFY2(v.has_value(), qPrintable(text));
    QCOMPARE(*v, expected);
}

void TestStrings::refusesOtherText_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("two signs") << "+-5";
    QTest::newRow("two pluses") << "++5";
    QTest::newRow("hex float") << "0x1p3";
    QTest::newRow("hex integer") << "0x10";
    QTest::newRow("nan payload") << "nan(123)";
    QTest::newRow("infinity word") << "infinity";
    QTest::newRow("decimal comma") << "0,5";
    QTest::newRow("trailing text") << "1.5abc";
    QTest::newRow("sign only") << "-";
    QTest::newRow("empty") << "";
    QTest::newRow("two points") << "1.2.3";
}

void TestStrings::refusesOtherText()
{
    QFETCH(QString, text);
    QVERIFY2(!parseDouble(text.toStdString()).has_value(), qPrintable(text));
}

// Found by tests/fuzz/fuzz_numbers (corpus/numbers/crash-plus-minus-integer): parseInteger read "+-5" as -5
// (std::from_chars takes the '-' after the skipped '+'), so an override such as batch_size=+-5 was a number while
// parseDouble refused the same text. A sign is one character.
void TestStrings::integersRefuseTwoSigns_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("plus minus") << "+-5";
    QTest::newRow("two pluses") << "++5";
    QTest::newRow("plus only") << "+";
    QTest::newRow("minus plus") << "-+5";
}

void TestStrings::integersRefuseTwoSigns()
{
    QFETCH(QString, text);
    QVERIFY2(!parseInteger(text.toStdString()).has_value(), qPrintable(text));
    QCOMPARE(parseInteger("+5"), std::optional<long long>(5));
    QCOMPARE(parseInteger("-5"), std::optional<long long>(-5));
}

void TestStrings::sameUnderDecimalCommaLocale()
{
    // The install script generates de_DE.UTF-8; without it this test cannot show anything, so it fails.
    QVERIFY2(std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr,
             "locale de_DE.UTF-8 is missing: run packaging/install-deps.sh");
    const auto v = parseDouble("0.0003");
    QVERIFY(v.has_value());
    QCOMPARE(*v, 0.0003);
    QVERIFY(!parseDouble("0,5").has_value());
    QCOMPARE(formatDouble(0.5), std::string("0.5"));
    QCOMPARE(formatDouble(3e-05), std::string("3e-05"));
}

void TestStrings::formatRoundTrips()
{
    for (double x : {0.1, 1.0 / 3.0, 3e-05, 123456789.125, -2.5e300, 5e-324}) {
        const std::string text = formatDouble(x);
        QCOMPARE(parseDouble(text).value(), x);
    }
    QCOMPARE(formatDouble(0.1), std::string("0.1"));
    QCOMPARE(formatDouble(100.0), std::string("100"));
    QCOMPARE(formatDouble(HUGE_VAL), std::string("inf"));
}

QTEST_APPLESS_MAIN(TestStrings)
void TestStrings::timestampsParse()
{
    // 2024-03-05 06:07:08 UTC is 1709618828 s after the epoch. Optuna's form (space, microseconds), ISO's 'T', no
    // fraction, and a form only the general reader takes (one-digit fields) all give it; a wrong separator or a
    // non-digit does not.
    QCOMPARE(parseTimestamp("2024-03-05 06:07:08.250000").value_or(0), 1709618828.25);
    QCOMPARE(parseTimestamp("2024-03-05T06:07:08").value_or(0), 1709618828.0);
    QCOMPARE(parseTimestamp("2024-3-5 6:7:8").value_or(0), 1709618828.0);
    QCOMPARE(parseTimestamp(formatTimestamp(1709618828.5)).value_or(0), 1709618828.5);
    QVERIFY(!parseTimestamp("2024-03-05_06:07:08"));
    QVERIFY(!parseTimestamp("2024-03-x5 06:07:08"));
    QVERIFY(!parseTimestamp(""));
}

void TestStrings::durationsForPeople()
{
    QCOMPARE(pitwall::formatDuration(0), std::string("0 s"));
    QCOMPARE(pitwall::formatDuration(59.4), std::string("59 s"));
    QCOMPARE(pitwall::formatDuration(59.6), std::string("1 min 00 s"));
    QCOMPARE(pitwall::formatDuration(187), std::string("3 min 07 s"));
    QCOMPARE(pitwall::formatDuration(3600 * 2 + 5 * 60 + 59), std::string("2 h 05 min"));
    QCOMPARE(pitwall::formatDuration(-1), std::string());
    QCOMPARE(pitwall::formatDuration(std::nan("")), std::string());
}

// The text reports of core (devices, jobs, searches) are rendered with stringPrintf and printed as they are: it must
// give exactly what printf prints, at any length.
void TestStrings::stringPrintfIsPrintf()
{
    QCOMPARE(pitwall::stringPrintf("%-8s|%5.1f|%03d|%zu", "cpu:0.0", 2.5, 7, std::size_t(12)),
             std::string("cpu:0.0 |  2.5|007|12"));
    QCOMPARE(pitwall::stringPrintf("%s", ""), std::string());
    const std::string wide(5000, 'x');
    QCOMPARE(pitwall::stringPrintf("[%s]", wide.c_str()), "[" + wide + "]");
}

#include "tst_strings.moc"
