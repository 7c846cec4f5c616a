// Every kind of bad configuration input gets an exact message with its place, and nothing is applied.
#include "configtestutil.h"

#include "core/config/config.h"
#include "core/util/paths.h"

#include <QtTest>

using namespace pitwall;

class TestConfigErrors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rejectsWithExactMessage_data();
    void rejectsWithExactMessage();
    void reportsEveryProblemAtOnce();
    void missingFileIsNamed();
    void includeCycleIsFound();
    void modelWithOwnEpochsNeedsNoStage();
    void includedSecretsAreNotQuoted();
    void configOverTheSizeLimitIsRefused();
};

void TestConfigErrors::rejectsWithExactMessage_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<QString>("expected"); // "{f}" stands for the file's path

    QTest::newRow("syntax error: line and column") << QByteArray("training:\n  optimization:\n    batch_size: [1, 2\n")
                                                   << QStringList() << "{f}:4:1: YAML syntax error:";
    QTest::newRow("syntax error: bad indentation") << QByteArray("experiment:\n  name: a\n   model: b\n") << QStringList()
                                                   << "{f}:3:9: YAML syntax error:";
    QTest::newRow("unknown key with suggestion")
        << QByteArray("training:\n  optimization:\n    batchsize: 96\n") << QStringList()
        << "{f}:3:5: unknown key 'training.optimization.batchsize'; did you mean 'training.optimization.batch_size'?";
    QTest::newRow("unknown section with suggestion")
        << QByteArray("trainng:\n  optimization:\n    batch_size: 96\n") << QStringList()
        << "{f}:1:1: unknown key 'trainng'; did you mean 'training'?";
    QTest::newRow("wrong type") << QByteArray("training.optimization.batch_size: many\n") << QStringList()
                                << "{f}:1:35: 'training.optimization.batch_size': expected an integer, got 'many'";
    QTest::newRow("float for int") << QByteArray("training.optimization.batch_size: 96.5\n") << QStringList()
                                   << "{f}:1:35: 'training.optimization.batch_size': expected an integer, got '96.5'";
    QTest::newRow("below range") << QByteArray("training.optimization.batch_size: 0\n") << QStringList()
                                 << "{f}:1:35: 'training.optimization.batch_size': 0 is below the minimum 1";
    QTest::newRow("exclusive minimum") << QByteArray("training.optimization.lr: 0\n") << QStringList()
                                       << "'training.optimization.lr': 0 is not above the minimum 0";
    QTest::newRow("above range") << QByteArray("training.optimization.weight_decay: 2\n") << QStringList()
                                 << "'training.optimization.weight_decay': 2 is above the maximum 1";
    QTest::newRow("nan in yaml") << QByteArray("training.optimization.lr: .nan\n") << QStringList()
                                 << "{f}:1:27: 'training.optimization.lr': nan is not a number";
    QTest::newRow("override NaN over a file value") << QByteArray("training.optimization.lr: 0.1\n") << QStringList{"training.optimization.lr=NaN"}
                                         << "command line: 'training.optimization.lr' in override 'training.optimization.lr=NaN': nan is not a number";
    QTest::newRow("inf above an open range") << QByteArray("policy.transfuser.loss_weights.depth: .inf\n") << QStringList()
                                             << "{f}:1:39: 'policy.transfuser.loss_weights.depth': inf is not a finite number";
    QTest::newRow("bad choice") << QByteArray("policy:\n  transfuser:\n    upsample_mode: linear\n") << QStringList()
                                << "{f}:3:20: 'policy.transfuser.upsample_mode': 'linear' is not one of: bilinear, nearest";
    QTest::newRow("bad loader") << QByteArray("data:\n  loader: dali\n") << QStringList()
                                << "{f}:2:11: 'data.loader': 'dali' is not one of: pitwall, reference";
    QTest::newRow("bad loader override") << QByteArray("") << QStringList{"data.loader=torch"}
                                         << "command line: 'data.loader' in override 'data.loader=torch': 'torch' is not one of: pitwall, reference";
    QTest::newRow("replication not a bool") << QByteArray("data.replicate_dataset_per_device: yes please\n") << QStringList()
                                            << "'data.replicate_dataset_per_device': expected true or false, got 'yes please'";
    QTest::newRow("bool expected") << QByteArray("policy.transfuser.use_depth: 2\n") << QStringList()
                                   << "'policy.transfuser.use_depth': expected true or false, got '2'";
    QTest::newRow("list element") << QByteArray("experiment.seeds: [1, x]\n") << QStringList()
                                  << "'experiment.seeds': expected a list of integers, got 'x' at position 2";
    QTest::newRow("every stage at 0 epochs")
        << QByteArray("training:\n  stages:\n    pretrain:\n      epochs: 0\n    posttrain:\n      epochs: 0\n") << QStringList()
        << "{f}:4:7: 'training.stages.pretrain.epochs': every training stage has 0 epochs (training.stages.pretrain.epochs, "
           "training.stages.posttrain.epochs), so nothing would train";
    QTest::newRow("every stage at 0 epochs by overrides")
        << QByteArray("") << QStringList{"training.stages.pretrain.epochs=0", "training.stages.posttrain.epochs=0"}
        << "command line: 'training.stages.pretrain.epochs' in override 'training.stages.pretrain.epochs=0': every training stage has 0 epochs";
    QTest::newRow("no seeds") << QByteArray("experiment.seeds: []\n") << QStringList()
                              << "{f}:1:1: 'experiment.seeds': the list is empty; give at least one training seed";
    QTest::newRow("repeated seed") << QByteArray("") << QStringList{"experiment.seeds=[1, 2, 1]"}
                                   << "command line: 'experiment.seeds' in override 'experiment.seeds=[1, 2, 1]': seed 1 is listed twice";
    QTest::newRow("section given a value") << QByteArray("training: fast\n") << QStringList()
                                           << "{f}:1:1: 'training' is a section; expected a mapping of its keys, got 'fast'";
    QTest::newRow("key set twice") << QByteArray("training.optimization.batch_size: 8\ntraining:\n  optimization:\n    batch_size: 9\n")
                                   << QStringList() << "{f}:4:5: key 'training.optimization.batch_size' is set twice in one document (first at {f}:1:1)";
    QTest::newRow("missing include") << QByteArray("include: nowhere.yaml\n") << QStringList()
                                     << "{f}:1:10: included file '{d}/nowhere.yaml' not found";
    QTest::newRow("document not a mapping") << QByteArray("- a\n- b\n") << QStringList()
                                            << "{f}:1:1: a config document must be a mapping of keys, got a list";
    QTest::newRow("override without =") << QByteArray("") << QStringList{"training.optimization.batch_size"}
                                        << "command line: override 'training.optimization.batch_size' is not of the form dotted.key=value";
    QTest::newRow("override unknown key") << QByteArray("") << QStringList{"policy.transfuser.upsample_mod=nearest"}
                                          << "command line: unknown key 'policy.transfuser.upsample_mod'; did you mean 'policy.transfuser.upsample_mode'?";
    QTest::newRow("override out of range") << QByteArray("") << QStringList{"training.optimization.batch_size=-4"}
                                           << "command line: 'training.optimization.batch_size' in override 'training.optimization.batch_size=-4': -4 is below the minimum 1";
    QTest::newRow("override nan") << QByteArray("") << QStringList{"training.optimization.lr=nan"}
                                  << "command line: 'training.optimization.lr' in override 'training.optimization.lr=nan': nan is not a number";
    QTest::newRow("override -inf") << QByteArray("") << QStringList{"policy.transfuser.loss_weights.depth=-inf"}
                                   << "'policy.transfuser.loss_weights.depth' in override 'policy.transfuser.loss_weights.depth=-inf': -inf is not a finite number";
    QTest::newRow("override no value") << QByteArray("") << QStringList{"training.optimization.batch_size="}
                                       << "command line: override 'training.optimization.batch_size=' has no value (expected an integer in [1, 65536])";
    // Found by tests/fuzz/fuzz_config (corpus/config/crash-invalid-utf8-name): bytes that are not UTF-8 were
    // accepted and then written back as U+FFFD, so a run's recorded config differed from the one it ran with.
    QTest::newRow("invalid UTF-8 in a string") << QByteArray("experiment.name: caf\xff\n") << QStringList()
                                               << "{f}:1:18: 'experiment.name': 'caf\\xff' is not valid UTF-8 text";
    QTest::newRow("override bad choice") << QByteArray("") << QStringList{"device.partition_mode=XPX"}
                                         << "'device.partition_mode' in override 'device.partition_mode=XPX': 'XPX' is not one of: SPX, DPX, QPX, CPX";
}

