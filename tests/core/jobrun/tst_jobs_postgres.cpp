// Jobs on a PostgreSQL results database (issue 26), on a server the test starts (tests/support/postgres.h): the job
// record's whole life through JobStore, and the commands that run as jobs, the user's way: `pitwall hpo`, `pitwall
// train` and a detached search with --db postgresql://..., then `pitwall jobs list|show|log|stop` on the same
// location. The password given in the location is never in a job record, an argv or what `jobs` prints.
#include "core/jobrun/jobcontrol.h"
#include "core/pool/trialstate.h"
#include "core/store/jobstore.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"
#include "tests/support/components.h"
#include "tests/support/postgres.h"
#include "tests/support/testpaths.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

using namespace pitwall;

class TestJobsPostgres : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void recordLifecycle();
    void hpoAndTrainRecordTheirJobs();
    void detachedSearchLogsAndStops();

private:
    // `pitwall ARGS` in the test folder with XDG_STATE_HOME in it; exit code, output (both channels) in `out`.
    int cli(const QStringList& args, QString& out, int timeoutMs = 240000);
    void writeSearchFiles(double seconds);
    // `pitwall hpo` of 4 trials of objective.py on `db`, with `more`.
    int search(const QString& db, const QStringList& more, QString& out)
    {
        return cli(QStringList{"hpo", "--db", db, "--command", "python3 objective.py {x}", "--space", "space.yaml",
                               "--trials", "4"} +
                       more,
                   out);
    }

    test::PostgresServer m_server;
    QTemporaryDir m_dir;
};

void TestJobsPostgres::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (const QString why = m_server.start(); !why.isEmpty())
        PITWALL_FAIL_MISSING("postgresql", why);
}

int TestJobsPostgres::cli(const QStringList& args, QString& out, int timeoutMs)
{
    QProcess process;
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert("XDG_STATE_HOME", m_dir.filePath("state"));
    environment.remove("PGPASSWORD");
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.setWorkingDirectory(m_dir.path());
    process.start(test::cliPath(), args);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
    }
    out = QString::fromUtf8(process.readAll());
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

void TestJobsPostgres::writeSearchFiles(double seconds)
{
    QFile script(m_dir.filePath("objective.py"));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(QString("import json, sys, time\ntime.sleep(%1)\nx = float(sys.argv[1])\n"
                         "print(json.dumps({'objective': (x - 1) ** 2}))\n")
                     .arg(seconds)
                     .toUtf8());
    script.close();
    QFile space(m_dir.filePath("space.yaml"));
    QVERIFY(space.open(QIODevice::WriteOnly));
    space.write("x: {type: uniform, min: -5, max: 5}\n");
}

void TestJobsPostgres::recordLifecycle()
{
    const std::string location = m_server.database("lifecycle");
    JobStore store(location);
    QVERIFY2(store.path().find(test::PostgresServer::kPassword) == std::string::npos, store.path().c_str());
    const Json spec{{"argv", {"train", "configs/x.yaml"}}};
    const auto id = store.create("train", spec, JobState::Queued, 0, "");
    QCOMPARE(store.job(id)->spec, spec);
    QCOMPARE(store.job(id)->state, JobState::Queued);

    store.start(id, ::getpid());
    QVERIFY_THROWS_EXCEPTION(RuntimeError, store.start(id, ::getpid())); // one process runs a job
    QCOMPARE(store.heartbeat(id, 0.25, "epoch 1/4", 30.0), JobState::Running);
    auto job = store.job(id);
    QCOMPARE(job->pid, static_cast<std::int64_t>(::getpid()));
    QCOMPARE(job->processStart, processStartTicks(::getpid()));
    QCOMPARE(job->progress, 0.25);
    QCOMPARE(job->progressMessage, std::string("epoch 1/4"));
    QCOMPARE(job->etaSeconds, std::optional<double>(30.0));
    QCOMPARE(store.heartbeat(id, 7.0, "clamped", std::nullopt), JobState::Running);
    QCOMPARE(store.job(id)->progress, 1.0);
    store.setSpecField(id, "devices", std::vector<std::string>{"cpu:0.0"});
    QCOMPARE(store.job(id)->spec.value("devices", Json()), Json(std::vector<std::string>{"cpu:0.0"}));

    QVERIFY(store.requestStop(id));
    QCOMPARE(store.heartbeat(id, 0.5, "stopping", std::nullopt), JobState::Stopping);
    store.finish(id, JobState::Cancelled, 130, "");
    store.finish(id, JobState::Finished, 0, ""); // a final state does not change again
    job = store.job(id);
    QCOMPARE(job->state, JobState::Cancelled);
    QCOMPARE(job->exitCode, std::optional<int>(130));
    QVERIFY(!store.requestStop(id));
    QCOMPARE(store.jobs(false).size(), std::size_t(0));

    // A resume claims it once, and its elapsed time goes on from the 60 s it ran.
    m_server.query("lifecycle",
                   "UPDATE pitwall_jobs SET start_time = end_time - 60 WHERE job_id = " + std::to_string(id));
    const Json resumed{{"argv", {"train", "configs/x.yaml", "--resume"}}};
    store.requeue(id, resumed, "/tmp/job.log");
    QCOMPARE(store.job(id)->state, JobState::Queued);
    QCOMPARE(store.job(id)->spec, resumed);
    QCOMPARE(store.job(id)->secondsBefore, 60.0);
    QCOMPARE(store.job(id)->logFile, std::string("/tmp/job.log"));
    try {
        store.requeue(id, resumed, "");
        QFAIL("a second resume claimed the job");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("is already resuming"), e.what());
    }

    // Links in the order they were made; ids never reused; a job of a vanished process fails.
    store.link(id, "study", "s");
    store.link(id, "run", "10");
    store.link(id, "run", "9");
    store.link(id, "run", "10"); // once
    QCOMPARE(store.job(id)->links.size(), std::size_t(3));
    QCOMPARE(store.job(id)->links[0].kind, std::string("study"));
    const auto removed = store.create("hpo", Json::object(), JobState::Queued, 0, "");
    store.remove(removed);
    QVERIFY(store.create("hpo", Json::object(), JobState::Queued, 0, "") > removed);
    const pid_t child = ::fork();
    if (child == 0)
        _exit(0);
    ::waitpid(child, nullptr, 0);
    const auto dead = store.create("hpo", Json::object(), JobState::Running, child, "");
    QVERIFY(store.reapVanished(nowSeconds()) >= 1);
    QCOMPARE(store.job(dead)->state, JobState::Failed);
    QVERIFY(store.job(dead)->error.find("process vanished") == 0);
    // Another connection sees the same records.
    QCOMPARE(JobStore(location, OpenMode::ReadOnly).jobs(true).size(), store.jobs(true).size());
}

