// The subcommand machinery under `pitwall` (core/util/cmdline.h): which command the words name, how options and
// positionals parse, the exit status of bad usage and of failing commands, and the job hooks. If this fails, a
// command gets other arguments than were typed, or a usage error reads as success (or the reverse).
#include "core/util/cmdline.h"
#include "core/util/error.h"

#include <QtTest>

#include <stdexcept>

using namespace pitwall;
using namespace pitwall::cmdline;

namespace {

// argv for CommandTree::run: "prog" then `words`.
int runWords(const CommandTree& tree, std::vector<std::string> words)
{
    words.insert(words.begin(), "prog");
    std::vector<char*> argv;
    for (std::string& w : words)
        argv.push_back(w.data());
    return tree.run(static_cast<int>(argv.size()), argv.data());
}

} // namespace

class TestCmdline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesOptionsAndPositionals();
    void badUsageIsExitTwo_data();
    void badUsageIsExitTwo();
    void longestPathWins();
    void errorsBecomeExitStatus();
    void listedCommandIsReplacedWhenLoaded();
    void jobHooksWrapJobCommands();
    void numberOptionsNameTheOption();
    void integerWithinChecksBothBounds();
    void referenceFillsTheCommandsText();
    void badReferenceNamesTheLine_data();
    void badReferenceNamesTheLine();
    void requiredNamesTheOption();
};

void TestCmdline::parsesOptionsAndPositionals()
{
    Args seen;
    CommandTree tree({"prog", "1.0", "a test program", "", "not loaded"});
    tree.add({"grp run",
              "runs",
              "[--db FILE]",
              "",
              {{"db", "FILE", ""}, {"flag", "", ""}, {"tag", "T", "", true}},
              [&](const Args& a) {
                  seen = a;
                  return kExitOk;
              }});
    QCOMPARE(runWords(tree, {"grp", "run", "a.yaml", "--db=x.db", "--tag", "one", "--flag", "--tag", "two", "--",
                             "--not-an-option"}),
             kExitOk);
    QCOMPARE(seen.value("db").value_or(""), std::string("x.db"));
    QVERIFY(seen.flag("flag"));
    QCOMPARE(seen.values("tag"), (std::vector<std::string>{"one", "two"}));
    QCOMPARE(seen.positionals, (std::vector<std::string>{"a.yaml", "--not-an-option"}));
    QCOMPARE(seen.database(), std::string("x.db"));
    QVERIFY(!seen.value("missing"));
    QCOMPARE(seen.value("missing", "fallback"), std::string("fallback"));
    QVERIFY(seen.values("missing").empty());
}

void TestCmdline::badUsageIsExitTwo_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<int>("status");
    QTest::newRow("unknown option") << QStringList{"grp", "run", "--colour"} << kExitBadInput;
    QTest::newRow("missing value") << QStringList{"grp", "run", "--db"} << kExitBadInput;
    QTest::newRow("flag with value") << QStringList{"grp", "run", "--flag=yes"} << kExitBadInput;
    QTest::newRow("given twice") << QStringList{"grp", "run", "--db", "a", "--db", "b"} << kExitBadInput;
    QTest::newRow("unknown command") << QStringList{"nothing"} << kExitBadInput;
    QTest::newRow("unknown subcommand") << QStringList{"grp", "walk"} << kExitBadInput;
    QTest::newRow("group help") << QStringList{"grp", "--help"} << kExitOk;
    QTest::newRow("command help") << QStringList{"grp", "run", "--help"} << kExitOk;
    QTest::newRow("overview") << QStringList{"--help"} << kExitOk;
    QTest::newRow("no command") << QStringList{} << kExitBadInput;
    QTest::newRow("version") << QStringList{"--version"} << kExitOk;
}

void TestCmdline::badUsageIsExitTwo()
{
    QFETCH(QStringList, words);
    QFETCH(int, status);
    bool ran = false;
    CommandTree tree({"prog", "1.0", "a test program", "", "not loaded"});
    tree.add({"grp run", "runs", "", "", {{"db", "FILE", ""}, {"flag", "", ""}}, [&](const Args&) {
                  ran = true;
                  return kExitOk;
              }});
    std::vector<std::string> argv;
    for (const QString& w : words)
        argv.push_back(w.toStdString());
    QCOMPARE(runWords(tree, argv), status);
    QVERIFY2(!ran, "the command ran although its words did not parse");
}

void TestCmdline::longestPathWins()
{
    std::string which;
    CommandTree tree;
    tree.add({"db", "", "", "", {}, [&](const Args&) {
                  which = "db";
                  return kExitOk;
              }});
    tree.add({"db info", "", "", "", {}, [&](const Args&) {
                  which = "db info";
                  return kExitOk;
              }});
    QCOMPARE(runWords(tree, {"db", "info"}), kExitOk);
    QCOMPARE(which, std::string("db info"));
    QCOMPARE(runWords(tree, {"db", "other"}), kExitOk); // "other" is a positional of "db"
    QCOMPARE(which, std::string("db"));
    QVERIFY(tree.knows("db"));
    QVERIFY(!tree.knows("info"));
}

