// Jobs through the real command line, as a user runs them: a foreground training run records a finished job
// with its study and run; a search started with --detach returns at once, is stopped with `jobs stop` (cancelled,
// finished trials kept, no RUNNING trial left) and `jobs resume` completes it; a job whose process is killed
// shows as failed ("process vanished"); bad input leaves no job and no new results file; and the commands that
// do not train start without loading LibTorch. If this fails, jobs cannot be listed, stopped or resumed the
// way the README and `pitwall jobs --help` promise.
#include "../../cli/clitestutil.h"
#include "../../core/pool/schedtestutil.h"

#include "core/devices/devices.h"
#include "core/store/jobstore.h"
#include "core/store/store.h"

#include <QDir>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <map>
#include <vector>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;

namespace {
constexpr int kJobTimeoutMs = 240000;

QJsonObject showJob(const QString& db, const QString& id)
{
    const CliResult r = runCli({"jobs", "show", id, "--db", db, "--json"});
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

int trialsIn(const QString& db, const std::string& study, TrialState state)
{
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    const auto s = store->findStudy(study);
    if (!s)
        return 0;
    int n = 0;
    for (const TrialRecord& t : store->trials(s->id))
        n += t.state == state ? 1 : 0;
    return n;
}

QStringList hpoArgs(const QString& db, const QString& partition)
{
    // Trials long enough (two epochs per stage on 120 frames, a few seconds each) that the search is still
    // running when the test stops it right after the first trial finished.
    return {"hpo",
            sourcePath("/configs/transfuser/smoke.yaml"),
            "data.synthetic.frames=120",
            "--space",
            sourcePath("/configs/transfuser/hpo/speed_space.yaml"),
            "--trials",
            "4",
            "--epochs",
            "2",
            "--partition",
            partition,
            "--sampler",
            "random",
            "--seed",
            "5",
            "--study",
            "jobs-hpo",
            "--db",
            db};
}
} // namespace

class TestJobsCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void foregroundTrainRecordsFinishedJob();
    void detachedSearchStopsAndResumes();
    void trainingStopKeepsEpochsAndResumeFinishes();
    void everyKindRecordsItsJob();
    void hpoFinalIsItsOwnJob();
    void killedJobShowsVanished();
    void badInputLeavesNothing();
    void searchCheckWritesNothing();
    void benchChecksWriteNothing();
    void commandsThatDoNotTrainLoadNoLibTorch();
};

void TestJobsCli::foregroundTrainRecordsFinishedJob()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("t.db");
    const CliResult r = runCli({"train", sourcePath("/configs/transfuser/smoke.yaml"), "data.synthetic.frames=40",
                                "training.stages.pretrain.epochs=1", "training.stages.posttrain.epochs=1", "--db", db},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QRegularExpressionMatch m = QRegularExpression("pitwall: job (\\d+) \\(train\\)").match(r.err);
    QVERIFY2(m.hasMatch(), qPrintable(r.err));
    const QJsonObject job = showJob(db, m.captured(1));
    QCOMPARE(job["kind"].toString(), QString("train"));
    QCOMPARE(job["state"].toString(), QString("finished"));
    QCOMPARE(job["exit_code"].toInt(), 0);
    QCOMPARE(job["progress"].toDouble(), 1.0);
    QCOMPARE(job["spec"].toObject()["argv"].toArray().first().toString(), QString("train"));
    QStringList links;
    for (const QJsonValue& l : job["links"].toArray())
        links << l.toObject()["kind"].toString() + ":" + l.toObject()["ref"].toString();
    QVERIFY2(links.contains("study:transfuser-smoke"), qPrintable(links.join(",")));
    QVERIFY2(links.filter(QRegularExpression("^run:\\d+$")).size() == 1, qPrintable(links.join(",")));
    // `eval driving --check` loads the run's model without driving or recording anything.
    const QString run = links.filter(QRegularExpression("^run:\\d+$")).first().mid(4);
    const CliResult check = runCli({"eval", "driving", "--policy", run, "--routes", "2", "--check", "--db", db});
    QVERIFY2(check.exitCode == 0, qPrintable(check.err));
    QVERIFY2(check.out.contains("ok: run " + run + ": model 'transfuser' from "), qPrintable(check.out));
    QCOMPARE(QJsonDocument::fromJson(runCli({"jobs", "list", "--all", "--json", "--db", db}).out.toUtf8()).array().size(),
             1); // only the train job: --check records none
    const CliResult missing = runCli({"eval", "driving", "--policy", "99999", "--check", "--db", db});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("no run 99999"), qPrintable(missing.err));
    const CliResult noDb = runCli({"eval", "driving", "--policy", "3", "--check", "--db", dir.filePath("none.db")});
    QCOMPARE(noDb.exitCode, 2);
    QVERIFY2(noDb.err.contains("no such results database"), qPrintable(noDb.err));
    QVERIFY(!QFile::exists(dir.filePath("none.db")));
    // The printed output is the same as before, apart from the job line.
    QVERIFY(r.out.contains("study 'transfuser-smoke'"));
}

