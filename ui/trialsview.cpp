#include "ui/trialsview.h"

#include "core/util/strings.h"

#include <QHeaderView>

#include <set>

namespace pitwall::ui {

TrialsView::TrialsView(QWidget* parent) : QTableWidget(parent)
{
    setObjectName("trialsView");
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSortingEnabled(true);
    verticalHeader()->setVisible(false);
    horizontalHeader()->setStretchLastSection(true);
}

void TrialsView::showTrials(const std::vector<TrialRecord>& trials)
{
    std::set<std::string> paramNames;
    for (const TrialRecord& t : trials)
        for (const TrialParam& p : t.params)
            paramNames.insert(p.name);
    QStringList headers = {tr("#"), tr("State"), tr("Value"), tr("Duration (s)")};
    for (const std::string& name : paramNames)
        headers << QString::fromStdString(name);

    setSortingEnabled(false);
    clear();
    setColumnCount(headers.size());
    setHorizontalHeaderLabels(headers);
    setRowCount(static_cast<int>(trials.size()));
    int row = 0;
    for (const TrialRecord& t : trials) {
        auto number = new QTableWidgetItem;
        number->setData(Qt::DisplayRole, t.number);
        setItem(row, 0, number);
        setItem(row, 1, new QTableWidgetItem(QString::fromUtf8(trialStateName(t.state).data())));
        auto value = new QTableWidgetItem;
        if (!t.values.empty())
            value->setData(Qt::DisplayRole, t.values[0]);
        setItem(row, 2, value);
        auto duration = new QTableWidgetItem;
        if (t.startTime && t.completeTime)
            duration->setData(Qt::DisplayRole, std::round((*t.completeTime - *t.startTime) * 100.0) / 100.0);
        setItem(row, 3, duration);
        int column = 4;
        for (const std::string& name : paramNames) {
            auto cell = new QTableWidgetItem;
            for (const TrialParam& p : t.params)
                if (p.name == name) {
                    const Json v = p.value();
                    if (v.is_number())
                        cell->setData(Qt::DisplayRole, v.get<double>());
                    else
                        cell->setText(QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()));
                }
            setItem(row, column++, cell);
        }
        ++row;
    }
    setSortingEnabled(true);
    resizeColumnsToContents();
}

} // namespace pitwall::ui
