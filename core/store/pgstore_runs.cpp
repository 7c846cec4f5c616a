// PgStore: Pitwall's own tables — runs, metric series, events, artifacts, benchmark results. Read methods return
// nothing (rather than failing) for a database without Pitwall tables, e.g. Optuna's opened read-only.

#include "core/store/pgstore.h"

#include "core/store/internal/joblinks.h"
#include "core/store/internal/pq.h"
#include "core/store/internal/pyjson.h"
#include "core/store/internal/trialrules.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace pitwall {

using store_internal::PqParam;
using store_internal::PqResult;

namespace {

constexpr const char* kRunColumns = "run_id, trial_id, kind, config_yaml, seed, logical_device, host, pid, "
                                    "start_time, end_time, status, exit_code, message";

RunRecord readRun(const PqResult& r, int row)
{
    RunRecord run;
    run.id = r.int64(row, 0);
    run.trialId = r.optionalInt64(row, 1);
    run.kind = r.text(row, 2);
    run.configYaml = r.text(row, 3);
    run.seed = r.int64(row, 4);
    run.logicalDevice = r.text(row, 5);
    run.host = r.text(row, 6);
    run.pid = r.int64(row, 7);
    run.startTime = r.real(row, 8);
    run.endTime = r.optionalReal(row, 9);
    run.status = parseRunStatus(r.text(row, 10)).value_or(RunStatus::Failed);
    if (auto code = r.optionalInt64(row, 11))
        run.exitCode = static_cast<int>(*code);
    run.message = r.text(row, 12);
    return run;
}

} // namespace

void PgStore::requireRun(std::int64_t runId)
{
    if (m_knownRuns.count(runId))
        return;
    if (m_db->exec("SELECT 1 FROM pitwall_runs WHERE run_id = $1", {runId}, "finding the run").rows() == 0)
        throw InputError(m_display + ": no run with id " + std::to_string(runId));
    m_knownRuns.insert(runId); // committed runs are never deleted
}

std::int64_t PgStore::createRun(const RunRecord& run)
{
    requirePitwallTables();
    return m_db->transaction([&] {
        if (run.trialId)
            trialRow(*run.trialId, false);
        const std::int64_t runId = m_db
            ->exec("INSERT INTO pitwall_runs (trial_id, kind, config_yaml, seed, logical_device, host, pid, "
                   "start_time, end_time, status, exit_code, message) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
                   "$10, $11, $12) RETURNING run_id",
                   {run.trialId, run.kind, run.configYaml, run.seed, run.logicalDevice, run.host, run.pid,
                    run.startTime > 0 ? run.startTime : nowSeconds(), run.endTime, runStatusName(run.status),
                    run.exitCode, run.message},
                   "adding the run")
            .int64(0, 0);
        store_internal::linkCurrentJob(*m_db, "run", std::to_string(runId));
        return runId;
    });
}

void PgStore::finishRun(std::int64_t runId, RunStatus status, std::optional<int> exitCode, const std::string& message)
{
    requirePitwallTables();
    m_db->transaction([&] {
        const auto updated =
            m_db->exec("UPDATE pitwall_runs SET status = $1, exit_code = $2, message = $3, end_time = $4 WHERE "
                       "run_id = $5",
                       {runStatusName(status), exitCode, message, nowSeconds(), runId}, "finishing the run");
        if (updated.affected() == 0)
            throw InputError(m_display + ": no run with id " + std::to_string(runId));
    });
}

std::optional<RunRecord> PgStore::run(std::int64_t runId)
{
    if (!m_pitwallTables)
        return std::nullopt;
    return m_db->transaction([&]() -> std::optional<RunRecord> {
        const auto r = m_db->exec(std::string("SELECT ") + kRunColumns + " FROM pitwall_runs WHERE run_id = $1",
                                  {runId}, "reading the run");
        if (r.rows() == 0)
            return std::nullopt;
        return readRun(r, 0);
    });
}

std::vector<RunRecord> PgStore::runs(std::optional<std::int64_t> trialId)
{
    if (!m_pitwallTables)
        return {};
    return m_db->transaction([&] {
        const auto r = m_db->exec(std::string("SELECT ") + kRunColumns +
                                      " FROM pitwall_runs WHERE ($1::bigint IS NULL OR trial_id = $1) ORDER BY run_id",
                                  {trialId}, "reading runs");
        std::vector<RunRecord> result;
        for (int row = 0; row < r.rows(); ++row)
            result.push_back(readRun(r, row));
        return result;
    });
}

