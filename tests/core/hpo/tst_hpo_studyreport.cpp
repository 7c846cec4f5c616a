// The rules of `study tell` (core/hpo/tellrequest.h) and what `study list` / `study best` print
// (core/hpo/studyreport.h). If this fails, a trial can be told a state the protocol forbids (a pruned trial with
// a value, a complete one without), an overflowing value is stored without a warning, or the study table and
// the best trial read differently.
#include "core/hpo/studyreport.h"
#include "core/hpo/tellrequest.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <QtTest>

#include <cmath>

using namespace pitwall;

class TestHpoStudyReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tellRequestsThatFollowTheRules();
    void tellRequestsThatBreakThem_data();
    void tellRequestsThatBreakThem();
    void overflowWarns();
    void studyListAsTextAndJson();
    void bestTrialAsTextAndJson();
    void createAskAndTellLines();
};

namespace {
std::optional<std::string> text(const char* value)
{
    return value ? std::optional<std::string>(value) : std::nullopt;
}
} // namespace

void TestHpoStudyReport::tellRequestsThatFollowTheRules()
{
    const TellRequest complete = parseTellRequest({}, text("0.25"), std::nullopt, {});
    QCOMPARE(complete.state, std::optional<TrialState>(TrialState::Complete)); // a value alone completes
    QCOMPARE(complete.values, std::vector<double>{0.25});

    const TellRequest steps = parseTellRequest({"0=1.5", "3=0.5"}, std::nullopt, std::nullopt, {});
    QVERIFY(!steps.state);
    QCOMPARE(steps.intermediate.size(), std::size_t(2));
    QCOMPARE(steps.intermediate[1].first, std::int64_t(3));
    QCOMPARE(steps.intermediate[1].second, std::vector<double>{0.5});

    const TellRequest pruned = parseTellRequest({"2=0.1"}, std::nullopt, text("PRUNED"), {});
    QCOMPARE(pruned.state, std::optional<TrialState>(TrialState::Pruned));
    QVERIFY(pruned.values.empty());
}

void TestHpoStudyReport::tellRequestsThatBreakThem_data()
{
    QTest::addColumn<QStringList>("intermediate");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("message");
    QTest::newRow("nothing") << QStringList{} << ""
                             << ""
                             << "nothing to tell: give --value V, --state fail|pruned, or --intermediate STEP=VALUE";
    QTest::newRow("no step") << QStringList{"0.5"} << ""
                             << ""
                             << "--intermediate '0.5' is not STEP=VALUE with an integer step >= 0";
    QTest::newRow("negative step") << QStringList{"-1=0.5"} << ""
                                   << ""
                                   << "--intermediate '-1=0.5' is not STEP=VALUE with an integer step >= 0";
    QTest::newRow("bad value") << QStringList{} << "abc"
                               << ""
                               << "--value 'abc' is not a number";
    QTest::newRow("running") << QStringList{} << ""
                             << "running"
                             << "--state 'running' is not complete, pruned or fail";
    QTest::newRow("pruned with value")
        << QStringList{} << "1"
        << "pruned"
        << "--value goes with a complete trial; a pruned trial takes no value (a pruned one gets its last "
           "intermediate value)";
    QTest::newRow("complete without value") << QStringList{} << ""
                                            << "complete"
                                            << "--state complete needs --value V";
}

void TestHpoStudyReport::tellRequestsThatBreakThem()
{
    QFETCH(QStringList, intermediate);
    QFETCH(QString, value);
    QFETCH(QString, state);
    QFETCH(QString, message);
    std::vector<std::string> items;
    for (const QString& item : intermediate)
        items.push_back(item.toStdString());
    const auto optional = [](const QString& s) {
        return s.isEmpty() ? std::nullopt : std::optional<std::string>(s.toStdString());
    };
    try {
        parseTellRequest(items, optional(value), optional(state), {});
        QFAIL("the request was taken");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.what()), message);
    }
}

void TestHpoStudyReport::overflowWarns()
{
    std::vector<std::string> warnings;
    const TellWarning warn = [&](const std::string& w) { warnings.push_back(w); };
    QVERIFY(std::isinf(parseReportedValue("1e999", "--value", warn)));
    QCOMPARE(warnings.size(), std::size_t(1));
    QCOMPARE(warnings[0], std::string("--value '1e999' is beyond the range of a double; it is stored as inf"));
    QVERIFY(std::isinf(parseReportedValue("-inf", "--value", warn))); // an explicit infinity is meant
    QCOMPARE(warnings.size(), std::size_t(1));
}

