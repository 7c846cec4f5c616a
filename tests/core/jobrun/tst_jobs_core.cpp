// Jobs without the engine: the job record's life (create, heartbeat, stop request, finish, resume), a process
// that vanished without saying so, links written by the store, the JobSession's heartbeat turning a stop
// request into the process's cancel, the one child-process launcher (exec failures named, process groups), and
// the interrupt policy (first signal graceful, second at once), a resume's claim (one of racing resumes wins), job
// ids never reused, a stop that signals only the job's own process (its pid with the start time recorded with it),
// and store errors that say what was being done with which file. If these fail, `pitwall jobs` lists wrong states,
// a dead job shows as running forever, a stop from the window is never seen, a job runs twice, or a stop kills
// whatever process reused a pid.
#include "core/jobrun/jobcontrol.h"
#include "core/jobrun/jobsession.h"
#include "core/store/internal/sqlite.h"
#include "core/store/jobstore.h"
#include "core/store/sqlitestore.h"
#include "core/store/store.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/process.h"
#include "core/util/progress.h"
#include "core/util/timefmt.h"

#include <QtTest>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace pitwall;

class TestJobsCore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); ::unsetenv("PITWALL_JOB_ID"); }
    void recordLifecycle();
    void vanishedProcessFails();
    void storeLinksStudiesAndRunsOfTheCurrentJob();
    void sessionFinishStates();
    void jobProgressIsOfTheWholeWorkAndNeverGoesBack();
    void childJobTakesItsOwnLinks();
    void resumeCommandLines();
    void execFailureNamesProgramAndErrno();
    void ownGroupSignalReachesGrandchildren();
    void secondSignalStopsAtOnce();
    void resumeClaimIsAtomic();
    void jobIdsAndLogsAreNeverReused();
    void stopSignalsOnlyTheJobsProcess();
    void storeErrorsSayWhatAndWhere();
    void version3FileKeepsItsJobs();
    void sessionHeartbeatSeesStopRequest(); // last: it leaves this process's cancel token requested

private:
    std::string db(const char* name) const { return m_dir.filePath(name).toStdString(); }
    // Runs `sql` on the results file `path` as another program (or a person with sqlite3) would.
    static void edit(const std::string& path, const std::string& sql)
    {
        store_internal::Connection connection(path, store_internal::ConnectionMode::ReadWriteCreate);
        connection.write([&] { connection.exec(sql); });
    }
    QTemporaryDir m_dir;
};

void TestJobsCore::recordLifecycle()
{
    JobStore store(db("life.db"));
    const Json spec{{"argv", {"train", "configs/x.yaml"}}};
    const auto id = store.create("train", spec, JobState::Queued, 0, "");
    auto job = store.job(id);
    QVERIFY(job);
    QCOMPARE(job->kind, std::string("train"));
    QCOMPARE(job->state, JobState::Queued);
    QCOMPARE(job->spec, spec);
    QVERIFY(!job->startTime);

    store.start(id, ::getpid());
    QCOMPARE(store.heartbeat(id, 0.25, "epoch 1/4", 30.0), JobState::Running);
    job = store.job(id);
    QCOMPARE(job->state, JobState::Running);
    QCOMPARE(job->pid, static_cast<std::int64_t>(::getpid()));
    QCOMPARE(job->progress, 0.25);
    QCOMPARE(job->progressMessage, std::string("epoch 1/4"));
    QCOMPARE(job->etaSeconds, std::optional<double>(30.0));
    QCOMPARE(store.heartbeat(id, 7.0, "clamped", std::nullopt), JobState::Running);
    QCOMPARE(store.job(id)->progress, 1.0);

    QVERIFY(store.requestStop(id));
    QCOMPARE(store.heartbeat(id, 0.5, "stopping", std::nullopt), JobState::Stopping);
    store.finish(id, JobState::Cancelled, 130, "");
    job = store.job(id);
    QCOMPARE(job->state, JobState::Cancelled);
    QCOMPARE(job->exitCode, std::optional<int>(130));
    QVERIFY(job->endTime);
    // A final state does not change again, and a stop request on it is refused.
    store.finish(id, JobState::Finished, 0, "");
    QCOMPARE(store.job(id)->state, JobState::Cancelled);
    QVERIFY(!store.requestStop(id));
    QCOMPARE(store.jobs(false).size(), std::size_t(0));
    QCOMPARE(store.jobs(true).size(), std::size_t(1));

    // Resume: back to queued with the new spec; only from cancelled or failed. Its elapsed time and progress go on
    // from where they were (it ran 60 s, to half way).
    edit(db("life.db"), "UPDATE pitwall_jobs SET start_time = end_time - 60, progress = 0.5 WHERE job_id = " +
                            std::to_string(id));
    const Json resumed{{"argv", {"train", "configs/x.yaml", "--resume"}}};
    store.requeue(id, resumed, "/tmp/job.log");
    QCOMPARE(store.job(id)->state, JobState::Queued);
    QCOMPARE(store.job(id)->spec, resumed);
    QCOMPARE(store.job(id)->secondsBefore, 60.0);
    QCOMPARE(store.job(id)->progress, 0.5);
    QCOMPARE(jobElapsedSeconds(*store.job(id), nowSeconds()), 60.0); // not started again yet
    store.start(id, ::getpid());
    QVERIFY(jobElapsedSeconds(*store.job(id), nowSeconds()) >= 60.0);
    store.finish(id, JobState::Cancelled, 130, "");
    store.requeue(id, resumed, "/tmp/job.log"); // a second resume adds the second run's time
    QVERIFY(store.job(id)->secondsBefore >= 60.0);
    QCOMPARE(store.job(id)->spec, resumed);
    QCOMPARE(store.job(id)->logFile, std::string("/tmp/job.log"));
    QVERIFY(!store.job(id)->exitCode);
    QVERIFY_THROWS_EXCEPTION(InputError, store.requeue(id, resumed, ""));
    QVERIFY_THROWS_EXCEPTION(RuntimeError, store.finish(id, JobState::Running, std::nullopt, ""));
}

