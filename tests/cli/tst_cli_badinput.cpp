// Bad input at the `pitwall` command line: each is refused with exit status 2 and a message that says where.
#include "clitestutil.h"

#include "core/store/store.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include <unistd.h>

class TestCliBadInput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void configValidateRefuses_data();
    void configValidateRefuses();
    void infiniteValuesStayDistinct();
    void readOnlyFolderIsReadable();

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

// JSON has no infinity: an infinite objective is "inf" / "-inf" in every JSON output, never the null of a
// failed trial; a --value that overflows a double is stored as inf with a warning.
void TestCliBadInput::infiniteValuesStayDistinct()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("inf.db");
    QCOMPARE(runCli({"study", "create", "--db", db, "--study", "s", "--direction", "maximize"}).exitCode, 0);
    {
        auto store = pitwall::openStore(db.toStdString());
        const auto study = store->requireStudy("s");
        store->finishTrial(store->createTrial(study.id).id, pitwall::TrialState::Complete, {HUGE_VAL});
        store->finishTrial(store->createTrial(study.id).id, pitwall::TrialState::Fail, {});
        store->createTrial(study.id); // trials 2 and 3, running
        store->createTrial(study.id);
    }
    const CliResult best = runCli({"study", "best", "--db", db, "--study", "s", "--json"});
    QCOMPARE(best.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(best.out.toUtf8()).object()["value"].toString(), QString("inf"));

    const CliResult exported = runCli({"db", "export", "--db", db, "--study", "s", "--format", "json"});
    QCOMPARE(exported.exitCode, 0);
    const QJsonArray rows = QJsonDocument::fromJson(exported.out.toUtf8()).array();
    QCOMPARE(rows.size(), 4);
    QCOMPARE(rows[0].toObject()["value"].toString(), QString("inf"));
    QVERIFY(rows[1].toObject()["value"].isNull());

    const CliResult tell = runCli({"study", "tell", "--db", db, "--study", "s", "--trial", "2", "--value", "1e999"});
    QCOMPARE(tell.exitCode, 0);
    QVERIFY2(tell.err.contains("warning: --value '1e999' is beyond the range of a double; it is stored as inf"),
             qPrintable(tell.err));
    QVERIFY2(tell.out.contains("trial 2: COMPLETE (value inf)"), qPrintable(tell.out));
    const CliResult explicitInf = runCli({"study", "tell", "--db", db, "--study", "s", "--trial", "3", "--value", "-inf"});
    QCOMPARE(explicitInf.exitCode, 0);
    QVERIFY2(!explicitInf.err.contains("beyond the range"), qPrintable(explicitInf.err));
}

// A WAL results file in a folder the user cannot write (so SQLite cannot create its -shm file) is still read by
// the read-only commands, and they write nothing. Root ignores file modes, so as root the commands run as
// nobody (setpriv); before the fix they failed with "attempt to write a readonly database".
void TestCliBadInput::readOnlyFolderIsReadable()
{
    QStringList prefix;
    if (::geteuid() == 0) {
        const QString setpriv = QStandardPaths::findExecutable("setpriv");
        if (setpriv.isEmpty())
            QSKIP("running as root without setpriv: cannot take away write permission");
        prefix = {setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"};
    }
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db");
    QCOMPARE(runCli({"study", "create", "--db", db, "--study", "kept"}).exitCode, 0);
    QVERIFY(!QFile::exists(db + "-wal")); // a clean close leaves the database alone, in WAL mode
    const QByteArray before = [&] { QFile f(db); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    const auto readOnly = QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther;
    QVERIFY(QFile::setPermissions(db, readOnly));
    QVERIFY(QFile::setPermissions(dir.path(), readOnly | QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther));
    auto run = [&](const QStringList& args) {
        QProcess process;
        const QStringList command = prefix + QStringList{QStringLiteral(PITWALL_CLI)} + args;
        process.start(command.front(), command.mid(1));
        process.waitForFinished(60000);
        return CliResult{process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
                         QString::fromUtf8(process.readAllStandardError())};
    };
    const CliResult info = run({"db", "info", "--db", db});
    const CliResult list = run({"study", "list", "--db", db});
    QVERIFY(QFile::setPermissions(dir.path(), readOnly | QFile::WriteOwner | QFile::ExeOwner));
    QCOMPARE(info.exitCode, 0);
    QVERIFY2(info.out.contains("1 studies"), qPrintable(info.err + info.out));
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains("kept"), qPrintable(list.err + list.out));
    QVERIFY(!QFile::exists(db + "-shm"));
    QFile after(db);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), before);
}

QTEST_GUILESS_MAIN(TestCliBadInput)
#include "tst_cli_badinput.moc"
