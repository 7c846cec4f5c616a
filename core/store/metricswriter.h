#pragma once
// Batches metric samples from a training loop into the store without ever making the loop wait on the
// database.

#include "core/store/records.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pitwall {

class Store;

// Owns its own store connection and a background thread that drains a buffer in batches of up to
// `flushRows` rows, one transaction per batch, at least every `flushIntervalMs` milliseconds.
//
// Threads: add() may be called from any number of threads at once; it only takes a short lock and never
// touches the database. flush() and rowsWritten() may be called from any thread.
// Memory: the buffer is unbounded; it holds what the database has not taken yet.
class MetricsWriter {
public:
    // Opens `location` (see openStore) ReadWrite. Throws InputError / RuntimeError like openStore.
    explicit MetricsWriter(std::string location, std::size_t flushRows = 4096, int flushIntervalMs = 200);
    // Flushes what was added, then stops the thread. Errors at this point are dropped (see flush()).
    ~MetricsWriter();
    MetricsWriter(const MetricsWriter&) = delete;
    MetricsWriter& operator=(const MetricsWriter&) = delete;

    void add(MetricSample sample);
    void add(std::vector<MetricSample> samples);

    // Blocks until every sample added before the call is stored. Throws the first error the background
    // thread met (InputError for e.g. an unknown run id, RuntimeError otherwise) and clears it; the batch that
    // failed is dropped.
    void flush();

    // Rows stored so far (committed).
    std::int64_t rowsWritten() const { return m_rowsWritten.load(); }
    std::int64_t rowsDropped() const { return m_rowsDropped.load(); }

private:
    void drainLoop();

    std::unique_ptr<Store> m_store;
    const std::size_t m_flushRows;
    const int m_flushIntervalMs;

    std::mutex m_mutex;
    std::condition_variable m_wake;     // to the background thread: rows, flush request or stop
    std::condition_variable m_progress; // to flush(): a batch finished
    std::vector<MetricSample> m_buffer;
    std::int64_t m_added = 0;     // samples ever added (guarded by m_mutex)
    std::int64_t m_processed = 0; // samples written or dropped (guarded by m_mutex)
    std::int64_t m_flushTarget = 0;
    bool m_stopping = false;
    std::exception_ptr m_error;

    std::atomic<std::int64_t> m_rowsWritten{0};
    std::atomic<std::int64_t> m_rowsDropped{0};
    std::thread m_thread;
};

} // namespace pitwall
