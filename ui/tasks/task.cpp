#include "ui/tasks/task.h"

#include <QMetaObject>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>

namespace pitwall::ui {

namespace task_internal {

enum class Phase { Waiting, Started, Skipped };

// What a task's GUI-thread object and its worker share. The worker never touches the Task itself: it posts
// to it through `owner`, under `mutex`, and the Task's destructor clears `owner` under the same mutex, so a
// post never races with the Task going away (and ~QObject drops what was posted but not yet delivered).
struct Shared {
    CancelToken cancel;
    Task::Work work; // set before launch; cleared by the worker once it ran (its captures die there)
    std::atomic<Phase> phase{Phase::Waiting};
    std::mutex mutex;
    Task* owner = nullptr;
    double percent = 0;
    QString message;
    bool progressPosted = false;

    // Runs `call` on the GUI thread with the Task, if the Task is still there then.
    template <typename Call> void post(Call call)
    {
        std::lock_guard lock(mutex);
        if (Task* task = owner)
            QMetaObject::invokeMethod(
                task, [task, call] { call(task); }, Qt::QueuedConnection);
    }
};

} // namespace task_internal

using task_internal::Phase;

TaskContext::TaskContext(std::shared_ptr<task_internal::Shared> shared) : m_shared(std::move(shared))
{
}

bool TaskContext::canceled() const
{
    return m_shared->cancel.requested();
}

CancelToken& TaskContext::cancelToken() const
{
    return m_shared->cancel;
}

void TaskContext::setProgress(double percent, const QString& message) const
{
    task_internal::Shared& shared = *m_shared;
    std::lock_guard lock(shared.mutex);
    shared.percent = std::clamp(percent, 0.0, 100.0);
    if (!message.isEmpty())
        shared.message = message;
    if (shared.progressPosted || !shared.owner)
        return;
    shared.progressPosted = true; // one post at a time: the GUI thread reads the latest value
    Task* task = shared.owner;
    QMetaObject::invokeMethod(
        task, [task] { task->onProgress(); }, Qt::QueuedConnection);
}

ProgressSink TaskContext::progressSink() const
{
    return [context = *this](double fraction, const std::string& message) {
        context.setProgress(fraction * 100.0, QString::fromStdString(message));
    };
}

Task::Task(QString description, QString key, QObject* receiver, Work work, Deliver deliver)
    : m_description(std::move(description)), m_key(std::move(key)), m_receiver(receiver),
      m_hadReceiver(receiver != nullptr), m_deliver(std::move(deliver)),
      m_shared(std::make_shared<task_internal::Shared>())
{
    m_shared->work = std::move(work);
    m_shared->owner = this;
    if (receiver)
        connect(receiver, &QObject::destroyed, this, &Task::cancel); // nobody to deliver to: stop the work
}

Task::~Task()
{
    std::lock_guard lock(m_shared->mutex);
    m_shared->owner = nullptr;
    m_shared->cancel.request();
}

void Task::launch(const std::function<void(std::function<void()>)>& run)
{
    run([shared = m_shared] {
        Phase waiting = Phase::Waiting;
        if (!shared->phase.compare_exchange_strong(waiting, Phase::Started))
            return; // cancelled before it started: it has ended already
        shared->post([](Task* task) { task->setState(State::Running); });
        TaskContext context(shared);
        bool threw = false;
        QString error;
        try {
            shared->work(context);
        } catch (const std::exception& e) {
            threw = true;
            error = QString::fromStdString(e.what());
        } catch (...) {
            threw = true;
            error = QStringLiteral("unknown error");
        }
        shared->work = nullptr;
        shared->post([threw, error](Task* task) { task->onWorkDone(threw, error); });
    });
}

Task::Work Task::takeUnrunWork()
{
    if (m_shared->phase.load() != Phase::Skipped) // a worker may hold it
        return {};
    return std::exchange(m_shared->work, nullptr);
}

void Task::cancel()
{
    if (!isActive())
        return;
    m_shared->cancel.request();
    Phase waiting = Phase::Waiting;
    if (m_shared->phase.compare_exchange_strong(waiting, Phase::Skipped))
        finish(State::Canceled); // its work never runs
    // Otherwise it runs: it ends Canceled when its work returns.
}

void Task::setState(State state)
{
    if (!isActive() || m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void Task::onProgress()
{
    double percent = 0;
    QString message;
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->progressPosted = false;
        percent = m_shared->percent;
        message = m_shared->message;
    }
    if (!isActive() || (percent == m_percent && message == m_message))
        return;
    m_percent = percent;
    m_message = message;
    Q_EMIT progressChanged(percent, message);
}

void Task::onWorkDone(bool threw, const QString& error)
{
    if (!isActive())
        return;
    if (m_shared->cancel.requested() || (m_hadReceiver && !m_receiver)) {
        finish(State::Canceled);
    } else if (threw) {
        m_error = error;
        finish(State::Failed);
    } else {
        m_percent = 100;
        if (m_deliver)
            m_deliver();
        finish(State::Finished);
    }
}

void Task::finish(State state)
{
    m_state = state;
    m_deliver = nullptr; // what it captured (the result, the receiver's data) goes now, on the GUI thread
    Q_EMIT stateChanged(state);
    Q_EMIT ended(state);
    deleteLater();
}

} // namespace pitwall::ui
