#include "ui/storepoller.h"

#include "core/store/store.h"

#include <QTimer>

namespace pitwall::ui {

StorePoller::StorePoller(QObject* parent) : QObject(parent) { qRegisterMetaType<StoreSnapshot>(); }

StorePoller::~StorePoller() = default;

void StorePoller::openDatabase(const QString& location)
{
    m_location = location;
    m_store.reset();
    m_lastCounter = -1;
    poll(true);
}

void StorePoller::setFocusStudy(const QString& name)
{
    m_focus = name;
    poll(true);
}

void StorePoller::start(int intervalMs)
{
    if (!m_timer) {
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, [this] { poll(false); });
    }
    m_timer->start(intervalMs);
}

void StorePoller::stop()
{
    if (m_timer)
        m_timer->stop();
}

void StorePoller::refreshNow() { poll(true); }

void StorePoller::poll(bool force)
{
    if (m_location.isEmpty())
        return;
    StoreSnapshot snapshot;
    snapshot.location = m_location;
    snapshot.focusStudy = m_focus;
    try {
        if (!m_store)
            m_store = openStore(m_location.toStdString(), OpenMode::ReadOnly);
        const qint64 counter = m_store->changeCounter();
        if (!force && counter == m_lastCounter)
            return;
        m_lastCounter = counter;
        snapshot.changeCounter = counter;
        snapshot.studies = m_store->listStudies();
        if (!m_focus.isEmpty())
            if (auto study = m_store->findStudy(m_focus.toStdString()))
                snapshot.focusTrials = m_store->trials(study->id);
    } catch (const std::exception& e) {
        m_store.reset();
        snapshot.error = QString::fromStdString(e.what());
    }
    Q_EMIT snapshotReady(snapshot);
}

} // namespace pitwall::ui