void TestJobsCli::detachedSearchStopsAndResumes()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("h.db");
    const QString partition = processCores().size() >= 2 ? "DPX" : "SPX";
    QStringList args = hpoArgs(db, partition);
    args << "--detach";
    const CliResult started = runCli(args, dir.path());
    QVERIFY2(started.exitCode == 0, qPrintable(started.err));
    const QString id = started.out.trimmed();
    QVERIFY2(QRegularExpression("^\\d+$").match(id).hasMatch(), qPrintable(started.out));

    // Running in the background: wait for the first finished trial, then stop gracefully.
    QTRY_VERIFY_WITH_TIMEOUT(trialsIn(db, "jobs-hpo", TrialState::Complete) + trialsIn(db, "jobs-hpo", TrialState::Pruned) >= 1,
                             kJobTimeoutMs);
    QCOMPARE(showJob(db, id)["state"].toString(), QString("running"));
    const CliResult stop = runCli({"jobs", "stop", id, "--wait", "--db", db});
    QVERIFY2(stop.exitCode == 0, qPrintable(stop.err));
    const QJsonObject stopped = showJob(db, id);
    QCOMPARE(stopped["state"].toString(), QString("cancelled"));
    QCOMPARE(trialsIn(db, "jobs-hpo", TrialState::Running), 0);
    const int kept = trialsIn(db, "jobs-hpo", TrialState::Complete) + trialsIn(db, "jobs-hpo", TrialState::Pruned);
    QVERIFY(kept >= 1);

    const CliResult resumed = runCli({"jobs", "resume", id, "--db", db});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QCOMPARE(resumed.out.trimmed(), id);
    QTRY_COMPARE_WITH_TIMEOUT(showJob(db, id)["state"].toString(), QString("finished"), kJobTimeoutMs);
    QCOMPARE(trialsIn(db, "jobs-hpo", TrialState::Complete) + trialsIn(db, "jobs-hpo", TrialState::Pruned), 4);
    QCOMPARE(trialsIn(db, "jobs-hpo", TrialState::Running), 0);
    // Its log is beside the database and holds the search's output.
    const CliResult log = runCli({"jobs", "log", id, "--db", db});
    QCOMPARE(log.exitCode, 0);
    QVERIFY(log.out.contains("jobs-hpo"));
    // A train job cannot be resumed while it is finished; an unknown id is bad input.
    QCOMPARE(runCli({"jobs", "resume", id, "--db", db}).exitCode, 2);
    QCOMPARE(runCli({"jobs", "show", "999", "--db", db}).exitCode, 2);
}

// The epochs ("epoch" metric rows, one per finished epoch) each stage has stored, in order.
std::map<std::string, std::vector<int>> finishedEpochs(const QString& db)
{
    std::map<std::string, std::vector<int>> out;
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    for (const MetricRow& row : store->metricsSince(0, 0))
        if (row.sample.key == "epoch")
            out[row.sample.stage].push_back(static_cast<int>(row.sample.value));
    return out;
}