void TestCmdline::errorsBecomeExitStatus()
{
    CommandTree tree;
    tree.add({"bad", "", "", "", {}, [](const Args&) -> int { throw InputError("bad input"); }});
    tree.add({"broken", "", "", "", {}, [](const Args&) -> int { throw std::runtime_error("it broke"); }});
    tree.add({"partial", "", "", "", {}, [](const Args&) { return 130; }});
    QCOMPARE(runWords(tree, {"bad"}), kExitBadInput);
    QCOMPARE(runWords(tree, {"broken"}), kExitFailure);
    QCOMPARE(runWords(tree, {"partial"}), 130);
}

void TestCmdline::listedCommandIsReplacedWhenLoaded()
{
    CommandTree tree;
    tree.addListed("train", "train a model");
    QVERIFY(tree.knows("train"));
    QCOMPARE(runWords(tree, {"train"}), kExitFailure); // listed, its code not loaded
    tree.add({"train", "train a model", "", "", {}, [](const Args&) { return kExitOk; }});
    QCOMPARE(tree.commands().size(), std::size_t(1));
    QCOMPARE(runWords(tree, {"train"}), kExitOk);
    tree.addListed("train", "again"); // a loaded command is not listed over
    QCOMPARE(tree.commands().size(), std::size_t(1));
}

void TestCmdline::jobHooksWrapJobCommands()
{
    int optionCalls = 0;
    std::string ranAs;
    bool ranPlain = false;
    JobHooks hooks{[&](Command& c) {
                       ++optionCalls;
                       c.options.push_back({"detach", "", ""});
                   },
                   [&](const Command& c, const Args& a, const std::vector<std::string>& words) {
                       ranAs = c.jobKind + ":" + words.front();
                       return c.run(a);
                   }};
    CommandTree tree({}, hooks);
    tree.add({"work", "", "", "", {}, [&](const Args&) {
                  ranPlain = true;
                  return kExitOk;
              }});
    QVERIFY_EXCEPTION_THROWN(tree.setJobKind("missing", "x"), std::logic_error);
    tree.setJobKind("work", "long-work");
    tree.setJobKind("work", "long-work"); // options are added once
    QCOMPARE(optionCalls, 1);
    QCOMPARE(runWords(tree, {"work", "--detach"}), kExitOk);
    QCOMPARE(ranAs, std::string("long-work:work"));
    QVERIFY(ranPlain);
}

void TestCmdline::numberOptionsNameTheOption()
{
    Args args;
    args.options["n"] = {"12"};
    args.options["bad"] = {"x"};
    args.options["low"] = {"-3"};
    args.options["rate"] = {"0.5"};
    QCOMPARE(args.integer("n", 0).value_or(-1), std::int64_t(12));
    QVERIFY(!args.integer("absent", 0));
    QCOMPARE(args.integer("absent", 7, 0), std::int64_t(7));
    QCOMPARE(args.integerIn("n", 0, 1, 20), std::int64_t(12));
    QCOMPARE(args.numberIn("rate", 1.0, 0.0, 1.0), 0.5);
    QCOMPARE(args.positive("rate", 2.0), 0.5);
    QCOMPARE(args.positive("absent", 2.0), 2.0);
    try {
        args.integer("low", 0);
        QFAIL("a negative count was taken");
    } catch (const InputError& e) {
        QCOMPARE(std::string(e.what()), std::string("--low '-3' is not an integer >= 0"));
    }
    QVERIFY_EXCEPTION_THROWN(args.integer("bad", 0), InputError);
    QVERIFY_EXCEPTION_THROWN(args.integerIn("n", 0, 1, 10), InputError);
    QVERIFY_EXCEPTION_THROWN(args.numberIn("rate", 0, 0.6, 1), InputError);
    QVERIFY_EXCEPTION_THROWN(args.positive("low", 1), InputError);
}

// The range check that integerIn and the commands with their own wording (bench loader) share: if this fails, a
// value outside the range is taken, or the bounds themselves are refused.
void TestCmdline::integerWithinChecksBothBounds()
{
    QCOMPARE(integerWithin("0", 0, 256).value_or(-1), std::int64_t(0));
    QCOMPARE(integerWithin("256", 0, 256).value_or(-1), std::int64_t(256));
    QVERIFY(!integerWithin("257", 0, 256));
    QVERIFY(!integerWithin("-1", 0, 256));
    QVERIFY(!integerWithin("12x", 0, 256));
    QVERIFY(!integerWithin("", 0, 256));
    Args args;
    args.options["threads"] = {"100000"};
    try {
        args.integerIn("threads", 0, 0, 256);
        QFAIL("a value above the range was taken");
    } catch (const InputError& e) {
        QCOMPARE(std::string(e.what()), std::string("--threads '100000': give an integer in 0..256"));
    }
}

