// The window's task mechanism (ui/tasks): work runs off the GUI thread and its result arrives on the GUI thread;
// progress is heard there; cancel is cooperative and drops the result; tasks of one key run one at a time and a
// newer one replaces the one waiting (and, with Supersede::Running, cancels the one running); a receiver that
// is gone gets nothing. If these fail, a view may show stale data, pile up reads behind a busy database, or be
// called after it was destroyed.
#include "ui/tasks/taskmanager.h"

#include <QPointer>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

using namespace pitwall::ui;

namespace {

// Work that blocks until released (or cancelled), so a test decides when it ends.
struct Gate {
    std::atomic<bool> open{false};
    void wait(const TaskContext& context) const
    {
        while (!open && !context.canceled())
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
};

} // namespace

class TestTasks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deliversTheResultOnTheGuiThread();
    void reportsProgress();
    void cancelDropsTheResult();
    void aFailedTaskSaysWhy();
    void aNewerTaskReplacesTheOneWaiting();
    void supersedingCancelsTheRunningOne();
    void aReceiverThatIsGoneGetsNothing();
};

void TestTasks::deliversTheResultOnTheGuiThread()
{
    QThread* workThread = nullptr;
    QThread* doneThread = nullptr;
    int result = 0;
    TaskManager manager; // after what its tasks use: it lets running work return as it goes
    QPointer<Task> task = manager.start(
        {QStringLiteral("answer")}, this,
        [&workThread](TaskContext&) {
            workThread = QThread::currentThread();
            return 42;
        },
        [&](int value) {
            doneThread = QThread::currentThread();
            result = value;
        });
    QSignalSpy ended(task.data(), &Task::ended);
    QVERIFY(ended.wait(5000));
    QCOMPARE(result, 42);
    QCOMPARE(ended.first().at(0).value<Task::State>(), Task::State::Finished);
    QVERIFY(workThread && workThread != QThread::currentThread());
    QCOMPARE(doneThread, QThread::currentThread());
    QTRY_VERIFY(!task); // deleted once ended
    QCOMPARE(manager.activeCount(), 0);
}

void TestTasks::reportsProgress()
{
    Gate gate;
    TaskManager manager;
    Task* task = manager.start(
        {QStringLiteral("counting")}, this,
        [&gate](TaskContext& context) {
            context.progressSink()(0.5, "half way");
            gate.wait(context);
        },
        [] {});
    QSignalSpy progress(task, &Task::progressChanged);
    QVERIFY(progress.wait(5000));
    QCOMPARE(progress.last().at(0).toDouble(), 50.0);
    QCOMPARE(progress.last().at(1).toString(), QString("half way"));
    QCOMPARE(task->state(), Task::State::Running);
    QSignalSpy ended(task, &Task::ended);
    gate.open = true;
    QVERIFY(ended.wait(5000));
}

void TestTasks::cancelDropsTheResult()
{
    Gate gate;
    bool delivered = false;
    bool sawCancel = false;
    TaskManager manager;
    Task* task = manager.start(
        {QStringLiteral("long")}, this,
        [&](TaskContext& context) {
            gate.wait(context);
            sawCancel = context.canceled();
            return 1;
        },
        [&](int) { delivered = true; });
    QTRY_COMPARE(task->state(), Task::State::Running);
    QSignalSpy ended(task, &Task::ended);
    task->cancel(); // never waits: the work sees the token and returns
    QVERIFY(ended.wait(5000));
    QCOMPARE(ended.first().at(0).value<Task::State>(), Task::State::Canceled);
    QVERIFY(sawCancel);
    QVERIFY(!delivered);
}

void TestTasks::aFailedTaskSaysWhy()
{
    bool delivered = false;
    TaskManager manager;
    Task* task = manager.start(
        {QStringLiteral("broken")}, this, [](TaskContext&) -> int { throw std::runtime_error("database is locked"); },
        [&](int) { delivered = true; });
    QSignalSpy ended(task, &Task::ended);
    QVERIFY(ended.wait(5000));
    QCOMPARE(task->state(), Task::State::Failed);
    QCOMPARE(task->error(), QString("database is locked"));
    QVERIFY(!delivered);
}

void TestTasks::aNewerTaskReplacesTheOneWaiting()
{
    Gate gate;
    QList<int> delivered;
    TaskManager manager;
    const QString key = TaskManager::keyFor(this, QStringLiteral("refresh"));
    auto start = [&](int n) {
        return manager.start(
            {QStringLiteral("refresh %1").arg(n), key}, this,
            [&gate, n](TaskContext& context) {
                gate.wait(context);
                return n;
            },
            [&delivered](int value) { delivered << value; });
    };
    Task* first = start(1);
    QTRY_COMPARE(first->state(), Task::State::Running);
    QPointer<Task> second = start(2);
    Task* third = start(3);
    QCOMPARE(manager.activeCount(), 2); // the second was replaced at once, before it ran
    QVERIFY(!second || second->state() == Task::State::Canceled);
    QCOMPARE(third->state(), Task::State::Queued); // waits for the first: one at a time
    QSignalSpy thirdEnded(third, &Task::ended);
    gate.open = true;
    QVERIFY(thirdEnded.wait(5000));
    QCOMPARE(delivered, QList<int>({1, 3}));
    QVERIFY(!manager.hasActive(key));
}

void TestTasks::supersedingCancelsTheRunningOne()
{
    Gate gate;
    QList<int> delivered;
    TaskManager manager;
    const QString key = TaskManager::keyFor(this, QStringLiteral("frame"));
    auto start = [&](int n) {
        return manager.start(
            {QStringLiteral("frame %1").arg(n), key, Supersede::Running}, this,
            [&gate, n](TaskContext& context) {
                gate.wait(context);
                return n;
            },
            [&delivered](int value) { delivered << value; });
    };
    Task* first = start(1);
    QTRY_COMPARE(first->state(), Task::State::Running);
    QSignalSpy firstEnded(first, &Task::ended);
    Task* second = start(2);
    QVERIFY(firstEnded.wait(5000));
    QCOMPARE(firstEnded.first().at(0).value<Task::State>(), Task::State::Canceled);
    QTRY_COMPARE(second->state(), Task::State::Running); // only after the first returned
    QSignalSpy secondEnded(second, &Task::ended);
    gate.open = true;
    QVERIFY(secondEnded.wait(5000));
    QCOMPARE(delivered, QList<int>({2}));
}

void TestTasks::aReceiverThatIsGoneGetsNothing()
{
    Gate gate;
    bool delivered = false;
    auto* receiver = new QObject;
    TaskManager manager;
    Task* task = manager.start(
        {QStringLiteral("orphan")}, receiver,
        [&gate](TaskContext& context) {
            gate.wait(context);
            return context.canceled();
        },
        [&delivered](bool) { delivered = true; });
    QTRY_COMPARE(task->state(), Task::State::Running);
    QSignalSpy ended(task, &Task::ended);
    delete receiver; // cancels its tasks
    QVERIFY(ended.wait(5000));
    QCOMPARE(ended.first().at(0).value<Task::State>(), Task::State::Canceled);
    QVERIFY(!delivered);
}

QTEST_GUILESS_MAIN(TestTasks)
#include "tst_tasks.moc"
