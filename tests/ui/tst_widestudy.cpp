// The window on a study with 10,000 parameters (issue 15). What would be wrong if these failed: the window
// draws every parameter again (10,001 axes and 10,000 bars: black blocks, tens of seconds per view), the cap
// keeps the wrong parameters (not the most important, or not most important first), the picker does not add
// what the user clicks, or the trials table no longer shows every parameter.
#include "widestudy.h"

#include "ui/mainwindow.h"
#include "ui/studies/trialsview.h"
#include "ui/study/internal/parallelcoords.h"
#include "ui/study/internal/parampicker.h"
#include "ui/study/internal/studywidgets.h"
#include "ui/study/studyview.h"

#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace pitwall;

namespace {

constexpr int kParams = 10000;
constexpr int kCap = ui::StudyView::kMaxDrawnParams;

QStringList importanceNames(const ui::StudyView& view)
{
    QStringList names;
    for (const auto& [name, value] : view.importance()->values())
        names << name;
    return names;
}

// With $PITWALL_UI_SCREENSHOT_DIR set, the window as the user sees it (the README's picture).
void shoot(QWidget& window, const char* name)
{
    const QString dir = qEnvironmentVariable("PITWALL_UI_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(window.grab().save(dir + QLatin1Char('/') + QLatin1String(name)));
}

} // namespace

class TestWideStudy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void opensWithTheMostImportantParameters();
    void pickerAddsAParameter();
    void trialsTableShowsEveryParameter();

private:
    void openStudyView(ui::MainWindow& window);
    QTemporaryDir m_dir;
    QString m_db;
};

void TestWideStudy::initTestCase()
{
    QCoreApplication::setOrganizationName("PitwallTest");
    QSettings().clear();
    m_db = m_dir.filePath("wide.db");
    widestudy::writeWideStudy(m_db.toStdString(), "wide", 30, kParams);
}

void TestWideStudy::openStudyView(ui::MainWindow& window)
{
    window.resize(1400, 900);
    window.showView(ui::View::Study);
    window.show();
    window.openDatabase(m_db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Study), 60000);
}

void TestWideStudy::opensWithTheMostImportantParameters()
{
    ui::MainWindow window;
    openStudyView(window);
    ui::StudyView* view = window.studyView();
    // The cap: kCap parameters and the objective, kCap bars; most important first.
    QCOMPARE(view->parallel()->axisCount(), kCap + 1);
    const QStringList axes = view->parallel()->axisNames();
    QCOMPARE(axes.mid(0, 3), QStringList({"x07311", "x00420", "x09998"}));
    QCOMPARE(axes.last(), QString("objective"));
    QCOMPARE(view->importance()->values().size(), std::size_t(kCap));
    QCOMPARE(importanceNames(*view).mid(0, 3), QStringList({"x07311", "x00420", "x09998"}));
    const auto& values = view->importance()->values();
    QVERIFY(values[0].second > values[1].second && values[1].second > values[2].second && values[2].second > 0);
    // The picker lists every parameter, the drawn ones checked.
    ui::ParamPicker* picker = view->picker();
    QCOMPARE(picker->list()->model()->rowCount(), kParams);
    QCOMPARE(picker->checked().size(), kCap);
    QCOMPARE(picker->checked().mid(0, 3), QStringList({"x07311", "x00420", "x09998"}));
    QVERIFY(!picker->automaticButton()->isEnabled());
    shoot(window, "workbench-study-wide.png");
}

void TestWideStudy::pickerAddsAParameter()
{
    ui::MainWindow window;
    openStudyView(window);
    ui::StudyView* view = window.studyView();
    ui::ParamPicker* picker = view->picker();
    QVERIFY(!view->parallel()->axisNames().contains("x05555"));
    // Type a name into the filter, then click the one row left.
    QTest::keyClicks(picker->filter(), "x05555");
    QListView* list = picker->list();
    QTRY_COMPARE(list->model()->rowCount(), 1);
    const QModelIndex row = list->model()->index(0, 0);
    QCOMPARE(row.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(row).center());
    QTRY_VERIFY_WITH_TIMEOUT(view->ready() && view->parallel()->axisCount() == kCap + 2, 30000);
    QVERIFY(view->parallel()->axisNames().contains("x05555"));
    QVERIFY(importanceNames(*view).contains("x05555"));
    QCOMPARE(view->parallel()->axisNames().mid(0, 3), QStringList({"x07311", "x00420", "x09998"}));
    QCOMPARE(row.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    // A click on a drawn parameter takes it off.
    QTest::mouseClick(picker->filter(), Qt::LeftButton);
    picker->filter()->selectAll();
    QTest::keyClicks(picker->filter(), "x07311");
    QTRY_COMPARE(list->model()->rowCount(), 1);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(list->model()->index(0, 0)).center());
    QTRY_VERIFY_WITH_TIMEOUT(view->ready() && view->parallel()->axisCount() == kCap + 1, 30000);
    QVERIFY(!view->parallel()->axisNames().contains("x07311"));
    QCOMPARE(view->parallel()->axisNames().first(), QString("x00420"));
    // "Most important" goes back to the automatic choice.
    QVERIFY(picker->automaticButton()->isEnabled());
    QTest::mouseClick(picker->automaticButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(view->ready() && view->parallel()->axisNames().value(0) == "x07311", 30000);
    QCOMPARE(view->parallel()->axisCount(), kCap + 1);
    QVERIFY(!view->parallel()->axisNames().contains("x05555"));
}

void TestWideStudy::trialsTableShowsEveryParameter()
{
    ui::MainWindow window;
    window.resize(1400, 900);
    window.showView(ui::View::Studies);
    window.show();
    window.openDatabase(m_db);
    QTRY_VERIFY_WITH_TIMEOUT(window.viewReady(ui::View::Studies), 60000);
    ui::TrialsView* table = window.trialsView();
    QCOMPARE(table->rowCount(), 30);
    QCOMPARE(table->columnCount(), ui::TrialsView::kFirstParam + kParams);
    const int column = ui::TrialsView::kFirstParam + 7311; // names sort as their numbers
    QCOMPARE(table->headerText(column), QString("x07311"));
    QCOMPARE(table->cellText(12, column), QString("12"));
    QCOMPARE(table->cellText(12, ui::TrialsView::kFirstParam + 420), QString("1"));
    QCOMPARE(table->cellText(12, ui::TrialsView::kValue), QString("12"));
    // Sorting by a parameter's column (a click on its header) orders the rows by it.
    table->sortByColumn(ui::TrialsView::kFirstParam + 420, Qt::DescendingOrder);
    QCOMPARE(table->cellText(0, ui::TrialsView::kFirstParam + 420), QString("2"));
    QVERIFY(table->selectTrial(5));
    QCOMPARE(table->selectedTrial(), 5);
}

QTEST_MAIN(TestWideStudy)
#include "tst_widestudy.moc"
