#pragma once
// The trials of one study: number, state, value, duration, a note (why a trial failed: its system attribute
// `fail_reason`) and one column per parameter. Keeps the selected trial across refreshes.
// A lazy model over the shared trial records (no item per cell): a study of 10,000 parameters is a table of
// 10,005 columns whose cells are read only when painted. GUI thread only.

#include "ui/poller/storepoller.h"

#include <QAbstractTableModel>
#include <QTableView>

#include <utility>
#include <vector>

class QSortFilterProxyModel;

namespace pitwall::ui {

class TrialsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { kNumber, kState, kValue, kDuration, kNote, kFirstParam };
    using QAbstractTableModel::QAbstractTableModel;

    // The parameters' columns are every trial's parameter names, sorted.
    void setTrials(SharedTrials trials);
    // What the Value column holds, in its header ("Value: val/loss"; empty: "Value").
    void setValueName(const QString& name);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant paramData(int row, int column) const;

    SharedTrials m_trials = shareRecords(std::vector<TrialRecord>{});
    QStringList m_paramNames;
    QString m_valueName;
    // Per trial: (parameter column - kFirstParam, index into its params), sorted by column.
    std::vector<std::vector<std::pair<int, int>>> m_paramIndex;
};

class TrialsView : public QTableView {
    Q_OBJECT
public:
    using Column = TrialsModel::Column;
    static constexpr Column kNumber = TrialsModel::kNumber, kState = TrialsModel::kState,
                            kValue = TrialsModel::kValue, kDuration = TrialsModel::kDuration,
                            kNote = TrialsModel::kNote, kFirstParam = TrialsModel::kFirstParam;
    // Columns fitted to their contents after a refresh (the rest keep the default width).
    static constexpr int kFittedColumns = 40;

    explicit TrialsView(QWidget* parent = nullptr);
    // `valueName`: the metric the Value column holds (the study's first objective), for its header.
    void showTrials(SharedTrials trials, const QString& valueName = {});
    // Number of the selected trial, -1 when none.
    int selectedTrial() const;
    bool selectTrial(int number);
    // The table as shown (sorted): counts, header and cell texts.
    int rowCount() const;
    int columnCount() const;
    QString headerText(int column) const;
    QString cellText(int row, int column) const;

Q_SIGNALS:
    void trialSelected(int number);
    void trialActivated(int number); // double click or Enter

private:
    TrialsModel* m_model = nullptr;
    QSortFilterProxyModel* m_sorted = nullptr;
    bool m_filling = false;
};

} // namespace pitwall::ui
