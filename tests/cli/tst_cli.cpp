// The `pitwall` command line as a user meets it: help, exit codes, messages, JSON output.
#include "clitestutil.h"

#include "core/engine/train/partitionbenchreport.h"
#include "core/store/jobstore.h"
#include "core/store/store.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void helpAndUsage();
    void referenceDocumentsEveryCommand();
    void unknownCommandAndOption();
    void controlCharactersNeverReachTheTerminal();
    void configShowWithOverrides();
    void configShowJson();
    void configErrorsExitTwo();
    void configSchemaJson();
    void devicesJson();
    void dbMigrateInfoExport();
    void dbExportRowByRow();
    void dbCommandsRejectBadInput();
    void dbUsesEnvironmentDefault();
    void benchVariantsChecksEveryVariantFirst();

private:
    QString config(const QString& name) const { return sourcePath("/configs/") + name; }
};

void TestCli::helpAndUsage()
{
    const CliResult none = runCli({});
    QCOMPARE(none.exitCode, 2);
    QVERIFY(none.out.contains("Usage: pitwall COMMAND"));
    const CliResult help = runCli({"--help"});
    QCOMPARE(help.exitCode, 0);
    for (const char* command : {"config show", "config validate", "config schema", "db info", "db migrate", "db export",
                                "devices", "plugins"})
        QVERIFY2(help.out.contains(command), command);
    const CliResult sub = runCli({"db", "export", "--help"});
    QCOMPARE(sub.exitCode, 0);
    QVERIFY(sub.out.contains("--format FORMAT"));
    QVERIFY(sub.out.contains("$PITWALL_DB"));
    const CliResult group = runCli({"db"});
    QCOMPARE(group.exitCode, 2);
    QVERIFY(group.out.contains("db migrate"));
    QCOMPARE(runCli({"--version"}).exitCode, 0);
}

