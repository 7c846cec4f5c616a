#include "ui/poller/liveseries.h"

#include <unordered_map>

namespace pitwall::ui {

void LiveSeriesBuilder::clear()
{
    m_stageOffset.clear();
    m_maxX = 0;
    m_clocked = false;
}

void LiveSeriesBuilder::add(const std::vector<MetricRow>& rows, LiveDelta& delta)
{
    std::unordered_map<std::string, std::size_t> chunkOf;
    for (std::size_t i = 0; i < delta.chunks.size(); ++i)
        chunkOf[delta.chunks[i].key.toStdString()] = i;
    for (const MetricRow& row : rows) {
        const MetricSample& s = row.sample;
        auto stage = m_stageOffset.find(s.stage);
        if (stage == m_stageOffset.end()) {
            stage = m_stageOffset.emplace(s.stage, m_maxX).first;
            delta.stages.push_back({QString::fromStdString(s.stage), m_maxX});
        }
        const double x = stage->second + static_cast<double>(s.step);
        if (x > m_maxX || !m_clocked) {
            delta.clock.append(QPointF(x, s.wallTime));
            m_clocked = true;
        }
        if (x > m_maxX)
            m_maxX = x;
        auto chunk = chunkOf.find(s.key);
        if (chunk == chunkOf.end()) {
            chunk = chunkOf.emplace(s.key, delta.chunks.size()).first;
            delta.chunks.push_back({QString::fromStdString(s.key), {}});
        }
        delta.chunks[chunk->second].points.append(QPointF(x, s.value));
    }
    delta.rows += static_cast<qint64>(rows.size());
}

} // namespace pitwall::ui
