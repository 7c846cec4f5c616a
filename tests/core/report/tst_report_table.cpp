// Report tables print what the store holds without letting a name break the output: CSV cells are quoted and
// formula-guarded. If this fails, a spreadsheet would run a trial's text or read shifted columns.
#include "core/report/table.h"

#include <QtTest>

using namespace pitwall;

class TestReportTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void csvOfKnownRows();
};

void TestReportTable::csvOfKnownRows()
{
    Table table({"name", "value"});
    table.addRow({"=1+2", "-1.5"});
    table.addRow({"a,b", "-"});
    table.addRow({"@x", "+3"});
    QCOMPARE(QString::fromStdString(table.toCsv()),
             QString("name,value\r\n'=1+2,-1.5\r\n\"a,b\",'-\r\n'@x,+3\r\n"));
}

QTEST_GUILESS_MAIN(TestReportTable)
#include "tst_report_table.moc"
