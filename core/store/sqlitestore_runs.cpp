// SqliteStore: Pitwall's own tables — runs, metric series, events, artifacts, benchmark results.
// Read methods return nothing (rather than failing) for a file without Pitwall tables, e.g. an Optuna file
// opened read-only.

#include "core/store/sqlitestore.h"

#include "core/store/internal/joblinks.h"
#include "core/store/internal/pyjson.h"
#include "core/store/internal/sqlite.h"
#include "core/store/internal/trialrules.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <cstdint>

namespace pitwall {

using store_internal::Statement;

namespace {

constexpr const char* kRunColumns = "run_id, trial_id, kind, config_yaml, seed, logical_device, host, pid, "
                                    "start_time, end_time, status, exit_code, message";

RunRecord readRun(const Statement& row)
{
    RunRecord run;
    run.id = row.int64(0);
    run.trialId = row.optionalInt64(1);
    run.kind = row.text(2);
    run.configYaml = row.text(3);
    run.seed = row.int64(4);
    run.logicalDevice = row.text(5);
    run.host = row.text(6);
    run.pid = row.int64(7);
    run.startTime = row.real(8);
    run.endTime = row.optionalReal(9);
    run.status = parseRunStatus(row.text(10)).value_or(RunStatus::Failed);
    if (auto code = row.optionalInt64(11))
        run.exitCode = static_cast<int>(*code);
    run.message = row.text(12);
    return run;
}

Json parseStoredJson(const std::string& text)
{
    return store_internal::decodeStoredJson(text);
}

} // namespace

void SqliteStore::requireRun(std::int64_t runId)
{
    if (m_knownRuns.count(runId))
        return;
    auto statement = m_db->cached("SELECT 1 FROM pitwall_runs WHERE run_id = ?");
    statement.bind(1, runId);
    if (!statement.step())
        throw InputError(m_path + ": no run with id " + std::to_string(runId));
    m_knownRuns.insert(runId); // committed runs are never deleted
}

std::int64_t SqliteStore::createRun(const RunRecord& run)
{
    requirePitwallTables();
    return m_db->write([&] {
        if (run.trialId)
            trialRow(*run.trialId, false);
        auto insert = m_db->cached(std::string("INSERT INTO pitwall_runs (") + kRunColumns +
                                   ") VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        insert.bind(1, run.trialId)
            .bind(2, run.kind)
            .bind(3, run.configYaml)
            .bind(4, run.seed)
            .bind(5, run.logicalDevice)
            .bind(6, run.host)
            .bind(7, run.pid)
            .bind(8, run.startTime > 0 ? run.startTime : nowSeconds())
            .bind(9, run.endTime)
            .bind(10, runStatusName(run.status))
            .bind(11, run.exitCode)
            .bind(12, run.message)
            .run();
        const std::int64_t runId = m_db->lastInsertId();
        store_internal::linkCurrentJob(*m_db, m_pitwallVersion, "run", std::to_string(runId));
        return runId;
    });
}

void SqliteStore::finishRun(std::int64_t runId, RunStatus status, std::optional<int> exitCode,
                            const std::string& message)
{
    requirePitwallTables();
    m_db->write([&] {
        auto update = m_db->cached(
            "UPDATE pitwall_runs SET status = ?, exit_code = ?, message = ?, end_time = ? WHERE run_id = ?");
        update.bind(1, runStatusName(status)).bind(2, exitCode).bind(3, message).bind(4, nowSeconds()).bind(5, runId);
        update.run();
        if (m_db->changes() == 0)
            throw InputError(m_path + ": no run with id " + std::to_string(runId));
    });
}

std::optional<RunRecord> SqliteStore::run(std::int64_t runId)
{
    if (!hasPitwallTables())
        return std::nullopt;
    return m_db->retrying([&]() -> std::optional<RunRecord> {
        auto statement = m_db->cached(std::string("SELECT ") + kRunColumns + " FROM pitwall_runs WHERE run_id = ?");
        statement.bind(1, runId);
        if (!statement.step())
            return std::nullopt;
        return readRun(statement);
    });
}

std::vector<RunRecord> SqliteStore::runs(std::optional<std::int64_t> trialId)
{
    if (!hasPitwallTables())
        return {};
    return m_db->retrying([&] {
        std::vector<RunRecord> result;
        auto statement = m_db->cached(std::string("SELECT ") + kRunColumns +
                                      " FROM pitwall_runs WHERE (?1 IS NULL OR trial_id = ?1) ORDER BY run_id");
        statement.bind(1, trialId);
        while (statement.step())
            result.push_back(readRun(statement));
        return result;
    });
}

std::int64_t SqliteStore::nameId(const std::string& name, std::unordered_map<std::string, std::int64_t>& pending)
{
    if (const auto it = m_nameIds.find(name); it != m_nameIds.end())
        return it->second;
    if (const auto it = pending.find(name); it != pending.end())
        return it->second;
    std::int64_t id = 0;
    auto select = m_db->cached("SELECT name_id FROM pitwall_metric_names WHERE name = ?");
    select.bind(1, name);
    if (select.step()) {
        id = select.int64(0);
    } else {
        m_db->cached("INSERT INTO pitwall_metric_names (name) VALUES (?)").bind(1, name).run();
        id = m_db->lastInsertId();
    }
    pending.emplace(name, id);
    return id;
}

const std::string& SqliteStore::nameOf(std::int64_t nameId)
{
    auto it = m_namesById.find(nameId);
    if (it == m_namesById.end()) {
        auto select = m_db->cached("SELECT name FROM pitwall_metric_names WHERE name_id = ?");
        select.bind(1, nameId);
        it = m_namesById.emplace(nameId, select.step() ? select.text(0) : std::string("?")).first;
    }
    return it->second;
}

void SqliteStore::appendMetrics(std::span<const MetricSample> samples)
{
    if (samples.empty())
        return;
    requirePitwallTables();
    // Names interned during an attempt become visible to the cache only once the transaction committed.
    std::unordered_map<std::string, std::int64_t> pending;
    m_db->write([&] {
        pending.clear();
        std::int64_t lastRun = 0;
        auto insert = m_db->cached("INSERT INTO pitwall_metrics (run_id, stage_id, step, key_id, value, wall_time) "
                                   "VALUES (?, ?, ?, ?, ?, ?)");
        for (const MetricSample& sample : samples) {
            if (sample.runId != lastRun) {
                requireRun(sample.runId);
                lastRun = sample.runId;
            }
            insert.bind(1, sample.runId)
                .bind(2, nameId(sample.stage, pending))
                .bind(3, sample.step)
                .bind(4, nameId(sample.key, pending))
                .bind(5, sample.value)
                .bind(6, sample.wallTime);
            insert.step();
            insert.reset();
        }
    });
    for (auto& [name, id] : pending) {
        m_nameIds.emplace(name, id);
        m_namesById.emplace(id, name);
    }
}

std::vector<MetricRow> SqliteStore::metricsSince(std::int64_t runId, std::int64_t afterCursor, std::size_t limit)
{
    if (!hasPitwallTables() || limit == 0)
        return {};
    return m_db->read([&] {
        std::vector<MetricRow> rows;
        auto statement = m_db->cached(
            runId != 0 ? "SELECT metric_id, run_id, stage_id, step, key_id, value, wall_time FROM pitwall_metrics "
                         "WHERE run_id = ?1 AND metric_id > ?2 ORDER BY metric_id LIMIT ?3"
                       : "SELECT metric_id, run_id, stage_id, step, key_id, value, wall_time FROM pitwall_metrics "
                         "WHERE metric_id > ?2 ORDER BY metric_id LIMIT ?3");
        if (runId != 0)
            statement.bind(1, runId);
        statement.bind(2, afterCursor).bind(3, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT64_MAX)));
        while (statement.step()) {
            MetricRow row;
            row.cursor = statement.int64(0);
            row.sample.runId = statement.int64(1);
            row.sample.stage = nameOf(statement.int64(2));
            row.sample.step = statement.int64(3);
            row.sample.key = nameOf(statement.int64(4));
            row.sample.value = statement.real(5);
            row.sample.wallTime = statement.real(6);
            rows.push_back(std::move(row));
        }
        return rows;
    });
}

