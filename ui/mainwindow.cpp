#include "ui/mainwindow.h"
#include "ui/locations.h"
#include "ui/wording.h"

#include "ui/benchmarks/benchmarksview.h"
#include "ui/compare/compareview.h"
#include "ui/configure/configform.h"
#include "ui/configure/configureview.h"
#include "ui/configure/devicepanel.h"
#include "ui/configure/runoptions.h"
#include "ui/jobs/jobspanel.h"
#include "ui/live/livemodel.h"
#include "ui/live/liveview.h"
#include "ui/studies/studiesview.h"
#include "ui/studies/trialspage.h"
#include "ui/studies/trialsview.h"
#include "ui/study/studyview.h"

#include "core/store/netfs.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QSettings>
#include <QStackedWidget>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

namespace pitwall::ui {

namespace {
constexpr int kPollIntervalMs = 500;
const char* const kViewNames[] = {"studies", "configure", "live", "study", "compare", "benchmarks"};
} // namespace

std::optional<View> parseView(const QString& name)
{
    for (int i = 0; i < 6; ++i)
        if (name.compare(QLatin1String(kViewNames[i]), Qt::CaseInsensitive) == 0)
            return static_cast<View>(i);
    return std::nullopt;
}

QString viewName(View view)
{
    return QString::fromLatin1(kViewNames[static_cast<int>(view)]);
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Pitwall"));
    resize(1200, 760);

    QWidget* side = buildSideBar();
    buildViewTabs();
    auto* splitter = new QSplitter(this);
    splitter->addWidget(side);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 4);
    splitter->setSizes({360, 840});
    m_main = splitter;
    buildStartPage();

    m_status = new QLabel(tr("No database open"), this);
    m_status->setObjectName(QStringLiteral("statusText"));
    statusBar()->addWidget(m_status, 1);
    // A results database on a network file system (core/store/netfs.h): a lasting warning, the whole of it on hover.
    auto* netfs = new QLabel(this);
    netfs->setObjectName(QStringLiteral("networkFileSystemWarning"));
    netfs->setStyleSheet(QStringLiteral("color: #d04040"));
    netfs->hide();
    statusBar()->addPermanentWidget(netfs);
    setStoreWarningHandler([netfs = QPointer<QLabel>(netfs)](const std::string& message) {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [netfs, text = QString::fromStdString(message)] {
                if (!netfs)
                    return;
                netfs->setText(tr("Warning: the results database is on a network file system"));
                netfs->setToolTip(text);
                netfs->show();
            },
            Qt::QueuedConnection);
    });

    createPoller();
    connect(m_trialsPage, &TrialsPage::openRun, this, [this](qint64 runId) {
        m_live->showRun(runId);
        showView(View::Live);
    });
    connect(m_trialsPage, &TrialsPage::configureRequested, this, [this] { showView(View::Configure); });
    connect(m_study, &StudyView::trialActivated, this, [this](int number) {
        showView(View::Studies);
        m_trialsPage->fillIfStale();
        m_trialsPage->trials()->selectTrial(number);
    });
    buildJobsDock();
    connectLaunches();
    connectCompare();
    m_pollerThread.setObjectName("store-poller");
    m_pollerThread.start();
    QMetaObject::invokeMethod(m_poller, "start", Qt::QueuedConnection, Q_ARG(int, kPollIntervalMs));
    buildMenus();
}

QWidget* MainWindow::buildSideBar()
{
    auto* side = new QWidget(this);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    m_studyFilter = new QLineEdit(side);
    m_studyFilter->setObjectName("studyFilter");
    m_studyFilter->setPlaceholderText(tr("Filter studies…"));
    m_studyFilter->setClearButtonEnabled(true);
    m_studies = new StudiesView(side);
    sideLayout->addWidget(m_studyFilter);
    sideLayout->addWidget(m_studies, 1);
    connect(m_studyFilter, &QLineEdit::textChanged, m_studies, &StudiesView::setFilter);
    return side;
}

void MainWindow::buildViewTabs()
{
    m_liveModel = new LiveModel(this);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName("views");
    m_tabs->setDocumentMode(true);
    m_trialsPage = new TrialsPage(m_tabs);
    m_configure = new ConfigureView(m_tabs);
    m_live = new LiveView(m_liveModel, m_tabs);
    m_study = new StudyView(m_tabs);
    m_compare = new CompareView(m_tabs);
    m_benchmarks = new BenchmarksView(m_tabs);
    m_tabs->addTab(m_trialsPage, tr("&Studies"));
    m_tabs->addTab(m_configure, tr("&Configure"));
    m_tabs->addTab(m_live, tr("&Live"));
    m_tabs->addTab(m_study, tr("S&tudy"));
    m_tabs->addTab(m_compare, tr("Co&mpare"));
    m_tabs->addTab(m_benchmarks, tr("&Benchmarks"));
}

