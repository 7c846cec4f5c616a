#include "ui/tasks/taskmanager.h"

#include <QCoreApplication>
#include <QThread>

#include <algorithm>

namespace pitwall::ui {

TaskManager::TaskManager(QObject* parent) : QObject(parent)
{
    m_pool.setMaxThreadCount(std::max(kMinThreads, QThread::idealThreadCount()));
    m_pool.setObjectName(QStringLiteral("pitwall-tasks"));
}

TaskManager::~TaskManager()
{
    for (const QPointer<Task>& task : std::as_const(m_active))
        if (task) {
            disconnect(task, nullptr, this, nullptr);
            task->cancel();
        }
    m_keys.clear();
    m_active.clear();
    // m_pool's destructor lets the running work return (cancelled, unheard); then the tasks, children, go.
}

TaskManager* TaskManager::instance()
{
    static QPointer<TaskManager> manager;
    if (!manager)
        manager = new TaskManager(QCoreApplication::instance());
    return manager;
}

QString TaskManager::keyFor(const QObject* owner, const QString& what)
{
    return what + QStringLiteral("@0x") + QString::number(reinterpret_cast<quintptr>(owner), 16);
}

QList<Task*> TaskManager::activeTasks() const
{
    QList<Task*> tasks;
    for (const QPointer<Task>& task : m_active)
        if (task)
            tasks << task.data();
    return tasks;
}

void TaskManager::cancelAll()
{
    for (Task* task : activeTasks()) // a copy: cancelling ends some tasks at once
        task->cancel();
}

Task* TaskManager::add(const TaskOptions& options, QObject* receiver, Task::Work work, Task::Deliver deliver)
{
    auto* task = new Task(options.description, options.key, receiver, std::move(work), std::move(deliver));
    task->setParent(this);
    m_active << task;
    connect(task, &Task::ended, this, [this, task] { onEnded(task); });
    Q_EMIT taskAdded(task);
    Q_EMIT activeCountChanged(activeCount());
    if (options.key.isEmpty()) {
        submit(task);
        return task;
    }
    // Cancelling may end a task at once (onEnded then updates the slot), so the slot is looked up afresh.
    if (Task* waiting = m_keys.value(options.key).next)
        waiting->cancel();
    if (Task* running = m_keys.value(options.key).current; running && options.supersede == Supersede::Running)
        running->cancel();
    KeySlot& slot = m_keys[options.key];
    if (slot.current) {
        slot.next = task;
    } else {
        slot.current = task;
        submit(task);
    }
    return task;
}

void TaskManager::submit(Task* task)
{
    task->launch([this](std::function<void()> run) { m_pool.start(std::move(run)); });
}

void TaskManager::onEnded(Task* task)
{
    if (Task::Work work = task->takeUnrunWork())
        m_pool.start([work = std::move(work)]() mutable { work = nullptr; });
    m_active.removeAll(task);
    m_active.removeAll(nullptr);
    const QString key = task->key();
    if (auto it = m_keys.find(key); !key.isEmpty() && it != m_keys.end()) {
        if (it->next == task) {
            it->next = nullptr;
        } else if (it->current == task) {
            it->current = std::exchange(it->next, nullptr);
            if (it->current)
                submit(it->current);
        }
        if (!it->current && !it->next)
            m_keys.erase(it);
    }
    Q_EMIT activeCountChanged(activeCount());
    if (m_active.isEmpty())
        Q_EMIT allTasksFinished();
}

} // namespace pitwall::ui
