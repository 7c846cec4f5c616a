#include "ui/mainwindow.h"

#include "ui/studiesview.h"
#include "ui/trialsview.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>

namespace pitwall::ui {

namespace {
constexpr int kPollIntervalMs = 500;
constexpr int kMaxRecentFiles = 8;
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Pitwall"));
    resize(1200, 760);

    auto* splitter = new QSplitter(this);
    m_studies = new StudiesView(splitter);
    m_trials = new TrialsView(splitter);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    setCentralWidget(splitter);

    m_status = new QLabel(tr("No database open"), this);
    statusBar()->addWidget(m_status, 1);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open database…"), this, &MainWindow::chooseDatabase);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    QAction* refresh = file->addAction(tr("&Refresh"));
    refresh->setShortcut(QKeySequence::Refresh);
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    rebuildRecentMenu();

    m_poller = new StorePoller;
    m_poller->moveToThread(&m_pollerThread);
    connect(&m_pollerThread, &QThread::finished, m_poller, &QObject::deleteLater);
    connect(m_poller, &StorePoller::snapshotReady, this, &MainWindow::showSnapshot, Qt::QueuedConnection);
    connect(refresh, &QAction::triggered, m_poller, &StorePoller::refreshNow, Qt::QueuedConnection);
    connect(m_studies, &StudiesView::studySelected, m_poller, &StorePoller::setFocusStudy, Qt::QueuedConnection);
    m_pollerThread.setObjectName("store-poller");
    m_pollerThread.start();
    QMetaObject::invokeMethod(m_poller, "start", Qt::QueuedConnection, Q_ARG(int, kPollIntervalMs));
}

MainWindow::~MainWindow()
{
    m_pollerThread.requestInterruption();
    m_pollerThread.quit();
    m_pollerThread.wait();
}

void MainWindow::openDatabase(const QString& location)
{
    const QString path = QFileInfo(location).absoluteFilePath();
    setWindowTitle(tr("Pitwall — %1").arg(QFileInfo(path).fileName()));
    m_status->setText(tr("Opening %1…").arg(path));
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecentFiles)
        recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
    QMetaObject::invokeMethod(m_poller, "openDatabase", Qt::QueuedConnection, Q_ARG(QString, path));
}

QStringList MainWindow::recentFiles() { return QSettings().value("recentFiles").toStringList(); }

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = recentFiles();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path] { openDatabase(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::chooseDatabase()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open results database"), QString(),
                                                      tr("Results databases (*.db *.sqlite *.sqlite3);;All files (*)"));
    if (!path.isEmpty())
        openDatabase(path);
}

void MainWindow::showSnapshot(const StoreSnapshot& snapshot)
{
    m_snapshot = snapshot;
    if (!snapshot.error.isEmpty()) {
        m_status->setText(tr("%1: %2").arg(snapshot.location, snapshot.error));
        Q_EMIT snapshotShown();
        return;
    }
    m_studies->showSnapshot(snapshot);
    if (!snapshot.focusStudy.isEmpty())
        m_trials->showTrials(snapshot.focusTrials);
    m_status->setText(tr("%1 — %n stud(ies)", nullptr, static_cast<int>(snapshot.studies.size())).arg(snapshot.location));
    Q_EMIT snapshotShown();
}

} // namespace pitwall::ui
