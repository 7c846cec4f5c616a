#pragma once
// Reads the results store off the GUI thread. Lives in its own QThread; polls the store's cheap change
// counter and, only when it moved (or when asked), reads the study list and the trials of the study in
// focus, and delivers them as a snapshot through a queued signal. The GUI thread never waits on the store.

#include "core/store/records.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

class QTimer;

namespace pitwall {
class Store;
}

namespace pitwall::ui {

struct StoreSnapshot {
    QString location;
    QString error;                       // non-empty when the store could not be read
    std::vector<StudySummary> studies;
    QString focusStudy;
    std::vector<TrialRecord> focusTrials;
    qint64 changeCounter = 0;
};

class StorePoller : public QObject {
    Q_OBJECT
public:
    explicit StorePoller(QObject* parent = nullptr);
    ~StorePoller() override;

public Q_SLOTS:
    // All slots run in the poller's thread (call through queued connections).
    void openDatabase(const QString& location);
    void setFocusStudy(const QString& name);
    void start(int intervalMs);
    void stop();
    void refreshNow();

Q_SIGNALS:
    void snapshotReady(const pitwall::ui::StoreSnapshot& snapshot);

private:
    void poll(bool force);

    std::unique_ptr<Store> m_store;
    QString m_location;
    QString m_focus;
    qint64 m_lastCounter = -1;
    QTimer* m_timer = nullptr;
};

} // namespace pitwall::ui

Q_DECLARE_METATYPE(pitwall::ui::StoreSnapshot)
