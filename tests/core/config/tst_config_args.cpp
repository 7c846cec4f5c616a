// Config files and overrides from a command's words (core/config/configargs.h), as `pitwall config`, train, bench and
// hpo read them. If this fails, a command takes an override for a file (or the reverse), a relative config path
// reaches a worker that runs elsewhere, or a missing config is not reported.
#include "core/config/configargs.h"
#include "core/util/error.h"

#include <QtTest>

#include <filesystem>

using namespace pitwall;

class TestConfigArgs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitsFilesFromOverrides();
    void absolutePathsComeFromConfigThenPositionals();
    void resolvesOrSaysWhatIsMissing();
};

void TestConfigArgs::splitsFilesFromOverrides()
{
    cmdline::Args args;
    args.positionals = {"a.yaml", "training.optimization.batch_size=4", "dir/x=1.yaml", "b.yaml", "experiment.name=s"};
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    // "dir/x=1.yaml" has a '/' before its '=': a file whose name holds '=', not an override.
    QCOMPARE(files, (std::vector<std::string>{"a.yaml", "dir/x=1.yaml", "b.yaml"}));
    QCOMPARE(overrides, (std::vector<std::string>{"training.optimization.batch_size=4", "experiment.name=s"}));
}

void TestConfigArgs::absolutePathsComeFromConfigThenPositionals()
{
    cmdline::Args args;
    args.options["config"] = {"first.yaml", "/abs/second.yaml"};
    args.positionals = {"sub/../third.yaml", "experiment.name=s"};
    std::vector<std::string> files, overrides;
    absoluteConfigArgs(args, files, overrides);
    const std::string cwd = std::filesystem::current_path().string();
    QCOMPARE(files, (std::vector<std::string>{cwd + "/first.yaml", "/abs/second.yaml", cwd + "/third.yaml"}));
    QCOMPARE(overrides, (std::vector<std::string>{"experiment.name=s"}));
}

void TestConfigArgs::resolvesOrSaysWhatIsMissing()
{
    cmdline::Args none;
    try {
        resolveConfigArgs(none, false);
        QFAIL("nothing to resolve was accepted");
    } catch (const InputError& e) {
        QCOMPARE(std::string(e.what()), std::string("give at least one config file or dotted.key=value override"));
    }
    cmdline::Args onlyOverride;
    onlyOverride.positionals = {"experiment.name=from-args"};
    try {
        resolveConfigArgs(onlyOverride, true);
        QFAIL("a command that needs a config file ran without one");
    } catch (const InputError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("give a config file (e.g. configs/transfuser/smoke.yaml), then any dotted.key=value overrides"));
    }
    const ResolvedConfig config = resolveConfigArgs(onlyOverride, false);
    QCOMPARE(config.getString("experiment.name"), std::string("from-args"));
    QCOMPARE(config.getString("experiment.output_dir"), std::string("runs")); // the schema's default
    QVERIFY(schemaWithWarnings().find("experiment.name") != nullptr);
}

QTEST_GUILESS_MAIN(TestConfigArgs)
#include "tst_config_args.moc"
