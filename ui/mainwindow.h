#pragma once
// The workbench window: the studies side bar and the trials of the selected study, fed by a StorePoller
// in its own thread. Closing the window stops the poller (requestInterruption/quit/wait) and nothing else:
// work started elsewhere keeps running and is picked up again from the store when the window reopens.

#include "ui/storepoller.h"

#include <QMainWindow>
#include <QThread>

class QLabel;

namespace pitwall::ui {

class StudiesView;
class TrialsView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a results database (any SQLite file written by Pitwall or Optuna) and remembers it.
    void openDatabase(const QString& location);
    // The latest snapshot shown (for tests and the screenshot mode).
    const StoreSnapshot& snapshot() const { return m_snapshot; }
    StudiesView* studiesView() const { return m_studies; }
    TrialsView* trialsView() const { return m_trials; }

    static QStringList recentFiles();

Q_SIGNALS:
    void snapshotShown();

private:
    void showSnapshot(const StoreSnapshot& snapshot);
    void chooseDatabase();
    void rebuildRecentMenu();

    QThread m_pollerThread;
    StorePoller* m_poller = nullptr;
    StudiesView* m_studies = nullptr;
    TrialsView* m_trials = nullptr;
    QLabel* m_status = nullptr;
    QMenu* m_recentMenu = nullptr;
    StoreSnapshot m_snapshot;
};

} // namespace pitwall::ui
