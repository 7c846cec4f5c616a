#pragma once
// The Jobs panel's table as a test reads it: a job's row by id, and the state it shows.

#include <QString>
#include <QTreeWidget>

namespace pitwall::uitest {

inline QTreeWidgetItem* jobRow(QTreeWidget* table, qint64 id)
{
    for (int i = 0; i < table->topLevelItemCount(); ++i)
        if (table->topLevelItem(i)->text(0) == QString::number(id))
            return table->topLevelItem(i);
    return nullptr;
}

// "running", "cancelled", ... ("" while the job is not listed).
inline QString jobState(QTreeWidget* table, qint64 id)
{
    QTreeWidgetItem* row = jobRow(table, id);
    return row ? row->text(2) : QString();
}

} // namespace pitwall::uitest
