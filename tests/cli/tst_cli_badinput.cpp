// Bad input at the `pitwall` command line: each is refused with exit status 2 and a message that says where.
#include "clitestutil.h"

#include "core/store/internal/sqlite.h"
#include "core/store/jobstore.h"
#include "core/store/store.h"
#include "tests/support/components.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <optional>

#include <unistd.h>

#include "tests/support/testpaths.h"

using pitwall::test::cliPath;
using pitwall::test::sourcePath;

class TestCliBadInput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void configValidateRefuses_data();
    void configValidateRefuses();
    void infiniteValuesStayDistinct();
    void readOnlyFolderIsReadable();
    void studyNameStaysInOutputFolder_data();
    void studyNameStaysInOutputFolder();
    void refusedSearchCreatesNothing_data();
    void refusedSearchCreatesNothing();
    void damagedDatabaseIsRefused();
    void databaseThatStoresNothingIsRefused_data();
    void databaseThatStoresNothingIsRefused();
    void directoryGivenForFileIsNamed_data();
    void directoryGivenForFileIsNamed();
    void detachedBadInputFailsInForeground();
    void readOnlyFolderListsJobs();
    void racingResumesRunOnce();

private:
    QString config(const QString& name) const { return sourcePath("/configs/") + name; }
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
    QTest::newRow("infinite loss weight")
        << QStringList{"policy.transfuser.loss_weights.depth=inf"} << "inf is not a finite number";
    QTest::newRow("no stage trains") << QStringList{"training.stages.pretrain.epochs=0",
                                                    "training.stages.posttrain.epochs=0"}
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
    const CliResult explicitInf =
        runCli({"study", "tell", "--db", db, "--study", "s", "--trial", "3", "--value", "-inf"});
    QCOMPARE(explicitInf.exitCode, 0);
    QVERIFY2(!explicitInf.err.contains("beyond the range"), qPrintable(explicitInf.err));
}