void MainWindow::createPoller()
{
    m_poller = new StorePoller;
    m_poller->moveToThread(&m_pollerThread);
    connect(&m_pollerThread, &QThread::finished, m_poller, &QObject::deleteLater);
    connect(m_poller, &StorePoller::snapshotReady, this, &MainWindow::showSnapshot, Qt::QueuedConnection);
    connect(m_poller, &StorePoller::liveDelta, m_liveModel, &LiveModel::apply, Qt::QueuedConnection);
    connect(m_poller, &StorePoller::trialDetailsReady, m_trialsPage, &TrialsPage::showDetails, Qt::QueuedConnection);
    connect(m_poller, &StorePoller::compareReady, m_compare, &CompareView::showData, Qt::QueuedConnection);
    connect(m_studies, &StudiesView::studySelected, this, [this](const QString& name) {
        m_wantedStudy = name;
        QMetaObject::invokeMethod(m_poller, "setFocusStudy", Qt::QueuedConnection, Q_ARG(QString, name));
    });
    connect(m_live, &LiveView::runRequested, m_poller, &StorePoller::setLiveRun, Qt::QueuedConnection);
    connect(m_study, &StudyView::intermediatesWanted, m_poller, &StorePoller::completeIntermediates,
            Qt::QueuedConnection);
    connect(m_trialsPage, &TrialsPage::detailsRequested, m_poller, &StorePoller::setDetailsTrial, Qt::QueuedConnection);
}

void MainWindow::buildJobsDock()
{
    m_jobs = new JobsPanel(this);
    m_jobsDock = new QDockWidget(tr("Jobs"), this);
    m_jobsDock->setObjectName("jobsDock");
    m_jobsDock->setWidget(m_jobs);
    addDockWidget(Qt::BottomDockWidgetArea, m_jobsDock);
    // At first the dock is as small as it goes (the header and three jobs); the views take the rest, and the user
    // may drag the edge.
    resizeDocks({m_jobsDock}, {m_jobsDock->minimumSizeHint().height()}, Qt::Vertical);
    connect(m_jobs, &JobsPanel::showStudy, this, [this](const QString& name) {
        focusStudy(name);
        showView(View::Study);
    });
    connect(m_jobs, &JobsPanel::showRun, this, [this](qint64 runId) {
        m_live->showRun(runId);
        showView(View::Live);
    });
    connect(m_jobs, &JobsPanel::showBenchmarks, this, [this] { showView(View::Benchmarks); });
    connect(m_jobs, &JobsPanel::editSpec, this, [this](const QStringList& words, const QString& cwd) {
        showView(View::Configure);
        if (const QString error = m_configure->loadJobWords(words, cwd); !error.isEmpty())
            m_status->setText(tr("Edit spec: %1").arg(error));
    });
}

void MainWindow::connectLaunches()
{
    connect(m_configure, &ConfigureView::launched, this, [this](qint64 jobId, int kind, const QString& study) {
        m_jobs->refresh();
        m_jobs->selectJob(jobId);
        if (static_cast<RunKind>(kind) == RunKind::Train) {
            // Watch it: the live view follows the newest running run, which the started job creates.
            focusStudy(study);
            m_live->showRun(0);
            showView(View::Live);
        } else if (static_cast<RunKind>(kind) == RunKind::Search) {
            focusStudy(study); // the Study view fills in as its trials finish
            showView(View::Study);
        }
    });
}

void MainWindow::connectCompare()
{
    connect(m_compare, &CompareView::compareRequested, m_poller, &StorePoller::requestCompare, Qt::QueuedConnection);
    connect(m_compare, &CompareView::databaseAddRequested, m_poller, &StorePoller::addCompareDatabase,
            Qt::QueuedConnection);
    connect(m_compare, &CompareView::databaseRemoveRequested, m_poller, &StorePoller::removeCompareDatabase,
            Qt::QueuedConnection);
    connect(m_poller, &StorePoller::compareDatabasesReady, m_compare, &CompareView::showDatabases,
            Qt::QueuedConnection);
    connect(m_poller, &StorePoller::compareDatabaseRefused, this,
            [this](const QString& location, const QString& error) {
                m_status->setText(tr("Compare: %1 not added: %2").arg(locationName(location), error));
                m_compare->showDatabaseError(location, error);
            });
}

MainWindow::~MainWindow()
{
    m_pollerThread.requestInterruption();
    m_pollerThread.quit();
    m_pollerThread.wait();
}

TrialsView* MainWindow::trialsView() const
{
    m_trialsPage->fillIfStale();
    return m_trialsPage->trials();
}

