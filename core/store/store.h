#pragma once
// The results store: studies and trials in Optuna's RDB layout (so Optuna reads Pitwall studies and Pitwall
// reads Optuna's), plus Pitwall's runs, metric series, events, artifacts and benchmark results.
//
// Store is the interface; SQLite (one file, WAL, many writer processes) is the embedded backend and
// PostgreSQL will slot in behind the same interface. Nothing here names SQLite.
//
// Threads: a Store object is used by one thread at a time; open one per thread or process. Every method
// is one short transaction; writers in other processes never make a call fail with "database is locked"
// (the backend waits and retries). Errors: InputError for bad input (unknown study, duplicate name,
// unreadable or foreign file), RuntimeError for environment failures.

#include "core/store/optunaschema.h"
#include "core/store/records.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pitwall {

enum class OpenMode {
    ReadOnly,  // never creates or changes the file; fails if it does not exist
    ReadWrite, // creates the file if missing and applies pending migrations
};

class Store {
public:
    virtual ~Store() = default;

    // --- schema -------------------------------------------------------------------------------------
    virtual SchemaInfo info() = 0;
    // Applies pending Pitwall migrations, each in its own transaction. Returns how many were applied.
    virtual int migrate() = 0;
    // Converts Optuna's tables to another revision (core/store/optunaschema.h) in one transaction; returns whether
    // anything changed. InputError, the file unchanged, for a revision Pitwall does not convert.
    virtual bool convertOptunaSchema(OptunaSchema schema) = 0;
    // Cheap counter that changes whenever any connection (any process) commits. For live views: poll
    // this, and read new rows only when it moved.
    virtual std::int64_t changeCounter() = 0;
    // Where the data lives, for messages (a file path for SQLite); empty when a backend has no such name.
    virtual std::string location() const { return {}; }
    // Throws StoreFileChangedError (core/store/storefile.h) when location() no longer names the database this
    // store opened for writing (deleted or replaced since); nothing for a read-only store. Every write checks
    // this itself; a process that mostly reads (a search watching its workers) calls it to notice in time.
    virtual void requireSameDatabase() {}
    // The store's clock, in Unix seconds: trials' start and end times and heartbeats are written in it, and the rule
    // that fails a trial whose heartbeat stopped compares them with it, so that machines whose clocks disagree share
    // one study safely. This machine's clock for a file; the server's for PostgreSQL.
    virtual double now();

    // --- studies ------------------------------------------------------------------------------------
    // Throws InputError when the name is taken.
    virtual std::int64_t createStudy(const std::string& name, const std::vector<StudyDirection>& directions) = 0;
    virtual std::optional<StudyRecord> findStudy(const std::string& name) = 0;
    // Like findStudy, but throws InputError naming the study and the known studies when it is absent.
    StudyRecord requireStudy(const std::string& name);
    virtual std::vector<StudySummary> listStudies() = 0;
    virtual void setStudyUserAttr(std::int64_t studyId, const std::string& key, const Json& value) = 0;
    virtual void setStudySystemAttr(std::int64_t studyId, const std::string& key, const Json& value) = 0;