void TestHpoStudyReport::studyListAsTextAndJson()
{
    StudySummary s;
    s.study.name = "speed";
    s.study.directions = {StudyDirection::Minimize};
    s.complete = 3;
    s.pruned = 1;
    s.running = 1;
    s.failed = 3;      // every FAIL trial,
    s.interrupted = 2; // two of them stopped or lost: listed apart
    s.bestValue = 0.125;
    s.bestTrialNumber = 2;
    const nlohmann::json rows = studyListJson({s});
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0]["trials"].get<int>(), 8);
    QCOMPARE(rows[0]["failed"].get<int>(), 1);
    QCOMPARE(rows[0]["interrupted"].get<int>(), 2);
    QCOMPARE(rows[0]["directions"], nlohmann::json({"minimize"}));
    QCOMPARE(rows[0]["sampler"].get<std::string>(), std::string("tpe")); // Optuna's defaults for a bare study
    QCOMPARE(rows[0]["pruner"].get<std::string>(), std::string("median"));
    QCOMPARE(rows[0]["best_trial"].get<int>(), 2);
    const QStringList lines = QString::fromStdString(studyListText({s})).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].startsWith("study ") && lines[0].endsWith("running  best"), qPrintable(lines[0]));
    QVERIFY2(lines[0].contains(" failed interrupted running "), qPrintable(lines[0]));
    QCOMPARE(lines[1].simplified(), QString("speed minimize tpe median 8 3 1 1 2 1 0.125"));
    // A name longer than the column widens it for every row: the other columns stay aligned.
    StudySummary longer = s;
    longer.study.name = "lead-speed-demo/Logits + nearest + frozen backbone";
    const QStringList both = QString::fromStdString(studyListText({s, longer})).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(both.size(), 3);
    const qsizetype column = both[0].indexOf("direction");
    QVERIFY(column > longer.study.name.size());
    QCOMPARE(both[1].indexOf("minimize"), column);
    QCOMPARE(both[2].indexOf("minimize"), column);
}

void TestHpoStudyReport::bestTrialAsTextAndJson()
{
    TrialRecord best;
    best.number = 4;
    best.values = {0.5};
    TrialParam lr;
    lr.name = "lr";
    lr.internalValue = 0.001;
    best.params = {lr};
    QCOMPARE(bestTrialText("speed", best), std::string("best trial 4 of 'speed': value 0.5\n  lr: 0.001\n"));
    const nlohmann::json json = bestTrialJson(best);
    QCOMPARE(json["number"].get<int>(), 4);
    QCOMPARE(json["value"].get<double>(), 0.5);
    QCOMPARE(json["params"]["lr"].get<double>(), 0.001);
    best.values = {-HUGE_VAL};
    QCOMPARE(bestTrialJson(best)["value"].get<std::string>(), std::string("-inf")); // JSON has no infinity
}

// What `study create`, `study ask` and `study tell` print: if this fails, the line scripts read after creating,
// asking or telling changed (the settings shown, the JSON fields of an asked trial, the state of a told one).
void TestHpoStudyReport::createAskAndTellLines()
{
    StudyOptions options;
    options.direction = StudyDirection::Maximize;
    const std::string created = studyCreatedText("speed", options, "/r.db");
    QCOMPARE(created, "created study 'speed' (maximize, sampler " + options.sampler.toJson().dump() + ", pruner " +
                          options.pruner.toJson().dump() + ") in /r.db\n");
    QVERIFY2(created.find("\"name\":\"tpe\"") != std::string::npos, created.c_str());

    AskedTrial asked;
    asked.trial.number = 3;
    asked.params = {{"lr", 0.01}};
    asked.fixed = {{"epochs", 2}};
    asked.overrides = {"training.lr=0.01"};
    const nlohmann::json json = askedTrialJson(asked);
    QCOMPARE(json["number"].get<int>(), 3);
    QCOMPARE(json["params"]["lr"].get<double>(), 0.01);
    QCOMPARE(json["fixed"]["epochs"].get<int>(), 2);
    QCOMPARE(json["overrides"][0].get<std::string>(), std::string("training.lr=0.01"));
    QCOMPARE(json.size(), std::size_t(4));

    TrialRecord trial;
    trial.number = 3;
    trial.state = TrialState::Pruned;
    QCOMPARE(toldTrialText(trial), std::string("trial 3: PRUNED\n"));
    trial.state = TrialState::Complete;
    trial.values = {0.25};
    QCOMPARE(toldTrialText(trial), "trial 3: COMPLETE (value " + formatDouble(0.25) + ")\n");
}

QTEST_GUILESS_MAIN(TestHpoStudyReport)
#include "tst_hpo_studyreport.moc"
