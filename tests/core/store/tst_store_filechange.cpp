// A results file deleted or replaced under an open store (core/store/storefile.h): the next write fails with
// StoreFileChangedError naming the file, nothing is written into the file now at the path (nor created in place of
// a deleted one), a store opened while the first holds the path refuses the new file, and so does a `pitwall`
// process told through PITWALL_STORE_FILE which file its parent holds. A file closed by everyone and created
// again is a new file like any other. If this fails, a search keeps writing after `rm` or `mv` of its database:
// into a deleted file, or with trial ids of the old file into another study's file. It also prints what the
// check costs beside a write transaction (no assertion on time).
#include "storetestutil.h"

#include "../../cli/clitestutil.h"
#include "core/store/store.h"
#include "core/store/storefile.h"

#include <QElapsedTimer>
#include <QtTest>

#include <sys/stat.h>

#include <cstdio>

using namespace pitwall;
using namespace storetest;

namespace {

// A results file with one study `name` and a finished trial, closed again.
void makeStudyFile(const std::string& path, const std::string& name)
{
    auto store = openStore(path);
    const auto study = store->createStudy(name, {StudyDirection::Minimize});
    store->finishTrial(store->createTrial(study).id, TrialState::Complete, {1.0});
}

// Runs `call` and returns the StoreFileChangedError it throws; an empty string when it throws none.
template <typename Call> QString changedError(Call&& call)
{
    try {
        call();
    } catch (const StoreFileChangedError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestStoreFileChange : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void replacedFileIsNeverWritten();
    void deletedFileIsNotRecreated();
    void childRefusesAnotherFile();
    void closedFileMayBeCreatedAgain();
    void checkCostsLittle();
};

void TestStoreFileChange::replacedFileIsNeverWritten()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("r.db").toStdString(), other = dir.filePath("other.db").toStdString();
    makeStudyFile(other, "other");
    const std::vector<Row> otherRows = everyRow(other);
    auto store = openStore(path);
    const auto study = store->createStudy("mine", {StudyDirection::Minimize});
    const TrialRecord trial = store->createTrial(study);
    QCOMPARE(std::rename(other.c_str(), path.c_str()), 0); // as `mv other.db r.db`

    const QString error = changedError([&] { store->finishTrial(trial.id, TrialState::Complete, {0.5}); });
    QVERIFY2(error.startsWith(QString::fromStdString(path) + ": the results database was replaced by another file"),
             qPrintable(error));
    QVERIFY(!changedError([&] { store->requireSameDatabase(); }).isEmpty());
    // Another store of this process, opened while the first holds the path, refuses the new file.
    QVERIFY(!changedError([&] { openStore(path); }).isEmpty());
    store.reset();
    QCOMPARE(everyRow(path), otherRows); // not one row of the old file's trial in the new file
}

void TestStoreFileChange::deletedFileIsNotRecreated()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("d.db").toStdString();
    auto store = openStore(path);
    const auto study = store->createStudy("mine", {StudyDirection::Minimize});
    QVERIFY(QFile::remove(QString::fromStdString(path)));

    const QString error = changedError([&] { store->createTrial(study); });
    QVERIFY2(error.contains(QString::fromStdString(path) + ": the results database was deleted"), qPrintable(error));
    QVERIFY(!changedError([&] { openStore(path); }).isEmpty());
    QVERIFY(!QFile::exists(QString::fromStdString(path))); // no empty file in its place
}

// What a worker started after the replacement sees: its parent's file in PITWALL_STORE_FILE.
void TestStoreFileChange::childRefusesAnotherFile()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("c.db").toStdString(), held = dir.filePath("held.db").toStdString();
    makeStudyFile(path, "there");
    makeStudyFile(held, "held");
    std::string value;
    {
        auto store = openStore(held);
        QVERIFY(heldStoreFile(path).empty()); // a file nobody holds
        value = heldStoreFile(held);
    }
    QVERIFY(heldStoreFile(held).empty()); // released with the store
    struct stat status {};
    QCOMPARE(::stat(held.c_str(), &status), 0);
    QVERIFY2(value == std::to_string(status.st_dev) + ":" + std::to_string(status.st_ino) + ":" + held, value.c_str());
    const std::vector<Row> before = everyRow(path);
    // c.db stands for the file found at the path after the parent's (held.db) was replaced.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(kStoreFileVariable, QString::fromStdString(value.substr(0, value.rfind(':') + 1) + path));
    const CliResult replaced =
        runCli({"study", "create", "--db", QString::fromStdString(path), "--study", "x"}, dir.path(), env);
    QCOMPARE(replaced.exitCode, 1);
    QVERIFY2(replaced.err.contains("was replaced by another file"), qPrintable(replaced.err));
    QCOMPARE(everyRow(path), before);

    const QString gone = dir.filePath("gone.db");
    env.insert(kStoreFileVariable, QString::fromStdString(value.substr(0, value.rfind(':') + 1)) + gone);
    const CliResult deleted = runCli({"study", "create", "--db", gone, "--study", "x"}, dir.path(), env);
    QCOMPARE(deleted.exitCode, 1);
    QVERIFY2(deleted.err.contains(gone + ": the results database was deleted"), qPrintable(deleted.err));
    QVERIFY(!QFile::exists(gone));
}

// No false alarm: once no store holds it, a file may be deleted and created again at the same path.
void TestStoreFileChange::closedFileMayBeCreatedAgain()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("again.db").toStdString();
    makeStudyFile(path, "first");
    QVERIFY(QFile::remove(QString::fromStdString(path)));
    makeStudyFile(path, "second");
    auto store = openStore(path, OpenMode::ReadOnly);
    QVERIFY(store->findStudy("second").has_value());
    QVERIFY(!store->findStudy("first").has_value());
}

// The check is one stat per write transaction: printed beside the cost of a small write (a trial heartbeat).
void TestStoreFileChange::checkCostsLittle()
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath("cost.db").toStdString());
    const auto trial = store->createTrial(store->createStudy("cost", {StudyDirection::Minimize}));
    constexpr int kRounds = 2000;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < kRounds; ++i)
        store->heartbeat(trial.id);
    const double writeUs = timer.nsecsElapsed() / 1000.0 / kRounds;
    timer.restart();
    for (int i = 0; i < kRounds; ++i)
        store->requireSameDatabase();
    const double checkUs = timer.nsecsElapsed() / 1000.0 / kRounds;
    qInfo("a write transaction (heartbeat, check included): %.1f us; the file check alone: %.2f us (%.1f %%)", writeUs,
          checkUs, 100.0 * checkUs / writeUs);
}

QTEST_GUILESS_MAIN(TestStoreFileChange)
#include "tst_store_filechange.moc"
