#pragma once
// The SQL behind JobStore, one implementation per store backend (SQLite: sqlitejobs.cpp, PostgreSQL: pgjobs.cpp).
// JobStore (jobstore.h) keeps the rules (what a state change means, the messages); a backend runs one short
// transaction per call and reports what it found.

#include "core/store/jobstore.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pitwall::store_internal {

class JobBackend {
public:
    virtual ~JobBackend() = default;

    // The next id after every id given so far (also those of removed jobs), and its row.
    virtual std::int64_t create(const std::string& kind, const Json& spec, JobState state, std::int64_t pid,
                                std::optional<std::int64_t> processStart, double now, const std::string& logFile) = 0;
    virtual void setLogFile(std::int64_t id, const std::string& logFile) = 0;
    virtual void setSpecField(std::int64_t id, const std::string& key, const Json& value) = 0;
    // Takes over a job waiting for its process (queued, or stopping while queued); false when it is not waiting.
    virtual bool start(std::int64_t id, std::int64_t pid, std::optional<std::int64_t> processStart, double now) = 0;
    // The job's state as stored, nullopt when there is no such job.
    virtual std::optional<std::string> stateOf(std::int64_t id) = 0;
    // Heartbeat and progress of a running or stopping job; returns its state afterwards (nullopt: no such job).
    virtual std::optional<std::string> heartbeat(std::int64_t id, double now, double fraction,
                                                 const std::string& message, std::optional<double> eta) = 0;
    virtual bool requestStop(std::int64_t id) = 0;
    virtual void finish(std::int64_t id, JobState state, double now, std::optional<int> exitCode,
                        const std::string& error) = 0;
    // Back to queued when cancelled or failed, the time it ran so far added to its spec's kSecondsBeforeKey; false
    // when the job was in no such state.
    virtual bool requeue(std::int64_t id, const Json& spec, double now, const std::string& logFile) = 0;
    virtual void link(std::int64_t id, const std::string& kind, const std::string& ref) = 0;
    virtual void remove(std::int64_t id) = 0;
    virtual std::optional<JobRecord> job(std::int64_t id) = 0;
    virtual std::vector<JobRecord> jobs(bool includeEnded) = 0;
    // Fails the job as vanished with `reason` unless it changed since `seen` was read; returns rows changed.
    virtual int markVanished(const JobRecord& seen, double now, const std::string& reason) = 0;
};

// `path`: an SQLite results file (opening it validates it and applies pending migrations).
std::unique_ptr<JobBackend> sqliteJobBackend(const std::string& path, OpenMode mode);
// `location`: a PostgreSQL results database (opening it validates it and creates the tables).
std::unique_ptr<JobBackend> pgJobBackend(const std::string& location, OpenMode mode);

// A job's spec_json as a record's spec: the time it ran before its latest resume taken out (into secondsBefore).
void readJobSpec(JobRecord& job, const std::string& specJson);

} // namespace pitwall::store_internal
