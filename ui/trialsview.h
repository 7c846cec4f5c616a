#pragma once
// The trials of one study: number, state, value, duration and one column per parameter.

#include "ui/storepoller.h"

#include <QTableWidget>

namespace pitwall::ui {

class TrialsView : public QTableWidget {
    Q_OBJECT
public:
    explicit TrialsView(QWidget* parent = nullptr);
    void showTrials(const std::vector<TrialRecord>& trials);
};

} // namespace pitwall::ui