namespace {

// What runs a command without write permission on files of other users: nothing for a user who is not root,
// `setpriv` to nobody for root (file modes do not apply to root); nullopt when that is not available.
std::optional<QStringList> withoutWritePermission()
{
    if (::geteuid() != 0)
        return QStringList{};
    const QString setpriv = QStandardPaths::findExecutable("setpriv");
    if (setpriv.isEmpty())
        return std::nullopt;
    return QStringList{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"};
}

CliResult runCliAs(const QStringList& prefix, const QStringList& args)
{
    QProcess process;
    const QStringList command = prefix + QStringList{cliPath()} + args;
    process.start(command.front(), command.mid(1));
    process.waitForFinished(60000);
    return CliResult{process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
                     QString::fromUtf8(process.readAllStandardError())};
}

} // namespace

// A WAL results file in a folder the user cannot write (so SQLite cannot create its -shm file) is still read by
// the read-only commands, and they write nothing. Root ignores file modes, so as root the commands run as
// nobody (setpriv); before the fix they failed with "attempt to write a readonly database".
void TestCliBadInput::readOnlyFolderIsReadable()
{
    const auto prefix = withoutWritePermission();
    if (!prefix)
        PITWALL_SKIP_OPTIONAL("running as root without setpriv: cannot take away write permission");
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db");
    QCOMPARE(runCli({"study", "create", "--db", db, "--study", "kept"}).exitCode, 0);
    QVERIFY(!QFile::exists(db + "-wal")); // a clean close leaves the database alone, in WAL mode
    const QByteArray before = [&] {
        QFile f(db);
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }();
    const auto readOnly = QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther;
    QVERIFY(QFile::setPermissions(db, readOnly));
    QVERIFY(QFile::setPermissions(dir.path(), readOnly | QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther));
    const auto run = [&](const QStringList& args) { return runCliAs(*prefix, args); };
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

namespace {

// A one-parameter free space and a trial command (no shell, no Python) that reports objective 1.
struct CommandSearch {
    QTemporaryDir dir;
    QString space = dir.filePath("space.yaml");
    QString script = dir.filePath("trial.sh");
    QString work = dir.filePath("work");
    CommandSearch()
    {
        QDir().mkpath(work);
        QFile s(space);
        s.open(QIODevice::WriteOnly);
        s.write("x: {type: uniform, min: 0, max: 1}\n");
        QFile t(script);
        t.open(QIODevice::WriteOnly);
        t.write("#!/bin/sh\necho '{\"objective\": 1}'\n");
    }
    // The environment without $PITWALL_DB, so the default results file is ./pitwall.db in `work`.
    static QProcessEnvironment environment()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("PITWALL_DB");
        return env;
    }
};

QStringList filesUnder(const QString& root)
{
    QStringList out;
    QDirIterator it(root, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(root).relativeFilePath(it.next());
    out.sort();
    return out;
}

} // namespace

// A study name is data, not a path: "/abs" once wrote /abs/best_params.yaml at the file-system root and
// "../../escaped" wrote two folders above the run folder. Both must land in a folder under runs/ of the
// working directory (the default output folder of a command search), and nothing may appear outside it.
void TestCliBadInput::studyNameStaysInOutputFolder_data()
{
    QTest::addColumn<bool>("absolute");
    QTest::addColumn<QString>("name");
    QTest::newRow("absolute path") << true << "abs/study";
    QTest::newRow("parent folders") << false << "../../escaped";
    QTest::newRow("dot") << false << ".";
}

void TestCliBadInput::studyNameStaysInOutputFolder()
{
    QFETCH(bool, absolute);
    QFETCH(QString, name);
    CommandSearch search;
    QTemporaryDir elsewhere; // where an absolute study name pointed
    const QString study = absolute ? elsewhere.filePath(name) : name;
    const QString inner = search.dir.filePath("work/a/b"); // ../../ from here is still inside search.dir
    QVERIFY(QDir().mkpath(inner));
    const CliResult r = runCli({"hpo", "--space", search.space, "--trials", "1", "--partition", "SPX", "--command",
                                "sh " + search.script, "--study", study, "--db", search.dir.filePath("s.db")},
                               inner, CommandSearch::environment());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(filesUnder(elsewhere.path()).isEmpty(), qPrintable(filesUnder(elsewhere.path()).join(", ")));
    // Everything the search wrote besides the database is under <working directory>/runs.
    QStringList outside;
    for (const QString& file : filesUnder(search.dir.path()))
        if (!file.startsWith("work/a/b/runs") &&
            !QStringList{"space.yaml", "trial.sh", "work", "work/a", "work/a/b"}.contains(file) &&
            !file.startsWith("s.db"))
            outside << file;
    QVERIFY2(outside.isEmpty(), qPrintable(outside.join(", ")));
    const QStringList written = filesUnder(inner + "/runs");
    const auto best =
        std::find_if(written.begin(), written.end(), [](const QString& f) { return f.endsWith("/best_params.yaml"); });
    QVERIFY2(best != written.end(), qPrintable(written.join(", ")));
    QVERIFY2(!best->contains(".."), qPrintable(*best));
    QVERIFY2(r.out.contains(QDir(inner + "/runs").filePath(*best)), qPrintable(r.out));
    // The study keeps its name in the database.
    auto store = pitwall::openStore(search.dir.filePath("s.db").toStdString(), pitwall::OpenMode::ReadOnly);
    QVERIFY(store->findStudy(study.toStdString()).has_value());
}

// A search refused for bad input (exit 2) leaves the working directory as it was: no results file, no run
// folders, no job logs. The {epochs} message must say that --epochs is missing.
void TestCliBadInput::refusedSearchCreatesNothing_data()
{
    QTest::addColumn<QString>("space");
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown placeholder") << "space.yaml"
                                         << "{nope}"
                                         << "unknown placeholder {nope}";
    QTest::newRow("missing space file") << "missing.yaml"
                                        << ""
                                        << "missing.yaml: cannot read file";
    QTest::newRow("epochs without --epochs") << "space.yaml"
                                             << "{epochs}"
                                             << "add --epochs E";
}

void TestCliBadInput::refusedSearchCreatesNothing()
{
    QFETCH(QString, space);
    QFETCH(QString, command);
    QFETCH(QString, expected);
    CommandSearch search;
    const CliResult r = runCli({"hpo", "--space", search.dir.filePath(space), "--trials", "1", "--command",
                                "sh " + search.script + " " + command},
                               search.work, CommandSearch::environment());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QVERIFY2(filesUnder(search.work).isEmpty(), qPrintable(filesUnder(search.work).join(", ")));
}

// A results file with a damaged page: `db info` reads it as malformed, and a command that writes (study
// create) must refuse it with exit 2 and a plain message, leaving the file byte for byte as it was (SQLite
// would otherwise write into it and could spread the damage).
void TestCliBadInput::damagedDatabaseIsRefused()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("d.db");
    QCOMPARE(runCli({"study", "create", "--db", db, "--study", "kept"}).exitCode, 0);
    {
        auto store = pitwall::openStore(db.toStdString());
        const auto study = store->requireStudy("kept");
        for (int i = 0; i < 200; ++i) // trials over several pages, so the damage is in the middle of the file
            store->setTrialUserAttr(store->createTrial(study.id).id, "padding", std::string(200, 'p'));
    }
    QFile file(db);
    QVERIFY(file.open(QIODevice::ReadWrite));
    const qint64 pageBytes = 4096;
    QVERIFY2(file.size() >= 8 * pageBytes, qPrintable(QString::number(file.size())));
    QVERIFY(file.seek(file.size() / pageBytes / 2 * pageBytes));
    file.write(QByteArray(pageBytes, char(0xA5)));
    file.close();
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray damaged = file.readAll();
    file.close();

    const CliResult create = runCli({"study", "create", "--db", db, "--study", "more"});
    QCOMPARE(create.exitCode, 2);
    QVERIFY2(create.err.contains("the results database is damaged") && create.err.contains("restore it from a copy"),
             qPrintable(create.err));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), damaged);
    QVERIFY(!QFile::exists(db + "-wal") || QFileInfo(db + "-wal").size() == 0);
}