TrialsPage* MainWindow::trialsPage() const
{
    m_trialsPage->fillIfStale();
    return m_trialsPage;
}

void MainWindow::focusStudy(const QString& name)
{
    m_wantedStudy = name;
    if (!m_studies->selectStudy(name))
        QMetaObject::invokeMethod(m_poller, "setFocusStudy", Qt::QueuedConnection, Q_ARG(QString, name));
}

void MainWindow::showView(View view)
{
    m_tabs->setCurrentIndex(static_cast<int>(view));
}

View MainWindow::currentView() const
{
    return static_cast<View>(m_tabs->currentIndex());
}

bool MainWindow::viewReady(View view) const
{
    if (startPageShown())
        return true; // what there is to show
    if (view == View::Configure)
        return m_configure->devices()->discoveryDone();
    if (!m_haveSnapshot)
        return false;
    if (!m_snapshot.error.isEmpty())
        return true; // the error is what there is to show
    const bool focused =
        m_snapshot.studies.empty() || (!m_snapshot.focusStudy.isEmpty() && m_snapshot.focusStudy == m_wantedStudy);
    switch (view) {
    case View::Studies:
        return focused && (m_snapshot.studies.empty() || m_trialsPage->ready());
    case View::Live:
        return m_live->ready();
    case View::Study:
        return focused && (m_snapshot.studies.empty() || m_study->ready());
    case View::Compare:
        return focused && m_compare->ready();
    case View::Benchmarks:
        return m_benchmarks->ready();
    case View::Configure:
        break;
    }
    return true;
}

void MainWindow::openDatabase(const QString& location)
{
    const QString path = normalLocation(location);
    m_database = path;
    m_haveSnapshot = false;
    m_pages->setCurrentWidget(m_main);
    setWindowTitle(tr("Pitwall — %1").arg(locationName(path)));
    m_status->setText(tr("Opening %1…").arg(shownLocation(path)));
    QStringList recent = recentFiles();
    recent.removeAll(rememberedLocation(path));
    recent.prepend(rememberedLocation(path));
    while (recent.size() > 8)
        recent.removeLast();
    QSettings().setValue("recentFiles", recent);
    rebuildRecentMenu();
    m_configure->setDatabase(path);
    m_jobs->setDatabase(path);
    m_live->forgetRuns();
    m_compare->forget();
    QMetaObject::invokeMethod(m_poller, "openDatabase", Qt::QueuedConnection, Q_ARG(QString, path),
                              Q_ARG(QString, m_wantedStudy));
}

void MainWindow::addCompareDatabase(const QString& location)
{
    m_compare->addDatabase(location);
}

void MainWindow::showSnapshot(const StoreSnapshot& snapshot)
{
    if (snapshot.location != m_database)
        return; // read from the database open before: nothing of it is shown once another is open
    m_snapshot = snapshot;
    m_haveSnapshot = true;
    if (!snapshot.error.isEmpty()) {
        m_status->setText(tr("%1: %2").arg(shownLocation(snapshot.location), snapshot.error));
        m_studies->clear();
        Q_EMIT snapshotShown();
        return;
    }
    const bool listed = std::any_of(snapshot.studies.begin(), snapshot.studies.end(), [this](const StudySummary& s) {
        return QString::fromStdString(s.study.name) == m_wantedStudy;
    });
    if (!listed && snapshot.focusStudy.isEmpty() && !snapshot.studies.empty() && m_wantedStudy.isEmpty())
        m_wantedStudy = QString::fromStdString(snapshot.studies.front().study.name); // a first focus
    m_studies->showSnapshot(snapshot);
    if (!m_wantedStudy.isEmpty() && m_studies->selectedStudy() != m_wantedStudy)
        m_studies->selectStudy(m_wantedStudy);
    if (!m_wantedStudy.isEmpty() && snapshot.focusStudy != m_wantedStudy && listed)
        QMetaObject::invokeMethod(m_poller, "setFocusStudy", Qt::QueuedConnection, Q_ARG(QString, m_wantedStudy));
    m_trialsPage->showSnapshot(snapshot);
    m_live->showSnapshot(snapshot);
    m_study->showSnapshot(snapshot);
    m_compare->showSnapshot(snapshot);
    m_benchmarks->showSnapshot(snapshot);
    m_configure->devices()->setMeasurements(snapshot.benchmarks);
    m_status->setText(tr("%1 — %2, %3")
                          .arg(shownLocation(snapshot.location),
                               counted(static_cast<qint64>(snapshot.studies.size()), "study", "studies"),
                               counted(static_cast<qint64>(snapshot.runs->size()), "run", "runs")));
    Q_EMIT snapshotShown();
}

} // namespace pitwall::ui
