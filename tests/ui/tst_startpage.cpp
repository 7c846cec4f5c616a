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
    QObject::connect(poll, &QTimer::timeout, [poll, path] {
        QFileDialog* dialog = nullptr;
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* d = qobject_cast<QFileDialog*>(w); d && d->isVisible())
                dialog = d;
        if (!dialog)
            return;
        poll->stop();
        poll->deleteLater();
        auto* name = dialog->findChild<QLineEdit*>("fileNameEdit");
        if (!name) { // the dialog's layout changed: fail visibly instead of waiting
            qWarning("no file name field in the file dialog");
            dialog->reject();
            return;
        }
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

int main(int argc, char** argv)
{
    QApplication::setAttribute(Qt::AA_DontUseNativeDialogs);
    QApplication app(argc, argv);
    TestStartPage test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_startpage.moc"
