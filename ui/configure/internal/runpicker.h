#pragma once
// The runs of the results database to pick from (closed-loop driving evaluation's policy): id, model, date,
// last stage, final metric and status, filterable by any of them. Selecting rows emits their ids; the
// catalogue is read by a task (loadRunSummaries, off the GUI thread) whenever the database is set or Refresh is
// clicked; a newer read cancels one in flight.

#include "core/util/cancel.h"

#include <QList>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTreeView;

namespace pitwall::ui {

struct RunSummary {
    std::int64_t id = 0;
    QString kind, model, status; // model: the config's experiment.model ("" when none)
    double startTime = 0;        // Unix seconds
    QString stage;               // the last stage with metrics ("" when none)
    QString metricKey;           // val/loss when recorded, else loss ("" when neither)
    std::optional<double> finalMetric;
};

// Every run of the database at `location`, newest first; empty when it cannot be read or `cancel` was
// requested. `progress` hears the fraction of runs summarised. Any thread.
std::vector<RunSummary> loadRunSummaries(const QString& location, const CancelToken* cancel = nullptr,
                                         const ProgressSink& progress = {});

class RunPicker : public QWidget {
    Q_OBJECT
public:
    explicit RunPicker(QWidget* parent = nullptr);
    ~RunPicker() override;

    void setDatabase(const QString& location); // reads its runs (asynchronously)
    void refresh();
    bool loaded() const { return m_loaded; }
    // Whether the database has this run (only meaningful once loaded()).
    bool hasRun(std::int64_t id) const;
    QTreeView* view() const { return m_view; }
    QLineEdit* filter() const { return m_filter; }

Q_SIGNALS:
    void runsPicked(const QList<qint64>& ids); // the user's selection, oldest id first

private:
    void show(std::vector<RunSummary> runs);
    QList<qint64> selectedIds() const;

    QString m_location;
    bool m_loaded = false;
    std::vector<std::int64_t> m_ids;
    QStandardItemModel* m_model = nullptr;
    QSortFilterProxyModel* m_filtered = nullptr;
    QLineEdit* m_filter = nullptr;
    QPushButton* m_refresh = nullptr;
    QTreeView* m_view = nullptr;
};

} // namespace pitwall::ui