void TestConfigErrors::rejectsWithExactMessage()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, overrides);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string file = writeFile(dir, "cfg.yaml", yaml);
    std::vector<std::string> overrideList;
    for (const QString& o : overrides)
        overrideList.push_back(o.toStdString());
    expected.replace("{f}", QString::fromStdString(file)).replace("{d}", dir.path());
    try {
        resolveConfig(loadSchema(), {file}, overrideList);
        QFAIL("the input was accepted");
    } catch (const InputError& e) {
        const QString message = QString::fromStdString(e.what());
        QVERIFY2(message.contains(expected), qPrintable("got:      " + message + "\nexpected: " + expected));
    }
}

void TestConfigErrors::reportsEveryProblemAtOnce()
{
    QTemporaryDir dir;
    const auto f = writeFile(dir, "many.yaml", "training.optimization.batch_size: 0\npolicy.transfuser.upsample_mode: cubic\n");
    try {
        resolveConfig(loadSchema(), {f}, {"nonsense.key=1"});
        QFAIL("the input was accepted");
    } catch (const InputError& e) {
        QCOMPARE(e.diagnostics().size(), std::size_t(3));
        QCOMPARE(e.diagnostics()[0].where.line, 1);
        QCOMPARE(e.diagnostics()[1].where.line, 2);
        QCOMPARE(e.diagnostics()[2].where.file, std::string("command line"));
    }
}

