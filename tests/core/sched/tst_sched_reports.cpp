// What `pitwall jobs list|show|log` and `pitwall hpo` print (core/sched/jobreport.h, core/sched/searchreport.h):
// the jobs table and one job's details, a job's log copied out, and a search's outcome and check. If this fails,
// the jobs table or a job's details lose a field, a log is cut short, or a search's summary names the wrong best
// trial or counts.
#include "core/sched/jobreport.h"
#include "core/sched/searchreport.h"
#include "core/util/error.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace pitwall;

class TestSchedReports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jobMessages();
    void jobsTableAndDetails();
    void jobLogIsCopied();
    void missingDatabaseIsBadInput();
    void searchSummaryAndJson();
    void searchCheck();
    void finalComparison();

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

void TestSchedReports::jobMessages()
{
    JobRecord j = endedJob();
    QCOMPARE(jobMessage(j), std::string("process vanished")); // an ended job's error first
    j.state = JobState::Running;
    QCOMPARE(jobMessage(j), std::string("trial 2/4"));
    j.progressMessage.clear();
    QCOMPARE(jobMessage(j), std::string("study speed"));
}

void TestSchedReports::jobsTableAndDetails()
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

void TestSchedReports::jobLogIsCopied()
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

void TestSchedReports::missingDatabaseIsBadInput()
{
    QVERIFY_EXCEPTION_THROWN(openJobStoreForReading(m_dir.filePath("absent.db").toStdString()), InputError);
}

void TestSchedReports::searchSummaryAndJson()
{
    SearchResult r;
    r.studyName = "speed";
    r.workers = 2;
    r.seconds = 12.34;
    r.settings.objective = "val/loss";
    r.settings.targetTrials = 2;
    r.counts.complete = 1;
    r.counts.failed = 1;
    TrialRecord good;
    good.number = 0;
    good.state = TrialState::Complete;
    good.values = {0.25};
    TrialRecord bad;
    bad.number = 1;
    bad.state = TrialState::Fail;
    bad.systemAttrs[kFailReasonAttr] = "out of memory\nmore detail";
    r.trials = {good, bad};
    r.best = good;
    r.searchDone = true;
    r.bestParamsPath = "/out/best_params.yaml";
    const std::string text = searchSummaryText("/db/x.db", r);
    QCOMPARE(text,
             std::string("\nstudy 'speed' in /db/x.db: 1 complete, 0 pruned, 1 failed (0 interrupted) in 12.3 s on "
                         "2 worker(s)\n  trial 1 failed: out of memory\nbest trial 0: val/loss 0.25\n"
                         "best parameters written to /out/best_params.yaml\n"));
    const Json json = searchResultJson("/db/x.db", r, std::nullopt, {}, false);
    QCOMPARE(json["best"]["number"].get<int>(), 0);
    QCOMPARE(json["trials"][1]["fail_reason"].get<std::string>(), std::string("out of memory\nmore detail"));
    QVERIFY(json["trials"][1]["value"].is_null());
    QVERIFY(json["final"].is_null());
    QCOMPARE(json["best_params"].get<std::string>(), r.bestParamsPath);
}

void TestSchedReports::searchCheck()
{
    SearchCheck check{"speed", 8, "DPX", "cpu", {"cpu:0.0", "cpu:0.1"}, {"a warning"}};
    QCOMPARE(searchCheckText(check),
             std::string("ok: study 'speed' would run 8 trial(s) on 2 cpu worker(s) (DPX: cpu:0.0, cpu:0.1)\n"));
    const Json json = searchCheckJson(check);
    QVERIFY(json["ok"].get<bool>());
    QCOMPARE(json["devices"].size(), std::size_t(2));
    QCOMPARE(json["warnings"][0].get<std::string>(), std::string("a warning"));
}

// What `pitwall hpo --final-epochs N` prints after the search: if this fails, the held-out table's heading (the two
// final studies' names) or its notes changed.
void TestSchedReports::finalComparison()
{
    Table table({"Config", "mAP50"});
    table.addRow({"default", "0.5000"});
    const std::string text = finalComparisonText(3, "speed", table, {"AP: AutoSpeed's", "second note"});
    QVERIFY2(text.find("\nheld-out validation after 3 epoch(s) (studies 'speed/final-default', "
                       "'speed/final-optimised'):\n" + table.toText()) == 0,
             text.c_str());
    const std::string notes = "note: AP: AutoSpeed's\nnote: second note\n";
    QVERIFY2(text.size() > notes.size() && text.substr(text.size() - notes.size()) == notes, text.c_str());
    QCOMPARE(finalComparisonText(1, "s", table, {}).find("note:"), std::string::npos);
}

QTEST_GUILESS_MAIN(TestSchedReports)
#include "tst_sched_reports.moc"