    // --- trials -------------------------------------------------------------------------------------
    // Creates a trial with the next free number of the study (atomic across processes).
    virtual TrialRecord createTrial(std::int64_t studyId, TrialState state = TrialState::Running) = 0;
    virtual void setTrialParam(std::int64_t trialId, const std::string& name, double internalValue,
                               const Distribution& distribution) = 0;
    // Creates a RUNNING trial with its parameters and system attributes in one transaction, so a failure part
    // way (a full disk, a parameter that contradicts the study) leaves no trial behind. Returns std::nullopt
    // and creates nothing when the trial would not get `expectedNumber` (another process created a trial
    // since the caller counted). Throws what createTrial and setTrialParam throw.
    virtual std::optional<TrialRecord> createTrialWithParams(std::int64_t studyId, int expectedNumber,
                                                             const std::vector<TrialParam>& params,
                                                             const Json& systemAttrs) = 0;
    virtual void reportIntermediate(std::int64_t trialId, std::int64_t step, double value) = 0;
    // One value per objective at `step`, in one transaction: the first in Optuna's trial_intermediate_values (Optuna
    // reads it as the trial's intermediate value), the others in Pitwall's own table.
    virtual void reportIntermediates(std::int64_t trialId, std::int64_t step, const std::vector<double>& values) = 0;
    // Sets the final state; values (one per objective) are required for Complete and ignored otherwise.
    // Like Optuna 3.1, a pruned single-objective trial gets its last intermediate value as its value, and
    // Running is accepted only for a Waiting trial (it sets the start time). A finished trial cannot change.
    virtual void finishTrial(std::int64_t trialId, TrialState state, const std::vector<double>& values) = 0;
    virtual void setTrialUserAttr(std::int64_t trialId, const std::string& key, const Json& value) = 0;
    virtual void setTrialSystemAttr(std::int64_t trialId, const std::string& key, const Json& value) = 0;
    virtual void heartbeat(std::int64_t trialId) = 0;
    // Appends whole trials to a study in one transaction (an import, a copy, a large study written fast). They get
    // the next free numbers, in order and atomically across processes, with their state, times (now where a started
    // or finished trial has none), values, parameters, intermediate values (and vectors) and attributes; the
    // records' id, number, studyId and heartbeatTime are ignored. Everything is checked before anything is written:
    // InputError, nothing written, for an unknown study, a COMPLETE trial whose value count differs from the study's
    // directions or that has a NaN value, a parameter whose distribution contradicts the study's (as setTrialParam)
    // or a categorical index outside its choices. Returns the first new trial's number.
    virtual int addTrials(std::int64_t studyId, std::span<const TrialRecord> trials) = 0;
    // All trials of a study, by number, with params, values, intermediate values and attributes.
    virtual std::vector<TrialRecord> trials(std::int64_t studyId) = 0;
    // The same for the trials numbered `firstNumber` and up (a reader that keeps the finished ones before it).
    virtual std::vector<TrialRecord> trialsFrom(std::int64_t studyId, int firstNumber) = 0;
    // The same as trials(), except that a trial numbered below `summariseBelow` carries its last step's intermediate
    // value (and vector) alone, with allIntermediates false: for a reader that draws the curves of a few trials only
    // (the window), which then reads a twentieth of the rows of a study whose trials report 20 steps.
    virtual std::vector<TrialRecord> trialsSummarised(std::int64_t studyId, int summariseBelow) = 0;
    virtual std::optional<TrialRecord> trial(std::int64_t studyId, int number) = 0;
    // The trials with these numbers (any order, duplicates and absent numbers ignored), by number.
    virtual std::vector<TrialRecord> trialsNumbered(std::int64_t studyId, const std::vector<int>& numbers) = 0;
    // For a reader that keeps the trials it read (core/store/trialcache.h): the finished trials whose attributes
    // were set after revision `after` (0: since the file began), and the latest revision to pass next time. A
    // finished trial changes in no other way.
    // std::nullopt: only the latest revision (a reader about to read every trial).
    virtual TrialRevisions trialRevisionsSince(std::optional<std::int64_t> after) = 0;

    // --- runs ---------------------------------------------------------------------------------------
    // Records a started run; `run.id` is ignored and the new id returned.
    virtual std::int64_t createRun(const RunRecord& run) = 0;
    virtual void finishRun(std::int64_t runId, RunStatus status, std::optional<int> exitCode,
                           const std::string& message) = 0;
    virtual std::optional<RunRecord> run(std::int64_t runId) = 0;
    // Runs of one trial, or all runs when trialId is empty; oldest first.
    virtual std::vector<RunRecord> runs(std::optional<std::int64_t> trialId = std::nullopt) = 0;

    // --- metric series ------------------------------------------------------------------------------
    // Appends in one transaction. Use MetricsWriter for batching from a training loop.
    virtual void appendMetrics(std::span<const MetricSample> samples) = 0;
    // Rows of one run (or of every run when runId == 0) with cursor > afterCursor, oldest first, at most
    // `limit`. Pass the last row's cursor back to read only what is new.
    virtual std::vector<MetricRow> metricsSince(std::int64_t runId, std::int64_t afterCursor,
                                                std::size_t limit = 100000) = 0;

    // --- events, artifacts, benchmarks --------------------------------------------------------------
    // `time`: Unix seconds, 0 for now (a copy keeps the original time).
    virtual std::int64_t addEvent(std::int64_t runId, EventLevel level, const std::string& message,
                                  double time = 0) = 0;
    virtual std::vector<EventRecord> eventsSince(std::int64_t runId, std::int64_t afterId) = 0;
    virtual std::int64_t addArtifact(const ArtifactRecord& artifact) = 0;
    virtual std::vector<ArtifactRecord> artifacts(std::int64_t runId) = 0;
    virtual std::int64_t addBenchmark(const BenchmarkRecord& benchmark) = 0;
    // Benchmarks of one suite, or of every suite when suite is empty; oldest first.
    virtual std::vector<BenchmarkRecord> benchmarks(const std::string& suite = {}) = 0;
};

// Opens a store by location: a file path, "sqlite:///path" (Optuna's URL form), or a URL of a backend that
// is not built in (then InputError says so). Throws InputError for a missing file in ReadOnly mode, a file
// that is not a results database, or a schema newer than this Pitwall knows.
std::unique_ptr<Store> openStore(const std::string& location, OpenMode mode = OpenMode::ReadWrite);

// Whether the results database at `location` exists: the SQLite file is there, or the PostgreSQL database has tables
// (connecting to it: InputError for a wrong host, user, password or database name).
bool storeExists(const std::string& location);
// `location` as other processes and records take it: an SQLite file as an absolute path, a PostgreSQL location as
// it is.
std::string absoluteLocation(const std::string& location);

} // namespace pitwall