void TestJobsCli::trainingStopKeepsEpochsAndResumeFinishes()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db");
    const CliResult started =
        runCli({"train", sourcePath("/configs/transfuser/smoke.yaml"), "data.synthetic.frames=80",
                "training.stages.pretrain.epochs=4", "training.stages.posttrain.epochs=2", "--db", db, "--detach"},
               dir.path());
    QVERIFY2(started.exitCode == 0, qPrintable(started.err));
    const QString id = started.out.trimmed();
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(db) && !finishedEpochs(db)["pretrain"].empty(), kJobTimeoutMs);
    QVERIFY2(runCli({"jobs", "stop", id, "--wait", "--db", db}).exitCode == 0, "jobs stop failed");
    QCOMPARE(showJob(db, id)["state"].toString(), QString("cancelled"));
    const auto kept = finishedEpochs(db);
    QVERIFY(!kept.at("pretrain").empty());
    QVERIFY2(kept.count("posttrain") == 0 || kept.at("posttrain").size() < 2, "the run finished before it was stopped");

    const CliResult resumed = runCli({"jobs", "resume", id, "--db", db});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QTRY_COMPARE_WITH_TIMEOUT(showJob(db, id)["state"].toString(), QString("finished"), kJobTimeoutMs);
    // Every epoch exactly once: the ones finished before the stop were not trained again.
    const auto all = finishedEpochs(db);
    QCOMPARE(all.at("pretrain"), (std::vector<int>{1, 2, 3, 4}));
    QCOMPARE(all.at("posttrain"), (std::vector<int>{1, 2}));
    QVERIFY(showJob(db, id)["spec"].toObject()["argv"].toArray().contains(QJsonValue("--resume")));
}

// Each long command, run in the foreground, leaves one finished job of its kind with the command line that
// starts it again.
void TestJobsCli::everyKindRecordsItsJob()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("kinds.db");
    QVERIFY2(runCli({"data", "synth", "--frames", "12", "--out", dir.filePath("synth")}, dir.path()).exitCode == 0, "data synth");
    struct Case {
        QString kind;
        QStringList args;
    };
    const QList<Case> cases{
        {"eval-driving", {"eval", "driving", "--policy", "expert", "--routes", "1", "--seed", "1"}},
        {"bench-loader", {"bench", "loader", "--dataset", dir.filePath("synth"), "--batch", "2", "--width", "256", "--height", "96", "--batches", "2", "--warmup", "1"}},
    };
    for (const Case& c : cases) {
        QStringList args = c.args;
        args << "--db" << db;
        const CliResult r = runCli(args, dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(c.kind + ": " + r.err.right(800)));
        QVERIFY2(r.err.contains("(" + c.kind + ")"), qPrintable(c.kind + ": " + r.err.right(300)));
    }
    const CliResult list = runCli({"jobs", "list", "--all", "--json", "--db", db});
    const QJsonArray jobs = QJsonDocument::fromJson(list.out.toUtf8()).array();
    QCOMPARE(jobs.size(), cases.size());
    for (const QJsonValue& j : jobs) {
        QCOMPARE(j.toObject()["state"].toString(), QString("finished"));
        QVERIFY(!j.toObject()["spec"].toObject()["argv"].toArray().isEmpty());
    }
    QCOMPARE(jobs[0].toObject()["kind"].toString(), QString("bench-loader")); // newest first
    QCOMPARE(jobs[1].toObject()["kind"].toString(), QString("eval-driving"));
}

namespace {
QStringList linksOf(const QJsonObject& job)
{
    QStringList links;
    for (const QJsonValue& l : job["links"].toArray())
        links << l.toObject()["kind"].toString() + ":" + l.toObject()["ref"].toString();
    return links;
}
} // namespace