std::int64_t SqliteStore::addEvent(std::int64_t runId, EventLevel level, const std::string& message, double time)
{
    requirePitwallTables();
    return m_db->write([&] {
        requireRun(runId);
        m_db->cached("INSERT INTO pitwall_events (run_id, time, level, message) VALUES (?, ?, ?, ?)")
            .bind(1, runId)
            .bind(2, time > 0 ? time : nowSeconds())
            .bind(3, eventLevelName(level))
            .bind(4, message)
            .run();
        return m_db->lastInsertId();
    });
}

std::vector<EventRecord> SqliteStore::eventsSince(std::int64_t runId, std::int64_t afterId)
{
    if (!hasPitwallTables())
        return {};
    return m_db->retrying([&] {
        std::vector<EventRecord> events;
        auto statement = m_db->cached("SELECT event_id, run_id, time, level, message FROM pitwall_events "
                                      "WHERE (?1 = 0 OR run_id = ?1) AND event_id > ?2 ORDER BY event_id");
        statement.bind(1, runId).bind(2, afterId);
        while (statement.step())
            events.push_back({statement.int64(0), statement.int64(1), statement.real(2),
                              parseEventLevel(statement.text(3)).value_or(EventLevel::Info), statement.text(4)});
        return events;
    });
}

std::int64_t SqliteStore::addArtifact(const ArtifactRecord& artifact)
{
    requirePitwallTables();
    return m_db->write([&] {
        requireRun(artifact.runId);
        m_db->cached("INSERT INTO pitwall_artifacts (run_id, kind, path, description, time) VALUES (?, ?, ?, ?, ?)")
            .bind(1, artifact.runId)
            .bind(2, artifact.kind)
            .bind(3, artifact.path)
            .bind(4, artifact.description)
            .bind(5, artifact.time > 0 ? artifact.time : nowSeconds())
            .run();
        return m_db->lastInsertId();
    });
}