// docs/commands.md is what --help prints: every section is a command whose help shows its summary, usage and
// description, every command of the overview (the engine's too) has a section, and the values the reference
// states from the code (job kinds, the heartbeat grace, the partition benchmark's default config) are the code's.
void TestCli::referenceDocumentsEveryCommand()
{
    QFile file(sourcePath("/docs/commands.md"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n');
    QStringList documented;
    for (int i = 0; i < lines.size(); ++i) {
        if (!lines[i].startsWith("## pitwall "))
            continue;
        const QString path = lines[i].mid(QStringLiteral("## pitwall ").size()).trimmed();
        documented << path;
        const QString summary = lines.value(i + 2);
        const QString usage = lines.value(i + 5);
        const CliResult help = runCli(path.split(' ') + QStringList{"--help"});
        QVERIFY2(help.exitCode == 0, qPrintable(path + ": " + help.err));
        QVERIFY2(help.out.startsWith("Usage: " + usage), qPrintable(path + ": " + help.out));
        QVERIFY2(help.out.contains("\n\n" + summary + "\n"), qPrintable(path));
        int end = i + 5;
        while (end < lines.size() && lines[end] != "```")
            ++end;
        if (lines.value(end + 2) == "```text") // the description's first line
            QVERIFY2(help.out.contains("\n\n" + lines.value(end + 3)), qPrintable(path));
    }
    QVERIFY(documented.size() >= 30);
    const CliResult overview = runCli({"--help"});
    const QString commands = overview.out.section("Commands:\n", 1).section("\n\n", 0, 0);
    int listed = 0;
    for (const QString& line : commands.split('\n')) {
        const QString path = line.trimmed().section("  ", 0, 0);
        QVERIFY2(documented.contains(path), qPrintable(path + " has no section in docs/commands.md"));
        ++listed;
    }
    QCOMPARE(listed, documented.size());
    for (const char* path : {"train", "hpo", "bench loader", "eval driving", "data synth", "engine info"})
        QVERIFY2(documented.contains(path), path); // the engine's commands are in the overview too

    const QString jobs = runCli({"jobs", "list", "--help"}).out;
    QVERIFY(jobs.contains("(" + QString::fromStdString(join(jobKinds(), ", ")) + ")"));
    QVERIFY(jobs.contains("after " + QString::fromStdString(formatDouble(kJobHeartbeatGraceSeconds)) +
                          " s without a heartbeat"));
    QVERIFY(runCli({"bench", "partitions", "--help"})
                .out.contains(QString("Default config: ") + engine::kPartitionBenchDefaultConfig + "."));
}

void TestCli::unknownCommandAndOption()
{
    const CliResult command = runCli({"devics"});
    QCOMPARE(command.exitCode, 2);
    QVERIFY2(command.err.contains("unknown command 'devics'; did you mean 'devices'?"), qPrintable(command.err));
    const CliResult option = runCli({"db", "info", "--jsn"});
    QCOMPARE(option.exitCode, 2);
    QVERIFY2(option.err.contains("unknown option '--jsn'; did you mean '--json'?"), qPrintable(option.err));
    const CliResult missing = runCli({"db", "info", "--db"});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("option '--db' needs a value (FILE)"), qPrintable(missing.err));
}

// A name with a terminal escape and a line break (an edited or shared results file, or a careless script) is
// printed escaped by every command that shows it: no raw ESC byte reaches the terminal, and a table row stays one
// line (issue: `study list` printed "\x1b[31m" raw and broke the table).
void TestCli::controlCharactersNeverReachTheTerminal()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("escapes.db");
    const QString name = QString::fromUtf8("red\x1b[31mX\nline2");
    const CliResult created = runCli({"study", "create", "--study", name, "--db", db});
    QCOMPARE(created.exitCode, 0);
    const QString escaped = QStringLiteral("red\\x1b[31mX\\nline2");
    QVERIFY2(created.out.contains("created study '" + escaped + "'"), qPrintable(created.out));
    const CliResult list = runCli({"study", "list", "--db", db});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains(escaped), qPrintable(list.out));
    QCOMPARE(list.out.count('\n'), 2); // the header and one row
    const CliResult best = runCli({"study", "best", "--study", name, "--db", db});
    QCOMPARE(best.exitCode, 1);
    QVERIFY2(best.err.contains("study '" + escaped + "' has no complete trial yet"), qPrintable(best.err));
    // An error message that quotes the name (no such study) and an unknown command word.
    const CliResult missing = runCli({"study", "best", "--study", name + "2", "--db", db});
    QCOMPARE(missing.exitCode, 2);
    const CliResult unknown = runCli({"study", "\x1b[2J"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("unknown subcommand 'study \\x1b[2J'"), qPrintable(unknown.err));
    for (const CliResult* r : {&created, &list, &best, &missing, &unknown})
        QVERIFY2(!r->out.contains(QChar(0x1b)) && !r->err.contains(QChar(0x1b)), qPrintable(r->out + r->err));
}