// SQLite reads ":memory:" and "file:" URIs as databases that are not (or not only) the named file: `study create`
// said "created study" and exited 0 with nothing stored. Each must be refused with exit 2 and a message, and
// leave no file behind ("file:kept.db" would have created kept.db).
void TestCliBadInput::databaseThatStoresNothingIsRefused_data()
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("expected");
    const QString memory = "an in-memory database stores nothing";
    const QString uri = "SQLite URIs (file:...) are not accepted";
    QTest::newRow(":memory:") << ":memory:" << memory;
    QTest::newRow("sqlite:///:memory:") << "sqlite:///:memory:" << memory;
    QTest::newRow("file: mode=memory") << "file:x?mode=memory" << uri;
    QTest::newRow("file::memory:") << "file::memory:" << uri;
    QTest::newRow("file: URI of a file") << "file:kept.db" << uri;
    QTest::newRow("sqlite:/// of a URI") << "sqlite:///file:z?mode=memory&cache=shared" << uri;
}

void TestCliBadInput::databaseThatStoresNothingIsRefused()
{
    QFETCH(QString, db);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const CliResult r = runCli({"study", "create", "--db", db, "--study", "s"}, dir.path());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(db + ": " + expected), qPrintable(r.err));
    QVERIFY2(!r.out.contains("created study"), qPrintable(r.out));
    QVERIFY2(filesUnder(dir.path()).isEmpty(), qPrintable(filesUnder(dir.path()).join(", ")));
}

// A directory where a file is expected is named as a directory, never "not found" (it is there) nor read as an
// empty file ("the search space is empty").
void TestCliBadInput::directoryGivenForFileIsNamed_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("config validate") << QStringList{"config", "validate", "DIR"}
                                     << "DIR: config file 'DIR' is a directory, not a YAML file";
    QTest::newRow("config show") << QStringList{"config", "show", "DIR"}
                                 << "config file 'DIR' is a directory, not a YAML file";
    QTest::newRow("included file") << QStringList{"config", "validate", "INCLUDE"}
                                   << "included file 'DIR' is a directory, not a YAML file";
    QTest::newRow("hpo --space") << QStringList{"hpo",      "--space",  "DIR", "--command",
                                                "true {x}", "--trials", "1",   "--check"}
                                 << "DIR is a directory; give the search space's YAML file";
    QTest::newRow("study ask --space") << QStringList{"study", "ask", "--study", "s", "--space", "DIR"}
                                       << "DIR: is a directory, not a file";
    QTest::newRow("bench variants") << QStringList{"bench", "variants", "DIR", "--check"}
                                    << "DIR: is a directory, not a file";
}

