#pragma once
// One data-parallel training run over the tasks of a Slurm step: `srun -n N pitwall train CONFIG ...` starts N
// processes, and each is one rank (SLURM_PROCID of SLURM_NTASKS). Rank 0 serves a c10d TCP store where the ranks
// meet (slurmRendezvous: the step's first host and a port from the job and step ids, or MASTER_ADDR/MASTER_PORT),
// does what `pitwall train` does alone (the data, the study, one trial per seed, the run in the store with the
// meters of all ranks, the checkpoints) and, for each seed, hands the others what to train through that store:
// the resolved config, the seed, the data and checkpoint folders. The others train it as ranks 1..N-1 and never
// write to the store, until rank 0 says it is done (or failed, with its reason). Gloo on CPU, NCCL on GPUs, as
// training.distribution.backend says. No torch in this header.

#include "core/engine/train/experiment.h"
#include "core/util/slurm.h"

namespace pitwall::engine {

// Runs this task's part. Rank 0 returns what runExperiment returns; another rank returns its own TrainResult per
// seed (no run id) and reports no progress. InputError when the config also asks for several logical devices per
// run (under srun each task is one rank) and for a bad MASTER_PORT; RuntimeError when the ranks cannot meet (the
// port taken: set MASTER_PORT), when rank 0 fails (its reason), or when rank 0 goes away.
ExperimentResult runSlurmExperiment(const ResolvedConfig& config, const ExperimentOptions& options,
                                    const SlurmTask& task);

} // namespace pitwall::engine
