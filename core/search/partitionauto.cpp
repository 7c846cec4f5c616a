#include "core/search/partitionauto.h"

#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/printable.h"
#include "core/util/process.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

namespace pitwall {

namespace fs = std::filesystem;

std::vector<PartitionMeasurement> matchingPartitionMeasurements(const std::vector<BenchmarkRecord>& records,
                                                                const PartitionWorkload& w, double* newest)
{
    struct Cell {
        PartitionMeasurement m;
        double time;
    };
    std::vector<Cell> cells;
    for (const BenchmarkRecord& r : records) {
        const Json& p = r.parameters;
        if (r.suite != "partitions" || r.host != w.host || !p.is_object() ||
            p.value("backend", std::string()) != w.backend || p.value("workload", std::string()) != w.workload ||
            w.workload.empty())
            continue;
        const std::string mode = p.value("mode", std::string());
        if (std::find(w.modes.begin(), w.modes.end(), mode) == w.modes.end())
            continue;
        PartitionMeasurement m;
        m.mode = mode;
        m.devices = std::max(1, p.value("logical_devices", 1));
        m.batchSize = p.value("batch_size", 0LL);
        m.memoryBytes = p.value("device_memory_bytes", static_cast<std::int64_t>(0));
        const Json& results = r.results;
        m.computeFps = results.is_object() && results.contains("compute_fps") && results["compute_fps"].is_number()
                           ? results["compute_fps"].get<double>()
                           : -1;
        m.fullFps = results.is_object() && results.contains("full_fps") && results["full_fps"].is_number()
                        ? results["full_fps"].get<double>()
                        : -1;
        auto same = std::find_if(cells.begin(), cells.end(),
                                 [&](const Cell& c) { return c.m.mode == m.mode && c.m.batchSize == m.batchSize; });
        if (same == cells.end())
            cells.push_back({m, r.time});
        else if (r.time >= same->time)
            *same = {m, r.time};
    }
    std::vector<PartitionMeasurement> out;
    double latest = 0;
    for (const Cell& c : cells) {
        out.push_back(c.m);
        latest = std::max(latest, c.time);
    }
    if (newest)
        *newest = latest;
    return out;
}

std::optional<StoredPartitionChoice> storedPartitionChoice(const std::vector<BenchmarkRecord>& records,
                                                           const PartitionWorkload& w)
{
    StoredPartitionChoice stored;
    const std::vector<PartitionMeasurement> cells = matchingPartitionMeasurements(records, w, &stored.measuredAt);
    if (cells.empty())
        return std::nullopt;
    stored.cells = cells.size();
    stored.choice = choosePartition(cells);
    return stored;
}

std::string describeStoredChoice(const StoredPartitionChoice& stored)
{
    return stored.choice.recommended.value_or("no mode") + " (measured " +
           formatTimestamp(stored.measuredAt).substr(0, 16) + " UTC" + " on " + std::to_string(stored.cells) + " cell" +
           (stored.cells == 1 ? "" : "s") + ": " + stored.choice.reason + ")";
}

std::vector<std::string> partitionMeasureCommand(const PartitionMeasureSpec& spec)
{
    std::vector<std::string> argv{executablePath().string(), "bench", "partitions", "--recommend"};
    for (const std::string& config : spec.configs) {
        argv.push_back("--config");
        argv.push_back(config);
    }
    argv.insert(argv.end(), {"--backend", spec.backend, "--db", spec.storeLocation, "--out", spec.outputDir});
    argv.insert(argv.end(), spec.overrides.begin(), spec.overrides.end());
    return argv;
}

bool measurePartitions(const PartitionMeasureSpec& spec, CancelToken& cancel)
{
    fs::create_directories(spec.outputDir);
    const std::string log = (fs::path(spec.outputDir) / "bench.log").string();
    ProcessOptions options;
    options.stdoutFile = log;
    options.stderrFile = log;
    options.appendOutput = true;
    options.stdinFromDevNull = true;
    options.group = ProcessGroup::Own;
    options.parentDeathSignal = SIGTERM;
    ChildProcess child = ChildProcess::start(partitionMeasureCommand(spec), options);
    std::optional<ProcessExit> exit;
    bool stopped = false;
    while (!(exit = child.poll())) {
        if (cancel.requested() && !stopped) {
            child.signal(SIGTERM); // the benchmark stops its trainers and stores nothing
            stopped = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (stopped)
        return false;
    if (!exit->exited || exit->code != 0)
        throw RuntimeError("measuring the partition modes (pitwall bench partitions --recommend) failed: " +
                           exit->describe() + "; the end of " + printable(log) + ":\n" + fileTail(log));
    return true;
}

} // namespace pitwall
