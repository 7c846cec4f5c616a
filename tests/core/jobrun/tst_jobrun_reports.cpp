// What `pitwall jobs list|show|log` print (core/jobrun/jobreport.h): the jobs table and one job's details, and a
// job's log copied out, and reading jobs without writing. If this fails, the jobs table or a job's details lose a
// field, a log is cut short, or `jobs list` changes (or needs to write) the file it reads.
#include "core/jobrun/jobreport.h"
#include "core/util/error.h"
#include "tests/support/testpaths.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace pitwall;

class TestJobrunReports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jobMessages();
    void jobsTableAndDetails();
    void jobLogIsCopied();
    void missingDatabaseIsBadInput();
    void readingJobsWritesNothing();

private:
    QTemporaryDir m_dir;
};

namespace {
JobRecord endedJob()
{
    JobRecord j;
    j.id = 7;
    j.kind = "hpo";
    j.spec = {{"argv", {"hpo", "--trials", "4"}}, {"cwd", "/work"}};
    j.state = JobState::Failed;
    j.host = "node1";
    j.pid = 42;
    j.createTime = 1.0e9;
    j.startTime = 1.0e9 + 1;
    j.endTime = 1.0e9 + 61;
    j.exitCode = 1;
    j.progress = 0.5;
    j.progressMessage = "trial 2/4";
    j.error = "process vanished";
    j.links = {{"study", "speed"}};
    return j;
}
} // namespace

void TestJobrunReports::jobMessages()
{
    JobRecord j = endedJob();
    QCOMPARE(jobMessage(j), std::string("process vanished")); // an ended job's error first
    j.state = JobState::Running;
    QCOMPARE(jobMessage(j), std::string("trial 2/4"));
    j.progressMessage.clear();
    QCOMPARE(jobMessage(j), std::string("study speed"));
}

void TestJobrunReports::jobsTableAndDetails()
{
    const QStringList table =
        QString::fromStdString(jobsTableText({endedJob()}, 2.0e9)).split('\n', Qt::SkipEmptyParts);
    QVERIFY(table.size() >= 2);
    QVERIFY2(table[0].simplified().startsWith("ID Kind State Progress Elapsed ETA Host PID Message"),
             qPrintable(table[0]));
    QVERIFY2(table.last().contains("failed") && table.last().contains("50 %") && table.last().contains("1 min 00 s"),
             qPrintable(table.last()));
    QVERIFY2(table.last().contains("process vanished"), qPrintable(table.last()));
    const std::string details = jobDetailsText(endedJob(), 2.0e9);
    QVERIFY2(details.find("job 7: hpo, failed\n  command   pitwall hpo --trials 4\n  in        /work\n"
                          "  process   node1 pid 42\n") == 0,
             details.c_str());
    QVERIFY2(details.find(", exit 1\n") != std::string::npos, details.c_str());
    QVERIFY2(details.find("  progress  50 % trial 2/4\n") != std::string::npos, details.c_str()); // no ETA once ended
    QVERIFY2(details.find("  error     process vanished\n") != std::string::npos, details.c_str());
    QVERIFY2(details.find("  study     speed\n") != std::string::npos, details.c_str());
    QVERIFY2(details.find("  log ") == std::string::npos, details.c_str()); // a foreground job has no log
    const Json json = jobsJson({endedJob()}, 2.0e9);
    QCOMPARE(json.size(), std::size_t(1));
    QCOMPARE(json[0], jobToJson(endedJob(), 2.0e9));
}

void TestJobrunReports::jobLogIsCopied()
{
    QVERIFY(m_dir.isValid());
    const std::string db = m_dir.filePath("jobs.db").toStdString();
    const std::string log = m_dir.filePath("job.log").toStdString();
    std::ofstream(log) << "line one\nline two\n";
    {
        JobStore store(db);
        const auto id = store.create("train", Json::object(), JobState::Running, 0, log);
        store.finish(id, JobState::Finished, 0, "");
    }
    auto store = openJobStoreForReading(db);
    const auto id = store->jobs(true).front().id;
    std::ostringstream out;
    copyJobLog(*store, id, out, true); // the job has ended: follow stops at the end of the file
    QCOMPARE(out.str(), std::string("line one\nline two\n"));
    QVERIFY_EXCEPTION_THROWN(requireJob(*store, id + 100), InputError);
}

void TestJobrunReports::missingDatabaseIsBadInput()
{
    QVERIFY_EXCEPTION_THROWN(openJobStoreForReading(m_dir.filePath("absent.db").toStdString()), InputError);
}

// Issue 27, item 15: reading jobs must not need write access, nor create tables. An Optuna file (no Pitwall tables)
// that this user may write was migrated by `jobs list`, which opened it read-write; it is read as having no jobs
// and left byte for byte as it was.
void TestJobrunReports::readingJobsWritesNothing()
{
    const QString path = m_dir.filePath("optuna-only.db");
    QVERIFY(QFile::copy(test::sourcePath("/tests/data/optuna/optuna-3.1-study.db"), path));
    QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
    const auto bytes = [&] {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray before = bytes();
    QVERIFY(!before.isEmpty());
    {
        auto store = openJobStoreForReading(path.toStdString());
        QVERIFY(store->jobs(true).empty());
        QVERIFY(!store->job(1));
    }
    QCOMPARE(bytes(), before);
    QVERIFY(!QFile::exists(path + "-wal") || QFileInfo(path + "-wal").size() == 0);
}

QTEST_GUILESS_MAIN(TestJobrunReports)
#include "tst_jobrun_reports.moc"
