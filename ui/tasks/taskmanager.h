#pragma once
// The window's tasks (QGIS's QgsTaskManager is the model): every store read, device probe or other long work a
// view does off the GUI thread is started here, and its result comes back on the GUI thread. A view keeps the
// Task* it got in a QPointer to watch or cancel it; the manager owns and deletes the tasks.
//
//   TaskManager::instance()->start({tr("Reading jobs"), QStringLiteral("jobs:") + db}, this,
//       [db](TaskContext& context) { return readJobs(db, context); },   // a worker thread
//       [this](std::vector<JobRecord> jobs) { show(std::move(jobs)); }); // the GUI thread, if `this` lives
//
// Tasks with the same key run one at a time, in the order started, and at most one waits behind the running
// one: a newer task replaces one still waiting (the view only wants its latest data). GUI thread only.

#include "ui/tasks/task.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace pitwall::ui {

// What a new task does to the earlier tasks of its key.
enum class Supersede {
    Queued,  // a waiting one is dropped (ends Canceled); a running one finishes and delivers first
    Running, // a running one is also cancelled, its result dropped (the data it computes is stale)
};

struct TaskOptions {
    QString description = {}; // for people: "Reading the jobs of demo.db"
    QString key = {};         // empty: runs as soon as a thread is free, beside any other task
    Supersede supersede = Supersede::Queued;
};

class TaskManager : public QObject {
    Q_OBJECT
public:
    // Threads of the pool at least (a store read may wait seconds on a busy database; the others go on).
    static constexpr int kMinThreads = 4;

    explicit TaskManager(QObject* parent = nullptr);
    // Cancels every task; running work is let return (at the application's exit, the only wait).
    ~TaskManager() override;

    // The application's manager, made on first use (GUI thread) and destroyed with the application.
    static TaskManager* instance();
    // A key of `owner`'s own ("jobs@0x5581…"): two windows' views never replace each other's tasks.
    static QString keyFor(const QObject* owner, const QString& what);

    // Starts `work(TaskContext&)` on a worker thread; when it returns R, `done(R)` runs on the GUI thread, unless
    // the task was cancelled, its work threw (the task ends Failed), or `receiver` (may be null: no such
    // check) was destroyed meanwhile. `work` may return void (then `done()` takes nothing). Both are copied.
    template <typename WorkFn, typename DoneFn>
    Task* start(const TaskOptions& options, QObject* receiver, WorkFn work, DoneFn done);

    // Tasks queued or running, oldest first.
    QList<Task*> activeTasks() const;
    int activeCount() const { return static_cast<int>(m_active.size()); }
    // Whether a task of `key` is queued or running.
    bool hasActive(const QString& key) const { return m_keys.contains(key); }
    void cancelAll();

Q_SIGNALS:
    void taskAdded(pitwall::ui::Task* task);
    void activeCountChanged(int count);
    void allTasksFinished();

private:
    // The tasks of one key: the one handed to the pool and the one waiting behind it.
    struct KeySlot {
        QPointer<Task> current;
        QPointer<Task> next;
    };

    Task* add(const TaskOptions& options, QObject* receiver, Task::Work work, Task::Deliver deliver);
    void submit(Task* task);
    void onEnded(Task* task);

    QThreadPool m_pool;
    QList<QPointer<Task>> m_active;
    QHash<QString, KeySlot> m_keys;
};

template <typename WorkFn, typename DoneFn>
Task* TaskManager::start(const TaskOptions& options, QObject* receiver, WorkFn work, DoneFn done)
{
    using Result = std::invoke_result_t<WorkFn&, TaskContext&>;
    if constexpr (std::is_void_v<Result>) {
        return add(
            options, receiver, [work = std::move(work)](TaskContext& context) mutable { work(context); },
            [done = std::move(done)]() mutable { done(); });
    } else {
        // Written by the worker before it posts its end; read on the GUI thread after.
        auto result = std::make_shared<std::optional<Result>>();
        return add(
            options, receiver,
            [work = std::move(work), result](TaskContext& context) mutable { result->emplace(work(context)); },
            [done = std::move(done), result]() mutable { done(std::move(**result)); });
    }
}

} // namespace pitwall::ui
