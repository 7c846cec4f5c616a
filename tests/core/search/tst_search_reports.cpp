// What `pitwall hpo` prints (core/search/searchreport.h): a search's outcome and check. If this fails, a search's
// summary names the wrong best trial or counts.
#include "core/search/searchreport.h"
#include "core/util/error.h"

#include <QtTest>

using namespace pitwall;

class TestSearchReports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void searchSummaryAndJson();
    void searchCheck();
    void finalComparison();
};

void TestSearchReports::searchSummaryAndJson()
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
             std::string("\nstudy 'speed' in /db/x.db: complete 1 · pruned 0 · failed 1 · interrupted 0 in 12.3 s on "
                         "2 worker(s)\n  trial 1 failed: out of memory\nbest trial 0: val/loss 0.25\n"
                         "best parameters written to /out/best_params.yaml\n"));
    const Json json = searchResultJson("/db/x.db", r, std::nullopt, {}, false);
    QCOMPARE(json["best"]["number"].get<int>(), 0);
    QCOMPARE(json["trials"][1]["fail_reason"].get<std::string>(), std::string("out of memory\nmore detail"));
    QVERIFY(json["trials"][1]["value"].is_null());
    QVERIFY(json["final"].is_null());
    QCOMPARE(json["best_params"].get<std::string>(), r.bestParamsPath);
}

void TestSearchReports::searchCheck()
{
    SearchCheck check{"speed", 8, "DPX", "cpu", "", {"cpu:0.0", "cpu:0.1"}, {"a warning"}};
    QCOMPARE(searchCheckText(check),
             std::string("ok: study 'speed' would run 8 trial(s) on 2 cpu worker(s) (DPX: cpu:0.0, cpu:0.1)\n"));
    const Json json = searchCheckJson(check);
    QVERIFY(json["ok"].get<bool>());
    QCOMPARE(json["devices"].size(), std::size_t(2));
    QCOMPARE(json["warnings"][0].get<std::string>(), std::string("a warning"));
}

// What `pitwall hpo --final-epochs N` prints after the search: if this fails, the held-out table's heading (the two
// final studies' names) or its notes changed.
void TestSearchReports::finalComparison()
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

QTEST_GUILESS_MAIN(TestSearchReports)
#include "tst_search_reports.moc"
