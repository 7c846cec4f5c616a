// Bad input at the `pitwall` command line: each is refused with exit status 2 and a message that says where.
#include "clitestutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

class TestCliBadInput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void configValidateRefuses_data();
    void configValidateRefuses();

private:
    QString config(const QString& name) const { return QStringLiteral(PITWALL_SOURCE_DIR "/configs/") + name; }
};

void TestCliBadInput::configValidateRefuses_data()
{
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<QString>("expected");
    QTest::newRow("nan learning rate") << QStringList{"training.optimization.lr=nan"}
                                       << "command line: 'training.optimization.lr' in override "
                                          "'training.optimization.lr=nan': nan is not a number";
    QTest::newRow("yaml nan") << QStringList{"training.optimization.weight_decay=.nan"}
                              << "'training.optimization.weight_decay' in override "
                                 "'training.optimization.weight_decay=.nan': nan is not a number";
    QTest::newRow("infinite loss weight") << QStringList{"policy.transfuser.loss_weights.depth=inf"}
                                          << "inf is not a finite number";
    QTest::newRow("no stage trains")
        << QStringList{"training.stages.pretrain.epochs=0", "training.stages.posttrain.epochs=0"}
        << "every training stage has 0 epochs";
    QTest::newRow("no seeds") << QStringList{"experiment.seeds=[]"} << "the list is empty";
    QTest::newRow("repeated seeds") << QStringList{"experiment.seeds=[0, 0]"} << "seed 0 is listed twice";
}

void TestCliBadInput::configValidateRefuses()
{
    QFETCH(QStringList, overrides);
    QFETCH(QString, expected);
    const CliResult r = runCli(QStringList{"config", "validate", config("transfuser/baseline.yaml")} + overrides);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QVERIFY2(!r.out.contains("valid"), qPrintable(r.out));
}

QTEST_GUILESS_MAIN(TestCliBadInput)
#include "tst_cli_badinput.moc"
