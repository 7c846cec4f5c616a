#include "core/util/slurm.h"

#include <cstdlib>

namespace pitwall {

namespace {

std::string variable(const char* name)
{
    const char* value = std::getenv(name);
    return value ? value : "";
}

int number(const char* name, int fallback)
{
    const std::string text = variable(name);
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    return text.empty() || *end != '\0' ? fallback : static_cast<int>(value);
}

} // namespace

std::optional<SlurmTask> slurmTask()
{
    SlurmTask task;
    task.jobId = variable("SLURM_JOB_ID");
    if (task.jobId.empty())
        return std::nullopt;
    task.stepId = variable("SLURM_STEP_ID");
    task.rank = number("SLURM_PROCID", 0);
    task.localRank = number("SLURM_LOCALID", 0);
    task.node = number("SLURM_NODEID", 0);
    task.tasks = number("SLURM_NTASKS", 1);
    return task;
}

std::string slurmTaskLabel()
{
    const auto task = slurmTask();
    if (!task)
        return {};
    if (task->stepId.empty())
        return " (slurm job " + task->jobId + ")";
    return " (slurm job " + task->jobId + "." + task->stepId + " task " + std::to_string(task->rank) + " of " +
           std::to_string(task->tasks) + ")";
}

} // namespace pitwall
