// How many metric rows per second MetricsWriter stores, against its reference: the same rows appended
// directly through Store::appendMetrics in batches of the same size, measured side by side in one run.
// The requirement is >= 200,000 rows/s on a 2-core machine (build RelWithDebInfo or Release).
//
// bench_metrics_writer [rows=2000000] [folder=/tmp]
#include "core/store/metricswriter.h"
#include "core/store/store.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

using namespace pitwall;

namespace {

constexpr std::size_t kBatchRows = 4096;
const char* const kKeys[] = {"loss",        "loss_depth", "loss_semantic", "lr",
                             "fps_compute", "fps_full",   "grad_norm",     "ms_per_batch"};
const char* const kStages[] = {"pretrain", "post-train"};

MetricSample sampleAt(std::int64_t runId, std::int64_t i)
{
    return {runId,        kStages[(i / 1000000) % 2],       i / 8,
            kKeys[i % 8], 1.0 / static_cast<double>(i + 1), 1.7e9 + static_cast<double>(i) * 1e-4};
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::int64_t newRun(Store& store)
{
    RunRecord run;
    run.kind = "bench";
    return store.createRun(run);
}

} // namespace

int main(int argc, char** argv)
{
    const std::int64_t rows = argc > 1 ? std::atoll(argv[1]) : 2000000;
    const std::filesystem::path folder = argc > 2 ? argv[2] : "/tmp";
    const auto path = (folder / ("bench_metrics_writer_" + std::to_string(::getpid()) + ".db")).string();
    auto removeFiles = [&] {
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(path + suffix);
    };
    removeFiles();

    try {
        auto store = openStore(path);

        // Reference: the caller builds batches and appends them itself (and waits for every commit).
        const auto directRun = newRun(*store);
        auto start = std::chrono::steady_clock::now();
        std::vector<MetricSample> batch;
        batch.reserve(kBatchRows);
        for (std::int64_t i = 0; i < rows; ++i) {
            batch.push_back(sampleAt(directRun, i));
            if (batch.size() == kBatchRows || i + 1 == rows) {
                store->appendMetrics(batch);
                batch.clear();
            }
        }
        const double directSeconds = secondsSince(start);

        // MetricsWriter: the training loop only calls add(); a background thread stores.
        const auto writerRun = newRun(*store);
        double addSeconds = 0, totalSeconds = 0;
        std::int64_t written = 0;
        {
            MetricsWriter writer(path, kBatchRows);
            start = std::chrono::steady_clock::now();
            for (std::int64_t i = 0; i < rows; ++i)
                writer.add(sampleAt(writerRun, i));
            addSeconds = secondsSince(start);
            writer.flush();
            totalSeconds = secondsSince(start);
            written = writer.rowsWritten();
        }

        const auto stored = store->info().metricRows;
        const double directRate = rows / directSeconds;
        const double writerRate = rows / totalSeconds;
        std::printf("rows per series          %lld\n", static_cast<long long>(rows));
        std::printf("direct appendMetrics     %10.0f rows/s  (%.2f s, batches of %zu)\n", directRate, directSeconds,
                    kBatchRows);
        std::printf("MetricsWriter add+flush  %10.0f rows/s  (%.2f s; add() calls alone %.2f s = %.0f rows/s)\n",
                    writerRate, totalSeconds, addSeconds, rows / addSeconds);
        std::printf("ratio writer / direct    %10.2f\n", writerRate / directRate);
        std::printf("file                     %s (%.1f MiB, %lld rows)\n", path.c_str(),
                    std::filesystem::file_size(path) / 1048576.0, static_cast<long long>(stored));
        const bool complete = written == rows && stored == 2 * rows;
        if (!complete)
            std::printf("ERROR: expected %lld rows from the writer and %lld in the file\n",
                        static_cast<long long>(rows), static_cast<long long>(2 * rows));
        std::printf("requirement >= 200000 rows/s: %s\n", writerRate >= 200000 ? "met" : "NOT met");
        store.reset();
        removeFiles();
        return complete ? 0 : 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "bench_metrics_writer: %s\n", error.what());
        removeFiles();
        return 1;
    }
}
