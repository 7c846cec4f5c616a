// The window's ways in (ui/start/startpage.h, ui/mainwindow_start.cpp), driven by clicks on the real widgets: with
// no database the window shows the start page (its recent databases, missing ones greyed); New database… asks for
// a file name in Qt's file dialog, creates the file with Pitwall's and Optuna's tables and opens it, saying so in
// the status bar; an existing file is opened and never replaced; a folder that does not exist is refused in a
// dialog and on the start page; a recent database opens with one click; Run the demo makes a demo database in the
// user's data folder and starts the demo study in it as a job (stopped at once here).
#include "demodb.h"

#include "ui/jobs/jobspanel.h"
#include "ui/mainwindow.h"
#include "ui/start/startpage.h"
#include "ui/studies/studiesview.h"

#include "core/store/store.h"

#include <QtTest>

#include <QAbstractItemView>
#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>

using namespace pitwall;
using namespace pitwall::ui;

namespace {

// Answers the next file dialog with `path`, typed into its file name field and confirmed with Return (Qt's own
// dialog: the test turns native dialogs off).
void answerFileDialog(const QString& path)
{
    auto* poll = new QTimer;
    auto answered = std::make_shared<int>(0);
    QObject::connect(poll, &QTimer::timeout, [poll, path, answered] {
        QFileDialog* dialog = nullptr;
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* d = qobject_cast<QFileDialog*>(w); d && d->isVisible())
                dialog = d;
        if (!dialog) {
            if (*answered > 0) { // it closed: done
                poll->stop();
                poll->deleteLater();
            }
            return;
        }
        auto* name = dialog->findChild<QLineEdit*>("fileNameEdit");
        if (!name || ++*answered > 50) { // the dialog's layout changed, or it never takes the answer: fail visibly
            qWarning("cannot answer the file dialog");
            dialog->reject();
            return;
        }
        // The file name completer may pop up another file of the folder (demo.db for other.db) and take the
        // Return: without it, Return takes what was typed. Typed again on the next tick while the dialog stays.
        name->setCompleter(nullptr);
        name->clear();
        QTest::keyClicks(name, path);
        QTest::keyClick(name, Qt::Key_Return);
    });
    poll->start(20);
}

QMessageBox* errorDialog()
{
    for (QWidget* w : QApplication::topLevelWidgets())
        if (w->objectName() == "pitwallErrorDialog" && w->isVisible())
            return qobject_cast<QMessageBox*>(w);
    return nullptr;
}

void closeErrorDialogs()
{
    while (QMessageBox* box = errorDialog())
        box->close();
}

} // namespace

class TestStartPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void withoutADatabaseTheStartPageShows();
    void newDatabaseCreatesAndOpensIt();
    void anExistingFileIsOpenedNotReplaced();
    void aMissingFolderIsRefusedInADialog();
    void aRecentDatabaseOpensWithOneClick();
    void runTheDemoStartsTheDemoStudy();
    void openingAnotherDatabaseLeavesNothingOfTheFirst();

private:
    QTemporaryDir m_dir;
    QString m_demo;
};

void TestStartPage::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath("settings"));
    QCoreApplication::setOrganizationName("PitwallTest");
    QCoreApplication::setApplicationName("tst_startpage");
    qputenv("XDG_DATA_HOME", m_dir.filePath("data").toUtf8()); // Run the demo's folder
    m_demo = m_dir.filePath("demo.db");
    demo::writeDemoDatabase(m_demo);
    QSettings().setValue("recentFiles", QStringList{m_demo, m_dir.filePath("gone.db")});
}

void TestStartPage::withoutADatabaseTheStartPageShows()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.startPageShown());
    QVERIFY(window.startPage()->isVisible());
    auto* recent = window.findChild<QListWidget*>("startRecent");
    QVERIFY(recent && recent->isVisible());
    QCOMPARE(recent->count(), 2);
    QVERIFY(recent->item(0)->flags() & Qt::ItemIsEnabled);
    QCOMPARE(recent->item(0)->text(), m_demo);
    QVERIFY(!(recent->item(1)->flags() & Qt::ItemIsEnabled)); // gone.db no longer exists
    QVERIFY(recent->item(1)->text().endsWith("(missing)"));
    for (const char* name : {"startNew", "startOpen", "startDemo"})
        QVERIFY(window.findChild<QPushButton*>(name) && window.findChild<QPushButton*>(name)->isVisible());
}