// `hpo --final-epochs N`: the final comparison is a job of its own (hpo-final) inside the hpo job, linked to the
// final studies and runs, while the hpo job keeps the search's study and links to its child. The smallest
// AutoSpeed search of tst_hpo_builtin (two one-epoch trials, one final epoch).
void TestJobsCli::hpoFinalIsItsOwnJob()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("f.db");
    const CliResult r = runCli({"hpo",
                                sourcePath("/configs/autospeed/smoke.yaml"),
                                "autospeed.bn_momentum=0.3",
                                "--space",
                                sourcePath("/configs/autospeed/hpo/experiment2.yaml"),
                                "--trials",
                                "2",
                                "--epochs",
                                "1",
                                "--final-epochs",
                                "1",
                                "--partition",
                                "SPX",
                                "--sampler",
                                "random",
                                "--seed",
                                "1",
                                "--pruner",
                                "none",
                                "--db",
                                db},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(800)));
    QVERIFY(r.out.contains("held-out validation after 1 epoch(s)")); // the output is as before
    const QRegularExpressionMatch m = QRegularExpression("pitwall: job (\\d+) \\(hpo\\)").match(r.err);
    QVERIFY2(m.hasMatch(), qPrintable(r.err.right(800)));
    const QJsonArray jobs = QJsonDocument::fromJson(runCli({"jobs", "list", "--all", "--json", "--db", db}).out.toUtf8()).array();
    QCOMPARE(jobs.size(), 2);
    const QJsonObject final = showJob(db, QString::number(jobs[0].toObject()["id"].toInt())); // newest first
    const QJsonObject hpo = showJob(db, m.captured(1));
    QCOMPARE(final["kind"].toString(), QString("hpo-final"));
    QCOMPARE(final["state"].toString(), QString("finished"));
    QCOMPARE(final["exit_code"].toInt(), 0);
    QCOMPARE(hpo["kind"].toString(), QString("hpo"));
    QCOMPARE(hpo["state"].toString(), QString("finished"));
    QCOMPARE(final["spec"].toObject()["parent_job"].toInt(), hpo["id"].toInt());
    QCOMPARE(final["spec"].toObject()["final_epochs"].toInt(), 1);
    QCOMPARE(final["spec"].toObject()["argv"], hpo["spec"].toObject()["argv"]); // starting it again reruns the search
    const QStringList finalLinks = linksOf(final);
    QVERIFY2(finalLinks.contains("study:autospeed-smoke-hpo/final-default"), qPrintable(finalLinks.join(",")));
    QVERIFY2(finalLinks.contains("study:autospeed-smoke-hpo/final-optimised"), qPrintable(finalLinks.join(",")));
    QVERIFY2(finalLinks.filter(QRegularExpression("^run:\\d+$")).size() == 2, qPrintable(finalLinks.join(",")));
    QVERIFY2(!finalLinks.contains("study:autospeed-smoke-hpo"), qPrintable(finalLinks.join(",")));
    const QStringList hpoLinks = linksOf(hpo);
    QVERIFY2(hpoLinks.contains("study:autospeed-smoke-hpo"), qPrintable(hpoLinks.join(",")));
    QVERIFY2(hpoLinks.contains("job:" + QString::number(final["id"].toInt())), qPrintable(hpoLinks.join(",")));
    QVERIFY2(hpoLinks.filter("final-").isEmpty(), qPrintable(hpoLinks.join(",")));
}

void TestJobsCli::killedJobShowsVanished()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("k.db");
    QStringList args = hpoArgs(db, "SPX");
    args << "--detach";
    const CliResult started = runCli(args, dir.path());
    QVERIFY2(started.exitCode == 0, qPrintable(started.err));
    const QString id = started.out.trimmed();
    QTRY_VERIFY_WITH_TIMEOUT(showJob(db, id)["state"].toString() == "running" && showJob(db, id)["pid"].toInt() > 0,
                             kJobTimeoutMs);
    const int pid = showJob(db, id)["pid"].toInt();
    ::kill(-pid, SIGKILL); // the detached job leads its own session: it and its workers die without a word
    QTRY_COMPARE_WITH_TIMEOUT(showJob(db, id)["state"].toString(), QString("failed"), 30000);
    QVERIFY2(showJob(db, id)["error"].toString().startsWith("process vanished"), qPrintable(showJob(db, id)["error"].toString()));
    const CliResult list = runCli({"jobs", "list", "--all", "--db", db});
    QVERIFY(list.out.contains("process vanished"));
}