std::vector<ArtifactRecord> SqliteStore::artifacts(std::int64_t runId)
{
    if (!hasPitwallTables())
        return {};
    return m_db->retrying([&] {
        std::vector<ArtifactRecord> result;
        auto statement = m_db->cached("SELECT artifact_id, run_id, kind, path, description, time FROM "
                                      "pitwall_artifacts WHERE (?1 = 0 OR run_id = ?1) ORDER BY artifact_id");
        statement.bind(1, runId);
        while (statement.step())
            result.push_back({statement.int64(0), statement.int64(1), statement.text(2), statement.text(3),
                              statement.text(4), statement.real(5)});
        return result;
    });
}

std::int64_t SqliteStore::addBenchmark(const BenchmarkRecord& benchmark)
{
    requirePitwallTables();
    return m_db->write([&] {
        m_db->cached("INSERT INTO pitwall_benchmarks (suite, name, parameters_json, results_json, host, time) "
                     "VALUES (?, ?, ?, ?, ?, ?)")
            .bind(1, benchmark.suite)
            .bind(2, benchmark.name)
            .bind(3, store_internal::pythonJsonDumps(benchmark.parameters))
            .bind(4, store_internal::pythonJsonDumps(benchmark.results))
            .bind(5, benchmark.host)
            .bind(6, benchmark.time > 0 ? benchmark.time : nowSeconds())
            .run();
        return m_db->lastInsertId();
    });
}

std::vector<BenchmarkRecord> SqliteStore::benchmarks(const std::string& suite)
{
    if (!hasPitwallTables())
        return {};
    return m_db->retrying([&] {
        std::vector<BenchmarkRecord> result;
        auto statement = m_db->cached("SELECT benchmark_id, suite, name, parameters_json, results_json, host, time "
                                      "FROM pitwall_benchmarks WHERE (?1 = '' OR suite = ?1) ORDER BY benchmark_id");
        statement.bind(1, suite);
        while (statement.step())
            result.push_back({statement.int64(0), statement.text(1), statement.text(2),
                              parseStoredJson(statement.text(3)), parseStoredJson(statement.text(4)), statement.text(5),
                              statement.real(6)});
        return result;
    });
}

} // namespace pitwall