void TestJobsCore::vanishedProcessFails()
{
    JobStore store(db("vanished.db"));
    // A child that is really gone: its pid is reaped, so kill(pid, 0) fails.
    const pid_t child = ::fork();
    if (child == 0)
        _exit(0);
    ::waitpid(child, nullptr, 0);
    const auto dead = store.create("hpo", Json::object(), JobState::Running, child, "");
    const auto alive = store.create("train", Json::object(), JobState::Running, ::getpid(), "");
    QCOMPARE(store.reapVanished(nowSeconds()), 1);
    QCOMPARE(store.job(dead)->state, JobState::Failed);
    QVERIFY(store.job(dead)->error.find("process vanished") == 0);
    QCOMPARE(store.job(alive)->state, JobState::Running);
    // A live process whose heartbeat stopped longer than the grace period ago (another host's view).
    QCOMPARE(store.reapVanished(nowSeconds() + kJobHeartbeatGraceSeconds + 1), 1);
    QCOMPARE(store.job(alive)->state, JobState::Failed);
    QVERIFY(store.job(alive)->error.find("no heartbeat") != std::string::npos);
    // Read-only stores change nothing.
    JobStore readOnly(db("vanished.db"), OpenMode::ReadOnly);
    QCOMPARE(readOnly.reapVanished(nowSeconds() + 1e6), 0);
}

void TestJobsCore::storeLinksStudiesAndRunsOfTheCurrentJob()
{
    const std::string path = db("links.db");
    JobStore jobs(path);
    const auto id = jobs.create("hpo", Json::object(), JobState::Running, ::getpid(), "");
    auto store = openStore(path);
    store->createStudy("before", {StudyDirection::Minimize}); // no job yet: no link
    ::setenv("PITWALL_JOB_ID", std::to_string(id).c_str(), 1);
    const auto study = store->createStudy("search", {StudyDirection::Minimize});
    RunRecord run;
    run.trialId = store->createTrial(study).id;
    run.kind = "train";
    const auto runId = store->createRun(run);
    ::unsetenv("PITWALL_JOB_ID");
    const auto links = jobs.job(id)->links;
    QCOMPARE(links.size(), std::size_t(2));
    QCOMPARE(links[0].kind, std::string("study"));
    QCOMPARE(links[0].ref, std::string("search"));
    QCOMPARE(links[1].kind, std::string("run"));
    QCOMPARE(links[1].ref, std::to_string(runId));
}

