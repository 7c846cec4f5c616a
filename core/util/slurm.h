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
    std::string nodeList; // SLURM_STEP_NODELIST (SLURM_JOB_NODELIST in a batch script), as Slurm compresses it
};

// nullopt outside a Slurm job (no SLURM_JOB_ID).
std::optional<SlurmTask> slurmTask();

// " (slurm job J.S task R of N)" for a task of a step, " (slurm job J)" in a batch script, "" outside Slurm: what a
// worker adds to its identity so that a trial names the task that ran it.
std::string slurmTaskLabel();

// ---- one training run over the tasks of a step (`srun -n N pitwall train ...`) ----

// The task when this process is one of several tasks of a step (SLURM_STEP_ID set, SLURM_NTASKS > 1), so that
// `pitwall train` is one rank of a data-parallel run; nullopt otherwise, and also when PITWALL_SLURM_WORLD=0 (what
// a `pitwall worker` sets for the trial commands it starts, which inherit its task's variables).
std::optional<SlurmTask> slurmTrainingTask();
// Sets PITWALL_SLURM_WORLD=0 in this process, so that the processes it starts never take themselves for ranks.
void keepChildrenOutOfSlurmWorld();

// The first host name of a Slurm host list: "gpu[003-010,12],cpu1" gives "gpu003", "node7,node9" gives "node7".
// InputError for an empty or malformed list.
std::string firstSlurmHost(const std::string& nodeList);

// Where the ranks of a Slurm training run meet: a TCP store on the step's first host (rank 0 runs there with
// Slurm's block and cyclic distributions) and a port derived from the job and step ids (29500 + (job % 4000) * 8 +
// step % 8, so concurrent steps and jobs rarely collide). MASTER_ADDR and MASTER_PORT override them, as for
// torchrun. InputError for a MASTER_PORT that is not a port number.
struct SlurmRendezvous {
    std::string host;
    int port = 0;
};
SlurmRendezvous slurmRendezvous(const SlurmTask& task);

// A task that sees several GPUs (CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES lists more than
// one) keeps only the one of its local rank (entry localRank modulo the count), so that the ranks on a node use
// different devices. Call before anything initialises the GPU runtime. Returns what it set, "" when nothing.
std::string narrowVisibleDevicesToTask(const SlurmTask& task);

} // namespace pitwall