std::int64_t PgStore::nameId(const std::string& name, std::unordered_map<std::string, std::int64_t>& pending)
{
    if (const auto it = m_nameIds.find(name); it != m_nameIds.end())
        return it->second;
    if (const auto it = pending.find(name); it != pending.end())
        return it->second;
    // The insert does nothing when another process added the name; the select then finds it.
    m_db->exec("INSERT INTO pitwall_metric_names (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", {name},
               "adding a metric name");
    const std::int64_t id =
        m_db->exec("SELECT name_id FROM pitwall_metric_names WHERE name = $1", {name}, "reading a metric name")
            .int64(0, 0);
    pending.emplace(name, id);
    return id;
}

const std::string& PgStore::nameOf(std::int64_t nameId)
{
    auto it = m_namesById.find(nameId);
    if (it == m_namesById.end()) {
        const auto r =
            m_db->exec("SELECT name FROM pitwall_metric_names WHERE name_id = $1", {nameId}, "reading a metric name");
        it = m_namesById.emplace(nameId, r.rows() > 0 ? r.text(0, 0) : std::string("?")).first;
    }
    return it->second;
}

void PgStore::appendMetrics(std::span<const MetricSample> samples)
{
    if (samples.empty())
        return;
    requirePitwallTables();
    std::unordered_map<std::string, std::int64_t> pending;
    m_db->transaction([&] {
        pending.clear();
        lockCursorTables();
        // One COPY for the whole batch, in COPY's text format (NaN as NULL, as the SQLite backend stores it).
        std::string rows;
        rows.reserve(samples.size() * 48);
        std::int64_t lastRun = 0;
        char number[32];
        for (const MetricSample& sample : samples) {
            if (sample.runId != lastRun) {
                requireRun(sample.runId);
                lastRun = sample.runId;
            }
            rows += std::to_string(sample.runId);
            rows += '\t';
            rows += std::to_string(nameId(sample.stage, pending));
            rows += '\t';
            rows += std::to_string(sample.step);
            rows += '\t';
            rows += std::to_string(nameId(sample.key, pending));
            rows += '\t';
            const PqParam value(sample.value); // NaN: NULL
            rows += value.text() ? *value.text() : std::string("\\N");
            rows += '\t';
            std::snprintf(number, sizeof number, "%.17g", sample.wallTime);
            rows += number;
            rows += '\n';
        }
        m_db->copyIn("COPY pitwall_metrics (run_id, stage_id, step, key_id, value, wall_time) FROM STDIN", rows,
                     "adding metric rows");
    });
    for (auto& [name, id] : pending) {
        m_nameIds.emplace(name, id);
        m_namesById.emplace(id, name);
    }
}

std::vector<MetricRow> PgStore::metricsSince(std::int64_t runId, std::int64_t afterCursor, std::size_t limit)
{
    if (!m_pitwallTables || limit == 0)
        return {};
    return m_db->transaction([&] {
        const auto r =
            m_db->exec("SELECT metric_id, run_id, stage_id, step, key_id, value, wall_time FROM pitwall_metrics WHERE "
                       "($1::bigint = 0 "
                       "OR run_id = $1) AND metric_id > $2 ORDER BY metric_id LIMIT $3",
                       {runId, afterCursor, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT64_MAX))},
                       "reading metric rows");
        std::vector<MetricRow> rows;
        rows.reserve(static_cast<std::size_t>(r.rows()));
        for (int row = 0; row < r.rows(); ++row) {
            MetricRow metric;
            metric.cursor = r.int64(row, 0);
            metric.sample.runId = r.int64(row, 1);
            metric.sample.stage = nameOf(r.int64(row, 2));
            metric.sample.step = r.int64(row, 3);
            metric.sample.key = nameOf(r.int64(row, 4));
            metric.sample.value = r.real(row, 5);
            metric.sample.wallTime = r.real(row, 6);
            rows.push_back(std::move(metric));
        }
        return rows;
    });
}

