#include "ui/study/internal/parampicker.h"

#include "ui/study/internal/studywidgets.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPalette>
#include <QListView>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QVBoxLayout>

namespace pitwall::ui {

void ParamListModel::setEntries(std::vector<Entry> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    endResetModel();
}

void ParamListModel::setSettled(bool settled, int trials)
{
    if (settled == m_settled && trials == m_trials)
        return;
    m_settled = settled;
    m_trials = trials;
    if (!m_entries.empty())
        Q_EMIT dataChanged(index(0), index(rowCount() - 1), {Qt::ForegroundRole, Qt::ToolTipRole});
}

void ParamListModel::setChecked(const QStringList& names)
{
    m_checked = QSet<QString>(names.begin(), names.end());
    if (!m_entries.empty())
        Q_EMIT dataChanged(index(0), index(rowCount() - 1), {Qt::CheckStateRole});
}

QStringList ParamListModel::checked() const
{
    QStringList out;
    for (const Entry& e : m_entries)
        if (m_checked.contains(e.first))
            out << e.first;
    return out;
}

int ParamListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

QVariant ParamListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const Entry& e = entry(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("%1   %2").arg(e.first).arg(e.second, 0, 'f', 3);
    case Qt::EditRole: // what the filter matches
        return e.first;
    case Qt::CheckStateRole:
        return m_checked.contains(e.first) ? Qt::Checked : Qt::Unchecked;
    case Qt::ForegroundRole:
        if (!m_settled)
            return QPalette().color(QPalette::PlaceholderText);
        return {};
    case Qt::ToolTipRole:
        return tr("%1: importance %2 (share of the objective's variance%3). Click to draw it or take it off.")
            .arg(e.first)
            .arg(e.second, 0, 'f', 4)
            .arg(m_settled ? QString()
                           : tr("; from %1 complete %2 only, not settled below %3")
                                 .arg(m_trials)
                                 .arg(m_trials == 1 ? tr("trial") : tr("trials"))
                                 .arg(ImportanceBars::kSettledTrials));
    default:
        return {};
    }
}

ParamPicker::ParamPicker(QWidget* parent) : QWidget(parent)
{
    setObjectName("paramPicker");
    setMinimumHeight(70); // the Study view fits a 700 px window; the splitter gives it more
    m_model = new ParamListModel(this);
    m_filtered = new QSortFilterProxyModel(this);
    m_filtered->setSourceModel(m_model);
    m_filtered->setFilterRole(Qt::EditRole);
    m_filtered->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_summary = new QLabel(this);
    // As wide from the start as the widest count it shows: the summary growing would take the parallel
    // coordinates' width when the first data arrives, and their dense layer would be made again for it.
    m_summary->setMinimumWidth(
        m_summary->fontMetrics().horizontalAdvance(tr("%1 of %2 parameters drawn").arg(16).arg(9999)));
    m_filter = new QLineEdit(this);
    m_filter->setObjectName("paramFilter");
    m_filter->setPlaceholderText(tr("Filter parameters…"));
    m_filter->setClearButtonEnabled(true);
    m_list = new QListView(this);
    m_list->setObjectName("paramList");
    m_list->setModel(m_filtered);
    m_list->setUniformItemSizes(true);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_automatic = new QPushButton(tr("Most important"), this);
    m_automatic->setObjectName("paramAutomatic");
    m_automatic->setToolTip(tr("Draw the most important parameters again."));
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_automatic);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_filter);
    layout->addWidget(m_list, 1);
    connect(m_filter, &QLineEdit::textChanged, m_filtered, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_list, &QListView::clicked, this, &ParamPicker::toggle);
    connect(m_automatic, &QPushButton::clicked, this, &ParamPicker::automaticRequested);
}

void ParamPicker::setParams(const std::shared_ptr<const void>& revision, std::vector<ParamListModel::Entry> entries,
                            const QStringList& drawn, bool automatic, int trials)
{
    const int count = static_cast<int>(entries.size());
    if (revision != m_revision || !revision) {
        m_revision = revision;
        m_model->setEntries(std::move(entries));
    }
    m_model->setChecked(drawn);
    m_model->setSettled(trials >= ImportanceBars::kSettledTrials, trials);
    m_automatic->setEnabled(!automatic);
    m_summary->setText(count == 1 ? tr("%1 of 1 parameter drawn").arg(drawn.size())
                                  : tr("%1 of %2 parameters drawn").arg(drawn.size()).arg(count));
}

void ParamPicker::toggle(const QModelIndex& index)
{
    const QString name = m_model->entry(m_filtered->mapToSource(index).row()).first;
    QStringList names = m_model->checked();
    if (names.contains(name))
        names.removeAll(name);
    else
        names << name;
    m_model->setChecked(names);
    Q_EMIT picked(m_model->checked());
}

} // namespace pitwall::ui
