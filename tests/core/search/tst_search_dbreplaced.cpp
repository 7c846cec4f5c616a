// The results database deleted or replaced under a running `pitwall hpo` with two workers: the search stops
// with exit status 1 and a message naming the file, writes no best_params.yaml and never says "best parameters
// written"; a replacement file keeps exactly the rows it had (no run, trial or attribute of the old study, with
// the old file's ids, lands in it), and a deleted file is not created again. If this fails, a search goes on
// after `rm` or `mv` of its database: reporting success over an empty file, or attaching its trials' rows to
// other studies' trials in the file now at the path.
#include "../pool/schedtestutil.h"
#include "../store/storetestutil.h"

#include "core/devices/devices.h"

#include <QProcess>
#include <QtTest>

#include <cstdio>

#include "tests/support/testpaths.h"

using namespace pitwall;
using namespace schedtest;

namespace {

// Another study's results file, with trials, parameters, a run and its metrics: rows with the ids the search's
// own rows have in its file.
void makeOtherStudyFile(const QString& path)
{
    auto store = openStore(path.toStdString());
    const auto study = store->createStudy("other", {StudyDirection::Minimize});
    for (int i = 0; i < 3; ++i) {
        const TrialRecord trial = store->createTrial(study);
        store->setTrialParam(trial.id, "x", 0.1 * i, storetest::floatDist(0.0, 1.0));
        RunRecord run;
        run.trialId = trial.id;
        run.kind = "command";
        const auto runId = store->createRun(run);
        const MetricSample sample{runId, "trial", 0, "value", 1.0 + i, 1.0};
        store->appendMetrics({&sample, 1});
        store->finishTrial(trial.id, TrialState::Complete, {1.0 + i});
    }
}

} // namespace

class TestSearchDbReplaced : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QFile::exists("/usr/bin/python3"))
            PITWALL_FAIL_MISSING("python3", "the trial script needs /usr/bin/python3");
    }
    void searchStopsOnAnotherFile_data();
    void searchStopsOnAnotherFile();
};

void TestSearchDbReplaced::searchStopsOnAnotherFile_data()
{
    QTest::addColumn<bool>("replace");
    QTest::newRow("another file moved over it") << true;
    QTest::newRow("deleted") << false;
}

void TestSearchDbReplaced::searchStopsOnAnotherFile()
{
    QFETCH(bool, replace);
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db"), best = dir.filePath("best.yaml");
    const QString partition = processCores().size() >= 2 ? "DPX" : "SPX";
    const std::size_t workers = partition == "DPX" ? 2 : 1;
    QProcess hpo;
    startScriptSearch(hpo, dir, db, "wait",
                      {"--trials", "6", "--partition", partition, "--study", "s", "--best-params", best});
    QVERIFY(hpo.waitForStarted());
    const auto running = [&] {
        std::size_t n = 0;
        for (const TrialRecord& t : trials(db, "s"))
            n += t.state == TrialState::Running;
        return n;
    };
    QVERIFY2(waitFor([&] { return running() == workers; }, 120000), "the trials did not start");

    std::vector<storetest::Row> otherRows;
    if (replace) {
        const QString other = dir.filePath("other.db");
        makeOtherStudyFile(other);
        otherRows = storetest::everyRow(other.toStdString());
        QCOMPARE(std::rename(qPrintable(other), qPrintable(db)), 0); // as `mv other.db r.db`
    } else {
        QVERIFY(QFile::remove(db));
    }
    writeFile(dir, "gate", ""); // the running trials finish now: their workers have results to write

    QVERIFY2(hpo.waitForFinished(120000), "pitwall hpo went on after its database was replaced");
    const QString out = QString::fromUtf8(hpo.readAllStandardOutput());
    const QString err = QString::fromUtf8(hpo.readAllStandardError());
    QCOMPARE(hpo.exitStatus(), QProcess::NormalExit);
    QVERIFY2(hpo.exitCode() == 1, qPrintable(QString::number(hpo.exitCode()) + "\n" + err));
    const QString expected = db + ": the results database was " + (replace ? "replaced by another file" : "deleted");
    QVERIFY2(err.contains(expected), qPrintable(err));
    QVERIFY2(!(out + err).contains("best parameters"), qPrintable(out));
    QVERIFY(!QFile::exists(best));
    if (replace)
        QCOMPARE(storetest::everyRow(db.toStdString()), otherRows); // not one row more, none changed
    else
        QVERIFY2(!QFile::exists(db), "an empty results file was created in place of the deleted one");
}

QTEST_GUILESS_MAIN(TestSearchDbReplaced)
#include "tst_search_dbreplaced.moc"
