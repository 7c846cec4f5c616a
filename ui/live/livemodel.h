#pragma once
// The live run's series as the GUI thread holds them: every point received so far per metric key (x = global
// step, see LiveSeriesBuilder), the stage boundaries, the run record, the latest events and the progress
// through stages and epochs. Fed by StorePoller::liveDelta (queued, GUI thread); emits changed() after each
// delta. Charts read from it at their own pace (LiveView throttles and down-samples).

#include "ui/poller/liveseries.h"

#include <QHash>
#include <QtNumeric>
#include <QObject>
#include <QStringList>

#include <optional>

namespace pitwall::ui {

struct LiveProgress {
    QString stage;      // the stage that logged last
    int stageIndex = 0; // 0-based among the stages of the config
    int stages = 0;     // stages with epochs > 0 in the config (0 when unknown)
    int epochsDone = 0; // finished epochs of that stage
    int epochs = 0;     // its epochs from the config (0 when unknown)
};

class LiveModel : public QObject {
    Q_OBJECT
public:
    explicit LiveModel(QObject* parent = nullptr);

    qint64 runId() const { return m_runId; }
    const std::optional<RunRecord>& run() const { return m_run; }
    // Points of one key in arrival order; empty when the key never arrived.
    const QList<QPointF>& series(const QString& key) const;
    QStringList keys() const { return m_order; }
    // The points of `key` to down-sample for drawing. Up to kOverviewFrom points: all of them. Beyond: the first
    // point, then the minimum and the maximum (in x order) of every block of kOverviewBlock points, then the
    // points after the last full block — every extreme survives, at 1/16 of the size. Built incrementally as
    // rows arrive, so a refresh costs LTTB over the overview, not over the whole run (MinMaxLTTB's
    // pre-selection; Van Der Donckt et al., 2023).
    QList<QPointF> overview(const QString& key) const;
    const std::vector<StageMark>& stages() const { return m_stages; }
    // The wall time (Unix seconds) at global step x: interpolated between the rows that first reached each step
    // (NaN before any row). For the charts' time axes.
    double timeAt(double x) const;
    // `points` with x (global step) replaced by timeAt(x) - origin, in one pass for points in increasing x.
    QList<QPointF> inTime(const QList<QPointF>& points, double origin) const;
    // The wall time of the run's first row (NaN before any row): where relative time starts.
    double firstTime() const { return m_clock.isEmpty() ? qQNaN() : m_clock.first().y(); }
    const std::vector<EventRecord>& events() const { return m_events; }
    LiveProgress progress() const;
    qint64 rowCount() const { return m_rows; }
    bool caughtUp() const { return m_caughtUp; }
    // Bumped on every change; views compare it to skip redraws.
    quint64 revision() const { return m_revision; }

    static constexpr int kMaxEvents = 200;
    static constexpr int kOverviewBlock = 32;
    static constexpr int kOverviewFrom = 20000;

public Q_SLOTS:
    void apply(const pitwall::ui::LiveDelta& delta);
    void clear();

Q_SIGNALS:
    void changed();
    void runChanged(qint64 runId);

private:
    void readStagePlan(const std::string& configYaml);
    void fold(const QString& key);

    struct Overview {
        QList<QPointF> points;
        qsizetype folded = 0; // raw points already summarised
    };

    qint64 m_runId = 0;
    std::optional<RunRecord> m_run;
    QHash<QString, QList<QPointF>> m_series;
    QHash<QString, Overview> m_overviews;
    QStringList m_order;
    std::vector<StageMark> m_stages;
    QList<QPointF> m_clock; // (global step, wall time), increasing step
    std::vector<EventRecord> m_events;
    std::vector<std::pair<QString, int>> m_stagePlan; // (stage, epochs) from the run's config
    qint64 m_rows = 0;
    bool m_caughtUp = false;
    quint64 m_revision = 0;
};

} // namespace pitwall::ui
