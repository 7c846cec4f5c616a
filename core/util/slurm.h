#pragma once
// The Slurm task this process is, from the environment srun gives every task (SLURM_JOB_ID, SLURM_STEP_ID,
// SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_NTASKS). Slurm's CPU binding reaches Pitwall through the
// process's CPU set (processCores() in core/util/process.h) and its GPUs through CUDA_VISIBLE_DEVICES /
// ROCR_VISIBLE_DEVICES, which the task inherits.

#include <optional>
#include <string>

namespace pitwall {

struct SlurmTask {
    std::string jobId;
    std::string stepId; // empty in a batch script outside srun
    int rank = 0;       // SLURM_PROCID: this task among all of the step's tasks
    int localRank = 0;  // SLURM_LOCALID: among the step's tasks on this node
    int node = 0;       // SLURM_NODEID
    int tasks = 1;      // SLURM_NTASKS
};

// nullopt outside a Slurm job (no SLURM_JOB_ID).
std::optional<SlurmTask> slurmTask();

// " (slurm job J.S task R of N)" for a task of a step, " (slurm job J)" in a batch script, "" outside Slurm: what a
// worker adds to its identity so that a trial names the task that ran it.
std::string slurmTaskLabel();

} // namespace pitwall
