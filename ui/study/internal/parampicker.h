#pragma once
// Which parameters the study view draws: every parameter of the study, most important first, each with its
// importance and a check mark when drawn; a filter field narrows the list by name. A click on a row adds the
// parameter to the charts or takes it off; "Most important" goes back to the automatic choice (the study
// view's cap of most important parameters). A lazy list model: 10,000 parameters are 10,000 rows read only
// when painted, no widget per row. GUI thread only.

#include <QAbstractListModel>
#include <QSet>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <utility>
#include <vector>

class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QSortFilterProxyModel;

namespace pitwall::ui {

class ParamListModel : public QAbstractListModel {
    Q_OBJECT
public:
    using Entry = std::pair<QString, double>; // name, importance in [0, 1]
    using QAbstractListModel::QAbstractListModel;

    // Entries in the order listed (most important first); resets the list.
    void setEntries(std::vector<Entry> entries);
    // Whether the importances are settled (enough complete trials, ImportanceBars::kSettledTrials): unsettled
    // numbers are grey, as the bars are, and their tooltip says what they rest on.
    void setSettled(bool settled, int trials);
    bool settled() const { return m_settled; }
    // The names checked (drawn); changes only the check marks.
    void setChecked(const QStringList& names);
    QStringList checked() const; // in list order
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    const Entry& entry(int row) const { return m_entries[static_cast<std::size_t>(row)]; }

private:
    std::vector<Entry> m_entries;
    QSet<QString> m_checked;
    bool m_settled = true;
    int m_trials = 0;
};

class ParamPicker : public QWidget {
    Q_OBJECT
public:
    explicit ParamPicker(QWidget* parent = nullptr);

    // Shows `entries` (most important first), `drawn` checked; `automatic` says the drawn ones are the
    // automatic choice; `trials`: the complete trials the importances rest on. The list is reset only when
    // `entries` differ from those shown.
    void setParams(const std::shared_ptr<const void>& revision, std::vector<ParamListModel::Entry> entries,
                   const QStringList& drawn, bool automatic, int trials);
    const ParamListModel* model() const { return m_model; }
    QStringList checked() const { return m_model->checked(); }
    QLineEdit* filter() const { return m_filter; }
    QListView* list() const { return m_list; }
    QPushButton* automaticButton() const { return m_automatic; }

Q_SIGNALS:
    // The user changed what is drawn: exactly these parameters (list order).
    void picked(const QStringList& names);
    // The user asked for the automatic choice again.
    void automaticRequested();

private:
    void toggle(const QModelIndex& index);

    ParamListModel* m_model = nullptr;
    QSortFilterProxyModel* m_filtered = nullptr;
    std::shared_ptr<const void> m_revision; // what the entries were made from
    QLabel* m_summary = nullptr;
    QLineEdit* m_filter = nullptr;
    QListView* m_list = nullptr;
    QPushButton* m_automatic = nullptr;
};

} // namespace pitwall::ui
