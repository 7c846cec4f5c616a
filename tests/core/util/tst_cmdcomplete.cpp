// Shell completion over a command tree (core/util/cmdcomplete.h): the next word of a command path, a command's
// options, and values from the caller at an option or a positional. If this fails, Tab offers words the command
// refuses (a hidden command, an option given twice) or completes an option's value as another option.
#include "core/util/cmdcomplete.h"

#include <QtTest>

using namespace pitwall::cmdline;

namespace {

std::vector<Command> tree()
{
    std::vector<Command> commands;
    commands.push_back({.path = "study list", .summary = "s", .options = {{"db", "FILE", ""}, {"json", "", ""}}});
    commands.push_back({.path = "study tell",
                        .summary = "s",
                        .options = {{"study", "NAME", ""}, {"value", "V", "", true}, {"json", "", ""}}});
    commands.push_back({.path = "train", .summary = "s", .usage = "CONFIG... [dotted.key=value...]",
                        .options = {{"study", "NAME", ""}, {"direction", "D", ""}}});
    commands.push_back({.path = "internal-run", .summary = "s", .hidden = true});
    commands.push_back({.path = "db info", .summary = "s"});
    return commands;
}

using Words = std::vector<std::string>;

// A value source that says where it was asked: "option:NAME:PREFIX" or "positional:N:PREFIX", plus two fixed
// candidates so the prefix filter shows.
std::vector<std::string> probe(const CompletionContext& at)
{
    const std::string where = at.option ? "option:" + at.option->name
                                        : "positional:" + std::to_string(at.args.positionals.size());
    return {where + ":" + at.prefix, "alpha", "beta"};
}

} // namespace

class TestCmdComplete : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void completesCommandPaths()
    {
        QCOMPARE(completeWords(tree(), {""}, 0, probe), (Words{"db", "study", "train"})); // no hidden command
        QCOMPARE(completeWords(tree(), {"st"}, 0, probe), (Words{"study"}));
        QCOMPARE(completeWords(tree(), {"study", ""}, 1, probe), (Words{"list", "tell"}));
        QCOMPARE(completeWords(tree(), {"study", "t"}, 1, probe), (Words{"tell"}));
        QCOMPARE(completeWords(tree(), {"study", "x"}, 1, probe), Words{});
        QCOMPARE(completeWords(tree(), {"internal-"}, 0, probe), Words{});
        QCOMPARE(completeWords(tree(), {}, 0, probe), (Words{"db", "study", "train"}));
    }

    void completesOptionsNotGivenYet()
    {
        QCOMPARE(completeWords(tree(), {"study", "tell", "--"}, 2, probe),
                 (Words{"--help", "--json", "--study", "--value"}));
        // a flag or single option given once is not offered again; a repeatable one is
        QCOMPARE(completeWords(tree(), {"study", "tell", "--json", "--study", "s", "--value", "1", "--"}, 7, probe),
                 (Words{"--help", "--value"}));
        QCOMPARE(completeWords(tree(), {"study", "tell", "--st"}, 2, probe), (Words{"--study"}));
        QCOMPARE(completeWords(tree(), {"study", "tell", "--study=s", "--"}, 3, probe),
                 (Words{"--help", "--json", "--value"}));
    }

    void asksTheSourceForValues()
    {
        // the word after an option that takes a value is that option's value, never an option
        QCOMPARE(completeWords(tree(), {"study", "tell", "--study", ""}, 3, probe),
                 (Words{"alpha", "beta", "option:study:"}));
        QCOMPARE(completeWords(tree(), {"study", "tell", "--study", "a"}, 3, probe), (Words{"alpha"}));
        QCOMPARE(completeWords(tree(), {"train", "--direction", "op"}, 2, probe), (Words{"option:direction:op"}));
        // positionals: the source learns how many came before
        QCOMPARE(completeWords(tree(), {"train", "a.yaml", "--study", "s", "pos"}, 4, probe),
                 (Words{"positional:1:pos"}));
        QCOMPARE(completeWords(tree(), {"train", "po"}, 1, probe), (Words{"positional:0:po"}));
        // a flag takes no value: the next word is a positional
        QCOMPARE(completeWords(tree(), {"study", "list", "--json", "p"}, 3, probe), (Words{"positional:0:p"}));
        // no source: nothing (the shell completes file names)
        QCOMPARE(completeWords(tree(), {"train", ""}, 1, {}), Words{});
    }

    void theCursorMayBeInTheMiddle()
    {
        // completing the command word of a longer line
        QCOMPARE(completeWords(tree(), {"stu", "tell", "--json"}, 0, probe), (Words{"study"}));
        QCOMPARE(completeWords(tree(), {"study", "tell", "--", "--json"}, 2, probe),
                 (Words{"--help", "--json", "--study", "--value"}));
        // an index past the end is a new word
        QCOMPARE(completeWords(tree(), {"study"}, 5, probe), (Words{"list", "tell"}));
    }
};

QTEST_GUILESS_MAIN(TestCmdComplete)
#include "tst_cmdcomplete.moc"
