#pragma once
// The shared backend: a PostgreSQL database that workers on many machines use at once, through libpq (one
// connection per process, shared by its store objects and threads: never a pool that grows with them).
//
// Optuna's tables are created exactly as Optuna's SQLAlchemy models create them on PostgreSQL (its enum types,
// serial ids, naive TIMESTAMP columns in UTC), so Optuna's RDBStorage shares a study with Pitwall; Pitwall's tables
// (pitwall_*) are created at the latest schema in one transaction. Trial numbers follow Optuna's rule under the same
// lock Optuna takes (the study's row, FOR UPDATE), so Pitwall and Optuna processes number trials without gaps or
// duplicates. Rows that readers follow by id (metrics, events, trial revisions) are written under one advisory lock,
// so ids become visible in increasing order and a cursor never skips a row committed late.

#include "core/store/store.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace pitwall {

namespace store_internal {
class PqConnection;
class PqParam;
} // namespace store_internal

// Whether the PostgreSQL database at `location` has any tables (a results database, or someone else's); creates
// nothing. InputError when it cannot be reached or refuses the login.
bool pgDatabaseHasTables(const std::string& location);

class PgStore final : public Store {
public:
    // Connects to the database at `location` (core/store/pglocation.h). ReadWrite creates the tables in an empty
    // database. Throws InputError when the server cannot be reached or refuses the login (nothing created), for a
    // database with tables that are neither Pitwall's nor Optuna's, for a schema newer than this build, and in
    // ReadOnly mode for an empty database.
    PgStore(const std::string& location, OpenMode mode);
    ~PgStore() override;

    std::string location() const override { return m_display; }
    // The server's clock: this machine's plus the difference measured against the server's clock_timestamp() when
    // connecting and again, by this call, once a minute (no round trip in between).
    double now() override;
    SchemaInfo info() override;
    int migrate() override;
    bool convertOptunaSchema(OptunaSchema schema) override;
    std::int64_t changeCounter() override;

    std::int64_t createStudy(const std::string& name, const std::vector<StudyDirection>& directions) override;
    std::optional<StudyRecord> findStudy(const std::string& name) override;
    std::vector<StudySummary> listStudies() override;
    void setStudyUserAttr(std::int64_t studyId, const std::string& key, const Json& value) override;
    void setStudySystemAttr(std::int64_t studyId, const std::string& key, const Json& value) override;

    TrialRecord createTrial(std::int64_t studyId, TrialState state = TrialState::Running) override;
    std::optional<TrialRecord> createTrialWithParams(std::int64_t studyId, int expectedNumber,
                                                     const std::vector<TrialParam>& params,
                                                     const Json& systemAttrs) override;
    void setTrialParam(std::int64_t trialId, const std::string& name, double internalValue,
                       const Distribution& distribution) override;
    void reportIntermediate(std::int64_t trialId, std::int64_t step, double value) override;
    void reportIntermediates(std::int64_t trialId, std::int64_t step, const std::vector<double>& values) override;
    void finishTrial(std::int64_t trialId, TrialState state, const std::vector<double>& values) override;
    void setTrialUserAttr(std::int64_t trialId, const std::string& key, const Json& value) override;
    void setTrialSystemAttr(std::int64_t trialId, const std::string& key, const Json& value) override;
    void heartbeat(std::int64_t trialId) override;
    int addTrials(std::int64_t studyId, std::span<const TrialRecord> trials) override;
    std::vector<TrialRecord> trials(std::int64_t studyId) override;
    std::vector<TrialRecord> trialsFrom(std::int64_t studyId, int firstNumber) override;
    std::vector<TrialRecord> trialsSummarised(std::int64_t studyId, int summariseBelow) override;
    std::optional<TrialRecord> trial(std::int64_t studyId, int number) override;
    std::vector<TrialRecord> trialsNumbered(std::int64_t studyId, const std::vector<int>& numbers) override;
    TrialRevisions trialRevisionsSince(std::optional<std::int64_t> after) override;