// The hpo job's final comparison (hpo-final) as a child job: the studies created inside link to the child, the
// parent links to the child, and the parent's $PITWALL_JOB_ID is back afterwards, also when the work throws.
void TestJobsCore::childJobTakesItsOwnLinks()
{
    const std::string path = db("child.db");
    JobSession parent(path, "hpo", Json{{"argv", {"hpo", "--trials", "2"}}}, std::nullopt, "");
    auto store = openStore(path);
    store->createStudy("search", {StudyDirection::Minimize});
    std::int64_t childId = 0;
    const int code = runChildJob(path, "hpo-final", Json{{"final_epochs", 3}}, [&] {
        childId = *currentJobId();
        store->createStudy("search/final-default", {StudyDirection::Minimize});
        return 0;
    });
    QCOMPARE(code, 0);
    QVERIFY(childId != parent.id());
    QCOMPARE(*currentJobId(), parent.id());
    JobStore jobs(path);
    const JobRecord child = *jobs.job(childId);
    QCOMPARE(child.kind, std::string("hpo-final"));
    QCOMPARE(child.state, JobState::Finished);
    QCOMPARE(child.spec["parent_job"].get<std::int64_t>(), parent.id());
    QCOMPARE(child.spec["final_epochs"].get<int>(), 3);
    QCOMPARE(child.spec["argv"], Json({"hpo", "--trials", "2"})); // starting it again reruns the whole search
    QCOMPARE(child.links.size(), std::size_t(1));
    QCOMPARE(child.links[0].ref, std::string("search/final-default"));
    const std::vector<JobLink> parentLinks = jobs.job(parent.id())->links;
    QCOMPARE(parentLinks.size(), std::size_t(2));
    QCOMPARE(parentLinks[0].ref, std::string("search"));
    QCOMPARE(parentLinks[1].kind, std::string("job"));
    QCOMPARE(parentLinks[1].ref, std::to_string(childId));

    bool thrown = false;
    try {
        runChildJob(path, "hpo-final", Json::object(), [&]() -> int {
            childId = *currentJobId();
            throw RuntimeError("out of memory");
        });
    } catch (const RuntimeError&) {
        thrown = true;
    }
    QVERIFY(thrown);
    QCOMPARE(*currentJobId(), parent.id());
    QCOMPARE(jobs.job(childId)->state, JobState::Failed);
    QCOMPARE(jobs.job(childId)->error, std::string("out of memory"));
    parent.finish(0, "");
}

// `jobs resume`: a training run continues from its checkpoints with its own command line, a search from the
// study it created with the options that shape it, and other kinds say how to start them again.
void TestJobsCore::resumeCommandLines()
{
    JobRecord train;
    train.kind = "train";
    train.spec = {{"argv", {"train", "a.yaml"}}, {"db", "/d/t.db"}};
    QCOMPARE(resumeCommandLine(train), (std::vector<std::string>{"train", "a.yaml", "--resume", "--db", "/d/t.db"}));
    JobRecord hpo;
    hpo.id = 7;
    hpo.kind = "hpo";
    hpo.spec = {{"argv", {"hpo", "a.yaml", "--trials", "8", "--partition=DPX", "--seed", "3"}}, {"db", "/d/h.db"}};
    try {
        resumeCommandLine(hpo);
        QFAIL("a search without a study resumed");
    } catch (const InputError& e) {
        QCOMPARE(QString(e.what()), QString("job 7 created no study, so there is nothing to resume; start it again"));
    }
    hpo.links = {{"study", "s"}, {"run", "1"}};
    QCOMPARE(resumeCommandLine(hpo), (std::vector<std::string>{"hpo", "--resume", "s", "--db", "/d/h.db", "--trials", "8",
                                                               "--partition", "DPX"}));
    // The heartbeat options a --resume accepts go with it: a stopped search's stale trials are failed as soon as the
    // search was started to fail them, not after the default grace.
    JobRecord beating = hpo;
    beating.spec["argv"] = {"hpo", "a.yaml", "--heartbeat-interval", "0.2", "--heartbeat-grace=1", "--seed", "3"};
    QCOMPARE(resumeCommandLine(beating),
             (std::vector<std::string>{"hpo", "--resume", "s", "--db", "/d/h.db", "--heartbeat-interval", "0.2",
                                       "--heartbeat-grace", "1"}));
    JobRecord final = hpo;
    final.kind = "hpo-final";
    try {
        resumeCommandLine(final);
        QFAIL("an hpo-final job resumed");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith("a hpo-final job cannot resume") &&
                     QString(e.what()).endsWith("start it again with: pitwall hpo a.yaml --trials 8 --partition=DPX --seed 3"),
                 e.what());
    }
}