void TestCliBadInput::directoryGivenForFileIsNamed()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString folder = dir.filePath("folder");
    QVERIFY(QDir().mkpath(folder));
    const QString include = dir.filePath("include.yaml");
    QFile file(include);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(("include: [" + folder + "]\n").toUtf8());
    file.close();
    QCOMPARE(runCli({"study", "create", "--db", dir.filePath("s.db"), "--study", "s"}).exitCode, 0);
    args.replaceInStrings("INCLUDE", include);
    args.replaceInStrings("DIR", folder);
    if (args.first() != "config") // config takes no --db
        args << "--db" << dir.filePath("s.db");
    const CliResult r = runCli(args, dir.path());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QString(expected).replace("DIR", folder)), qPrintable(r.err));
    QVERIFY2(!r.err.contains("not found") && !r.err.contains("is empty"), qPrintable(r.err));
}

// Issue 27, item 13: `hpo --detach` with bad input printed a job id and "follow it with: pitwall jobs log 1",
// exited 0, and the job's row was then removed. The command's check runs first, in the foreground: exit 2 with
// the problem, no job id, and nothing written.
void TestCliBadInput::detachedBadInputFailsInForeground()
{
    CommandSearch search;
    const CliResult r = runCli({"hpo", "--detach", "--space", search.dir.filePath("missing.yaml"), "--trials", "1",
                                "--command", "sh " + search.script},
                               search.work, CommandSearch::environment());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("missing.yaml"), qPrintable(r.err));
    QVERIFY2(r.out.trimmed().isEmpty(), qPrintable(r.out));
    QVERIFY2(!r.err.contains("follow it with"), qPrintable(r.err));
    QVERIFY2(filesUnder(search.work).isEmpty(), qPrintable(filesUnder(search.work).join(", ")));
}

// Issue 27, item 15: in a folder the user cannot write, `study list` and `db info` worked but `jobs list` failed
// ("attempt to write a readonly database"): reading jobs opened the file read-write. As root (file modes do not
// apply) the commands run as nobody, as in readOnlyFolderIsReadable.
void TestCliBadInput::readOnlyFolderListsJobs()
{
    const auto prefix = withoutWritePermission();
    if (!prefix)
        PITWALL_SKIP_OPTIONAL("running as root without setpriv: cannot take away write permission");
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db");
    std::int64_t id = 0;
    {
        pitwall::JobStore store(db.toStdString());
        id = store.create("train", pitwall::Json{{"argv", {"train", "x.yaml"}}}, pitwall::JobState::Running, 0, "");
        store.finish(id, pitwall::JobState::Finished, 0, "");
    }
    QVERIFY(!QFile::exists(db + "-wal"));
    const auto readOnly = QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther;
    QVERIFY(QFile::setPermissions(db, readOnly));
    QVERIFY(QFile::setPermissions(dir.path(), readOnly | QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther));
    const auto run = [&](const QStringList& args) { return runCliAs(*prefix, args); };
    const CliResult list = run({"jobs", "list", "--all", "--db", db});
    const CliResult show = run({"jobs", "show", QString::number(id), "--db", db});
    const CliResult stop = run({"jobs", "stop", QString::number(id), "--db", db});
    QVERIFY(QFile::setPermissions(dir.path(), readOnly | QFile::WriteOwner | QFile::ExeOwner));
    QVERIFY2(list.exitCode == 0 && list.out.contains("train") && list.out.contains("finished"),
             qPrintable(list.err + list.out));
    QVERIFY2(show.exitCode == 0 && show.out.contains("pitwall train x.yaml"), qPrintable(show.err + show.out));
    // A command that changes jobs says why it cannot, naming the file (and quotes no SQL).
    QCOMPARE(stop.exitCode, 2);
    QVERIFY2(stop.err.contains(db + ": the results database cannot be written here"), qPrintable(stop.err));
    QVERIFY(!QFile::exists(db + "-shm"));
}

