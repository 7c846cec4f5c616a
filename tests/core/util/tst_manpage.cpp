// Man pages from the commands' --help texts (core/util/manpage.h): roff escaping, and pages that man(1) renders
// without a warning and that say what --help says. If this fails, `man pitwall-...` shows garbled text (a line that
// starts with '.' swallowed as a request, '-' drawn as a hyphen) or leaves out an option.
#include "core/util/manpage.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/support/components.h"

using namespace pitwall::cmdline;

namespace {

Command sampleCommand()
{
    Command c;
    c.path = "study tell";
    c.summary = "record a trial's result";
    c.usage = "--study NAME --trial N --value V...";
    c.description = "Stores the values of a trial that ran elsewhere.\n"
                    "A second line of the same paragraph.\n"
                    "\n"
                    "For example:\n"
                    "  pitwall study tell --study s --trial 3 --value 0.25\n"
                    ".hidden starts with a dot; back\\slash\n";
    c.options = {{"study", "NAME", "the study"}, {"value", "V", "one objective's value", true},
                 {"json", "", "print JSON"}};
    return c;
}

// `page` rendered by groff's man macros as text: its output and warnings ("" when groff is missing).
struct Rendered {
    QString text, warnings;
    bool ran = false;
};
Rendered render(const std::string& page)
{
    QProcess groff;
    groff.start("groff", {"-man", "-Tutf8", "-ww", "-rLL=200n"});
    if (!groff.waitForStarted())
        return {};
    groff.write(page.c_str());
    groff.closeWriteChannel();
    groff.waitForFinished();
    return {QString::fromUtf8(groff.readAllStandardOutput()), QString::fromUtf8(groff.readAllStandardError()), true};
}

QString plain(QString text)
{
    // groff's bold and underline are overstrikes (X\bX, _\bX); the text without them
    static const QRegularExpression overstrike(QStringLiteral(".\\x08"));
    return text.remove(overstrike);
}

} // namespace

class TestManPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void escapesWhatRoffReads()
    {
        QCOMPARE(roffEscape("a-b"), std::string("a\\-b"));
        QCOMPARE(roffEscape("back\\slash"), std::string("back\\eslash"));
        QCOMPARE(roffEscape(".TH at the start\n'quote\nmid.dle"), std::string("\\&.TH at the start\n\\&'quote\nmid.dle"));
        QCOMPARE(roffEscape(""), std::string());
    }

    void namesPagesByPath()
    {
        QCOMPARE(manPageName("pitwall", "study tell"), std::string("pitwall-study-tell"));
        QCOMPARE(manPageName("pitwall", "plugins"), std::string("pitwall-plugins"));
        QCOMPARE(manPageName("pitwall", ""), std::string("pitwall"));
    }

    void commandPageHasEverySection()
    {
        const std::string page = commandManPage({"pitwall", "0.1.0", "2026-12-05"}, sampleCommand());
        QVERIFY(page.find(".TH PITWALL-STUDY-TELL 1 \"2026-12-05\" \"Pitwall 0.1.0\"") != std::string::npos);
        QVERIFY(page.find(".SH NAME\npitwall\\-study\\-tell \\- record a trial's result\n") != std::string::npos);
        // the two text lines of the first paragraph are one filled paragraph; the example keeps its line
        QVERIFY(page.find("Stores the values of a trial that ran elsewhere. A second line of the same paragraph.") !=
                std::string::npos);
        QVERIFY(page.find(".nf\npitwall study tell \\-\\-study s \\-\\-trial 3 \\-\\-value 0.25\n.fi") !=
                std::string::npos);
        QVERIFY(page.find("\n\\&.hidden starts with a dot; back\\eslash") != std::string::npos);
        QVERIFY(page.find(".TP\n\\fB\\-\\-value\\fR \\fIV\\fR\none objective's value (repeatable)\n") != std::string::npos);
        QVERIFY(page.find(".TP\n\\fB\\-\\-json\\fR\nprint JSON\n") != std::string::npos);
        QVERIFY(page.find(".SH EXIT STATUS") != std::string::npos);
        QVERIFY(page.find(".BR pitwall (1),\n.BR pitwall\\-gui (1)\n") != std::string::npos);
    }

    void groffRendersThePageCleanly()
    {
        const Rendered out = render(commandManPage({"pitwall", "0.1.0", "2026-12-05"}, sampleCommand()));
        if (!out.ran)
            PITWALL_FAIL_MISSING("groff-base", QStringLiteral("groff did not start"));
        QVERIFY2(out.warnings.isEmpty(), qPrintable(out.warnings));
        const QString text = plain(out.text);
        QVERIFY2(text.contains("pitwall-study-tell - record a trial's result"), qPrintable(text));
        QVERIFY2(text.contains("--value V"), qPrintable(text));
        QVERIFY2(text.contains(".hidden starts with a dot; back\\slash"), qPrintable(text));
        QVERIFY2(text.contains("pitwall study tell --study s --trial 3 --value 0.25"), qPrintable(text));
    }

    void overviewListsVisibleCommands()
    {
        Command hidden;
        hidden.path = "internal-run";
        hidden.summary = "started by the program";
        hidden.hidden = true;
        const std::string page = overviewManPage({"pitwall", "0.1.0", "2026-12-05"}, "train models.",
                                                 "Exit status: 0 success.\n", {sampleCommand(), hidden});
        QVERIFY(page.find(".TP\n.B study tell\nrecord a trial's result (see\n.BR pitwall\\-study\\-tell (1))") !=
                std::string::npos);
        QVERIFY(page.find("internal") == std::string::npos);
        QVERIFY(page.find("Exit status: 0 success.") != std::string::npos);
        const Rendered out = render(page);
        if (!out.ran)
            PITWALL_FAIL_MISSING("groff-base", QStringLiteral("groff did not start"));
        QVERIFY2(out.warnings.isEmpty(), qPrintable(out.warnings));
    }

    void dateFollowsSourceDateEpoch()
    {
        qputenv("SOURCE_DATE_EPOCH", "86400");
        QCOMPARE(manPageDate(), std::string("1970-01-02"));
        qunsetenv("SOURCE_DATE_EPOCH");
        QCOMPARE(manPageDate().size(), std::size_t(10));
    }
};

QTEST_GUILESS_MAIN(TestManPage)
#include "tst_manpage.moc"
