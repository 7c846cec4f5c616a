#include "core/engine/train/slurmtraining.h"

#include "core/config/configargs.h"
#include "core/devices/devices.h"
#include "core/util/cancel.h"
#include "core/util/error.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace pitwall::engine {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(200);
// How long the other ranks wait for rank 0's next seed: it may first synthesise the data.
constexpr auto kLaunchWait = std::chrono::hours(2);
// How long rank 0 keeps the store up for the others to read that it is done.
constexpr auto kFarewellWait = std::chrono::seconds(30);
constexpr char kFailedPrefix[] = "pitwall/failed/";

std::string launchKey(int k)
{
    return "pitwall/launch/" + std::to_string(k);
}

std::string text(const std::vector<std::uint8_t>& bytes)
{
    return {bytes.begin(), bytes.end()};
}

void put(c10d::Store& store, const std::string& key, const std::string& value)
{
    store.set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
}

// The reason a rank other than `self` gave for failing, if one did.
std::optional<std::string> otherFailure(c10d::Store& store, int tasks, int self)
{
    for (int r = 0; r < tasks; ++r)
        if (r != self && store.check({kFailedPrefix + std::to_string(r)}))
            return "rank " + std::to_string(r) + " of " + std::to_string(tasks) +
                   " failed: " + text(store.get(kFailedPrefix + std::to_string(r)));
    return std::nullopt;
}

class Meeting {
public:
    Meeting(const SlurmTask& task, const SlurmRendezvous& where) : m_task(task), m_where(where)
    {
        c10d::TCPStoreOptions options;
        options.port = static_cast<std::uint16_t>(where.port);
        options.isServer = task.rank == 0;
        options.waitWorkers = false;
        options.timeout = std::chrono::minutes(5);
        try {
            m_store = c10::make_intrusive<c10d::TCPStore>(where.host, options);
        } catch (const std::exception& e) {
            throw RuntimeError(std::string(task.rank == 0 ? "rank 0 cannot serve"
                                                          : "rank " + std::to_string(task.rank) + " cannot reach") +
                               " the ranks' meeting point " + address() + " (" + e.what() +
                               "); when the port is taken, set MASTER_PORT to a free one for every task");
        }
    }

    c10d::Store& store() { return *m_store; }
    std::string address() const { return m_where.host + ":" + std::to_string(m_where.port); }
    std::string rendezvous(int seedIndex) const { return "tcp://" + address() + "/seed-" + std::to_string(seedIndex); }

    // Polls for `key` (or another rank's failure) until `deadline`; false when cancelled first.
    bool await(const std::string& key, Clock::duration wait, const CancelToken* cancel)
    {
        const auto deadline = Clock::now() + wait;
        for (;;) {
            bool present = false;
            try {
                present = m_store->check({key});
            } catch (const std::exception& e) {
                throw RuntimeError("rank 0 (" + address() + ") went away: " + e.what());
            }
            if (present)
                return true;
            if (auto failure = otherFailure(*m_store, m_task.tasks, m_task.rank))
                throw RuntimeError(*failure);
            if (cancel && cancel->requested())
                return false;
            if (Clock::now() > deadline)
                throw RuntimeError("rank " + std::to_string(m_task.rank) + " waited too long for '" + key + "' at " +
                                   address());
            std::this_thread::sleep_for(kPoll);
        }
    }

    // Records this rank's failure for the others, and the better reason when another rank failed first.
    std::string failed(const std::exception& e)
    {
        try {
            put(*m_store, kFailedPrefix + std::to_string(m_task.rank), e.what());
            std::this_thread::sleep_for(std::chrono::milliseconds(500)); // the rank that failed first says so
            if (auto failure = otherFailure(*m_store, m_task.tasks, m_task.rank))
                return *failure + " (here: " + e.what() + ")";
            if (m_task.rank == 0)
                return std::string(e.what()) + " (no other rank gave a reason: one may have been killed, by scancel, "
                                               "for memory or with its node)";
        } catch (const std::exception&) {
            // the store is gone with rank 0: our own reason is all there is
        }
        return e.what();
    }

private:
    SlurmTask m_task;
    SlurmRendezvous m_where;
    c10::intrusive_ptr<c10d::TCPStore> m_store;
};

// Rank 0 keeps the meeting point up until every other rank has read that it is done.
void farewell(Meeting& meeting, const SlurmTask& task, Clock::duration wait = kFarewellWait)
{
    for (int r = 1; r < task.tasks; ++r)
        meeting.await("pitwall/left/" + std::to_string(r), wait, nullptr);
}

