// A search's pieces that need no worker process: the text after its progress line's trial counter, and
// best_params.yaml.

#include "core/search/search.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace pitwall;

class TestSearchUnits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void searchProgressNamesEveryCount();
    void bestParamsAreTheSampledValues();
};

// The text after a search's trial counter: wrong, and `pitwall hpo` shows failed trials that were only cancelled
// (interrupted ones are named as such), an epoch total that leaves out the re-run of an interrupted trial (26/24),
// or no best value.
void TestSearchUnits::searchProgressNamesEveryCount()
{
    PoolStatus status;
    status.target = 4;
    status.pending = 1;
    status.counts.running = 1;
    status.counts.complete = 1;
    status.counts.failed = 2;
    status.counts.interrupted = 1;
    status.counts.epochsDone = 5;
    QCOMPARE(searchProgressDetail(status, std::nullopt),
             std::string("running 1 · pending 1 · complete 1 · pruned 0 · failed 1 · interrupted 1 · epochs 5"));
    status.counts.bestValue = 0.25;
    status.counts.bestTrial = 3;
    QCOMPARE(searchProgressDetail(status, 3),
             std::string("running 1 · pending 1 · complete 1 · pruned 0 · failed 1 · interrupted 1 · epochs 5/15 · best "
                         "0.25 (#3)"));
    // Several objectives have no single best: the front's size instead.
    status.counts.bestValue.reset();
    status.counts.bestTrial.reset();
    status.counts.frontSize = 4;
    QCOMPARE(searchProgressDetail(status, 3),
             std::string("running 1 · pending 1 · complete 1 · pruned 0 · failed 1 · interrupted 1 · epochs 5/15 · front 4"));
}

// best_params.yaml holds the best trial's values under the space's names, typed as sampled (a categorical
// string stays a string, an int an int); otherwise a retrain with them would run another configuration.
void TestSearchUnits::bestParamsAreTheSampledValues()
{
    const QTemporaryDir dir;
    TrialRecord best;
    best.number = 7;
    best.values = {0.5};
    Distribution lr;
    lr.kind = Distribution::Kind::Float;
    lr.low = 1e-5;
    lr.high = 1e-1;
    best.params.push_back({"lr", 0.001, lr});
    Distribution batch;
    batch.kind = Distribution::Kind::Int;
    batch.low = 1;
    batch.high = 64;
    batch.step = 1;
    best.params.push_back({"batch_size", 16, batch});
    const std::string path = (std::filesystem::path(dir.path().toStdString()) / "sub" / "best_params.yaml").string();
    writeBestParams(best, path);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    QVERIFY2(text.str().find("# Best trial 7 (value 0.5)") == 0, text.str().c_str());
    QVERIFY2(text.str().find("lr: 0.001") != std::string::npos, text.str().c_str());
    QVERIFY2(text.str().find("batch_size: 16") != std::string::npos, text.str().c_str());
    QVERIFY(!std::filesystem::exists(path + ".tmp"));
}

QTEST_GUILESS_MAIN(TestSearchUnits)
#include "tst_search_units.moc"
