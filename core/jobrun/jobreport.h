#pragma once
// Reading jobs for a front end (`pitwall jobs list|show|log`, the window): opening the store so that vanished
// jobs are shown as failed, the jobs table, one job's details, and a job's log followed until the job ends.

#include "core/store/jobstore.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace pitwall {

// The job store of the results file `db`, open read-only: reading jobs needs no write access (a read-only folder or
// mount) and creates no tables. Vanished jobs are first recorded as failed where the file and its folder can be
// written (else they are shown as their record says). InputError when there is no such file.
std::unique_ptr<JobStore> openJobStoreForReading(const std::string& db);

// Records the vanished jobs among `jobs` (jobVanishedReason at `now`) of the results file `db` as failed, where the
// file and its folder can be written; nothing otherwise (a read-only folder or mount: they are shown as their
// record says). Returns whether any record changed. Opens the file to write only when one has vanished.
bool reapVanishedJobs(const std::string& db, const std::vector<JobRecord>& jobs, double now);

// The job store of the results file `db` for `pitwall jobs stop|resume`, which change jobs. InputError when there is
// no such file, or when it (or its folder, or its mount) cannot be written, naming it.
std::unique_ptr<JobStore> openJobStoreForWriting(const std::string& db);

// The job `id` of the store; InputError naming the store when there is none.
JobRecord requireJob(JobStore& store, std::int64_t id);

// What a job says in one line: its error once it has ended with one, else its progress message, else the studies
// it links to ("study a, b"); may be empty.
std::string jobMessage(const JobRecord& job);

// The jobs as `jobs list --json` prints them: an array of jobToJson objects (elapsed to `now`).
Json jobsJson(const std::vector<JobRecord>& jobs, double now);

// The jobs as an aligned table: ID, Kind, State, Progress, Elapsed (to `now`), ETA, Host, PID, Message.
std::string jobsTableText(const std::vector<JobRecord>& jobs, double now);

// One job's record as lines: command, folder, process, times, progress, error, log and links.
std::string jobDetailsText(const JobRecord& job, double now);

// Copies the job's log file to `out`; with `follow`, keeps copying new output until the job has ended or
// vanished (jobVanishedReason), polling the store. InputError when the log cannot be read and `follow` is not set.
void copyJobLog(JobStore& store, std::int64_t id, std::ostream& out, bool follow);

} // namespace pitwall
