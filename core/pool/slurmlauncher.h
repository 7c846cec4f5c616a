#pragma once
// `pitwall hpo --launcher slurm`: the search's workers as one Slurm job instead of processes on this machine. The
// launcher writes a batch script (<logDir>/slurm-workers.sh: `srun pitwall worker --db ... --study ...`, one
// worker per task), submits it with sbatch (--ntasks, --job-name, --output into the log folder, then the user's
// --slurm-args, which win), and follows the job and the study until the job ends: the same PoolEvents and
// PoolStatus as the worker pool (poolevents.h), read from the store. Each worker binds to its task's CPU set and
// GPU and fails other workers' trials whose heartbeat stopped (a task killed mid-trial); the search goes on.
// Stopping (the cancel token) cancels the job with scancel: Slurm sends every task SIGTERM, each worker ends its
// trial as FAIL 'cancelled' and exits; the launcher waits for the job to leave the queue.
//
// Slurm's tools (sbatch, scontrol, scancel) run through a ToolRunner, from PATH; SLURM_CONF and the rest of the
// environment are Slurm's own. Threads: one thread.

#include "core/devices/toolrunner.h"
#include "core/pool/poolevents.h"
#include "core/pool/trialchanges.h"
#include "core/util/cancel.h"

#include <functional>
#include <string>
#include <vector>

namespace pitwall {

struct SlurmLaunchOptions {
    std::string storeLocation;
    std::string studyName;
    std::vector<std::string> workerCommand; // one worker's argv (argv[0] a path every node can run)
    int tasks = 1;                          // --ntasks: one worker each
    std::vector<std::string> slurmArgs;     // sbatch options after Pitwall's own
    std::string logDir;                     // the script and the job's output (slurm-<job id>.log)
    double pollIntervalSeconds = 1.0;
    double cancelWaitSeconds = 120.0; // after scancel, how long to wait for the job to leave the queue
};

class SlurmLauncher {
public:
    explicit SlurmLauncher(SlurmLaunchOptions options, const ToolRunner& runner = systemToolRunner());

    // Writes the script and submits it; returns the Slurm job id. InputError when sbatch is not on PATH or refuses
    // the job (its message: a bad --slurm-args, an unknown partition), RuntimeError when the script cannot be
    // written.
    std::string submit();
    // The job as scontrol shows it: its state (PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, ...; "" once Slurm has
    // forgotten the job), its tasks and its nodes.
    struct JobInfo {
        std::string state;
        std::string tasks; // NumTasks
        std::string nodes; // NodeList, "(null)" while pending
        std::string describe() const; // "RUNNING: 4 task(s) on gpu[01-02]"
    };
    JobInfo jobInfo() const;
    const std::string& jobId() const { return m_jobId; }
    std::string logFile() const;

    // submit(), then follow the study and the job every pollIntervalSeconds until the job ends; `cancel` (may be
    // null) turns into scancel. `onSubmitted` gets the job id first. The status is `finished` when the job ended, with
    // `error` set when it ended before the study had its trials (the job's state and the tail of its log).
    PoolStatus run(const CancelToken* cancel, const std::function<void(const std::string&)>& onSubmitted,
                   const std::function<void(const PoolEvent&)>& onEvent = {},
                   const std::function<void(const PoolStatus&)>& onStatus = {});

private:
    SlurmLaunchOptions m_options;
    const ToolRunner& m_runner;
    std::string m_jobId;
    TrialChanges m_changes;
};

// A word as a POSIX shell reads it back unchanged: bare when it has only safe characters, else in single quotes.
std::string shellWord(const std::string& word);

} // namespace pitwall
