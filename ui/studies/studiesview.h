#pragma once
// The side bar: every study of the open database with its kind (study system attribute `pitwall:kind`;
// "hpo" for a study with a Pitwall sampler; "–" otherwise, e.g. Optuna's own), state, best value and trial
// counts. A filter hides the studies whose name does not contain its text. A long name (a variant benchmark's
// whole override string) elides in the middle, its full text in the tooltip, so that Kind, State, Best and Done
// stay in sight; a side bar too narrow for them all (1024 px screens) drops Kind, then State, to keep Best and
// Done (the name's tooltip says both).

#include "ui/poller/storepoller.h"

#include <QTreeWidget>

namespace pitwall::ui {

class StudiesView : public QTreeWidget {
    Q_OBJECT
public:
    enum Column { kName, kKind, kState, kBest, kComplete, kRunning, kPruned, kFailed, kInterrupted, kColumns };

    explicit StudiesView(QWidget* parent = nullptr);
    // Replaces the rows, keeping the selection by study name.
    void showSnapshot(const StoreSnapshot& snapshot);
    QString selectedStudy() const;
    // Selects a study by name (when it is listed); emits studySelected.
    bool selectStudy(const QString& name);
    void setFilter(const QString& text);
    // Studies listed and not hidden by the filter.
    int visibleCount() const;

Q_SIGNALS:
    void studySelected(const QString& name);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // The name column as wide as its longest name, but never so wide that Done leaves the viewport (at least
    // a minimum); Kind and State hidden when even the minimum leaves no room for them.
    void fitNameColumn();
    QString m_filter;
};

} // namespace pitwall::ui
