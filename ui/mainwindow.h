#pragma once
// The workbench window: the studies side bar (with a filter), the Jobs dock (every job of the database, with
// stop / resume / log / results actions) and six views — Studies (trials of the study in
// focus with trial details), Configure, Live, Study, Compare, Benchmarks — fed by a StorePoller in its own
// thread. Ctrl+1..6 switch views, Ctrl+O opens a database (File > Add database to Compare adds more, read-only,
// to the Compare view), F5 refreshes, Ctrl+E exports a table (CSV) or chart (PNG) of the current view. Closing
// the window stops the poller (requestInterruption/quit/wait) and nothing else: work launched from it runs
// detached and is picked up again from the store when the window reopens.

#include "ui/poller/storepoller.h"

#include <QMainWindow>
#include <QThread>

#include <functional>
#include <optional>

class QDockWidget;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTabWidget;

namespace pitwall::ui {

class BenchmarksView;
class CompareView;
class ConfigureView;
class JobsPanel;
class LiveModel;
class LiveView;
class StartPage;
class StudiesView;
class StudyView;
class TrialsPage;
class TrialsView;

enum class View { Studies, Configure, Live, Study, Compare, Benchmarks };
std::optional<View> parseView(const QString& name); // "studies", "configure", "live", "study", "compare", "benchmarks"
QString viewName(View view);

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a results database (any SQLite file written by Pitwall or Optuna) and remembers it.
    void openDatabase(const QString& location);
    // Creates a results database at `location` (its folder must exist; an existing file is opened, never replaced)
    // off the GUI thread, then opens it and says so in the status bar; `then` runs once it is open. An error is
    // shown in a dialog and on the start page.
    void createDatabase(const QString& location, std::function<void()> then = {});
    // The start page (New, Open, Run the demo, recent databases), with `message` saying why when not empty.
    void showStartPage(const QString& message = {}, bool error = false);
    bool startPageShown() const;
    StartPage* startPage() const { return m_start; }
    QString database() const { return m_database; }
    // Adds another database (read-only) to the Compare view, beside the one open; an unreadable or foreign
    // file is refused with a message and left as it is.
    void addCompareDatabase(const QString& location);
    // Puts a study in focus (now, or once it is listed). Without a call the first study listed is focused.
    void focusStudy(const QString& name);
    void showView(View view);
    View currentView() const;
    // True when the view shows the data it will show for the current database (for screenshots and tests).
    bool viewReady(View view) const;

    // The latest snapshot shown (for tests and the screenshot mode).
    const StoreSnapshot& snapshot() const { return m_snapshot; }
    StudiesView* studiesView() const { return m_studies; }
    // The trials page, filled as showing it would (it fills when shown).
    TrialsView* trialsView() const;
    TrialsPage* trialsPage() const;
    ConfigureView* configureView() const { return m_configure; }
    LiveModel* liveModel() const { return m_liveModel; }
    LiveView* liveView() const { return m_live; }
    StudyView* studyView() const { return m_study; }
    CompareView* compareView() const { return m_compare; }
    BenchmarksView* benchmarksView() const { return m_benchmarks; }
    JobsPanel* jobsPanel() const { return m_jobs; }

    static QStringList recentFiles();

Q_SIGNALS:
    void snapshotShown();

private:
    void showSnapshot(const StoreSnapshot& snapshot);
    void chooseDatabase();
    void chooseLocation(); // File ▸ Open location…: a PostgreSQL location or a path, typed
    void newDatabase();          // File > New database…: a file dialog, then createDatabase
    void runDemo();              // a demo database in the user's data folder, and the demo study started in it
    void startDemoJob(const QString& db);
    void rebuildRecentMenu();
    void exportCurrent();
    void buildMenus();
    QWidget* buildSideBar(); // the studies list under its filter
    void buildStartPage();   // the start page and the stack that shows it or the views
    void buildViewTabs();    // the six views, in View's order
    // The poller, moved to its thread (started later), and the views it feeds or that steer it.
    void createPoller();
    void buildJobsDock();   // the Jobs panel in its dock, with the actions that switch views
    void connectLaunches(); // a job launched from Configure: select it and watch it
    void connectCompare();  // the Compare view's requests to the poller and the poller's answers

    QThread m_pollerThread;
    StorePoller* m_poller = nullptr;
    StudiesView* m_studies = nullptr;
    QLineEdit* m_studyFilter = nullptr;
    QTabWidget* m_tabs = nullptr;
    QStackedWidget* m_pages = nullptr; // the start page, or the side bar and views
    StartPage* m_start = nullptr;
    QWidget* m_main = nullptr;
    TrialsPage* m_trialsPage = nullptr;
    ConfigureView* m_configure = nullptr;
    LiveModel* m_liveModel = nullptr;
    LiveView* m_live = nullptr;
    StudyView* m_study = nullptr;
    CompareView* m_compare = nullptr;
    BenchmarksView* m_benchmarks = nullptr;
    JobsPanel* m_jobs = nullptr;
    QDockWidget* m_jobsDock = nullptr;
    QLabel* m_status = nullptr;
    QMenu* m_recentMenu = nullptr;
    StoreSnapshot m_snapshot;
    QString m_database;
    QString m_wantedStudy;
    bool m_haveSnapshot = false;
};

} // namespace pitwall::ui
