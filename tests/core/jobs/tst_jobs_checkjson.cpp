// `pitwall <kind> ... --check --json`: a refused check prints {"ok": false, "problems": [...]} on stdout, each problem
// with the field of the job's spec it belongs to (the window shows it there by that field alone). If this fails, the
// window shows the CLI's problem at the wrong field, or at none.
#include "core/jobs/jobproblems.h"

#include "tests/support/testpaths.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace pitwall;
using pitwall::test::cliPath;
using pitwall::test::sourcePath;

class TestJobsCheckJson : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void problemsCarryTheirField_data();
    void problemsCarryTheirField();
    void aGoodCheckSaysOk();

private:
    struct Result {
        int exitCode = -1;
        QString out, err;
    };
    Result run(const QStringList& words);
    QStringList expand(QStringList words) const;

    QTemporaryDir m_dir;
    QString m_db;
};

TestJobsCheckJson::Result TestJobsCheckJson::run(const QStringList& words)
{
    QProcess cli;
    cli.setWorkingDirectory(m_dir.path());
    cli.start(cliPath(), words);
    if (!cli.waitForFinished(120000))
        return {};
    return {cli.exitCode(), QString::fromUtf8(cli.readAllStandardOutput()),
            QString::fromUtf8(cli.readAllStandardError())};
}

QStringList TestJobsCheckJson::expand(QStringList words) const
{
    for (QString& w : words) {
        w.replace("$SMOKE", sourcePath("/configs/transfuser/smoke.yaml"));
        w.replace("$SPACE", sourcePath("/configs/transfuser/hpo/speed_space.yaml"));
        w.replace("$DIR", m_dir.path());
    }
    return words << "--db" << m_db << "--check"
                 << "--json";
}

void TestJobsCheckJson::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath("check.db");
    const Result created = run({"study", "create", "--study", "taken", "--db", m_db});
    QVERIFY2(created.exitCode == 0, qPrintable(created.err));
    QVERIFY(QDir(m_dir.path()).mkpath("empty"));
    QFile notes(m_dir.filePath("empty/notes.txt"));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("not an image\n");
    notes.close();
    QFile space(m_dir.filePath("bad-space.yaml"));
    QVERIFY(space.open(QIODevice::WriteOnly));
    space.write("lr: {type: loguniform, min: 0.001\n"); // not closed: a YAML syntax error at its line
    space.close();
    QFile freeSpace(m_dir.filePath("free-space.yaml"));
    QVERIFY(freeSpace.open(QIODevice::WriteOnly));
    freeSpace.write("x: {type: uniform, min: -5, max: 5}\n"); // a free parameter for `study ask`, not for training
    freeSpace.close();
    QFile bench(m_dir.filePath("typo-bench.yaml"));
    QVERIFY(bench.open(QIODevice::WriteOnly));
    bench.write(("name: typo\nbase: [" + sourcePath("/configs/transfuser/smoke.yaml") +
                 "]\nvariants:\n  - {name: Typo, overrides: [policy.transfuser.upsample_mod=nearest]}\n")
                    .toUtf8());
    bench.close();
}

