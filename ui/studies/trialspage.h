#pragma once
// The studies view's main page: the trials table of the study in focus and, for the selected trial, its
// details — parameters, attributes, why it failed (system attribute `fail_reason`), its runs and the tail of
// their events. The details come from the poller (TrialDetails) on request. Double-clicking a trial opens its
// latest run in the live view.

#include "ui/poller/storepoller.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace pitwall::ui {

class TrialsView;

class TrialsPage : public QWidget {
    Q_OBJECT
public:
    explicit TrialsPage(QWidget* parent = nullptr);

    TrialsView* trials() const { return m_table; }
    QPlainTextEdit* details() const { return m_details; }
    void showSnapshot(const StoreSnapshot& snapshot);
    void showDetails(const TrialDetails& details);
    bool ready() const { return m_shownStudy == m_study && !m_dirty; }
    // The table is filled when the page is shown (1,000,000 trials take a second to sort); this fills it now.
    void fillIfStale()
    {
        if (m_dirty)
            fill();
    }

Q_SIGNALS:
    void detailsRequested(qint64 trialId);
    void openRun(qint64 runId);
    // The link of an empty database's page ("Configure a training or a search").
    void configureRequested();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void fill();      // the table (when shown: sorting 1,000,000 trials takes a second)
    void showTitle(); // the study's name and counts (at once)
    const TrialRecord* trialByNumber(int number) const;

    QString m_study;
    QString m_valueName; // the metric the Value column holds
    QString m_shownStudy;
    SharedTrials m_records = shareRecords(std::vector<TrialRecord>{}); // shared with the snapshot
    SharedRuns m_runs = shareRecords(std::vector<RunRecord>{});
    bool m_dirty = false;
    std::uint64_t m_signature = 0;
    qint64 m_detailsTrial = 0;
    QLabel* m_title = nullptr;
    TrialsView* m_table = nullptr;
    QPlainTextEdit* m_details = nullptr;
};

} // namespace pitwall::ui