// Issue 27, item 5: three `jobs resume 1` at once started two or three resumes of one job (three headers in its
// log). The resume claims the job in one statement; every other resume says it is already resuming. The job's
// trials wait (for a file the test creates once every resume has answered), so that a resume cannot come after
// the resumed job ended; which resume wins is up to the scheduler, that exactly one runs is not.
void TestCliBadInput::racingResumesRunOnce()
{
    CommandSearch search;
    const QString hold = search.dir.filePath("hold");
    const QString release = search.dir.filePath("release");
    {
        QFile t(search.script);
        QVERIFY(t.open(QIODevice::WriteOnly | QIODevice::Truncate));
        t.write(("#!/bin/sh\nif [ -e '" + hold + "' ]; then while [ ! -e '" + release +
                 "' ]; do sleep 0.1; done; fi\necho '{\"objective\": 1}'\n")
                    .toUtf8());
    }
    const QString db = search.dir.filePath("r.db");
    // The search's confirmations (core/search/resumereview.h) in a folder of the test's, not the user's.
    QProcessEnvironment env = CommandSearch::environment();
    env.insert("XDG_STATE_HOME", search.dir.filePath("state"));
    const CliResult first = runCli({"hpo", "--space", search.space, "--trials", "1", "--partition", "SPX", "--command",
                                    "sh " + search.script, "--study", "s", "--db", db},
                                   search.work, env);
    QVERIFY2(first.exitCode == 0, qPrintable(first.err + first.out));
    // A search of that study that failed an hour ago.
    std::int64_t id = 0;
    {
        pitwall::JobStore store(db.toStdString());
        const pitwall::Json spec{{"argv", {"hpo", "--resume", "s", "--trials", "3", "--partition", "SPX"}},
                                 {"cwd", search.work.toStdString()},
                                 {"db", db.toStdString()}};
        id = store.create("hpo", spec, pitwall::JobState::Running, 0, "");
        store.link(id, "study", "s");
        store.finish(id, pitwall::JobState::Failed, 1, "exit status 1");
        pitwall::store_internal::Connection edit(db.toStdString(),
                                                 pitwall::store_internal::ConnectionMode::ReadWriteCreate);
        edit.write([&] {
            edit.exec("UPDATE pitwall_jobs SET create_time = create_time - 3600, start_time = start_time - 3600, "
                      "end_time = end_time - 3600, heartbeat_time = heartbeat_time - 3600");
        });
    }
    QFile(hold).open(QIODevice::WriteOnly);
    constexpr int kResumes = 4;
    std::vector<std::unique_ptr<QProcess>> resumes;
    for (int i = 0; i < kResumes; ++i) {
        resumes.push_back(std::make_unique<QProcess>());
        resumes.back()->setProcessEnvironment(env);
        resumes.back()->setWorkingDirectory(search.work);
        resumes.back()->start(cliPath(), {"jobs", "resume", QString::number(id), "--db", db});
    }
    int started = 0;
    QString answers;
    for (auto& p : resumes) {
        QVERIFY(p->waitForFinished(120000));
        const QString err = QString::fromUtf8(p->readAllStandardError());
        answers += QString::number(p->exitCode()) + ": " + err;
        if (p->exitCode() == 0)
            ++started;
        else
            QVERIFY2(p->exitCode() == 2 && err.contains("job " + QString::number(id) + " is already resuming"),
                     qPrintable(err));
    }
    QFile(release).open(QIODevice::WriteOnly);
    QVERIFY2(started == 1, qPrintable(answers));
    auto job = [&] { return *pitwall::JobStore(db.toStdString(), pitwall::OpenMode::ReadOnly).job(id); };
    QTRY_VERIFY_WITH_TIMEOUT(pitwall::isFinal(job().state), 180000);
    QFile log(QString::fromStdString(job().logFile));
    QVERIFY2(log.open(QIODevice::ReadOnly), qPrintable(log.fileName()));
    const QString text = QString::fromUtf8(log.readAll());
    QCOMPARE(text.count("pitwall: job " + QString::number(id) + " (hpo)"), 1);
}

PITWALL_TEST_MAIN(TestCliBadInput)
#include "tst_cli_badinput.moc"