void TestStartPage::newDatabaseCreatesAndOpensIt()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString path = m_dir.filePath("fresh.db");
    answerFileDialog(path);
    QTest::mouseClick(window.findChild<QPushButton*>("startNew"), Qt::LeftButton);
    QTRY_COMPARE(window.database(), path);
    QVERIFY(!window.startPageShown());
    QTRY_VERIFY2(window.statusBar()->currentMessage().startsWith("Created a new results database: " + path),
                 qPrintable(window.statusBar()->currentMessage()));
    // A real results database: Pitwall opens it read-only (which refuses a file that is not one) and it is empty.
    const auto store = openStore(path.toStdString(), OpenMode::ReadOnly);
    QVERIFY(store->listStudies().empty());
    QTRY_VERIFY(window.viewReady(View::Studies));
    QCOMPARE(window.studiesView()->topLevelItemCount(), 0);
    window.statusBar()->clearMessage();
    QTRY_COMPARE(window.statusBar()->findChild<QLabel*>("statusText")->text(), path + " — 0 studies, 0 runs");
    // The Studies page says where studies come from (not "select a study" with none to select), and its link opens
    // Configure.
    auto* title = window.findChild<QLabel*>("trialsTitle");
    QVERIFY(title && title->isVisible());
    QVERIFY2(title->text().startsWith("No study in this database yet."), qPrintable(title->text()));
    const QString before = "No study in this database yet. ";
    const QPoint link(title->contentsRect().left() + title->fontMetrics().horizontalAdvance(before) +
                          title->fontMetrics().horizontalAdvance("Conf"),
                      title->height() / 2);
    QTest::mouseClick(title, Qt::LeftButton, {}, link);
    QTRY_COMPARE(window.currentView(), View::Configure);
}

void TestStartPage::anExistingFileIsOpenedNotReplaced()
{
    const QFileInfo before(m_demo);
    const qint64 size = before.size();
    const QDateTime modified = before.lastModified();
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    answerFileDialog(m_demo);
    QTest::mouseClick(window.findChild<QPushButton*>("startNew"), Qt::LeftButton);
    QTRY_COMPARE(window.database(), m_demo);
    QVERIFY(window.statusBar()->currentMessage().contains("already exists: opened it"));
    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 2); // the demo's studies
    auto* status = window.statusBar()->findChild<QLabel*>("statusText");
    QVERIFY(status);
    QTRY_COMPARE(status->text(), m_demo + " — 2 studies, 34 runs"); // counted, never "2 stud(ies)" (4 + 30 runs)
    QCOMPARE(QFileInfo(m_demo).size(), size);
    QCOMPARE(QFileInfo(m_demo).lastModified(), modified);
}

void TestStartPage::aMissingFolderIsRefusedInADialog()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString path = m_dir.filePath("no-such-folder/x.db");
    window.createDatabase(path);
    QTRY_VERIFY(errorDialog());
    QVERIFY(errorDialog()->text().contains("does not exist") || errorDialog()->informativeText().contains("does not exist"));
    QVERIFY(window.startPageShown());
    QVERIFY(window.startPage()->message().contains("does not exist"));
    QVERIFY(!QFileInfo::exists(path));
    closeErrorDialogs();
}

void TestStartPage::aRecentDatabaseOpensWithOneClick()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* recent = window.findChild<QListWidget*>("startRecent");
    QVERIFY(recent);
    QListWidgetItem* missing = nullptr;
    QListWidgetItem* demoItem = nullptr;
    for (int i = 0; i < recent->count(); ++i)
        (recent->item(i)->text() == m_demo ? demoItem : missing) = recent->item(i);
    QVERIFY(demoItem && missing);
    // A missing one does nothing.
    QTest::mouseClick(recent->viewport(), Qt::LeftButton, {}, recent->visualItemRect(missing).center());
    QVERIFY(window.startPageShown());
    QTest::mouseClick(recent->viewport(), Qt::LeftButton, {}, recent->visualItemRect(demoItem).center());
    QTRY_COMPARE(window.database(), m_demo);
    QVERIFY(!window.startPageShown());
    QTRY_COMPARE(window.studiesView()->topLevelItemCount(), 2);
}

