#pragma once
// Background work of the window, one way for every view (QGIS's QgsTask is the model): a Task runs its work on
// a thread of the TaskManager's pool, reports progress (0-100 and a message), checks its cancel token
// cooperatively, and hands what it produced to the GUI thread through a queued call. The GUI thread starts,
// watches and cancels tasks; it never waits for one. Tasks are made by TaskManager::start.

#include "core/util/cancel.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>

namespace pitwall::ui {

class Task;

namespace task_internal {
struct Shared;
}

// What a task's work sees, on its worker thread.
class TaskContext {
public:
    explicit TaskContext(std::shared_ptr<task_internal::Shared> shared);

    // True once the task was cancelled: by Task::cancel, by its receiver going away, by a newer task of the
    // same key (Supersede::Running) or by the manager going away. The work should return soon; what it
    // returns then is dropped.
    bool canceled() const;
    // The task's token, for core functions that take one.
    CancelToken& cancelToken() const;
    // Progress: `percent` 0-100 (clamped), `message` one line (empty keeps the previous one). Cheap: the GUI
    // thread hears the latest value once per turn of its event loop, however often this is called.
    void setProgress(double percent, const QString& message = {}) const;
    // The same as core's ProgressSink (fraction 0..1 of the work, message), for core functions that report.
    ProgressSink progressSink() const;

private:
    std::shared_ptr<task_internal::Shared> m_shared;
};

// One piece of background work, seen from the GUI thread. Owned by the TaskManager, which deletes it (later)
// once it ended; hold it in a QPointer. Every signal is emitted on the GUI thread.
class Task : public QObject {
    Q_OBJECT
public:
    enum class State {
        Queued,   // waiting for a thread, or for the running task of its key
        Running,  // its work runs on a worker thread
        Finished, // the work returned; its result went to the receiver (if it was still there)
        Canceled, // cancelled before or while it ran; no result delivered
        Failed,   // the work threw; error() says what
    };
    Q_ENUM(State)

    ~Task() override;

    QString description() const { return m_description; }
    // Tasks of one non-empty key run one at a time, in the order started (see TaskManager::start).
    QString key() const { return m_key; }
    State state() const { return m_state; }
    bool isActive() const { return m_state == State::Queued || m_state == State::Running; }
    double progress() const { return m_percent; } // 0-100
    QString message() const { return m_message; }
    QString error() const { return m_error; }

    // Asks the work to stop (cooperatively) and drops its result. A queued task ends at once (Canceled); a
    // running one ends Canceled when its work returns. Never waits.
    void cancel();

Q_SIGNALS:
    void stateChanged(pitwall::ui::Task::State state);
    void progressChanged(double percent, const QString& message);
    // The last signal: the task ended (Finished, Canceled or Failed); a Finished task's result was delivered
    // just before.
    void ended(pitwall::ui::Task::State state);

private:
    friend class TaskManager;
    friend class TaskContext;
    friend struct task_internal::Shared;
    using Work = std::function<void(TaskContext&)>; // worker thread; may throw
    using Deliver = std::function<void()>;          // GUI thread, once the work returned and was not cancelled

    Task(QString description, QString key, QObject* receiver, Work work, Deliver deliver);
    // Called by the manager on the GUI thread: hands the work to `run` (which runs it on a worker thread).
    void launch(const std::function<void(std::function<void()>)>& run);
    // The work of a task cancelled before it ran (empty otherwise): the manager drops it on a worker thread,
    // since what it holds (a view's replaced data) may take milliseconds to destroy.
    Work takeUnrunWork();
    void setState(State state);
    void onProgress();
    void onWorkDone(bool threw, const QString& error);
    void finish(State state);

    QString m_description;
    QString m_key;
    QPointer<QObject> m_receiver;
    bool m_hadReceiver = false;
    Deliver m_deliver;
    std::shared_ptr<task_internal::Shared> m_shared;
    State m_state = State::Queued;
    double m_percent = 0;
    QString m_message;
    QString m_error;
};

} // namespace pitwall::ui