// Issue 27, item 5: three `jobs resume 1` at once ran two or three resumes. The claim is one UPDATE that only a
// cancelled or failed job matches; it also sets the heartbeat, because a requeued job still carried the heartbeat
// of its old run, so a racing `jobs resume` (which reaps vanished jobs first) took it for vanished, failed it and
// claimed it again. A process adopting the job takes it over only while it waits for one.
void TestJobsCore::resumeClaimIsAtomic()
{
    const std::string path = db("claim.db");
    JobStore store(path);
    const auto id = store.create("hpo", Json{{"argv", {"hpo"}}}, JobState::Running, ::getpid(), "");
    store.finish(id, JobState::Failed, 1, "exit status 1");
    // It failed an hour ago.
    edit(path, "UPDATE pitwall_jobs SET heartbeat_time = heartbeat_time - 3600, end_time = end_time - 3600, "
               "start_time = start_time - 3600, create_time = create_time - 3600");
    store.requeue(id, Json{{"argv", {"hpo", "--resume", "s"}}}, "");
    // Before its process starts, a second `jobs resume` reaps vanished jobs: this one is not vanished.
    QCOMPARE(store.reapVanished(nowSeconds()), 0);
    QCOMPARE(store.job(id)->state, JobState::Queued);
    try {
        store.requeue(id, Json{{"argv", {"hpo", "--resume", "s"}}}, "");
        QFAIL("a second resume claimed the job");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("job " + QString::number(id) + " is already resuming"), e.what());
    }
    // One process takes it over; a second one (a duplicate start) is refused.
    store.start(id, ::getpid());
    QCOMPARE(store.job(id)->state, JobState::Running);
    QVERIFY_THROWS_EXCEPTION(RuntimeError, store.start(id, ::getpid()));
    store.finish(id, JobState::Finished, 0, "");
    // A queued job whose starter never came still vanishes after the grace period.
    const auto orphan = store.create("train", Json::object(), JobState::Queued, 0, "");
    QCOMPARE(store.reapVanished(nowSeconds() + kJobHeartbeatGraceSeconds + 1), 1);
    QCOMPARE(store.job(orphan)->state, JobState::Failed);
}

// Issue 27, item 13: a refused job's row was removed, so the next job got its id (and appended to its log).
void TestJobsCore::jobIdsAndLogsAreNeverReused()
{
    const std::string path = db("ids.db");
    JobStore store(path);
    const auto first = store.create("train", Json::object(), JobState::Queued, 0, "");
    const auto refused = store.create("train", Json::object(), JobState::Queued, 0, "");
    store.remove(refused);
    const auto next = store.create("train", Json::object(), JobState::Queued, 0, "");
    QVERIFY(next > refused);
    QVERIFY(refused > first);
    // A log left by an earlier job with this id (a results file deleted since) is kept as it is, not appended to.
    const std::string leftover = newJobLogFile(path, next);
    std::ofstream(leftover) << "an old job's error\n";
    const std::string log = newJobLogFile(path, next);
    QVERIFY(log != leftover);
    QVERIFY2(QFile::exists(QString::fromStdString(log)), log.c_str());
    QCOMPARE(QFile(QString::fromStdString(log)).size(), qint64(0));
    std::ifstream in(leftover);
    std::stringstream kept;
    kept << in.rdbuf();
    QCOMPARE(kept.str(), std::string("an old job's error\n"));
}