void TestJobsPostgres::hpoAndTrainRecordTheirJobs()
{
    writeSearchFiles(0.1);
    const std::string location = m_server.database("jobs_cli");
    const QString db = QString::fromStdString(location);
    QString out;
    QCOMPARE(search(db, {"--study", "pg-search"}, out), 0);
    QVERIFY2(out.contains("pitwall: job 1 (hpo)"), qPrintable(out));
    QVERIFY2(!out.contains(test::PostgresServer::kPassword), qPrintable(out));
    auto store = openStore(location, OpenMode::ReadOnly);
    const auto trials = store->trials(store->requireStudy("pg-search").id);
    QCOMPARE(trials.size(), std::size_t(4));
    for (const TrialRecord& trial : trials)
        QCOMPARE(trial.state, TrialState::Complete);

    const std::size_t commandRuns = store->runs().size(); // a command trial's run each
    QCOMPARE(commandRuns, std::size_t(4));
    QCOMPARE(cli({"train", test::sourcePath("/configs/transfuser/smoke.yaml"), "--db", db,
                  "training.stages.posttrain.epochs=0", "training.stages.pretrain.epochs=1"},
                 out),
             0);
    QCOMPARE(store->runs().size(), commandRuns + 1);

    // Both jobs, finished, linked to what they made; no password in the records or in what `jobs` prints.
    QCOMPARE(cli({"jobs", "list", "--all", "--json", "--db", db}, out), 0);
    QVERIFY2(!out.contains(test::PostgresServer::kPassword), qPrintable(out));
    const Json jobs = Json::parse(out.toStdString());
    QCOMPARE(jobs.size(), std::size_t(2));
    QCOMPARE(jobs[0]["kind"], Json("train"));
    QCOMPARE(jobs[1]["kind"], Json("hpo"));
    for (const Json& job : jobs) {
        QCOMPARE(job["state"], Json("finished"));
        QCOMPARE(job["spec"]["db"], Json("postgresql://postgres@127.0.0.1:" + location.substr(location.rfind(':') + 1)));
    }
    QCOMPARE(jobs[1]["links"][0], Json({{"kind", "study"}, {"ref", "pg-search"}}));
    QCOMPARE(jobs[0]["links"].back(), Json({{"kind", "run"}, {"ref", std::to_string(store->runs().back().id)}}));
    QCOMPARE(cli({"jobs", "show", "1", "--db", db}, out), 0);
    QVERIFY2(out.contains("job 1: hpo, finished") && out.contains("study     pg-search"), qPrintable(out));
}

void TestJobsPostgres::detachedSearchLogsAndStops()
{
    writeSearchFiles(60);
    const std::string location = m_server.database("jobs_detached");
    const QString db = QString::fromStdString(location);
    QString out;
    QCOMPARE(search(db, {"--detach"}, out), 0);
    QVERIFY2(out.contains("pitwall: job 1 (hpo) started in the background"), qPrintable(out));
    // Its log is on this machine, in the state folder, named after the database.
    const std::string folder = (m_dir.filePath("state") + "/pitwall/jobs").toStdString();
    std::optional<JobRecord> job;
    for (int attempt = 0; attempt < 300; ++attempt) {
        job = JobStore(location, OpenMode::ReadOnly).job(1);
        if (job && job->state == JobState::Running && job->progressMessage.find("running 1") != std::string::npos)
            break;
        QTest::qWait(100);
    }
    QVERIFY(job);
    QVERIFY2(job->logFile.rfind(folder, 0) == 0, job->logFile.c_str());
    for (const std::string& word : job->spec["argv"].get<std::vector<std::string>>())
        QVERIFY2(word.find(test::PostgresServer::kPassword) == std::string::npos, word.c_str());
    QCOMPARE(job->state, JobState::Running);

    QCOMPARE(cli({"jobs", "stop", "1", "--db", db}, out), 0);
    QCOMPARE(cli({"jobs", "log", "1", "--follow", "--db", db}, out), 0);
    QVERIFY2(out.contains("cancelled: running trials ended as FAIL 'cancelled'"), qPrintable(out));
    QCOMPARE(JobStore(location, OpenMode::ReadOnly).job(1)->state, JobState::Cancelled);
}

PITWALL_TEST_MAIN(TestJobsPostgres)
#include "tst_jobs_postgres.moc"
