#include "core/util/slurm.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <cctype>
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
    task.nodeList = variable("SLURM_STEP_NODELIST");
    if (task.nodeList.empty())
        task.nodeList = variable("SLURM_JOB_NODELIST");
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

std::optional<SlurmTask> slurmTrainingTask()
{
    auto task = slurmTask();
    if (!task || task->stepId.empty() || task->tasks < 2 || variable("PITWALL_SLURM_WORLD") == "0")
        return std::nullopt;
    return task;
}

void keepChildrenOutOfSlurmWorld()
{
    ::setenv("PITWALL_SLURM_WORLD", "0", 1);
}

std::string firstSlurmHost(const std::string& nodeList)
{
    const auto bad = [&](const std::string& why) {
        return InputError("the Slurm host list '" + nodeList + "' " + why);
    };
    // The first expression (up to a comma outside brackets), each bracket group replaced by its first number,
    // zero padding kept: "gpu[003-010]" is gpu003, "rack[2-3]-n[1-4]" is rack2-n1.
    std::string host;
    for (std::size_t i = 0; i < nodeList.size() && nodeList[i] != ','; ++i) {
        if (nodeList[i] == ']')
            throw bad("has a ']' without its '['");
        if (nodeList[i] != '[') {
            host += nodeList[i];
            continue;
        }
        const std::size_t close = nodeList.find(']', i);
        if (close == std::string::npos)
            throw bad("has no closing ']'");
        std::size_t end = i + 1;
        while (end < close && std::isdigit(static_cast<unsigned char>(nodeList[end])))
            ++end;
        if (end == i + 1)
            throw bad("has a range that does not start with a number");
        host += nodeList.substr(i + 1, end - i - 1);
        i = close;
    }
    if (host.empty() || nodeList.front() == '[')
        throw bad("names no host before its numbers");
    return host;
}

SlurmRendezvous slurmRendezvous(const SlurmTask& task)
{
    SlurmRendezvous where;
    where.host = variable("MASTER_ADDR");
    if (where.host.empty())
        where.host = firstSlurmHost(task.nodeList);
    const std::string port = variable("MASTER_PORT");
    if (!port.empty()) {
        const auto value = parseInteger(port);
        if (!value || *value < 1 || *value > 65535)
            throw InputError("MASTER_PORT='" + port + "' is not a port number (1 to 65535)");
        where.port = static_cast<int>(*value);
        return where;
    }
    const auto job = parseInteger(task.jobId).value_or(0);
    const auto step = parseInteger(task.stepId).value_or(0);
    where.port = 29500 + static_cast<int>(job % 4000) * 8 + static_cast<int>(step % 8);
    return where;
}

std::string narrowVisibleDevicesToTask(const SlurmTask& task)
{
    std::string set;
    for (const char* name : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}) {
        const std::vector<std::string> devices = split(variable(name), ',');
        if (devices.size() < 2)
            continue;
        const std::string& mine = devices[static_cast<std::size_t>(task.localRank) % devices.size()];
        ::setenv(name, mine.c_str(), 1);
        set += (set.empty() ? "" : " ") + std::string(name) + "=" + mine;
    }
    return set;
}

} // namespace pitwall