void TestJobsCli::badInputLeavesNothing()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("never.db");
    const CliResult r = runCli({"train", dir.filePath("missing.yaml"), "--db", db}, dir.path());
    QCOMPARE(r.exitCode, 2);
    QVERIFY(!QFile::exists(db));
    QVERIFY(!QFile::exists(db + "-wal"));
    // Out-of-range options and arguments a command does not take are refused by name (before: an abort, a
    // LibTorch allocation trace, or silently ignored).
    const QString images = dir.path();
    for (const auto& [args, expected] : std::vector<std::pair<QStringList, QString>>{
             {{"bench", "loader", "--images", images, "--threads", "100000"}, "--threads 100000: give a whole number in 0..256"},
             {{"bench", "loader", "--images", images, "--width", "100000", "--height", "100000"}, "--width 100000: give a whole number in 1..8192"},
             {{"bench", "loader", "--images", images, "stray.yaml"}, "takes no positional arguments (got 'stray.yaml')"},
             {{"bench", "loader", "--images", images, "data.loader.threads=4"}, "takes no positional arguments"}}) {
        const CliResult bad = runCli(QStringList(args) << "--db" << db, dir.path());
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(expected), qPrintable(bad.err));
        QVERIFY(!QFile::exists(db));
    }
}

// `hpo --check` (what the window runs before it starts a search) runs the search's own checks and writes nothing:
// no results file, job, study or folder; a problem is exit 2 with the message the real start would give.
void TestJobsCli::searchCheckWritesNothing()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("c.db");
    const QString partition = processCores().size() >= 2 ? "DPX" : "SPX";
    const int workers = partition == "DPX" ? 2 : 1;
    const QStringList search{"hpo",         sourcePath("/configs/transfuser/smoke.yaml"),
                             "--space",     sourcePath("/configs/transfuser/hpo/speed_space.yaml"),
                             "--trials",    "4",
                             "--partition", partition,
                             "--study",     "chk",
                             "--db",        db,
                             "--check"};
    const CliResult ok = runCli(search, dir.path());
    QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
    QVERIFY2(ok.out.contains(QString("ok: study 'chk' would run 4 trial(s) on %1 cpu worker(s) (%2: ")
                                 .arg(workers)
                                 .arg(partition)),
             qPrintable(ok.out));
    QVERIFY2(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty(),
             qPrintable(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).join(", ")));
    const CliResult json = runCli(QStringList(search) << "--json", dir.path());
    QCOMPARE(json.exitCode, 0);
    const QJsonObject out = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QCOMPARE(out["study"].toString(), QString("chk"));
    QCOMPARE(out["trials"].toInt(), 4);
    QCOMPARE(out["devices"].toArray().size(), workers);

    // Problems the real start finds, found without starting.
    const CliResult objective = runCli(QStringList(search) << "--objective" << "val/nope", dir.path());
    QCOMPARE(objective.exitCode, 2);
    QVERIFY2(objective.err.contains("val/nope"), qPrintable(objective.err));
    QVERIFY(!QFile::exists(db));
    QCOMPARE(runCli({"study", "create", "--study", "chk", "--db", db}).exitCode, 0);
    const CliResult taken = runCli(search, dir.path());
    QCOMPARE(taken.exitCode, 2);
    QVERIFY2(taken.err.contains("study 'chk' already exists"), qPrintable(taken.err));
    const CliResult jobs = runCli({"jobs", "list", "--all", "--json", "--db", db});
    QCOMPARE(jobs.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(jobs.out.toUtf8()).array().size(), 0); // --check recorded no job
}

