#include "core/store/metricswriter.h"

#include "core/store/store.h"

#include <algorithm>
#include <chrono>
#include <span>

namespace pitwall {

MetricsWriter::MetricsWriter(std::string location, std::size_t flushRows, int flushIntervalMs)
    : m_store(openStore(location, OpenMode::ReadWrite)), m_flushRows(flushRows > 0 ? flushRows : 1),
      m_flushIntervalMs(flushIntervalMs > 0 ? flushIntervalMs : 1)
{
    m_buffer.reserve(m_flushRows);
    m_thread = std::thread([this] { drainLoop(); });
}

MetricsWriter::~MetricsWriter()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_one();
    m_thread.join();
}

void MetricsWriter::add(MetricSample sample)
{
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        m_buffer.push_back(std::move(sample));
        ++m_added;
        wake = m_buffer.size() == m_flushRows;
    }
    if (wake)
        m_wake.notify_one();
}

void MetricsWriter::add(std::vector<MetricSample> samples)
{
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        const std::size_t before = m_buffer.size();
        m_buffer.insert(m_buffer.end(), std::make_move_iterator(samples.begin()),
                        std::make_move_iterator(samples.end()));
        m_added += static_cast<std::int64_t>(samples.size());
        wake = before < m_flushRows && m_buffer.size() >= m_flushRows;
    }
    if (wake)
        m_wake.notify_one();
}

void MetricsWriter::flush()
{
    std::unique_lock lock(m_mutex);
    const std::int64_t target = m_added;
    if (target > m_flushTarget)
        m_flushTarget = target;
    m_wake.notify_one();
    m_progress.wait(lock, [&] { return m_processed >= target; });
    if (m_error) {
        auto error = std::exchange(m_error, nullptr);
        std::rethrow_exception(error);
    }
}

void MetricsWriter::drainLoop()
{
    std::vector<MetricSample> taken;
    taken.reserve(m_flushRows);
    std::unique_lock lock(m_mutex);
    for (;;) {
        // Sleep until a full batch, a flush request, stop, or the interval with something buffered.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(m_flushIntervalMs);
        m_wake.wait_until(lock, deadline, [&] {
            return m_stopping || m_buffer.size() >= m_flushRows || (m_flushTarget > m_processed && !m_buffer.empty());
        });
        if (m_buffer.empty()) {
            if (m_stopping)
                return;
            continue;
        }
        taken.swap(m_buffer); // m_buffer gets the empty vector with the old capacity
        lock.unlock();
        // One transaction per batch of at most m_flushRows rows, so that other writers get their turn.
        const std::span<const MetricSample> all(taken);
        for (std::size_t offset = 0; offset < all.size(); offset += m_flushRows) {
            const auto batch = all.subspan(offset, std::min(m_flushRows, all.size() - offset));
            std::exception_ptr error;
            try {
                m_store->appendMetrics(batch);
                m_rowsWritten += static_cast<std::int64_t>(batch.size());
            } catch (...) {
                error = std::current_exception();
                m_rowsDropped += static_cast<std::int64_t>(batch.size());
            }
            std::lock_guard progressLock(m_mutex);
            if (error && !m_error)
                m_error = error;
            m_processed += static_cast<std::int64_t>(batch.size());
            m_progress.notify_all();
        }
        taken.clear();
        lock.lock();
    }
}

} // namespace pitwall
