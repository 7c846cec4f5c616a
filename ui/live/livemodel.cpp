#include "ui/live/livemodel.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace pitwall::ui {

LiveModel::LiveModel(QObject* parent) : QObject(parent)
{
}

const QList<QPointF>& LiveModel::series(const QString& key) const
{
    static const QList<QPointF> kEmpty;
    auto it = m_series.constFind(key);
    return it == m_series.constEnd() ? kEmpty : it.value();
}

void LiveModel::clear()
{
    const bool hadRun = m_runId != 0;
    m_runId = 0;
    m_run.reset();
    m_series.clear();
    m_overviews.clear();
    m_order.clear();
    m_stages.clear();
    m_clock.clear();
    m_events.clear();
    m_stagePlan.clear();
    m_rows = 0;
    m_caughtUp = false;
    ++m_revision;
    if (hadRun)
        Q_EMIT runChanged(0);
    Q_EMIT changed();
}

void LiveModel::apply(const LiveDelta& delta)
{
    if (delta.reset || delta.runId != m_runId) {
        const qint64 runId = delta.runId;
        m_runId = 0;
        clear();
        m_runId = runId;
        if (runId != 0)
            Q_EMIT runChanged(runId);
    }
    if (delta.run) {
        m_run = delta.run;
        if (!delta.run->configYaml.empty())
            readStagePlan(delta.run->configYaml);
    }
    for (const SeriesChunk& chunk : delta.chunks) {
        auto it = m_series.find(chunk.key);
        if (it == m_series.end()) {
            m_order << chunk.key;
            it = m_series.insert(chunk.key, {});
        }
        it.value().append(chunk.points);
        fold(chunk.key);
    }
    m_stages.insert(m_stages.end(), delta.stages.begin(), delta.stages.end());
    m_clock.append(delta.clock);
    m_events.insert(m_events.end(), delta.events.begin(), delta.events.end());
    if (m_events.size() > static_cast<std::size_t>(kMaxEvents))
        m_events.erase(m_events.begin(), m_events.end() - kMaxEvents);
    m_rows += delta.rows;
    m_caughtUp = delta.caughtUp;
    ++m_revision;
    Q_EMIT changed();
}

void LiveModel::fold(const QString& key)
{
    const QList<QPointF>& raw = m_series[key];
    Overview& o = m_overviews[key];
    if (o.folded == 0 && !raw.isEmpty()) {
        o.points.append(raw.first());
        o.folded = 1;
    }
    while (raw.size() - o.folded >= kOverviewBlock) {
        qsizetype lo = o.folded, hi = o.folded;
        for (qsizetype i = o.folded; i < o.folded + kOverviewBlock; ++i) {
            if (raw[i].y() < raw[lo].y())
                lo = i;
            if (raw[i].y() > raw[hi].y())
                hi = i;
        }
        o.points.append(raw[std::min(lo, hi)]);
        if (lo != hi)
            o.points.append(raw[std::max(lo, hi)]);
        o.folded += kOverviewBlock;
    }
}

double LiveModel::timeAt(double x) const
{
    const QList<QPointF> at = inTime({QPointF(x, 0)}, 0);
    return at.isEmpty() ? qQNaN() : at.first().x();
}

QList<QPointF> LiveModel::inTime(const QList<QPointF>& points, double origin) const
{
    QList<QPointF> out;
    out.reserve(points.size());
    if (m_clock.isEmpty())
        return out;
    // A cursor into the clock that moves forward with x (a binary search only when x goes back).
    qsizetype c = 0;
    const qsizetype n = m_clock.size();
    for (const QPointF& p : points) {
        const double x = p.x();
        if (c > 0 && m_clock[c - 1].x() >= x)
            c = std::lower_bound(m_clock.cbegin(), m_clock.cend(), x, [](const QPointF& q, double v) { return q.x() < v; }) -
                m_clock.cbegin();
        while (c < n && m_clock[c].x() < x)
            ++c;
        double t;
        if (c == 0)
            t = m_clock.first().y();
        else if (c == n)
            t = m_clock.last().y();
        else {
            const QPointF& a = m_clock[c - 1];
            const QPointF& b = m_clock[c];
            t = a.y() + (b.y() - a.y()) * (x - a.x()) / (b.x() - a.x());
        }
        out.append(QPointF(t - origin, p.y()));
    }
    return out;
}

QList<QPointF> LiveModel::overview(const QString& key) const
{
    const QList<QPointF>& raw = series(key);
    if (raw.size() <= kOverviewFrom)
        return raw;
    const Overview& o = m_overviews[key];
    QList<QPointF> out;
    out.reserve(o.points.size() + raw.size() - o.folded + 1);
    out.append(o.points);
    out.append(raw.mid(o.folded));
    if (out.last() != raw.last())
        out.append(raw.last());
    return out;
}

void LiveModel::readStagePlan(const std::string& configYaml)
{
    m_stagePlan.clear();
    try {
        const YAML::Node stages = YAML::Load(configYaml)["training"]["stages"];
        for (const char* name : {"pretrain", "posttrain"}) {
            const YAML::Node epochs = stages ? stages[name]["epochs"] : YAML::Node();
            const int count = epochs ? epochs.as<int>() : 0;
            if (count > 0)
                m_stagePlan.emplace_back(QString::fromLatin1(name), count);
        }
    } catch (const std::exception&) {
        m_stagePlan.clear();
    }
}

LiveProgress LiveModel::progress() const
{
    LiveProgress p;
    p.stages = static_cast<int>(m_stagePlan.size());
    if (m_stages.empty())
        return p;
    p.stage = m_stages.back().name;
    for (std::size_t i = 0; i < m_stagePlan.size(); ++i)
        if (m_stagePlan[i].first == p.stage) {
            p.stageIndex = static_cast<int>(i);
            p.epochs = m_stagePlan[i].second;
        }
    // "epoch" is logged once per finished epoch with the 1-based epoch number, after the stage's offset.
    const double stageStart = m_stages.back().x;
    const QList<QPointF>& epochs = series(QStringLiteral("epoch"));
    for (auto it = epochs.crbegin(); it != epochs.crend(); ++it)
        if (it->x() > stageStart) {
            p.epochsDone = static_cast<int>(it->y());
            break;
        }
    return p;
}

} // namespace pitwall::ui