// A reference document as docs/commands.md lays it out: the text before the first section is the document's own,
// a section without a description has none, continuation lines of the usage keep their indentation.
void TestCmdline::referenceFillsTheCommandsText()
{
    const std::string markdown = "# Reference\n\nIntro text; ## prog is not a heading here.\n\n"
                                 "## prog grp run\n\nruns the thing\n\n"
                                 "```text\nprog grp run FILE [--db FILE]\n       [--flag]\n```\n\n"
                                 "```text\nFirst paragraph\n  indented line\n\nSecond paragraph.\n```\n\n"
                                 "## prog grp list\n\nlists\nthings\n\n```text\nprog grp list\n```\n\n"
                                 "## Not a command\n\nignored\n";
    const auto reference = parseCommandReference(markdown, "prog", "ref.md");
    QCOMPARE(reference.size(), std::size_t(2));
    const CommandText& run = reference.at("grp run");
    QCOMPARE(run.summary, std::string("runs the thing"));
    QCOMPARE(run.usage, std::string("FILE [--db FILE]\n       [--flag]"));
    QCOMPARE(run.description, std::string("First paragraph\n  indented line\n\nSecond paragraph."));
    const CommandText& list = reference.at("grp list");
    QCOMPARE(list.summary, std::string("lists things")); // a summary over two lines is one line
    QCOMPARE(list.usage, std::string());
    QCOMPARE(list.description, std::string());

    // A command's empty texts come from its section; its own text wins.
    ProgramInfo program{"prog", "1.0", "a test program", "", "not loaded", reference};
    CommandTree tree(program);
    tree.add({.path = "grp run", .run = [](const Args&) { return kExitOk; }});
    tree.add({.path = "grp list", .summary = "own summary", .run = [](const Args&) { return kExitOk; }});
    tree.add({.path = "grp other", .summary = "undocumented", .run = [](const Args&) { return kExitOk; }});
    QCOMPARE(tree.commands()[0].summary, run.summary);
    QCOMPARE(tree.commands()[0].usage, run.usage);
    QCOMPARE(tree.commands()[0].description, run.description);
    QCOMPARE(tree.commands()[1].summary, std::string("own summary"));
    QCOMPARE(tree.commands()[2].usage, std::string());
}

void TestCmdline::badReferenceNamesTheLine_data()
{
    QTest::addColumn<QString>("markdown");
    QTest::addColumn<QString>("message");
    QTest::newRow("no summary") << "intro\n## prog a\n\n```text\nprog a\n```\n"
                                << "ref.md:2: the section of 'prog a' needs its summary line, then its usage";
    QTest::newRow("no usage") << "## prog a\n\nsummary\n\nno block\n"
                              << "ref.md:1: the section of 'prog a' needs its summary line, then its usage";
    QTest::newRow("usage of another command") << "## prog a\n\nsummary\n\n```text\nprog b --x\n```\n"
                                              << "ref.md:1: the usage of 'prog a' must start with 'prog a'";
    QTest::newRow("usage that only starts like it") << "## prog a\n\nsummary\n\n```text\nprog ab\n```\n"
                                                    << "ref.md:1: the usage of 'prog a' must start with 'prog a'";
    QTest::newRow("block not closed") << "## prog a\n\nsummary\n\n```text\nprog a\n```\n\n```text\nopen\n"
                                      << "ref.md:9: the ```text block is not closed";
    QTest::newRow("twice") << "## prog a\n\ns\n\n```text\nprog a\n```\n## prog a\n\ns\n\n```text\nprog a\n```\n"
                           << "ref.md:8: 'prog a' is documented twice";
}

void TestCmdline::badReferenceNamesTheLine()
{
    QFETCH(QString, markdown);
    QFETCH(QString, message);
    try {
        parseCommandReference(markdown.toStdString(), "prog", "ref.md");
        QFAIL("no error");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(message), e.what());
    }
}

void TestCmdline::requiredNamesTheOption()
{
    Args args;
    args.options["study"] = {"s1"};
    args.options["empty"] = {""};
    QCOMPARE(args.required("study", "the study"), std::string("s1"));
    for (const char* name : {"empty", "absent"}) {
        try {
            args.required(name, "what it is for");
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()), "--" + std::string(name) + " is required: what it is for");
        }
    }
}

QTEST_GUILESS_MAIN(TestCmdline)
#include "tst_cmdline.moc"