std::int64_t PgStore::addEvent(std::int64_t runId, EventLevel level, const std::string& message, double time)
{
    requirePitwallTables();
    return m_db->transaction([&] {
        lockCursorTables();
        requireRun(runId);
        return m_db
            ->exec("INSERT INTO pitwall_events (run_id, time, level, message) VALUES ($1, $2, $3, $4) RETURNING "
                   "event_id",
                   {runId, time > 0 ? time : nowSeconds(), eventLevelName(level), message}, "adding an event")
            .int64(0, 0);
    });
}

std::vector<EventRecord> PgStore::eventsSince(std::int64_t runId, std::int64_t afterId)
{
    if (!m_pitwallTables)
        return {};
    return m_db->transaction([&] {
        const auto r =
            m_db->exec("SELECT event_id, run_id, time, level, message FROM pitwall_events WHERE ($1::bigint = 0 "
                       "OR run_id = $1) AND event_id > $2 ORDER BY event_id",
                       {runId, afterId}, "reading events");
        std::vector<EventRecord> events;
        for (int row = 0; row < r.rows(); ++row)
            events.push_back({r.int64(row, 0), r.int64(row, 1), r.real(row, 2),
                              parseEventLevel(r.text(row, 3)).value_or(EventLevel::Info), r.text(row, 4)});
        return events;
    });
}

std::int64_t PgStore::addArtifact(const ArtifactRecord& artifact)
{
    requirePitwallTables();
    return m_db->transaction([&] {
        requireRun(artifact.runId);
        return m_db
            ->exec("INSERT INTO pitwall_artifacts (run_id, kind, path, description, time) VALUES ($1, $2, $3, $4, "
                   "$5) RETURNING artifact_id",
                   {artifact.runId, artifact.kind, artifact.path, artifact.description,
                    artifact.time > 0 ? artifact.time : nowSeconds()},
                   "adding an artifact")
            .int64(0, 0);
    });
}

std::vector<ArtifactRecord> PgStore::artifacts(std::int64_t runId)
{
    if (!m_pitwallTables)
        return {};
    return m_db->transaction([&] {
        const auto r = m_db->exec("SELECT artifact_id, run_id, kind, path, description, time FROM pitwall_artifacts "
                                  "WHERE ($1::bigint = 0 OR run_id = $1) ORDER BY artifact_id",
                                  {runId}, "reading artifacts");
        std::vector<ArtifactRecord> result;
        for (int row = 0; row < r.rows(); ++row)
            result.push_back(
                {r.int64(row, 0), r.int64(row, 1), r.text(row, 2), r.text(row, 3), r.text(row, 4), r.real(row, 5)});
        return result;
    });
}

std::int64_t PgStore::addBenchmark(const BenchmarkRecord& benchmark)
{
    requirePitwallTables();
    return m_db->transaction([&] {
        return m_db
            ->exec("INSERT INTO pitwall_benchmarks (suite, name, parameters_json, results_json, host, time) VALUES "
                   "($1, $2, $3, $4, $5, $6) RETURNING benchmark_id",
                   {benchmark.suite, benchmark.name, store_internal::pythonJsonDumps(benchmark.parameters),
                    store_internal::pythonJsonDumps(benchmark.results), benchmark.host,
                    benchmark.time > 0 ? benchmark.time : nowSeconds()},
                   "adding a benchmark result")
            .int64(0, 0);
    });
}

std::vector<BenchmarkRecord> PgStore::benchmarks(const std::string& suite)
{
    if (!m_pitwallTables)
        return {};
    return m_db->transaction([&] {
        const auto r = m_db->exec("SELECT benchmark_id, suite, name, parameters_json, results_json, host, time FROM "
                                  "pitwall_benchmarks WHERE ($1 = '' OR suite = $1) ORDER BY benchmark_id",
                                  {suite}, "reading benchmark results");
        std::vector<BenchmarkRecord> result;
        for (int row = 0; row < r.rows(); ++row)
            result.push_back({r.int64(row, 0), r.text(row, 1), r.text(row, 2),
                              store_internal::decodeStoredJson(r.text(row, 3)),
                              store_internal::decodeStoredJson(r.text(row, 4)), r.text(row, 5), r.real(row, 6)});
        return result;
    });
}

} // namespace pitwall
