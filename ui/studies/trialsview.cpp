#include "ui/studies/trialsview.h"
#include "ui/theme.h"

#include "ui/exporting.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

namespace pitwall::ui {

void TrialsModel::setTrials(SharedTrials trials)
{
    beginResetModel();
    m_trials = std::move(trials);
    std::set<std::string> names;
    for (const TrialRecord& t : *m_trials)
        for (const TrialParam& p : t.params)
            names.insert(p.name);
    std::unordered_map<std::string, int> column;
    column.reserve(names.size());
    m_paramNames.clear();
    for (const std::string& name : names) {
        column.emplace(name, static_cast<int>(m_paramNames.size()));
        m_paramNames << QString::fromStdString(name);
    }
    m_paramIndex.assign(m_trials->size(), {});
    for (std::size_t row = 0; row < m_trials->size(); ++row) {
        const auto& params = (*m_trials)[row].params;
        auto& index = m_paramIndex[row];
        index.reserve(params.size());
        for (std::size_t i = 0; i < params.size(); ++i)
            index.emplace_back(column.at(params[i].name), static_cast<int>(i));
        std::sort(index.begin(), index.end());
    }
    endResetModel();
}

int TrialsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_trials->size());
}

int TrialsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kFirstParam + static_cast<int>(m_paramNames.size());
}

QVariant TrialsModel::paramData(int row, int column) const
{
    const auto& index = m_paramIndex[static_cast<std::size_t>(row)];
    const auto it = std::lower_bound(index.begin(), index.end(), std::pair<int, int>(column - kFirstParam, -1));
    if (it == index.end() || it->first != column - kFirstParam)
        return {};
    const Json v = (*m_trials)[static_cast<std::size_t>(row)].params[static_cast<std::size_t>(it->second)].value();
    if (v.is_number())
        return v.get<double>();
    return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

QVariant TrialsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != Qt::DecorationRole))
        return {};
    const TrialRecord& t = (*m_trials)[static_cast<std::size_t>(index.row())];
    if (role == Qt::DecorationRole)
        return index.column() == kState ? QVariant(stateIcon(QString::fromUtf8(trialStateName(t.state).data())))
                                         : QVariant();
    if (role == Qt::ToolTipRole && index.column() != kNote)
        return {};
    switch (index.column()) {
    case kNumber:
        return t.number;
    case kState:
        return QString::fromUtf8(trialStateName(t.state).data());
    case kValue:
        return t.values.empty() ? QVariant() : QVariant(t.values[0]);
    case kDuration:
        if (t.startTime && t.completeTime)
            return std::round((*t.completeTime - *t.startTime) * 100.0) / 100.0;
        return {};
    case kNote:
        if (t.systemAttrs.contains("fail_reason")) {
            const Json& reason = t.systemAttrs["fail_reason"];
            return QString::fromStdString(reason.is_string() ? reason.get<std::string>() : reason.dump());
        }
        return {};
    default:
        return paramData(index.row(), index.column());
    }
}

QVariant TrialsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case kNumber:
        return tr("#");
    case kState:
        return tr("State");
    case kValue:
        return m_valueName.isEmpty() ? tr("Value") : tr("Value: %1").arg(m_valueName);
    case kDuration:
        return tr("Duration (s)");
    case kNote:
        return tr("Note");
    default:
        return m_paramNames.value(section - kFirstParam);
    }
}

TrialsView::TrialsView(QWidget* parent) : QTableView(parent)
{
    setObjectName("trialsView");
    m_model = new TrialsModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_model);
    setModel(m_sorted);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setSortingEnabled(true);
    sortByColumn(kNumber, Qt::AscendingOrder);
    verticalHeader()->setVisible(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setStretchLastSection(true);
    addCsvExportMenu(this);
    connect(selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (const int n = selectedTrial(); n >= 0 && !m_filling)
            Q_EMIT trialSelected(n);
    });
    connect(this, &QTableView::activated, this, [this](const QModelIndex& index) {
        Q_EMIT trialActivated(m_sorted->index(index.row(), kNumber).data(Qt::DisplayRole).toInt());
    });
}

int TrialsView::selectedTrial() const
{
    const auto rows = selectionModel()->selectedRows(kNumber);
    return rows.isEmpty() ? -1 : rows.first().data(Qt::DisplayRole).toInt();
}

bool TrialsView::selectTrial(int number)
{
    for (int r = 0; r < m_sorted->rowCount(); ++r)
        if (m_sorted->index(r, kNumber).data(Qt::DisplayRole).toInt() == number) {
            selectRow(r);
            return true;
        }
    return false;
}

int TrialsView::rowCount() const
{
    return m_sorted->rowCount();
}

int TrialsView::columnCount() const
{
    return m_sorted->columnCount();
}

QString TrialsView::headerText(int column) const
{
    return m_sorted->headerData(column, Qt::Horizontal).toString();
}

QString TrialsView::cellText(int row, int column) const
{
    return m_sorted->index(row, column).data(Qt::DisplayRole).toString();
}

void TrialsModel::setValueName(const QString& name)
{
    if (name == m_valueName)
        return;
    m_valueName = name;
    Q_EMIT headerDataChanged(Qt::Horizontal, kValue, kValue);
}

void TrialsView::showTrials(SharedTrials trials, const QString& valueName)
{
    const int keep = selectedTrial();
    const std::size_t count = trials->size();
    m_filling = true;
    m_model->setTrials(std::move(trials));
    m_model->setValueName(valueName);
    if (count <= 2000)
        for (int c = 0; c < std::min(columnCount(), kFirstParam + kFittedColumns); ++c)
            resizeColumnToContents(c);
    if (keep >= 0)
        selectTrial(keep);
    m_filling = false;
}

} // namespace pitwall::ui