// Rank 0: the experiment as `pitwall train` runs it, each seed published before rank 0 trains it.
ExperimentResult leadExperiment(const ResolvedConfig& config, ExperimentOptions options, const SlurmTask& task,
                                Meeting& meeting)
{
    int seedIndex = 0;
    options.trainSeed = [&](const TrainRequest& request) {
        const nlohmann::json launch = {{"config", request.config->toYaml()},
                                       {"seed", request.seed},
                                       {"data_dir", request.dataDir},
                                       {"checkpoint_dir", request.checkpointDir},
                                       {"resume", request.resume}};
        put(meeting.store(), launchKey(seedIndex), launch.dump());
        TrainRequest mine = request;
        mine.rank = 0;
        mine.worldSize = task.tasks;
        mine.rendezvous = meeting.rendezvous(seedIndex++);
        try {
            return train(mine);
        } catch (const InputError& e) {
            meeting.failed(e); // the others stop with the reason; bad input stays bad input (exit 2)
            throw;
        } catch (const std::exception& e) {
            throw RuntimeError(meeting.failed(e)); // the trial's fail reason names the rank that failed first
        }
    };
    ExperimentResult result;
    try {
        result = runExperiment(config, options);
    } catch (const std::exception& e) {
        put(meeting.store(), launchKey(seedIndex), nlohmann::json{{"error", e.what()}}.dump());
        try {
            farewell(meeting, task, std::chrono::seconds(5)); // a rank that was killed never answers
        } catch (const std::exception&) {
            // a rank that failed as well has said why in its own output
        }
        throw;
    }
    put(meeting.store(), launchKey(seedIndex), nlohmann::json{{"done", true}}.dump());
    farewell(meeting, task);
    return result;
}

// Ranks 1..N-1: rank 0's seeds, one after another, until it is done.
ExperimentResult followExperiment(const ExperimentOptions& options, const SlurmTask& task, Meeting& meeting)
{
    ExperimentResult result;
    for (int seedIndex = 0;; ++seedIndex) {
        if (!meeting.await(launchKey(seedIndex), kLaunchWait, options.cancel))
            break; // cancelled between seeds
        const nlohmann::json launch = nlohmann::json::parse(text(meeting.store().get(launchKey(seedIndex))));
        if (launch.contains("error") || launch.contains("done")) {
            put(meeting.store(), "pitwall/left/" + std::to_string(task.rank), "1");
            if (launch.contains("error"))
                throw RuntimeError("rank 0 stopped the run: " + launch["error"].get<std::string>());
            return result;
        }
        const ResolvedConfig config =
            resolveConfigText(schemaWithWarnings(), launch["config"].get<std::string>(), "the config rank 0 sent");
        TrainRequest request;
        request.config = &config;
        request.storeLocation = options.storeLocation;
        request.seed = launch["seed"].get<std::int64_t>();
        request.device = options.device;
        request.dataDir = launch["data_dir"].get<std::string>();
        request.checkpointDir = launch["checkpoint_dir"].get<std::string>();
        request.resume = launch["resume"].get<bool>();
        request.rank = task.rank;
        request.worldSize = task.tasks;
        request.rendezvous = meeting.rendezvous(seedIndex);
        request.cancel = options.cancel;
        SeedResult seed{request.seed, -1, request.checkpointDir, train(request)};
        result.dataDir = request.dataDir;
        result.seeds.push_back(std::move(seed));
        if (result.seeds.back().train.cancelled)
            break;
    }
    put(meeting.store(), "pitwall/left/" + std::to_string(task.rank), "1");
    return result;
}

} // namespace

ExperimentResult runSlurmExperiment(const ResolvedConfig& config, const ExperimentOptions& options,
                                    const SlurmTask& task)
{
    if (config.getInt("training.distribution.logical_devices") > 1)
        throw InputError("training.distribution.logical_devices=" +
                         std::to_string(config.getInt("training.distribution.logical_devices")) +
                         ": under srun each task is one rank of the run (this step has " + std::to_string(task.tasks) +
                         " tasks); leave it at 1 and ask srun for one task per device");
    ExperimentOptions mine = options;
    if (mine.device.id.empty()) // the task's CPU set, as Slurm bound it
        mine.device.threads = std::max(1, static_cast<int>(processCores().size()));
    if (task.rank != 0)
        mine.reporter = {};
    Meeting meeting(task, slurmRendezvous(task));
    try {
        return task.rank == 0 ? leadExperiment(config, mine, task, meeting) : followExperiment(mine, task, meeting);
    } catch (const InputError&) {
        throw;
    } catch (const std::exception& e) {
        if (task.rank == 0)
            throw;
        throw RuntimeError(meeting.failed(e));
    }
}

} // namespace pitwall::engine
