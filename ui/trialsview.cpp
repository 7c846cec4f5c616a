#include "ui/trialsview.h"

#include "ui/exporting.h"

#include <QHeaderView>

#include <cmath>
#include <set>

namespace pitwall::ui {

TrialsView::TrialsView(QWidget* parent) : QTableWidget(parent)
{
    setObjectName("trialsView");
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setSortingEnabled(true);
    verticalHeader()->setVisible(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setStretchLastSection(true);
    addCsvExportMenu(this);
    connect(this, &QTableWidget::itemSelectionChanged, this, [this] {
        if (const int n = selectedTrial(); n >= 0)
            Q_EMIT trialSelected(n);
    });
    connect(this, &QTableWidget::itemActivated, this, [this](QTableWidgetItem* item) {
        if (QTableWidgetItem* number = this->item(item->row(), kNumber))
            Q_EMIT trialActivated(number->data(Qt::DisplayRole).toInt());
    });
}

int TrialsView::selectedTrial() const
{
    const auto rows = selectionModel() ? selectionModel()->selectedRows(kNumber) : QModelIndexList();
    return rows.isEmpty() ? -1 : rows.first().data(Qt::DisplayRole).toInt();
}

bool TrialsView::selectTrial(int number)
{
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, kNumber) && item(r, kNumber)->data(Qt::DisplayRole).toInt() == number) {
            selectRow(r);
            return true;
        }
    return false;
}

void TrialsView::showTrials(const std::vector<TrialRecord>& trials)
{
    const int keep = selectedTrial();
    std::set<std::string> paramNames;
    for (const TrialRecord& t : trials)
        for (const TrialParam& p : t.params)
            paramNames.insert(p.name);
    QStringList headers = {tr("#"), tr("State"), tr("Value"), tr("Duration (s)"), tr("Note")};
    for (const std::string& name : paramNames)
        headers << QString::fromStdString(name);

    const QSignalBlocker blocker(this);
    setSortingEnabled(false);
    clearContents();
    setColumnCount(headers.size());
    setHorizontalHeaderLabels(headers);
    setRowCount(static_cast<int>(trials.size()));
    int row = 0;
    for (const TrialRecord& t : trials) {
        auto number = new QTableWidgetItem;
        number->setData(Qt::DisplayRole, t.number);
        setItem(row, kNumber, number);
        setItem(row, kState, new QTableWidgetItem(QString::fromUtf8(trialStateName(t.state).data())));
        auto value = new QTableWidgetItem;
        if (!t.values.empty())
            value->setData(Qt::DisplayRole, t.values[0]);
        setItem(row, kValue, value);
        auto duration = new QTableWidgetItem;
        if (t.startTime && t.completeTime)
            duration->setData(Qt::DisplayRole, std::round((*t.completeTime - *t.startTime) * 100.0) / 100.0);
        setItem(row, kDuration, duration);
        auto note = new QTableWidgetItem;
        if (t.systemAttrs.contains("fail_reason")) {
            const Json& reason = t.systemAttrs["fail_reason"];
            note->setText(QString::fromStdString(reason.is_string() ? reason.get<std::string>() : reason.dump()));
            note->setToolTip(note->text());
        }
        setItem(row, kNote, note);
        int column = kFirstParam;
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
    if (trials.size() <= 2000)
        resizeColumnsToContents();
    if (keep >= 0)
        selectTrial(keep);
}

} // namespace pitwall::ui