// Issue 27, item 10: `jobs stop --now` killed whatever process had the recorded pid. The pid's start time is
// recorded with it; a pid whose process started at another time (reused, or an edited record) is not signalled.
void TestJobsCore::stopSignalsOnlyTheJobsProcess()
{
    const std::string path = db("stop.db");
    const pid_t child = ::fork();
    if (child == 0) {
        for (;;)
            ::pause();
    }
    // Reaped as soon as it ends, so that a killed child is gone at once (not a zombie that kill(pid, 0) still sees).
    int status = 0;
    std::thread reaper([&] { ::waitpid(child, &status, 0); });
    JobStore store(path);
    const auto ticks = processStartTicks(child);
    QVERIFY(ticks);
    QCOMPARE(processStartTicks(::getpid()).has_value(), true);
    const auto other = store.create("train", Json::object(), JobState::Running, child, "");
    QCOMPARE(store.job(other)->processStart, ticks);
    QCOMPARE(jobProcess(*store.job(other)), JobProcess::Here);
    // The record now says the pid's process started at another time: it is someone else's process.
    edit(path, "UPDATE pitwall_jobs SET process_start = process_start + 1 WHERE job_id = " + std::to_string(other));
    QCOMPARE(jobProcess(*store.job(other)), JobProcess::Other);
    QCOMPARE(stopJob(store, *store.job(other), StopMode::Now), StopOutcome::NotItsProcess);
    QCOMPARE(::kill(child, 0), 0); // not signalled: still there
    QCOMPARE(store.job(other)->state, JobState::Failed);
    QVERIFY2(store.job(other)->error.find("is now another process") != std::string::npos,
             store.job(other)->error.c_str());
    QCOMPARE(stopJob(store, *store.job(other), StopMode::Graceful), StopOutcome::NotItsProcess);
    QCOMPARE(::kill(child, 0), 0);
    // The reaper says the same of a running job whose pid is another process now.
    const auto reused = store.create("hpo", Json::object(), JobState::Running, child, "");
    edit(path, "UPDATE pitwall_jobs SET process_start = 1 WHERE job_id = " + std::to_string(reused));
    QCOMPARE(store.reapVanished(nowSeconds()), 1);
    QCOMPARE(::kill(child, 0), 0);
    // Its own process, with the start time recorded: killed at once.
    const auto own = store.create("train", Json::object(), JobState::Running, child, "");
    QCOMPARE(stopJob(store, *store.job(own), StopMode::Now), StopOutcome::StoppedNow);
    reaper.join();
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    QCOMPARE(store.job(own)->state, JobState::Cancelled);
}

// Issue 27, item 14: errors quoted raw SQL ("preparing `INSERT INTO pitwall_jobs (kind, …`: attempt to write a
// readonly database"). They say what Pitwall was doing, with which file, and what the failure means.
void TestJobsCore::storeErrorsSayWhatAndWhere()
{
    QCOMPARE(store_internal::describeStatement("INSERT INTO pitwall_jobs (kind, spec_json) VALUES (?, ?)"),
             std::string("adding job records"));
    QCOMPARE(store_internal::describeStatement("UPDATE pitwall_jobs SET state = 'queued' WHERE job_id = ?"),
             std::string("changing job records"));
    QCOMPARE(store_internal::describeStatement("SELECT kind, ref FROM pitwall_job_links WHERE job_id = ?"),
             std::string("reading job links"));
    QCOMPARE(store_internal::describeStatement("BEGIN IMMEDIATE"),
             std::string("starting to write to the results database"));
    const std::string path = db("errors.db");
    {
        JobStore create(path);
    }
    // A connection that may not write, as on a read-only file or mount (root ignores file modes; query_only does not).
    store_internal::Connection connection(path, store_internal::ConnectionMode::ReadWriteCreate);
    connection.exec("PRAGMA query_only = 1");
    try {
        connection.write([&] {
            connection
                .cached("INSERT INTO pitwall_jobs (kind, spec_json, state, host, pid, create_time, progress, "
                        "progress_message, error, log_file) VALUES ('train', '{}', 'queued', '', 0, 0, 0, '', "
                        "'', '')")
                .run();
        });
        QFAIL("a write through a query_only connection succeeded");
    } catch (const std::exception& e) {
        const QString message = e.what();
        // (SQLite refuses the write transaction itself, before the INSERT.)
        QVERIFY2(message.startsWith(QString::fromStdString(path) +
                                    ": starting to write to the results database failed: the results database "
                                    "cannot be written here: its file, its folder or its mount is read-only"),
                 e.what());
        QVERIFY2(!message.contains("INSERT") && !message.contains('`'), e.what());
    }
}

