#pragma once
// Turns a run's metric rows (as metricsSince returns them) into chart series. Stages restart their step
// count, so each stage is placed after the previous one on one x axis ("global step"): x = the stage's
// offset + step, where a stage's offset is the largest x seen before its first row. Used in the poller
// thread (LiveSeriesBuilder) and in the GUI thread (LiveModel, which accumulates the deltas).

#include "core/store/records.h"

#include <QList>
#include <QMetaType>
#include <QPointF>
#include <QString>

#include <map>
#include <optional>
#include <vector>

namespace pitwall::ui {

struct StageMark {
    QString name;
    double x = 0; // global step where the stage starts
};

struct SeriesChunk {
    QString key;
    QList<QPointF> points; // (global step, value), in arrival order
};

// What the poller read of the live run since its last delta.
struct LiveDelta {
    qint64 runId = 0;
    bool reset = false;           // forget what was shown before (another run or another database)
    std::optional<RunRecord> run; // on reset and whenever the run record changed (status, end time)
    std::vector<SeriesChunk> chunks;
    std::vector<StageMark> stages; // stages that started in these rows
    // (global step, wall time in Unix seconds) of each row that went past the largest step so far: what the
    // charts' time axes map steps through.
    QList<QPointF> clock;
    std::vector<EventRecord> events;
    qint64 rows = 0;      // metric rows in this delta
    bool caughtUp = true; // false while older rows are still being read
};

class LiveSeriesBuilder {
public:
    void clear();
    // Appends the rows' points to `delta` (one chunk per key, keys in first-seen order).
    void add(const std::vector<MetricRow>& rows, LiveDelta& delta);

private:
    std::map<std::string, double> m_stageOffset;
    double m_maxX = 0;
    bool m_clocked = false; // the first row's time is in a clock
};

} // namespace pitwall::ui

Q_DECLARE_METATYPE(pitwall::ui::LiveDelta)
