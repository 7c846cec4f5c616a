// Sharding vs replication: shards are disjoint and cover the dataset; replicas each see all of it; both are
// pure functions of (seed, epoch, rank).
#include "core/engine/data/sampler.h"
#include "core/util/error.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace pitwall::engine::data;

class TestDataSampler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shardsAreDisjointAndCover();
    void unevenShardsWrap();
    void replicasSeeEverything();
    void ordersChangePerEpochOnly();
    void badRanks();
};

void TestDataSampler::shardsAreDisjointAndCover()
{
    std::multiset<std::int64_t> seen;
    for (int rank = 0; rank < 4; ++rank) {
        const EpochSampler sampler(100, {rank, 4, false, true, 7});
        const auto mine = sampler.indices(3);
        QCOMPARE(mine.size(), std::size_t(25));
        seen.insert(mine.begin(), mine.end());
    }
    QCOMPARE(seen.size(), std::size_t(100));
    QCOMPARE(std::set<std::int64_t>(seen.begin(), seen.end()).size(), std::size_t(100)); // no index twice
}

void TestDataSampler::unevenShardsWrap()
{
    std::set<std::int64_t> seen;
    for (int rank = 0; rank < 3; ++rank) {
        const EpochSampler sampler(10, {rank, 3, false, true, 1});
        QCOMPARE(sampler.samplesPerEpoch(), std::int64_t(4)); // padded to 12 by wrapping, as DistributedSampler
        for (std::int64_t i : sampler.indices(0))
            seen.insert(i);
    }
    QCOMPARE(seen.size(), std::size_t(10));
}

void TestDataSampler::replicasSeeEverything()
{
    std::vector<std::vector<std::int64_t>> orders;
    for (int rank = 0; rank < 4; ++rank) {
        const EpochSampler sampler(50, {rank, 4, true, true, 7});
        QCOMPARE(sampler.samplesPerEpoch(), std::int64_t(50));
        auto order = sampler.indices(0);
        auto sorted = order;
        std::sort(sorted.begin(), sorted.end());
        for (std::int64_t i = 0; i < 50; ++i)
            QCOMPARE(sorted[static_cast<std::size_t>(i)], i);
        orders.push_back(order);
    }
    QVERIFY(orders[0] != orders[1]); // each device in its own order
    // Without shuffling every replica walks the dataset in order.
    QCOMPARE(EpochSampler(5, {2, 4, true, false, 0}).indices(9), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

void TestDataSampler::ordersChangePerEpochOnly()
{
    const EpochSampler a(64, {1, 2, false, true, 5}), b(64, {1, 2, false, true, 5});
    QCOMPARE(a.indices(2), b.indices(2));
    QVERIFY(a.indices(2) != a.indices(3));
    QVERIFY(EpochSampler(64, {1, 2, false, true, 6}).indices(2) != a.indices(2));
}

void TestDataSampler::badRanks()
{
    QVERIFY_THROWS_EXCEPTION(pitwall::InputError, EpochSampler(10, {2, 2, false, true, 0}));
    QVERIFY_THROWS_EXCEPTION(pitwall::InputError, EpochSampler(0, {0, 1, false, true, 0}));
}

QTEST_GUILESS_MAIN(TestDataSampler)
#include "tst_data_sampler.moc"
