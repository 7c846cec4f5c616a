#pragma once
// The embedded backend: one SQLite file in WAL mode that many worker processes write at once.
// Optuna's tables keep Optuna 3.1's exact layout and encodings; Pitwall's tables are named pitwall_*.
// Optuna's DATETIME columns hold UTC text ("YYYY-MM-DD HH:MM:SS.ffffff"); Optuna 3.1 itself writes local time
// (datetime.now()), which is the same on the UTC hosts Pitwall runs on and off by the UTC offset elsewhere.

#include "core/store/store.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace pitwall {

namespace store_internal {
class Connection;
}

// The file behind a location that openStore() accepts (a path or sqlite:///path); InputError for other backends
// and for names that SQLite would not read as a file (":memory:", a "file:" URI).
std::string sqliteFilePath(const std::string& location);

// Whether opening ReadWrite applies pending Pitwall migrations. No is for tools and tests that build files of
// an older schema (see migrateTo()).
enum class AutoMigrate { Yes, No };

class SqliteStore final : public Store {
public:
    // Opens `path` (a plain file path). Throws InputError for a missing file in ReadOnly mode, a file that is
    // not SQLite, an SQLite file with foreign tables, or a Pitwall schema newer than this build.
    SqliteStore(const std::string& path, OpenMode mode, AutoMigrate autoMigrate = AutoMigrate::Yes);
    ~SqliteStore() override;

    // The size a writing connection cuts the WAL file back to when the WAL restarts (PRAGMA journal_size_limit):
    // four times what SQLite's automatic checkpoint lets it reach between checkpoints (1,000 pages of 4 KiB).
    static constexpr std::int64_t kWalSizeLimitBytes = 16 * 1024 * 1024;

    // Applies pending migrations up to `version` (at most the latest). Returns how many were applied.
    int migrateTo(int version);
    std::string location() const override { return m_path; }
    void requireSameDatabase() override;

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
    int paretoFrontSize(const StudyRecord& study); // inside a read transaction
    void requireWritable() const;
    // False for a file without Pitwall tables (an Optuna file opened ReadOnly); re-checked while false.
    bool hasPitwallTables();
    void requirePitwallTables();
    void requireRun(std::int64_t runId);
    // Trial row for an update; throws InputError when it does not exist or (with requireUnfinished) finished.
    struct TrialRow {
        std::int64_t studyId = 0;
        int number = 0;
        TrialState state = TrialState::Running;
    };
    TrialRow trialRow(std::int64_t trialId, bool requireUnfinished);
    std::vector<StudyDirection> directionsOf(std::int64_t studyId);
    void setAttr(const char* table, const char* ownerColumn, std::int64_t ownerId, const std::string& key,
                 const Json& value);
    // The writes of createTrial, setTrialParam and setAttr, inside the caller's write transaction.
    TrialRecord insertTrial(std::int64_t studyId, TrialState state);
    void upsertTrialParam(std::int64_t trialId, const std::string& name, double internalValue,
                          const Distribution& distribution);
    // Throws InputError when `distribution` contradicts what the study recorded for the parameter `name`.
    void requireSameKind(std::int64_t studyId, const std::string& name, const Distribution& distribution);
    void insertWholeTrial(std::int64_t studyId, int number, const TrialRecord& trial, double now);
    void upsertAttr(const char* table, const char* ownerColumn, std::int64_t ownerId, const std::string& key,
                    const Json& value);
    // One trial (`number`), every trial numbered `firstNumber` and up, or the trials numbered in `numbers` (a JSON
    // array); all empty: every trial. Those numbered below `summariseBelow` get their last step's intermediate values
    // alone (trialsSummarised).
    std::vector<TrialRecord> loadTrials(std::int64_t studyId, std::optional<int> number,
                                        std::optional<int> firstNumber = std::nullopt,
                                        std::optional<std::string> numbers = std::nullopt,
                                        std::optional<int> summariseBelow = std::nullopt);
    std::int64_t nameId(const std::string& name, std::unordered_map<std::string, std::int64_t>& pending);
    const std::string& nameOf(std::int64_t nameId);

    std::string m_path;
    OpenMode m_mode;
    std::unique_ptr<store_internal::Connection> m_db;
    int m_pitwallVersion = 0;
    // Committed rows never change their ids, so these caches stay valid for the connection's lifetime.
    std::unordered_map<std::string, std::int64_t> m_nameIds;
    std::unordered_map<std::int64_t, std::string> m_namesById;
    std::unordered_set<std::int64_t> m_knownRuns;
};

} // namespace pitwall
