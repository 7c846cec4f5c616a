#pragma once
// What the Compare view's files share about its trial picker (compareview.cpp, compareview_picker.cpp): the role
// that holds a study row's database, the key of a study's expanded state, and how a picker row shows a number.

#include <QString>
#include <QTreeWidgetItem>

namespace pitwall::ui::compare_internal {

inline constexpr int kDatabaseRole = Qt::UserRole + 1; // on a study row: its database (empty: the window's)

inline QString expandKey(const QString& database, const QString& study)
{
    return database + QLatin1Char('\n') + study;
}

// The database of a picker row (a study or one of its trials).
inline QString databaseOf(const QTreeWidgetItem* item)
{
    if (item && item->parent())
        item = item->parent();
    return item ? item->data(0, kDatabaseRole).toString() : QString();
}

inline QString number(double v)
{
    return QString::number(v, 'g', 5);
}

} // namespace pitwall::ui::compare_internal
