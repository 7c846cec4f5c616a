// MainWindow's menus, shortcuts, recent files and export.
#include "ui/locations.h"
#include "ui/mainwindow.h"
#include "ui/theme.h"
#include "ui/themecontroller.h"

#include "ui/compare/compareview.h"
#include "ui/exporting.h"
#include "ui/studies/studiesview.h"

#include <QAbstractItemView>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeySequence>
#include <QMenuBar>
#include <QSettings>
#include <QTabWidget>

namespace pitwall::ui {

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* fresh = file->addAction(tr("&New database…"), this, &MainWindow::newDatabase);
    fresh->setShortcut(QKeySequence::New);
    fresh->setIcon(actionIcon("new"));
    QAction* open = file->addAction(tr("&Open database…"), this, &MainWindow::chooseDatabase);
    open->setShortcut(QKeySequence::Open);
    open->setIcon(actionIcon("open"));
    QAction* openLocation = file->addAction(tr("Open &location…"), this, &MainWindow::chooseLocation);
    openLocation->setObjectName(QStringLiteral("openLocation"));
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("&Add database to Compare…"), this, [this] {
        showView(View::Compare);
        m_compare->chooseDatabase();
    });
    file->addSeparator();
    QAction* exportAction = file->addAction(tr("&Export table or chart…"), this, &MainWindow::exportCurrent);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAction->setIcon(actionIcon("export"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* refresh = view->addAction(tr("&Refresh"));
    refresh->setShortcut(QKeySequence(Qt::Key_F5));
    refresh->setIcon(actionIcon("refresh"));
    connect(refresh, &QAction::triggered, m_poller, &StorePoller::refreshNow, Qt::QueuedConnection);
    view->addSeparator();
    const QStringList names = {tr("&Studies"), tr("&Configure"), tr("&Live"),
                               tr("S&tudy"),   tr("Co&mpare"),   tr("&Benchmarks")};
    for (int i = 0; i < names.size(); ++i) {
        QAction* action = view->addAction(names[i], this, [this, i] { showView(static_cast<View>(i)); });
        action->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }
    QAction* jobs = m_jobsDock->toggleViewAction();
    jobs->setText(tr("&Jobs panel"));
    jobs->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
    view->addAction(jobs);
    QAction* filter = view->addAction(tr("&Filter studies"), this, [this] {
        m_studyFilter->setFocus();
        m_studyFilter->selectAll();
    });
    filter->setShortcut(QKeySequence::Find);
    view->addSeparator();
    // Follow the desktop's light or dark preference, or keep one (saved for the next start).
    QMenu* theme = view->addMenu(tr("T&heme"));
    theme->setObjectName(QStringLiteral("themeMenu"));
    auto* themes = new QActionGroup(theme);
    ThemeController* controller = ThemeController::instance();
    const std::pair<ThemeChoice, QString> choices[] = {{ThemeChoice::System, tr("Follow the &desktop")},
                                                       {ThemeChoice::Light, tr("&Light")},
                                                       {ThemeChoice::Dark, tr("&Dark")}};
    for (const auto& [choice, text] : choices) {
        QAction* action = theme->addAction(text, this, [controller, choice = choice] { controller->setChoice(choice); });
        action->setObjectName(QStringLiteral("theme-") + themeChoiceName(choice));
        action->setCheckable(true);
        action->setChecked(controller->choice() == choice);
        themes->addAction(action);
        connect(controller, &ThemeController::choiceChanged, action,
                [action, choice = choice](ThemeChoice now) { action->setChecked(now == choice); });
    }
    rebuildRecentMenu();
}

QStringList MainWindow::recentFiles()
{
    return QSettings().value("recentFiles").toStringList();
}

void MainWindow::rebuildRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    const QStringList recent = recentFiles();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path] {
            m_wantedStudy.clear();
            openDatabase(path);
        });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::chooseDatabase()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open results database"),
                                                      locationFolder(m_database),
                                                      tr("Results databases (*.db *.sqlite *.sqlite3);;All files (*)"));
    if (path.isEmpty())
        return;
    m_wantedStudy.clear();
    openDatabase(path);
}

void MainWindow::chooseLocation()
{
    QInputDialog dialog(this);
    dialog.setObjectName(QStringLiteral("openLocationDialog"));
    dialog.setWindowTitle(tr("Open results database"));
    dialog.setLabelText(tr("A shared PostgreSQL database, as Optuna names it\n"
                           "(postgresql://user@host:5432/dbname; the password from ~/.pgpass or\n"
                           "PGPASSWORD, or user:password@ in the location), or a results file's path:"));
    dialog.setTextValue(isServerLocation(m_database) ? rememberedLocation(m_database) : QString());
    dialog.resize(560, dialog.sizeHint().height());
    if (dialog.exec() != QDialog::Accepted || dialog.textValue().trimmed().isEmpty())
        return;
    m_wantedStudy.clear();
    openDatabase(dialog.textValue().trimmed());
}

void MainWindow::exportCurrent()
{
    // The tables and charts of the current view (and the side bar); the focused one first.
    QList<QWidget*> targets;
    QWidget* focused = QApplication::focusWidget();
    for (QWidget* root : {m_tabs->currentWidget(), static_cast<QWidget*>(m_studies)})
        for (QWidget* w : root->findChildren<QWidget*>() << root)
            if (w->property("pitwallExport").toBool() && w->isVisible() && !targets.contains(w))
                targets << w;
    for (QWidget* w : targets)
        if (focused && (w == focused || w->isAncestorOf(focused))) {
            exportInteractively(w);
            return;
        }
    if (targets.isEmpty())
        return;
    if (targets.size() == 1) {
        exportInteractively(targets.first());
        return;
    }
    QStringList names;
    for (QWidget* w : targets)
        names << (qobject_cast<QAbstractItemView*>(w) ? tr("%1 (table → CSV)") : tr("%1 (chart → PNG)"))
                     .arg(w->objectName());
    bool ok = false;
    const QString choice = QInputDialog::getItem(this, tr("Export"), tr("What to export:"), names, 0, false, &ok);
    if (ok)
        exportInteractively(targets.value(names.indexOf(choice)));
}

} // namespace pitwall::ui
