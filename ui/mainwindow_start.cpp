// MainWindow's ways in: the start page while no database is open, File > New database…, a database that --db names
// and that does not exist yet, and Run the demo (a demo database and the demo study started in it as a job).
#include "ui/locations.h"
#include "ui/mainwindow.h"

#include "ui/application.h"
#include "ui/configure/runoptions.h"
#include "ui/jobs/jobspanel.h"
#include "ui/start/startpage.h"
#include "ui/tasks/taskmanager.h"

#include "core/jobs/benchjobs.h"
#include "core/store/store.h"
#include "core/util/paths.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>

namespace pitwall::ui {

void MainWindow::buildStartPage()
{
    m_start = new StartPage(this);
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(m_start);
    m_pages->addWidget(m_main);
    setCentralWidget(m_pages);
    connect(m_start, &StartPage::newRequested, this, &MainWindow::newDatabase);
    connect(m_start, &StartPage::openRequested, this, &MainWindow::chooseDatabase);
    connect(m_start, &StartPage::demoRequested, this, &MainWindow::runDemo);
    connect(m_start, &StartPage::recentChosen, this, [this](const QString& file) {
        m_wantedStudy.clear();
        openDatabase(file);
    });
    showStartPage();
}

void MainWindow::showStartPage(const QString& message, bool error)
{
    m_start->setRecent(recentFiles());
    m_start->setMessage(message, error);
    m_pages->setCurrentWidget(m_start);
}

bool MainWindow::startPageShown() const
{
    return m_pages && m_pages->currentWidget() == m_start;
}

void MainWindow::newDatabase()
{
    const QString folder = locationFolder(m_database).isEmpty() ? QDir::homePath() : locationFolder(m_database);
    const QString path = QFileDialog::getSaveFileName(this, tr("New results database"), folder + "/pitwall.db",
                                                      tr("Results databases (*.db)"), nullptr,
                                                      QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty())
        return;
    m_wantedStudy.clear();
    createDatabase(path);
}

void MainWindow::createDatabase(const QString& location, std::function<void()> then)
{
    const QString path = QFileInfo(location).absoluteFilePath();
    if (QFileInfo::exists(path)) { // never replaced: an existing file is opened (and refused there if foreign)
        openDatabase(path);
        statusBar()->showMessage(tr("%1 already exists: opened it").arg(path), 15000);
        if (then)
            then();
        return;
    }
    if (!QFileInfo(QFileInfo(path).absolutePath()).isDir()) {
        const QString why = tr("cannot create %1: the folder %2 does not exist").arg(path, QFileInfo(path).absolutePath());
        Application::reportError(tr("New results database"), why);
        showStartPage(why, true);
        return;
    }
    statusBar()->showMessage(tr("Creating %1…").arg(path));
    TaskManager::instance()->start(
        {tr("Creating %1").arg(path), QStringLiteral("create-db:") + path}, this,
        [file = path.toStdString()](TaskContext&) -> QString {
            try {
                openStore(file, OpenMode::ReadWrite); // creates the file with Optuna's and Pitwall's tables
                return {};
            } catch (const std::exception& e) {
                return QString::fromStdString(e.what());
            }
        },
        [this, path, then = std::move(then)](const QString& error) {
            if (!error.isEmpty()) {
                const QString why = tr("cannot create %1: %2").arg(path, error);
                Application::reportError(tr("New results database"), why);
                showStartPage(why, true);
                statusBar()->clearMessage();
                return;
            }
            openDatabase(path);
            statusBar()->showMessage(tr("Created a new results database: %1").arg(path), 15000);
            if (then)
                then();
        });
}

void MainWindow::runDemo()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/demo";
    if (!QDir().mkpath(folder)) {
        Application::reportError(tr("Run the demo"), tr("cannot create the folder %1").arg(folder));
        return;
    }
    const QString db = folder + "/demo.db";
    m_wantedStudy = QStringLiteral("lead-speed-demo/Baseline");
    createDatabase(db, [this, db] { startDemoJob(db); });
}

void MainWindow::startDemoJob(const QString& db)
{
    const std::filesystem::path configs = exampleConfigsDir();
    const std::filesystem::path file = configs / "transfuser" / "demo.yaml";
    if (configs.empty() || !std::filesystem::exists(file)) {
        Application::reportError(tr("Run the demo"),
                                 tr("the example configs are not installed beside pitwall-gui "
                                    "(<prefix>/share/pitwall/configs/transfuser/demo.yaml)"));
        return;
    }
    VariantsBenchJob job;
    job.file = file.string();
    job.database = db.toStdString();
    auto* start = new QProcess(this);
    start->setProgram(defaultCliPath());
    start->setArguments(toQt(detachedWords(job.toArgs())));
    start->setWorkingDirectory(QFileInfo(db).absolutePath()); // its runs/ folder goes beside the demo database
    connect(start, &QProcess::finished, this, [this, start](int code, QProcess::ExitStatus) {
        start->deleteLater();
        const QString out = QString::fromUtf8(start->readAllStandardOutput()).trimmed();
        bool ok = false;
        const qint64 id = out.section(QLatin1Char('\n'), -1).toLongLong(&ok);
        if (code != 0 || !ok) {
            Application::reportError(tr("Run the demo"), tr("pitwall bench variants did not start:\n%1")
                                                             .arg(QString::fromUtf8(start->readAllStandardError())));
            return;
        }
        statusBar()->showMessage(tr("The demo is running as job %1: four speed variants train, then drive; the Live "
                                    "view follows each, the Benchmarks view shows the table at the end")
                                     .arg(id),
                                 30000);
        showView(View::Live);
    });
    connect(start, &QProcess::errorOccurred, this, [start](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        Application::reportError(QObject::tr("Run the demo"),
                                 QObject::tr("cannot start %1: %2").arg(start->program(), start->errorString()));
        start->deleteLater();
    });
    start->start();
}

} // namespace pitwall::ui