void TestStartPage::runTheDemoStartsTheDemoStudy()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::mouseClick(window.findChild<QPushButton*>("startDemo"), Qt::LeftButton);
    const QString db =
        QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + QStringLiteral("/demo/demo.db");
    QVERIFY2(db.startsWith(m_dir.filePath("data")), qPrintable(db));
    QTRY_COMPARE_WITH_TIMEOUT(window.database(), db, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(window.statusBar()->currentMessage().startsWith("The demo is running as job "), 30000);
    const qint64 job = window.statusBar()->currentMessage().section(' ', 6, 6).remove(':').toLongLong();
    QVERIFY2(job > 0, qPrintable(window.statusBar()->currentMessage()));
    // The job is the demo study: `pitwall bench variants <configs>/transfuser/demo.yaml` on the demo database.
    QProcess show;
    show.start(defaultCliPath(), {"jobs", "show", QString::number(job), "--db", db, "--json"});
    QVERIFY(show.waitForFinished(60000));
    const QString shown = QString::fromUtf8(show.readAllStandardOutput());
    QVERIFY2(shown.contains("bench-variants") && shown.contains("transfuser/demo.yaml"), qPrintable(shown));
    QProcess stop;
    stop.start(defaultCliPath(), {"jobs", "stop", QString::number(job), "--now", "--wait", "--db", db});
    QVERIFY(stop.waitForFinished(120000));
    QCOMPARE(stop.exitCode(), 0);
    closeErrorDialogs();
}

namespace {
// Every text the window shows in its visible widgets: labels, tree and list items, table cells, combo boxes,
// window title and status line.
QStringList shownTexts(QWidget* root)
{
    QStringList texts{root->windowTitle()};
    for (QWidget* w : root->findChildren<QWidget*>()) {
        if (!w->isVisible())
            continue;
        if (auto* label = qobject_cast<QLabel*>(w))
            texts << label->text();
        else if (auto* combo = qobject_cast<QComboBox*>(w))
            for (int i = 0; i < combo->count(); ++i)
                texts << combo->itemText(i);
        else if (auto* view = qobject_cast<QAbstractItemView*>(w); view && view->model()) {
            const QAbstractItemModel* model = view->model();
            std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
                for (int r = 0; r < model->rowCount(parent); ++r)
                    for (int c = 0; c < model->columnCount(parent); ++c) {
                        const QModelIndex index = model->index(r, c, parent);
                        texts << index.data().toString();
                        if (c == 0)
                            walk(index);
                    }
            };
            walk({});
        }
    }
    return texts;
}
} // namespace

void TestStartPage::openingAnotherDatabaseLeavesNothingOfTheFirst()
{
    // The second database: one study of its own.
    const QString other = m_dir.filePath("other.db");
    {
        auto store = openStore(other.toStdString());
        const auto id = store->createStudy("lane-keeping", {StudyDirection::Minimize});
        const auto trial = store->createTrial(id);
        store->finishTrial(trial.id, TrialState::Complete, {0.5});
    }
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.focusStudy("autospeed-hpo");
    window.openDatabase(m_demo);
    for (View v : {View::Studies, View::Study, View::Live, View::Compare, View::Benchmarks}) {
        window.showView(v);
        QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(v), 20000);
    }
    QVERIFY(shownTexts(&window).join('\n').contains("autospeed-hpo")); // the first database is on screen
    // File > Open database… > other.db, as a user opens another database.
    answerFileDialog(other);
    QAction* open = nullptr;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Open database…"))
            open = a;
    QVERIFY(open);
    open->trigger(); // the dialog runs its own loop until answered; opening rebuilds the recent-files menu
    QTRY_COMPARE(window.database(), other);
    for (View v : {View::Studies, View::Study, View::Live, View::Compare, View::Benchmarks}) {
        window.showView(v);
        QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(v), 20000);
        QTest::qWait(20);
        const QStringList texts = shownTexts(&window);
        for (const QString& first : {QStringLiteral("autospeed-hpo"), QStringLiteral("transfuser-seeds"), m_demo})
            for (const QString& text : texts)
                QVERIFY2(!text.contains(first), qPrintable(QString("view %1 still shows '%2' of the first database: %3")
                                                               .arg(viewName(v), first, text.left(200))));
    }
    QVERIFY(shownTexts(&window).join('\n').contains("lane-keeping"));
}

int main(int argc, char** argv)
{
    QApplication::setAttribute(Qt::AA_DontUseNativeDialogs);
    QApplication app(argc, argv);
    TestStartPage test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_startpage.moc"