void TestCli::configShowWithOverrides()
{
    const CliResult r = runCli({"config", "show", config("transfuser/logits_nearest.yaml"),
                                "training.optimization.batch_size=96", "policy.transfuser.upsample_mode=bilinear"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("batch_size: 96  # override 'training.optimization.batch_size=96'"), qPrintable(r.out));
    QVERIFY2(r.out.contains("upsample_perspective_logits: true  # " + config("transfuser/logits_nearest.yaml") + ":4:1"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("lr: 0.0003  # " + config("transfuser/baseline.yaml") + ":"), qPrintable(r.out));
    QVERIFY2(r.out.contains("data_root") == false, "keys are nested, not flattened");
    const CliResult changed =
        runCli({"config", "show", config("transfuser/batch96.yaml"), "--changed", "--no-origins"});
    QCOMPARE(changed.exitCode, 0);
    QVERIFY(changed.out.contains("batch_size: 96\n"));
    QVERIFY2(!changed.out.contains("weight_decay"), "--changed must leave out values equal to the default");
}

void TestCli::configShowJson()
{
    const CliResult r = runCli({"config", "show", config("transfuser/no_depth.yaml"), "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(doc["config"]["policy"]["transfuser"]["use_depth"].toBool(true), false);
    QCOMPARE(doc["config"]["training"]["optimization"]["batch_size"].toInt(), 64);
    QVERIFY(doc["origins"]["policy.transfuser.use_depth"].toString().endsWith("no_depth.yaml:4:1"));
}

void TestCli::configErrorsExitTwo()
{
    QTemporaryDir dir;
    QFile bad(dir.filePath("bad.yaml"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("training:\n  optimization:\n    batch_size: big\n");
    bad.close();
    const CliResult r = runCli({"config", "validate", bad.fileName()});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(bad.fileName() + ":3:17: 'training.optimization.batch_size': expected an integer, got 'big'"),
             qPrintable(r.err));
    const CliResult missing = runCli({"config", "validate", dir.filePath("none.yaml")});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("not found"), qPrintable(missing.err));
    const CliResult good = runCli({"config", "validate", config("transfuser/baseline.yaml")});
    QCOMPARE(good.exitCode, 0);
    QVERIFY(good.out.startsWith("valid:"));
    QCOMPARE(runCli({"config", "validate"}).exitCode, 2);
}

void TestCli::configSchemaJson()
{
    const CliResult r = runCli({"config", "schema", "--json", "--speed"});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray keys = QJsonDocument::fromJson(r.out.toUtf8()).object()["keys"].toArray();
    QVERIFY(keys.size() >= 10);
    bool sawTransfuser = false;
    for (const auto& k : keys) {
        QVERIFY(k.toObject()["speed"].toBool());
        sawTransfuser |= k.toObject()["owner"].toString() == "transfuser";
    }
    QVERIFY2(sawTransfuser, "plugin keys must be in the schema the CLI reports");
}

void TestCli::devicesJson()
{
    const CliResult r = runCli({"devices", "--json", "--mode", "DPX"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QJsonObject cpu = doc["backends"].toArray()[0].toObject();
    QCOMPARE(cpu["name"].toString(), QString("cpu"));
    QVERIFY(cpu["devices"].toArray()[0].toObject()["cores"].toInt() >= 1);
    QVERIFY(cpu["devices"].toArray()[0].toObject()["memory_bytes"].toDouble() > 0);
    QCOMPARE(cpu["modes"].toArray().size(), 4);
    const QJsonArray logical = cpu["logical_devices"].toArray();
    if (cpu["devices"].toArray()[0].toObject()["cores"].toInt() >= 2)
        QCOMPARE(logical.size(), 2);
    QCOMPARE(runCli({"devices", "--mode", "XPX"}).exitCode, 2);
    QCOMPARE(runCli({"devices", "--mode", "CPX", "--json"}).exitCode,
             cpu["devices"].toArray()[0].toObject()["cores"].toInt() >= 8 ? 0 : 2);
}

void TestCli::dbMigrateInfoExport()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("results.db");
    const CliResult migrate = runCli({"db", "migrate", "--db", db});
    QCOMPARE(migrate.exitCode, 0);
    QVERIFY(QFile::exists(db));
    {
        auto store = openStore(db.toStdString());
        const auto study = store->createStudy("cli-study", {StudyDirection::Maximize});
        Distribution lr;
        lr.low = 1e-5;
        lr.high = 1e-1;
        lr.log = true;
        for (int i = 0; i < 3; ++i) {
            const TrialRecord t = store->createTrial(study);
            store->setTrialParam(t.id, "lr", 1e-3 * (i + 1), lr);
            store->finishTrial(t.id, TrialState::Complete, {0.5 + 0.1 * i});
        }
    }
    const CliResult info = runCli({"db", "info", "--db", db, "--json"});
    QCOMPARE(info.exitCode, 0);
    const QJsonObject doc = QJsonDocument::fromJson(info.out.toUtf8()).object();
    QCOMPARE(doc["studies"].toInt(), 1);
    QCOMPARE(doc["trials"].toInt(), 3);
    QCOMPARE(doc["pending_migrations"].toInt(), 0);
    QCOMPARE(doc["optuna_schema_version"].toInt(), 12);
    QCOMPARE(doc["study_list"].toArray()[0].toObject()["best_value"].toDouble(), 0.7);

    const CliResult csv = runCli({"db", "export", "--db", db, "--study", "cli-study", "--format", "csv"});
    QCOMPARE(csv.exitCode, 0);
    const QStringList lines = csv.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    QVERIFY2(lines[0].contains("params_lr"), qPrintable(lines[0]));
    QVERIFY2(lines[2].contains("0.002"), qPrintable(lines[2]));

    const QString out = dir.filePath("trials.json");
    QCOMPARE(runCli({"db", "export", "--db", db, "--study", "cli-study", "--format", "json", "--out", out}).exitCode, 0);
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonDocument json = QJsonDocument::fromJson(file.readAll());
    QVERIFY(!json.isNull());
}

// `db export` of a study with known trials: a finite value, an infinite one, a failed trial without a value and
// a parameter that the failed trial never got. Every cell of the CSV and every field of the JSON is checked, so a
// shifted column, a lost inf, a failed trial read as complete or a value printed with too few digits fails here.
void TestCli::dbExportRowByRow()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("known.db");
    std::vector<TrialRecord> known;
    {
        auto store = openStore(db.toStdString());
        const auto study = store->createStudy("known", {StudyDirection::Minimize});
        Distribution lr;
        lr.low = 1e-5, lr.high = 1e-1, lr.log = true;
        Distribution layers;
        layers.kind = Distribution::Kind::Int, layers.low = 1, layers.high = 8;
        const TrialRecord a = store->createTrial(study);
        store->setTrialParam(a.id, "lr", 0.00125, lr);
        store->setTrialParam(a.id, "layers", 3, layers);
        store->finishTrial(a.id, TrialState::Complete, {0.3125});
        const TrialRecord b = store->createTrial(study);
        store->setTrialParam(b.id, "lr", 0.0625, lr);
        store->setTrialParam(b.id, "layers", 8, layers);
        store->finishTrial(b.id, TrialState::Complete, {HUGE_VAL});
        const TrialRecord c = store->createTrial(study);
        store->setTrialParam(c.id, "lr", 1e-5, lr);
        store->finishTrial(c.id, TrialState::Fail, {});
        known = store->trials(study);
    }
    QCOMPARE(known.size(), std::size_t(3));
    const auto time = [](const std::optional<double>& t) { return t ? formatTimestamp(*t) : std::string(); };
    const auto duration = [](const TrialRecord& t) { return formatDouble(*t.completeTime - *t.startTime); };
    const auto times = [&](const TrialRecord& t) {
        return time(t.startTime) + "," + time(t.completeTime) + "," + duration(t);
    };

    const CliResult csv = runCli({"db", "export", "--db", db, "--study", "known", "--format", "csv"});
    QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
    const QStringList rows = csv.out.split("\r\n");
    const QStringList expected{"number,state,value,datetime_start,datetime_complete,duration_s,params_layers,params_lr",
                               QString::fromStdString("0,COMPLETE,0.3125," + times(known[0]) + ",3,0.00125"),
                               QString::fromStdString("1,COMPLETE,inf," + times(known[1]) + ",8,0.0625"),
                               QString::fromStdString("2,FAIL,," + times(known[2]) + ",,1e-05"),
                               ""}; // the piece after the last CRLF
    QCOMPARE(rows, expected);

    const QString out = dir.filePath("known.json");
    const CliResult json = runCli({"db", "export", "--db", db, "--study", "known", "--format", "json", "--out", out});
    QVERIFY2(json.exitCode == 0, qPrintable(json.err));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray trials = QJsonDocument::fromJson(file.readAll()).array();
    QCOMPARE(trials.size(), 3);
    const auto fields = [](const QJsonObject& o) {
        QJsonObject rest = o;
        for (const char* key : {"datetime_start", "datetime_complete", "duration_s"})
            rest.remove(key);
        return rest;
    };
    QCOMPARE(
        fields(trials[0].toObject()),
        (QJsonObject{
            {"number", 0}, {"state", "COMPLETE"}, {"value", 0.3125}, {"params_layers", 3}, {"params_lr", 0.00125}}));
    QCOMPARE(fields(trials[1].toObject()),
             (QJsonObject{
                 {"number", 1}, {"state", "COMPLETE"}, {"value", "inf"}, {"params_layers", 8}, {"params_lr", 0.0625}}));
    QCOMPARE(fields(trials[2].toObject()), (QJsonObject{{"number", 2},
                                                        {"state", "FAIL"},
                                                        {"value", QJsonValue::Null},
                                                        {"params_layers", QJsonValue::Null},
                                                        {"params_lr", 1e-05}}));
    for (qsizetype i = 0; i < trials.size(); ++i) {
        const QJsonObject t = trials[i].toObject();
        const TrialRecord& record = known[static_cast<std::size_t>(i)];
        QCOMPARE(t["datetime_start"].toString().toStdString(), time(record.startTime));
        QCOMPARE(t["datetime_complete"].toString().toStdString(), time(record.completeTime));
        QVERIFY(std::abs(t["duration_s"].toDouble() - (*record.completeTime - *record.startTime)) < 1e-9);
    }
}

void TestCli::dbCommandsRejectBadInput()
{
    QTemporaryDir dir;
    const QString missing = dir.filePath("missing.db");
    const CliResult info = runCli({"db", "info", "--db", missing});
    QCOMPARE(info.exitCode, 2);
    QVERIFY2(info.err.contains(missing), qPrintable(info.err));
    QVERIFY2(!QFile::exists(missing), "db info must not create a database");

    QFile notDb(dir.filePath("notes.db"));
    QVERIFY(notDb.open(QIODevice::WriteOnly));
    notDb.write("these are not the tables you are looking for\n");
    notDb.close();
    const QByteArray before = [&] { QFile f(notDb.fileName()); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    QCOMPARE(runCli({"db", "info", "--db", notDb.fileName()}).exitCode, 2);
    QCOMPARE(runCli({"db", "migrate", "--db", notDb.fileName()}).exitCode, 2);
    QFile after(notDb.fileName());
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), before); // a foreign file is never changed

    const QString db = dir.filePath("ok.db");
    QCOMPARE(runCli({"db", "migrate", "--db", db}).exitCode, 0);
    const CliResult unknownStudy = runCli({"db", "export", "--db", db, "--study", "nope"});
    QCOMPARE(unknownStudy.exitCode, 2);
    QVERIFY2(unknownStudy.err.contains("nope"), qPrintable(unknownStudy.err));
    QCOMPARE(runCli({"db", "export", "--db", db}).exitCode, 2);
    QCOMPARE(runCli({"db", "export", "--db", db, "--study", "x", "--format", "xml"}).exitCode, 2);
    QCOMPARE(runCli({"db", "export", "--db", db, "--run", "abc"}).exitCode, 2);
}

void TestCli::dbUsesEnvironmentDefault()
{
    QTemporaryDir dir;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PITWALL_DB", dir.filePath("from-env.db"));
    QCOMPARE(runCli({"db", "migrate"}, dir.path(), env).exitCode, 0);
    QVERIFY(QFile::exists(dir.filePath("from-env.db")));
    env.remove("PITWALL_DB");
    QCOMPARE(runCli({"db", "migrate"}, dir.path(), env).exitCode, 0);
    QVERIFY(QFile::exists(dir.filePath("pitwall.db")));
}

// A variant that cannot run (fp16 on the CPU) is bad input found before the first variant trains: exit 2, the
// variant named, no results file.
void TestCli::benchVariantsChecksEveryVariantFirst()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("bench.db");
    const CliResult r =
        runCli({"bench", "variants", sourcePath("/configs/transfuser/gpu.yaml"), "--db", db, "device.backend=cpu"},
               dir.path());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("variant 'Compile fp16'") && r.err.contains("fp16 needs a CUDA/HIP device"),
             qPrintable(r.err));
    QVERIFY(!r.out.contains("== variant") && !r.err.contains("== variant"));
    QVERIFY(!QFile::exists(db));
    QVERIFY(!QFile::exists(dir.filePath("runs")));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
