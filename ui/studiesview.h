#pragma once
// The side bar: every study of the open database with its best value and trial counts.

#include "ui/storepoller.h"

#include <QTreeWidget>

namespace pitwall::ui {

class StudiesView : public QTreeWidget {
    Q_OBJECT
public:
    explicit StudiesView(QWidget* parent = nullptr);
    // Replaces the rows, keeping the selection by study name.
    void showSnapshot(const StoreSnapshot& snapshot);
    QString selectedStudy() const;

Q_SIGNALS:
    void studySelected(const QString& name);
};

} // namespace pitwall::ui
