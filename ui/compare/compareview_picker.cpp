// CompareView's trial picker: one row per study of each database and per trial of each study, built only while the
// view is shown (it holds a row per trial: 100,000 rows for the largest studies) and kept across rebuilds with its
// checked trials, expanded studies and current row.
#include "ui/compare/compareview.h"
#include "ui/compare/internal/comparepicker.h"
#include "ui/study/studymath.h"
#include "ui/wording.h"

#include <QDir>
#include <QShowEvent>
#include <QSignalBlocker>
#include <QTreeWidget>

namespace pitwall::ui {

using compare_internal::databaseOf;
using compare_internal::expandKey;
using compare_internal::kDatabaseRole;
using compare_internal::number;

void CompareView::refillPicker()
{
    if (isVisible())
        fillPicker();
    else
        m_pickerStale = true;
}

void CompareView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_pickerStale)
        fillPicker();
}

void CompareView::fillPicker()
{
    m_pickerStale = false;
    const QSignalBlocker blocker(m_picker);
    // The current row survives the rebuild (the remove button acts on it).
    const QTreeWidgetItem* was = m_picker->currentItem();
    const TrialRef current{was ? (was->parent() ? was->parent() : was)->data(0, Qt::UserRole).toString() : QString(),
                           was && was->parent() ? was->data(0, Qt::UserRole).toInt() : -1, databaseOf(was)};
    m_picker->clear();
    const bool labelled = m_sources.size() > 1;
    for (const Source& from : m_sources) {
        const QString label = databaseLabel(from.database);
        if (!from.error.isEmpty()) {
            auto* row = new QTreeWidgetItem(m_picker);
            row->setText(0, tr("%1: cannot be read (%2)").arg(label, from.error));
            row->setData(0, kDatabaseRole, from.database);
            row->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            continue;
        }
        for (const QString& name : from.studyOrder) {
            auto trials = from.trials.find(name);
            if (trials == from.trials.end())
                continue;
            auto* study = new QTreeWidgetItem(m_picker);
            const QString title = labelled ? label + QStringLiteral(" / ") + name : name;
            study->setText(
                0, tr("%1  (%2)").arg(title, counted(static_cast<qint64>(trials->second->size()), "trial", "trials")));
            study->setToolTip(0, QDir::toNativeSeparators(from.database.isEmpty() ? m_location : from.database));
            study->setData(0, Qt::UserRole, name);
            study->setData(0, kDatabaseRole, from.database);
            study->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            for (const TrialRecord& t : *trials->second) {
                QString text =
                    QStringLiteral("#%1  ").arg(t.number) + QString::fromUtf8(trialStateName(t.state).data());
                if (auto v = objectiveOf(t))
                    text += QStringLiteral("  ") + number(*v);
                if (t.userAttrs.contains("seed"))
                    text += tr("  seed %1").arg(QString::fromStdString(t.userAttrs["seed"].dump()));
                auto* item = new QTreeWidgetItem(study);
                item->setText(0, text);
                item->setData(0, Qt::UserRole, t.number);
                item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
                item->setCheckState(0, m_checked.contains(TrialRef{name, t.number, from.database}) ? Qt::Checked
                                                                                                   : Qt::Unchecked);
            }
            study->setExpanded(m_expanded.count(expandKey(from.database, name)) > 0);
        }
    }
    if (QTreeWidgetItem* again = !was                  ? nullptr
                                 : current.number >= 0 ? pickerItem(current)
                                                       : pickerStudy(current.study, current.database))
        m_picker->setCurrentItem(again);
    m_removeDatabase->setEnabled(!databaseOf(m_picker->currentItem()).isEmpty());
}

QTreeWidgetItem* CompareView::pickerStudy(const QString& study, const QString& database) const
{
    for (int s = 0; s < m_picker->topLevelItemCount(); ++s) {
        QTreeWidgetItem* row = m_picker->topLevelItem(s);
        if (row->data(0, Qt::UserRole).toString() == study && databaseOf(row) == database)
            return row;
    }
    return nullptr;
}

QTreeWidgetItem* CompareView::pickerItem(const TrialRef& trial) const
{
    if (QTreeWidgetItem* study = pickerStudy(trial.study, trial.database))
        for (int i = 0; i < study->childCount(); ++i)
            if (study->child(i)->data(0, Qt::UserRole).toInt() == trial.number)
                return study->child(i);
    return nullptr;
}

} // namespace pitwall::ui