// A file written before migration 4 (no process start times, no id counter): read-only, its jobs read as they are
// and the file stays at schema 3; opened to write, it is migrated and new ids come after its old ones.
void TestJobsCore::version3FileKeepsItsJobs()
{
    const std::string path = db("v3.db");
    {
        SqliteStore v3(path, OpenMode::ReadWrite, AutoMigrate::No);
        QCOMPARE(v3.migrateTo(3), 3);
    }
    edit(path, "INSERT INTO pitwall_jobs (job_id, kind, spec_json, state, host, pid, create_time, progress, "
               "progress_message, error, log_file) VALUES (5, 'train', '{}', 'finished', 'h', 7, 1, 1, '', '', '')");
    {
        JobStore readOnly(path, OpenMode::ReadOnly);
        const auto jobs = readOnly.jobs(true);
        QCOMPARE(jobs.size(), std::size_t(1));
        QCOMPARE(jobs.front().id, std::int64_t(5));
        QVERIFY(!jobs.front().processStart);
    }
    QCOMPARE(SqliteStore(path, OpenMode::ReadOnly).info().pitwallSchemaVersion, 3);
    JobStore store(path);
    store.remove(5);
    QCOMPARE(store.create("train", Json::object(), JobState::Queued, 0, ""), std::int64_t(6));
}

void TestJobsCore::sessionHeartbeatSeesStopRequest()
{
    const std::string path = db("session.db");
    JobSession session(path, "train", Json{{"argv", {"train"}}}, std::nullopt, "");
    QCOMPARE(std::getenv("PITWALL_JOB_ID"), std::to_string(session.id()));
    reportJobProgress(0.5, "seed 1 pretrain epoch 1/2");
    JobStore other(path);
    QCOMPARE(other.job(session.id())->state, JobState::Running);
    QVERIFY(!processCancelToken().requested());
    other.requestStop(session.id());
    // The heartbeat (every 2 s) reads Stopping and requests the process's cancel, as one Ctrl-C would.
    QTRY_VERIFY_WITH_TIMEOUT(processCancelToken().requested(), 20000);
    QCOMPARE(other.job(session.id())->progressMessage, std::string("seed 1 pretrain epoch 1/2"));
    QCOMPARE(other.job(session.id())->progress, 0.5);
    session.finish(130, "");
    QCOMPARE(other.job(session.id())->state, JobState::Cancelled);
}

// A job's progress is of the whole work: parts report their place in it (ProgressReporter::within, nested), and
// the job's bar never goes back (a phase that starts again at 0, a trial interrupted with its epochs). Wrong, and a
// benchmark's bar goes from 41 % back to 23 %.
void TestJobsCore::jobProgressIsOfTheWholeWorkAndNeverGoesBack()
{
    std::vector<double> seen;
    const ProgressReporter whole([&](double fraction, const std::string&) { seen.push_back(fraction); });
    // Two variants, each half of the work; the first one's training is its first half, its driving the second.
    const ProgressReporter first = whole.within(0, 0.5), second = whole.within(0.5, 1.0);
    first.within(0, 0.5).progress({"training", 1, 2, ""});
    first.within(0.5, 1).progress({"driving", 0, 2, ""});
    first.within(0.5, 1).progress({"driving", 2, 2, ""});
    second.progress({"training", 1, 4, ""});
    second.progress({"training", 4, 4, ""});
    QCOMPARE(seen, std::vector<double>({0.125, 0.25, 0.5, 0.625, 1.0}));
    QCOMPARE((ProgressReport{"phase", 3, 4, ""}.fraction()), 0.75); // a terminal's bar is still the phase's

    const std::string path = db("whole.db");
    JobSession session(path, "bench-variants", Json::object(), std::nullopt, "");
    reportJobProgress(0.4, "variant 1");
    reportJobProgress(0.2, "variant 2 starts a phase at its beginning");
    session.finish(130, "");
    const auto job = JobStore(path).job(session.id());
    QCOMPARE(job->progress, 0.4);
    QCOMPARE(job->progressMessage, std::string("variant 2 starts a phase at its beginning"));
}

void TestJobsCore::sessionFinishStates()
{
    const std::string path = db("finish.db");
    JobStore store(path);
    const auto queued = store.create("bench-loader", Json::object(), JobState::Queued, 0, "/tmp/log");
    {
        JobSession adopted(path, "bench-loader", Json::object(), queued, "");
        QCOMPARE(adopted.id(), queued);
        QCOMPARE(store.job(queued)->state, JobState::Running);
        QCOMPARE(store.job(queued)->pid, static_cast<std::int64_t>(::getpid()));
        adopted.finish(0, "");
    }
    QCOMPARE(store.job(queued)->state, JobState::Finished);
    QCOMPARE(store.job(queued)->progress, 1.0);
    std::int64_t failed = 0;
    {
        JobSession s(path, "eval-driving", Json::object(), std::nullopt, "");
        failed = s.id();
        s.finish(1, "exit status 1");
    }
    QCOMPARE(store.job(failed)->state, JobState::Failed);
    QCOMPARE(store.job(failed)->error, std::string("exit status 1"));
    std::int64_t refused = 0;
    {
        JobSession s(path, "train", Json::object(), std::nullopt, "");
        refused = s.id();
        s.discard();
    }
    QVERIFY(!store.job(refused));
}

