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

// The job store of the results file `db`, read-only where the file cannot be written (then vanished jobs are shown
// as their record says), with vanished jobs reaped. InputError when there is no such file.
std::unique_ptr<JobStore> openJobStoreForReading(const std::string& db);

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

// Copies the job's log file to `out`; with `follow`, keeps copying new output until the job has ended (polling
// the store, reaping vanished jobs). InputError when the log cannot be read and `follow` is not set.
void copyJobLog(JobStore& store, std::int64_t id, std::ostream& out, bool follow);

} // namespace pitwall