namespace {
QByteArray fileBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Every file and folder under `root` with its size, so that a new file, folder or write shows.
QStringList treeOf(const QString& root)
{
    QStringList entries;
    QDirIterator it(root, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        entries << QDir(root).relativeFilePath(it.filePath()) + " " + QString::number(it.fileInfo().size());
    }
    entries.sort();
    return entries;
}
} // namespace

// `bench variants|partitions|loader --check` (what the window runs before it starts a benchmark) run the
// benchmark's own start-up checks and nothing else: exit 0 with what would run, no job, the results file
// byte for byte as it was and no file or folder made (no data, runs, plot or cache); a problem is exit 2 with
// the message the real start would give. If this fails, the window's Start either lets a benchmark start that
// fails at once in the background, or refuses a good one, or its check leaves things behind.
void TestJobsCli::benchChecksWriteNothing()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("b.db");
    QCOMPARE(runCli({"study", "create", "--study", "before", "--db", db}).exitCode, 0);
    QVERIFY2(runCli({"data", "synth", "--frames", "12", "--out", dir.filePath("synth")}, dir.path()).exitCode == 0,
             "data synth");
    QVERIFY(QDir(dir.path()).mkpath("nojpeg"));
    schedtest::writeFile(dir, "nojpeg/notes.txt", "not an image\n");
    const QString variants =
        schedtest::writeFile(dir, "variants.yaml",
                             ("name: chk\n"
                              "base: [" +
                              sourcePath("/configs/transfuser/smoke.yaml]\n"
                                         "seeds: [0, 1]\n"
                                         "variants:\n"
                                         "  - {name: Bilinear, overrides: [policy.transfuser.upsample_mode=bilinear]}\n"
                                         "  - {name: Nearest, overrides: [policy.transfuser.upsample_mode=nearest]}\n"))
                                 .toUtf8());
    const QString typo =
        schedtest::writeFile(dir, "typo.yaml",
                             ("name: typo\n"
                              "base: [" +
                              sourcePath("/configs/transfuser/smoke.yaml]\n"
                                         "seeds: [0]\n"
                                         "variants:\n"
                                         "  - {name: Baseline, overrides: []}\n"
                                         "  - {name: Typo, overrides: [policy.transfuser.upsample_mod=nearest]}\n"))
                                 .toUtf8());
    const QByteArray dbBefore = fileBytes(db);
    QVERIFY(!dbBefore.isEmpty());
    const QStringList treeBefore = treeOf(dir.path());

    struct Good {
        QStringList args;
        QStringList expected; // lines of what would run
    };
    const QString smoke = sourcePath("/configs/transfuser/smoke.yaml");
    for (const Good& g : QList<Good>{
             {{"bench", "variants", variants, "--seeds", "3", "data.synthetic.frames=60"},
              {"ok: variant 'Bilinear': study 'chk/Bilinear', 3 seed(s)",
               "ok: variant 'Nearest': study 'chk/Nearest', 3 seed(s)",
               "ok: would train 2 variant(s), 6 run(s), into " + db}},
             {{"bench", "partitions", "--config", smoke, "--modes", "SPX", "--batch-sizes", "8,16", "--epochs", "1"},
              {"ok: SPX: ", " logical device(s), one trainer each",
               "ok: would train 2 cell(s) (batch sizes 8,16, 1 epoch(s) each) on "}},
             {{"bench", "loader", "--images", dir.filePath("synth"), "--batch", "2", "--width", "256", "--height", "96",
               "--batches", "5", "--warmup", "1"},
              {"ok: images dataset of 12 images in " + dir.filePath("synth"),
               "ok: would measure 5 batches of 2 at 256x96 after 1 warm-up with the pitwall loader"}}}) {
        const CliResult r = runCli(QStringList(g.args) << "--db" << db << "--check", dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(g.args.mid(0, 2).join(' ') + ": " + r.err.right(800)));
        for (const QString& line : g.expected)
            QVERIFY2(r.out.contains(line), qPrintable(g.args.mid(0, 2).join(' ') + ": " + r.out));
        QVERIFY2(!r.err.contains("pitwall: job "), qPrintable(r.err)); // --check is no job
    }
    const CliResult json =
        runCli({"bench", "loader", "--images", dir.filePath("synth"), "--db", db, "--check", "--json"}, dir.path());
    QCOMPARE(json.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(json.out.toUtf8()).object()["images"].toInt(), 12);

    // Problems the real start finds, found without starting.
    for (const auto& [args, expected] : std::vector<std::pair<QStringList, QString>>{
             {{"bench", "variants", typo}, "variant 'Typo': "},
             {{"bench", "variants", typo}, "unknown key 'policy.transfuser.upsample_mod'"},
             {{"bench", "variants", variants, "--seeds", "0,x"}, "--seeds '0,x': 'x' is not a seed"},
             {{"bench", "partitions", "--config", smoke, "--modes", "SPX,XPX"},
              "--modes: 'XPX' is not one of SPX, DPX, QPX, CPX"},
             {{"bench", "partitions", "--config", smoke, "--batch-sizes", "8,0"}, "'0' is not a batch size >= 1"},
             {{"bench", "partitions", "--config", smoke, "--out", dir.filePath("nojpeg/notes.txt")},
              "--out '" + dir.filePath("nojpeg/notes.txt") + "': is a file, not a folder"},
             {{"bench", "loader", "--images", dir.filePath("nojpeg")},
              dir.filePath("nojpeg") + ": no usable sample (read as images)"},
             {{"bench", "loader", "--images", dir.filePath("missing")}, dir.filePath("missing") + ": no such folder"},
             {{"bench", "loader", "--images", dir.filePath("synth"), "--batch", "64"},
              "--batch 64: the dataset has 12 usable sample(s), fewer than one batch"},
             {{"bench", "loader", "--images", dir.filePath("synth"), "--threads", "100000"},
              "--threads 100000: give a whole number in 0..256"}}) {
        const CliResult bad = runCli(QStringList(args) << "--db" << db << "--check", dir.path());
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(expected), qPrintable(args.join(' ') + ": " + bad.err));
    }
    QVERIFY2(fileBytes(db) == dbBefore, "a --check wrote to the results database");
    QCOMPARE(treeOf(dir.path()), treeBefore);
    const CliResult jobs = runCli({"jobs", "list", "--all", "--json", "--db", db});
    QCOMPARE(jobs.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(jobs.out.toUtf8()).array().size(), 0); // --check recorded no job
}

