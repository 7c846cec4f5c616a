#pragma once
// The trials of one study: number, state, value, duration, a note (why a trial failed: its system attribute
// `fail_reason`) and one column per parameter. Keeps the selected trial across refreshes.

#include "ui/storepoller.h"

#include <QTableWidget>

namespace pitwall::ui {

class TrialsView : public QTableWidget {
    Q_OBJECT
public:
    enum Column { kNumber, kState, kValue, kDuration, kNote, kFirstParam };

    explicit TrialsView(QWidget* parent = nullptr);
    void showTrials(const std::vector<TrialRecord>& trials);
    // Number of the selected trial, -1 when none.
    int selectedTrial() const;
    bool selectTrial(int number);

Q_SIGNALS:
    void trialSelected(int number);
    void trialActivated(int number); // double click or Enter
};

} // namespace pitwall::ui