    std::int64_t createRun(const RunRecord& run) override;
    void finishRun(std::int64_t runId, RunStatus status, std::optional<int> exitCode,
                   const std::string& message) override;
    std::optional<RunRecord> run(std::int64_t runId) override;
    std::vector<RunRecord> runs(std::optional<std::int64_t> trialId = std::nullopt) override;

    void appendMetrics(std::span<const MetricSample> samples) override;
    std::vector<MetricRow> metricsSince(std::int64_t runId, std::int64_t afterCursor,
                                        std::size_t limit = 100000) override;

    std::int64_t addEvent(std::int64_t runId, EventLevel level, const std::string& message,
                          double time = 0) override;
    std::vector<EventRecord> eventsSince(std::int64_t runId, std::int64_t afterId) override;
    std::int64_t addArtifact(const ArtifactRecord& artifact) override;
    std::vector<ArtifactRecord> artifacts(std::int64_t runId) override;
    std::int64_t addBenchmark(const BenchmarkRecord& benchmark) override;
    std::vector<BenchmarkRecord> benchmarks(const std::string& suite = {}) override;

private:
    struct TrialRow {
        std::int64_t studyId = 0;
        int number = 0;
        TrialState state = TrialState::Running;
    };
    void requireWritable() const;
    void requirePitwallTables();
    void measureClock(); // a transaction of its own
    // Within a transaction: the server's clock from the last measurement's offset.
    double serverClock() const;
    void requireRun(std::int64_t runId);
    void lockCursorTables(); // inside a write transaction: see the header comment
    TrialRow trialRow(std::int64_t trialId, bool requireUnfinished);
    std::vector<StudyDirection> directionsOf(std::int64_t studyId);
    void readStudyAttrs(StudyRecord& study);
    void setAttr(const char* table, const char* ownerColumn, std::int64_t ownerId, const std::string& key,
                 const Json& value);
    void upsertAttr(const char* table, const char* ownerColumn, std::int64_t ownerId, const std::string& key,
                    const Json& value);
    TrialRecord insertTrial(std::int64_t studyId, TrialState state);
    void upsertTrialParam(std::int64_t trialId, const std::string& name, double internalValue,
                          const Distribution& distribution);
    void requireSameKind(std::int64_t studyId, const std::string& name, const Distribution& distribution);
    void insertWholeTrial(std::int64_t studyId, const TrialRecord& trial, double now);
    void insertValue(const char* sql, std::int64_t trialId, std::int64_t key, double value);
    void insertVectorValue(std::int64_t trialId, std::int64_t step, std::size_t objective, double value);
    // The trials of a study matching `where` (SQL on the alias t, with $1 the study and $2 the argument); those
    // numbered below `summariseBelow` with their last step's intermediate values alone (trialsSummarised).
    std::vector<TrialRecord> loadTrials(std::int64_t studyId, const std::string& where,
                                        const std::optional<std::string>& argument,
                                        std::optional<int> summariseBelow = std::nullopt);
    void readIntermediates(const std::string& filter, const std::vector<store_internal::PqParam>& params,
                           bool lastOnly, std::vector<TrialRecord>& records,
                           const std::unordered_map<std::int64_t, std::size_t>& indexOf);
    std::int64_t nameId(const std::string& name, std::unordered_map<std::string, std::int64_t>& pending);
    const std::string& nameOf(std::int64_t nameId);
    int paretoFrontSize(const StudyRecord& study);

    std::string m_display; // the location without its password
    OpenMode m_mode;
    std::shared_ptr<store_internal::PqConnection> m_db; // this process's one connection to the database
    bool m_pitwallTables = false;
    std::unordered_map<std::string, std::int64_t> m_nameIds;
    std::unordered_map<std::int64_t, std::string> m_namesById;
    std::unordered_set<std::int64_t> m_knownRuns;
    double m_clockOffset = 0;     // the server's clock minus this machine's
    double m_offsetMeasured = -1; // this machine's time of the last measurement (-1: none yet)
};

} // namespace pitwall