void TestJobsCli::commandsThatDoNotTrainLoadNoLibTorch()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("s.db");
    QCOMPARE(runCli({"study", "create", "--study", "s", "--db", db}).exitCode, 0);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("LD_DEBUG", "files"); // the dynamic loader names every library it opens on stderr
    for (const QStringList& args :
         {QStringList{"--version"}, QStringList{"--help"}, QStringList{"study", "list", "--db", db},
          QStringList{"jobs", "list", "--db", db}, QStringList{"db", "info", "--db", db},
          QStringList{"config", "validate", sourcePath("/configs/transfuser/smoke.yaml")}}) {
        const CliResult r = runCli(args, dir.path(), env);
        QVERIFY2(r.exitCode == 0, qPrintable(args.join(' ') + ": " + r.err.right(500)));
        QVERIFY2(!r.err.contains("libtorch"), qPrintable(args.join(' ') + " loaded LibTorch"));
        QVERIFY2(r.err.contains("libpitwall_core"), "LD_DEBUG printed nothing: the check would prove nothing");
    }
    // --help still lists the engine's commands (from the index written at build time).
    const CliResult help = runCli({"--help"});
    for (const char* command : {"train", "hpo", "bench variants", "eval driving", "engine info"})
        QVERIFY2(help.out.contains(command), command);
    // And an engine command does load it.
    const CliResult engine = runCli({"engine", "info"}, dir.path(), env);
    QCOMPARE(engine.exitCode, 0);
    QVERIFY(engine.err.contains("libtorch"));
}

QTEST_GUILESS_MAIN(TestJobsCli)
#include "tst_jobs_cli.moc"