void TestConfigErrors::missingFileIsNamed()
{
    try {
        resolveConfig(loadSchema(), {"/nonexistent/exp.yaml"}, {});
        QFAIL("the input was accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString(e.what()), QString("/nonexistent/exp.yaml: config file '/nonexistent/exp.yaml' not found"));
    }
}

void TestConfigErrors::includeCycleIsFound()
{
    QTemporaryDir dir;
    writeFile(dir, "a.yaml", "include: b.yaml\n");
    writeFile(dir, "b.yaml", "include: a.yaml\n");
    try {
        resolveConfig(loadSchema(), {dir.filePath("a.yaml").toStdString()}, {});
        QFAIL("the cycle was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("include cycle"), e.what());
        QVERIFY2(QString(e.what()).contains("b.yaml:1:10"), e.what());
    }
}

// AutoSpeed-lite trains autospeed.epochs and ignores training.stages.*: turning the stages off is no error there.
void TestConfigErrors::modelWithOwnEpochsNeedsNoStage()
{
    const ResolvedConfig config = resolveConfig(loadSchema(), {},
                                                {"experiment.model=autospeed", "training.stages.pretrain.epochs=0",
                                                 "training.stages.posttrain.epochs=0"});
    QCOMPARE(config.getInt("training.stages.pretrain.epochs"), 0LL);
}

// Issue 27, 11: a config that includes a shadow-style file (`user:hash:...:::` reads as one YAML key) printed the
// whole line in "unknown key '...'", so a 0600 file's hashes reached the terminal and a detached job's log. If this
// fails, a secret from a file that is no config is copied into messages again.
void TestConfigErrors::includedSecretsAreNotQuoted()
{
    QTemporaryDir dir;
    const std::string secret = "$6$abcdefgh$XYZsecretHASHvalue0123456789";
    writeFile(dir, "shadow", QByteArray::fromStdString("root:" + secret + ":19000:0:99999:7:::\n"));
    const std::string config = writeFile(dir, "cfg.yaml", "include: shadow\n");
    try {
        resolveConfig(loadSchema(), {config}, {});
        QFAIL("the shadow file was accepted as a config");
    } catch (const InputError& e) {
        const QString message = QString::fromStdString(e.what());
        QVERIFY2(!message.contains("XYZsecret") && !message.contains("19000"), qPrintable(message));
        QVERIFY2(message.contains(dir.filePath("shadow") + ":1:1: unknown key 'root…' (") &&
                     message.contains("not shown in full: is this a config file?"),
                 qPrintable(message));
    }
    // A key that looks like one is still quoted whole, with its suggestion.
    const std::string typo = writeFile(dir, "typo.yaml", "trainng: {}\n");
    try {
        resolveConfig(loadSchema(), {typo}, {});
        QFAIL("the typo was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("unknown key 'trainng'; did you mean 'training'?"), e.what());
    }
}

// Issue 27, 8: input files are read up to a limit (core/util/paths.h readTextFile, tested in tst_fileio): a config
// over it is refused with the file and the limit named, among the config's other problems.
void TestConfigErrors::configOverTheSizeLimitIsRefused()
{
    QTemporaryDir dir;
    const std::string big = writeFile(dir, "big.yaml", QByteArray(int(kMaxInputFileBytes) + 1, '#'));
    try {
        resolveConfig(loadSchema(), {big}, {});
        QFAIL("a config over the size limit was read");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains(QString::fromStdString(big) + ": is larger than 16 MiB (16777217 bytes)"),
                 e.what());
    }
}

QTEST_GUILESS_MAIN(TestConfigErrors)
#include "tst_config_errors.moc"