void TestJobsCore::execFailureNamesProgramAndErrno()
{
    try {
        ChildProcess::start({"/nonexistent/pitwall-program"});
        QFAIL("starting a missing program did not throw");
    } catch (const RuntimeError& e) {
        QCOMPARE(QString(e.what()), QString("cannot execute /nonexistent/pitwall-program: No such file or directory"));
    }
    const QString plain = m_dir.filePath("plain.txt"); // exists, no execute bit (refused even for root)
    QFile file(plain);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not a program\n");
    file.close();
    QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
    try {
        ChildProcess::start({plain.toStdString()});
        QFAIL("starting a non-executable file did not throw");
    } catch (const RuntimeError& e) {
        QCOMPARE(QString(e.what()), "cannot execute " + plain + ": Permission denied");
    }
}

void TestJobsCore::ownGroupSignalReachesGrandchildren()
{
    // sh starts a sleep of its own; SIGTERM to the group ends both, so the pipe's writer (the sleep) closes it.
    const QString marker = m_dir.filePath("grandchild.pid");
    ProcessOptions options;
    options.group = ProcessGroup::Own;
    ChildProcess child = ChildProcess::start(
        {"/bin/sh", "-c", ("sleep 300 & echo $! > " + marker + "; wait").toStdString()}, options);
    QTRY_VERIFY(QFile::exists(marker) && QFile(marker).size() > 0);
    QFile f(marker);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const pid_t grandchild = f.readAll().trimmed().toInt();
    QVERIFY(grandchild > 0);
    child.signal(SIGTERM);
    const ProcessExit exit = child.wait();
    QVERIFY(!exit.exited);
    QTRY_VERIFY(::kill(grandchild, 0) != 0);
}

void TestJobsCore::secondSignalStopsAtOnce()
{
    // A child installs the handlers and loops while not cancelled: one SIGINT starts its graceful stop (it says so
    // on a pipe, then cleans up slowly and would exit 7 from its own code), a second signal during that clean-up
    // ends it at once with 130. No timing: each step waits for the child's word on the pipe.
    for (int signals : {1, 2}) {
        int ready[2];
        QVERIFY(::pipe(ready) == 0);
        const pid_t child = ::fork();
        if (child == 0) {
            ::close(ready[0]);
            installInterruptHandlers();
            (void)!::write(ready[1], "r", 1);
            while (!processCancelToken().requested())
                ::usleep(1000);
            (void)!::write(ready[1], "s", 1); // the first signal was taken as a request: stopping gracefully
            for (int i = 0; i < 20000; ++i)   // a slow graceful stop: 20 s
                ::usleep(1000);
            _exit(7);
        }
        ::close(ready[1]);
        char c = 0;
        QCOMPARE(::read(ready[0], &c, 1), ssize_t(1));
        QCOMPARE(c, 'r');
        ::kill(child, SIGINT);
        // Had one SIGINT ended the process at once, the pipe would close without the 's'.
        c = 0;
        QCOMPARE(::read(ready[0], &c, 1), ssize_t(1));
        ::close(ready[0]);
        QCOMPARE(c, 's');
        int status = 0;
        if (signals == 1) {
            QCOMPARE(::waitpid(child, &status, WNOHANG), pid_t(0)); // still in its graceful stop after one SIGINT
            ::kill(child, SIGKILL);                                 // the graceful path would take 20 s
            ::waitpid(child, &status, 0);
            QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child ended before it was killed");
        } else {
            ::kill(child, SIGTERM);
            ::waitpid(child, &status, 0);
            QVERIFY(WIFEXITED(status));
            QCOMPARE(WEXITSTATUS(status), 130);
        }
    }
}

QTEST_GUILESS_MAIN(TestJobsCore)
#include "tst_jobs_core.moc"