void TestJobsCheckJson::problemsCarryTheirField_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("says"); // a part of the message
    QTest::newRow("hpo trials") << QStringList{"hpo", "$SMOKE", "--space", "$SPACE", "--trials", "0"} << "trials"
                                << "--trials"
                                << "--trials '0' is not an integer >= 1";
    QTest::newRow("hpo no space") << QStringList{"hpo", "$SMOKE", "--trials", "2"} << "space"
                                  << "--space"
                                  << "--space SPACE.yaml is required";
    QTest::newRow("hpo study taken") << QStringList{"hpo",      "$SMOKE", "--space", "$SPACE",
                                                    "--trials", "2",      "--study", "taken"}
                                     << "study"
                                     << "--study"
                                     << "study 'taken' already exists";
    QTest::newRow("hpo objective") << QStringList{"hpo",      "$SMOKE", "--space",     "$SPACE",
                                                  "--trials", "2",      "--objective", "val/nope"}
                                   << "objective"
                                   << "--objective"
                                   << "val/nope";
    QTest::newRow("hpo sampler") << QStringList{"hpo",      "$SMOKE", "--space",   "$SPACE",
                                                "--trials", "2",      "--sampler", "cma"}
                                 << "sampler"
                                 << "--sampler"
                                 << "'cma' is not one of";
    QTest::newRow("hpo space file") << QStringList{"hpo", "$SMOKE", "--space", "$DIR/bad-space.yaml", "--trials", "2"}
                                    << "space"
                                    << "--space"
                                    << "bad-space.yaml:";
    // A training trial needs an override for every name: a name of no config key stays an error here.
    QTest::newRow("hpo free name") << QStringList{"hpo", "$SMOKE", "--space", "$DIR/free-space.yaml", "--trials", "2"}
                                   << "space"
                                   << "--space"
                                   << "free-space.yaml:1:1: 'x' is not a key of sections policy.transfuser, "
                                      "policy.transfuser.loss_weights";
    QTest::newRow("variants in the file") << QStringList{"bench", "variants", "$DIR/typo-bench.yaml"} << "file"
                                          << ""
                                          << "policy.transfuser.upsample_mod";
    QTest::newRow("variants seeds") << QStringList{"bench", "variants", "$DIR/typo-bench.yaml", "--seeds", "0,x"}
                                    << "seeds"
                                    << "--seeds"
                                    << "'x' is not a seed";
    QTest::newRow("partitions batch size")
        << QStringList{"bench", "partitions", "--config", "$SMOKE", "--batch-sizes", "8,100000", "--modes", "SPX"}
        << "batch_sizes"
        << "--batch-sizes"
        << "training.optimization.batch_size";
    QTest::newRow("partitions modes") << QStringList{"bench", "partitions", "--config", "$SMOKE", "--modes", "HPX"}
                                      << "modes"
                                      << "--modes"
                                      << "'HPX' is not one of";
    QTest::newRow("loader images") << QStringList{"bench", "loader", "--images", "$DIR/empty"} << "images"
                                   << "--images"
                                   << "no usable sample";
    QTest::newRow("driving run") << QStringList{"eval", "driving", "--policy", "999"} << "policy"
                                 << "--policy"
                                 << "999";
    QTest::newRow("driving routes") << QStringList{"eval", "driving", "--policy", "expert", "--routes", "0"} << "routes"
                                    << "--routes"
                                    << "--routes '0'";
    QTest::newRow("detection dataset") << QStringList{"eval", "detection", "--predictions", "$DIR/p.json"} << "dataset"
                                       << "--dataset"
                                       << "give the labelled dataset with --dataset DIR";
    QTest::newRow("detection ap") << QStringList{"eval", "detection", "--dataset", "$DIR/empty", "--ap", "voc"} << "ap"
                                  << "--ap"
                                  << "--ap 'voc' is not an AP method";
}

void TestJobsCheckJson::problemsCarryTheirField()
{
    QFETCH(QStringList, words);
    QFETCH(QString, field);
    QFETCH(QString, option);
    QFETCH(QString, says);
    const Result r = run(expand(words));
    QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1\n%2\n%3").arg(r.exitCode).arg(r.out, r.err)));
    const nlohmann::json document = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    QVERIFY2(document.is_object(), qPrintable(r.out + r.err));
    QCOMPARE(document.value("ok", true), false);
    const std::vector<JobProblem> problems = jobProblemsFromJson(document);
    QVERIFY2(!problems.empty(), qPrintable(r.out));
    QCOMPARE(QString::fromStdString(problems.front().field), field);
    QCOMPARE(QString::fromStdString(problems.front().option), option);
    QVERIFY2(QString::fromStdString(problems.front().message).contains(says), qPrintable(r.out));
    QVERIFY(!QFileInfo::exists(m_dir.filePath("pitwall-jobs"))); // a check starts nothing
}

void TestJobsCheckJson::aGoodCheckSaysOk()
{
    const Result r = run(expand({"hpo", "$SMOKE", "--space", "$SPACE", "--trials", "2", "--study", "fresh"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const nlohmann::json document = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    QCOMPARE(document.value("ok", false), true);
    QCOMPARE(document.value("study", std::string()), std::string("fresh"));
}

QTEST_GUILESS_MAIN(TestJobsCheckJson)
#include "tst_jobs_checkjson.moc"
